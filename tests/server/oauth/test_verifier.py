"""``JwtVerifier`` and ``protected_resource``: the MCP side of a protected server.

An issuer is played here by a small Starlette app on a loopback port serving real metadata
and a real JWKS; tokens are signed with joserfc. Each test is an attack the verifier must
refuse, or the one thing it must accept; the last ones run an ``MCPServer`` over Streamable
HTTP behind it and call it with the SDK's client.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from joserfc import jwk, jwt
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mcp_elicit.server import AccessTokenIdentity, Elicitation
from mcp_elicit.server.oauth import JwtVerifier, protected_resource
from mcp_elicit.server.oauth.metadata import forget_cached
from tests.peer_servers.secret_server import free_port
from tests.server_support import serve_on_loopback

pytestmark = pytest.mark.anyio

RESOURCE = "http://127.0.0.1/mcp"


def rsa_key(kid: str) -> jwk.RSAKey:
    return jwk.RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig", "alg": "RS256"})


class Issuer:
    """Metadata and keys, served; ``keys`` may change between requests (rotation)."""

    def __init__(self) -> None:
        self.keys = [rsa_key("k1")]
        self.url = ""
        self.jwks_fetches = 0

    def app(self) -> Starlette:
        async def metadata(request: Request) -> JSONResponse:
            return JSONResponse(
                {
                    "issuer": self.url,
                    "authorization_endpoint": f"{self.url}/auth",
                    "token_endpoint": f"{self.url}/token",
                    "jwks_uri": f"{self.url}/jwks",
                }
            )

        async def jwks(request: Request) -> JSONResponse:
            self.jwks_fetches += 1
            return JSONResponse({"keys": [k.as_dict(private=False) for k in self.keys]})

        return Starlette(
            routes=[
                Route("/.well-known/openid-configuration", metadata),
                Route("/jwks", jwks),
            ]
        )

    def token(self, key: jwk.RSAKey | None = None, alg: str = "RS256", **overrides: Any) -> str:
        now = int(time.time())
        claims = {
            "iss": self.url,
            "sub": "alice",
            "aud": RESOURCE,
            "exp": now + 300,
            "iat": now,
            "scope": "mcp files",
            "client_id": "host-app",
        }
        claims.update(overrides)
        claims = {k: v for k, v in claims.items() if v is not None}
        key = key or self.keys[0]
        return jwt.encode({"alg": alg, "kid": key.kid}, claims, key)


@pytest.fixture
async def issuer() -> AsyncIterator[Issuer]:
    forget_cached()
    made = Issuer()
    async with serve_on_loopback(made.app(), lifespan="on") as port:
        made.url = f"http://127.0.0.1:{port}"
        yield made
    forget_cached()


async def test_a_good_token_names_the_user_by_issuer_and_subject(issuer: Issuer) -> None:
    verifier = JwtVerifier(issuer.url, RESOURCE)
    token = await verifier.verify_token(issuer.token())
    assert token is not None
    assert (token.subject, token.client_id, token.resource) == ("alice", "host-app", RESOURCE)
    assert token.scopes == ["mcp", "files"]
    assert token.claims is not None and token.claims["iss"] == issuer.url


@pytest.mark.parametrize(
    ("attack", "overrides"),
    [
        ("made for another resource (no passthrough)", {"aud": "https://files.example/api"}),
        ("from another issuer", {"iss": "http://127.0.0.1:1"}),
        # Times relative to when the test runs (collection may be long before): see below.
        ("expired", {"exp": -120}),
        ("not yet valid", {"nbf": 600}),
        ("no subject", {"sub": None}),
        ("no expiry", {"exp": None}),
    ],
)
async def test_a_token_with_wrong_claims_is_refused(
    issuer: Issuer, attack: str, overrides: dict[str, Any]
) -> None:
    now = int(time.time())
    claims = {
        k: now + v if k in ("exp", "nbf") and v is not None else v for k, v in overrides.items()
    }
    verifier = JwtVerifier(issuer.url, RESOURCE)
    assert await verifier.verify_token(issuer.token(**claims)) is None, attack


async def test_a_token_signed_by_another_key_is_refused(issuer: Issuer) -> None:
    verifier = JwtVerifier(issuer.url, RESOURCE)
    forged = issuer.token(key=rsa_key("k1"))  # same kid, someone else's key
    assert await verifier.verify_token(forged) is None
    tampered = issuer.token()
    head, body, signature = tampered.split(".")
    other = jwt.encode({"alg": "RS256", "kid": "k1"}, {"sub": "bob"}, issuer.keys[0]).split(".")[1]
    assert await verifier.verify_token(f"{head}.{other}.{signature}") is None
    assert await verifier.verify_token(f"{head}.{body}.{signature}") is not None


async def test_alg_none_and_hmac_with_the_public_key_are_refused(issuer: Issuer) -> None:
    verifier = JwtVerifier(issuer.url, RESOURCE)
    good = issuer.token()
    _, body, _ = good.split(".")
    import base64

    none_header = base64.urlsafe_b64encode(json.dumps({"alg": "none"}).encode()).rstrip(b"=")
    assert await verifier.verify_token(f"{none_header.decode()}.{body}.") is None
    # HS256 keyed with the public key's JSON: the classic algorithm confusion.
    public = json.dumps(issuer.keys[0].as_dict(private=False)).encode()
    hmac_key = jwk.OctKey.import_key(public)
    confused = jwt.encode(
        {"alg": "HS256", "kid": "k1"},
        {"iss": issuer.url, "sub": "alice", "aud": RESOURCE, "exp": int(time.time()) + 60},
        hmac_key,
        algorithms=["HS256"],
    )
    assert await verifier.verify_token(confused) is None
    with pytest.raises(ValueError, match="asymmetric"):
        JwtVerifier(issuer.url, RESOURCE, algorithms=["HS256"])


async def test_rotated_keys_are_fetched_again_but_not_for_every_token(issuer: Issuer) -> None:
    verifier = JwtVerifier(issuer.url, RESOURCE)
    assert await verifier.verify_token(issuer.token()) is not None
    assert issuer.jwks_fetches == 1
    new = rsa_key("k2")
    issuer.keys.append(new)
    # Within the minute: a token with an unknown key id does not make it fetch again.
    assert await verifier.verify_token(issuer.token(key=new)) is None
    assert issuer.jwks_fetches == 1
    verifier._keys.fetched_at -= 120  # a minute and more later
    assert await verifier.verify_token(issuer.token(key=new)) is not None
    assert issuer.jwks_fetches == 2


async def test_garbage_is_refused_quietly(issuer: Issuer, caplog: pytest.LogCaptureFixture) -> None:
    verifier = JwtVerifier(issuer.url, RESOURCE)
    for junk in ["", "abc", "a.b.c", "x" * 5000]:
        assert await verifier.verify_token(junk) is None
    token = issuer.token(aud="elsewhere")
    assert await verifier.verify_token(token) is None
    assert token not in caplog.text  # a bearer credential is never logged


# -- an MCPServer behind it --------------------------------------------------------------------


async def test_a_protected_server_answers_only_requests_with_its_tokens(issuer: Issuer) -> None:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    elicitation = Elicitation(store="memory://", identity=AccessTokenIdentity())
    server = MCPServer(
        "files", **elicitation.server_options(), **protected_resource(issuer.url, resource)
    )

    @server.tool()
    async def whoami(ctx: Context) -> str:
        return elicitation.user_of(ctx)

    async with serve_on_loopback(server.streamable_http_app(), port=port):
        async with httpx2.AsyncClient() as http:
            anonymous = await http.post(resource, json={})
            assert anonymous.status_code == 401
            assert "resource_metadata=" in anonymous.headers["www-authenticate"]
            metadata = (
                await http.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp")
            ).json()
            assert metadata["resource"] == resource
            assert metadata["authorization_servers"] == [issuer.url]
            foreign = issuer.token(aud="https://files.example/api")
            refused = await http.post(
                resource, json={}, headers={"Authorization": f"Bearer {foreign}"}
            )
            assert refused.status_code == 401
        token = issuer.token(aud=resource)
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers) as authorised,
            Client(streamable_http_client(resource, http_client=authorised)) as client,
        ):
            result = await client.call_tool("whoami", {})
        text = result.content[0].text  # type: ignore[union-attr]
        assert json.loads(text) == [issuer.url, "alice"]
