"""The OpenID provider of the OAuth tests (``peers/oidc/provider.mjs``, oidc-provider on Node
22) does what the later tests rely on, seen from Python the way a client sees it: authlib's
``AsyncOAuth2Client`` (on httpx2) for every OAuth step, a real Chromium for the sign-in and
consent pages, and Example Files (``tests/oidc_support.py``) as the resource server that the
access tokens are for.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from authlib.common.security import generate_token
from authlib.integrations.base_client import OAuthError
from authlib.integrations.httpx_client import AsyncOAuth2Client
from joserfc import jwt
from joserfc.jwk import KeySet
from joserfc.jws import extract_compact
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata

from tests.browser_support import chromium
from tests.oidc_support import (
    FILES,
    Callback,
    FilesServer,
    Provider,
    authorize_in_browser,
    cancel_sign_in,
    serve_callback,
    serve_files,
    sign_in,
    start_provider,
    wait_until_expired,
)

pytestmark = [pytest.mark.anyio, pytest.mark.node, pytest.mark.slow]

FILES_API = "https://files.example/api"  # Example Files' resource indicator: its tokens' aud
NOT_SERVED = "http://127.0.0.1:8976/callback"  # for the tests without a browser
CLIENT_ID = "notes-app"
CLIENT_SECRET = "notes-app-secret"
SCOPE = "openid profile email offline_access files:read"


def client_metadata(redirect_uri: str) -> dict[str, Any]:
    return {
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "client_secret_post",
    }


def config(
    redirect_uri: str = NOT_SERVED, access_token_ttl: int = 300, **more: Any
) -> dict[str, Any]:
    return {
        "name": "Example ID",
        "accounts": ["alice", "bob"],
        "clients": [client_metadata(redirect_uri)],
        "registration": True,
        "resource": {
            "indicator": FILES_API,
            "scope": "files:read files:write",
            "accessTokenTTL": access_token_ttl,
        },
        **more,
    }


def notes_app(redirect_uri: str = NOT_SERVED, **options: Any) -> AsyncOAuth2Client:
    return AsyncOAuth2Client(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        token_endpoint_auth_method="client_secret_post",
        redirect_uri=redirect_uri,
        scope=SCOPE,
        code_challenge_method="S256",
        **options,
    )


async def code_flow(
    browser: Any,
    op: Provider,
    client: AsyncOAuth2Client,
    account: str,
    *,
    resource: str | None = FILES_API,
    prompt: str | None = "consent",
) -> dict[str, Any]:
    """Authorization code with PKCE S256, the browser signing in as ``account``; the token
    response. ``resource=None``: a plain OAuth client, naming no resource anywhere.
    ``prompt=consent`` keeps ``offline_access`` in the request (so a refresh token comes)."""
    verifier = generate_token(48)
    extra = {"resource": resource} if resource else {}
    asking = {"prompt": prompt} if prompt else {}
    url, state = client.create_authorization_url(
        op.authorization_endpoint, code_verifier=verifier, **extra, **asking
    )
    back = await authorize_in_browser(browser, url, client.redirect_uri, account=account)
    answer = parse_qs(urlsplit(back).query)
    assert answer["state"] == [state]
    assert answer["iss"] == [op.issuer]  # RFC 9207: the SDK's client checks it
    token: dict[str, Any] = await client.fetch_token(
        op.token_endpoint,
        authorization_response=back,
        state=state,
        code_verifier=verifier,
        **extra,
    )
    return token


async def verified(op: Provider, token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JWT's header and claims, its signature checked against the provider's JWKS."""
    async with httpx2.AsyncClient() as http:
        keys = KeySet.import_key_set((await http.get(op.jwks_uri)).json())
    decoded = jwt.decode(token, keys, algorithms=["RS256"])
    return dict(decoded.header), dict(decoded.claims)


async def verified_offline(op: Provider, token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JWT's header and claims, read without checking (``op`` is gone)."""
    compact = extract_compact(token.encode())
    return dict(compact.headers()), json.loads(compact.payload)


async def files_as(server_url: str, access_token: str) -> httpx2.Response:
    async with httpx2.AsyncClient() as http:
        return await http.get(server_url, headers={"Authorization": f"Bearer {access_token}"})


async def test_discovery_at_both_well_known_addresses() -> None:
    with start_provider(config()) as op:
        async with httpx2.AsyncClient() as http:
            oidc = (await http.get(op.metadata_url)).json()
            oauth = await http.get(f"{op.issuer}/.well-known/oauth-authorization-server")
            jwks = (await http.get(op.jwks_uri)).json()
        assert oauth.status_code == 200
        assert oauth.json() == oidc
        assert oidc["issuer"] == op.issuer and op.issuer.startswith("http://127.0.0.1:")
        assert oidc["jwks_uri"] == op.jwks_uri
        assert oidc["authorization_endpoint"] == op.authorization_endpoint
        assert oidc["token_endpoint"] == op.token_endpoint
        assert oidc["revocation_endpoint"] == op.revocation_endpoint
        assert oidc["introspection_endpoint"] == op.introspection_endpoint
        assert oidc["registration_endpoint"] == op.registration_endpoint
        assert oidc["code_challenge_methods_supported"] == ["S256"]
        assert oidc["response_types_supported"] == ["code"]
        assert oidc["authorization_response_iss_parameter_supported"] is True
        assert {"openid", "offline_access", "files:read", "files:write"} <= set(
            oidc["scopes_supported"]
        )
        assert {"authorization_code", "refresh_token"} <= set(oidc["grant_types_supported"])
        # The MCP SDK's client reads the RFC 8414 document into this model.
        sdk = OAuthMetadata.model_validate(oauth.json())
        assert str(sdk.issuer).rstrip("/") == op.issuer
        assert [k["kty"] for k in jwks["keys"]] == ["RSA"] and "d" not in jwks["keys"][0]
        assert "Example ID: listening at" in op.stderr()


async def test_requests_without_pkce_or_for_an_unknown_resource_are_refused() -> None:
    with start_provider(config()) as op:
        client = notes_app()
        url, _ = client.create_authorization_url(op.authorization_endpoint)  # no verifier
        plain, _ = client.create_authorization_url(
            op.authorization_endpoint, code_challenge="x" * 43, code_challenge_method="plain"
        )
        unknown, _ = client.create_authorization_url(
            op.authorization_endpoint,
            code_verifier=generate_token(48),
            resource="https://unknown.example/api",
        )
        async with httpx2.AsyncClient() as http:
            for refused, error, why in (
                (url, "invalid_request", "requires PKCE"),
                (plain, "invalid_request", "code_challenge_method"),
                (unknown, "invalid_target", "unknown resource"),
            ):
                answer = await http.get(refused)
                assert answer.status_code in (302, 303)
                back = parse_qs(urlsplit(answer.headers["location"]).query)
                assert back["error"] == [error], back
                assert why in back["error_description"][0], back


@dataclass
class World:
    """A provider whose client ``notes-app`` comes back to ``callback``, Example Files for
    its tokens, and a browser."""

    op: Provider
    files: FilesServer
    callback: Callback
    browser: Any

    def notes_app(self) -> AsyncOAuth2Client:
        return notes_app(self.callback.url)


@contextlib.asynccontextmanager
async def world(access_token_ttl: int = 300, **more: Any) -> AsyncIterator[World]:
    async with serve_callback() as callback:
        with start_provider(config(callback.url, access_token_ttl, **more)) as op:
            async with serve_files(op.issuer, FILES_API) as files, chromium() as browser:
                yield World(op, files, callback, browser)


@pytest.mark.browser
async def test_alice_and_bob_get_their_own_files() -> None:
    async with world() as w:
        token = await code_flow(w.browser, w.op, w.notes_app(), "alice")
        assert token["token_type"].lower() == "bearer"
        assert token["refresh_token"]  # offline_access was granted
        header, claims = await verified(w.op, token["access_token"])
        assert header["typ"] == "at+jwt"
        assert claims["iss"] == w.op.issuer
        assert claims["aud"] == FILES_API
        assert claims["sub"] == "alice"
        assert claims["client_id"] == CLIENT_ID
        assert claims["scope"] == "files:read"  # files:write was not asked for
        assert claims["exp"] - claims["iat"] == 300
        _, identity = await verified(w.op, token["id_token"])
        assert identity["sub"] == "alice" and identity["aud"] == CLIENT_ID
        assert identity["name"] == "Alice"
        assert identity["email"] == "alice@example.com"

        mine = await files_as(w.files.url, token["access_token"])
        assert mine.status_code == 200
        assert mine.json() == {"owner": "alice", "files": FILES["alice"]}

        # Without prompt=consent oidc-provider drops offline_access: no refresh token.
        bobs = await code_flow(w.browser, w.op, w.notes_app(), "bob", prompt=None)
        assert "refresh_token" not in bobs
        answer = await files_as(w.files.url, bobs["access_token"])
        assert answer.json() == {"owner": "bob", "files": FILES["bob"]}

        async with httpx2.AsyncClient() as http:
            anonymous = await http.get(w.files.url)
        assert anonymous.status_code == 401
        assert anonymous.headers["www-authenticate"] == "Bearer"
        garbage = await files_as(w.files.url, "not-a-jwt")
        assert garbage.status_code == 401
        assert w.files.received == [
            f"Bearer {token['access_token']}",
            f"Bearer {bobs['access_token']}",
            "Bearer not-a-jwt",
        ]
        assert len(w.callback.received) == 2


@pytest.mark.browser
async def test_example_files_refuses_a_token_from_another_provider() -> None:
    async with world() as w:
        with start_provider(config(w.callback.url)) as theirs:
            assert theirs.issuer != w.op.issuer
            foreign = await code_flow(w.browser, theirs, w.notes_app(), "alice")
        _, claims = await verified_offline(theirs, foreign["access_token"])
        assert claims["aud"] == FILES_API and claims["sub"] == "alice"  # all but iss and key

        answer = await files_as(w.files.url, foreign["access_token"])
        assert answer.status_code == 401
        assert answer.json()["error"] == "invalid_token"
        assert answer.headers["www-authenticate"] == 'Bearer error="invalid_token"'
        assert w.files.received == [f"Bearer {foreign['access_token']}"]

        own = await code_flow(w.browser, w.op, w.notes_app(), "alice")
        assert (await files_as(w.files.url, own["access_token"])).status_code == 200


@pytest.mark.browser
async def test_any_url_resource_and_a_token_for_another_resource_is_refused() -> None:
    # "*": any http(s) URL is a resource (a server whose port is known only later).
    files = {"indicator": FILES_API, "scope": "files:read"}
    anything = {"indicator": "*", "scope": "mcp:tools", "accessTokenTTL": 60}
    mcp = "http://127.0.0.1:8123/mcp"
    async with world(resources=[files, anything], resource=None) as w:
        client = w.notes_app()
        client.scope = "offline_access mcp:tools"
        token = await code_flow(w.browser, w.op, client, "alice", resource=mcp)
        _, claims = await verified(w.op, token["access_token"])
        assert claims["aud"] == mcp and claims["scope"] == "mcp:tools"
        assert claims["exp"] - claims["iat"] == 60
        assert (await files_as(w.files.url, token["access_token"])).status_code == 401


@pytest.mark.browser
async def test_denying_or_cancelling_gives_access_denied_and_strangers_cannot_sign_in() -> None:
    async with world() as w:
        client = w.notes_app()
        url, state = client.create_authorization_url(
            w.op.authorization_endpoint, code_verifier=generate_token(48), resource=FILES_API
        )
        back = await authorize_in_browser(
            w.browser, url, w.callback.url, account="alice", allow=False
        )
        answer = parse_qs(urlsplit(back).query)
        assert answer["error"] == ["access_denied"]
        assert answer["state"] == [state] and answer["iss"] == [w.op.issuer]
        assert "code" not in answer

        context = await w.browser.new_context()
        page = await context.new_page()
        await page.goto(url)
        async with page.expect_response(lambda r: r.request.method == "POST") as posted:
            await sign_in(page, "mallory")
        assert (await posted.value).status == 401
        assert await page.get_by_role("alert").inner_text() == "Unknown account: mallory"
        await cancel_sign_in(page)
        assert page.url.startswith(w.callback.url)
        assert parse_qs(urlsplit(page.url).query)["error"] == ["access_denied"]
        await context.close()
        assert 'refused sign-in of unknown account "mallory"' in w.op.stderr()


@pytest.mark.browser
async def test_an_expired_token_is_refused_and_a_refresh_brings_a_new_one() -> None:
    # 5 s: long enough for the refreshed token to be used before it too expires on a loaded
    # machine (CI saw a 2 s one expire between the refresh and its first use).
    async with world(access_token_ttl=5) as w:
        client = w.notes_app()
        first = await code_flow(w.browser, w.op, client, "alice")
        assert first["expires_in"] <= 5
        assert (await files_as(w.files.url, first["access_token"])).status_code == 200

        await wait_until_expired(first["access_token"])
        expired = await files_as(w.files.url, first["access_token"])
        assert expired.status_code == 401
        assert "ExpiredTokenError" in expired.json()["error_description"]

        # No resource in the refresh request: the token is for the granted one.
        second = await client.refresh_token(
            w.op.token_endpoint, refresh_token=first["refresh_token"]
        )
        assert second["access_token"] != first["access_token"]
        mine = await files_as(w.files.url, second["access_token"])  # used first, while fresh
        assert mine.status_code == 200 and mine.json()["owner"] == "alice"
        _, claims = await verified(w.op, second["access_token"])
        assert claims["aud"] == FILES_API and claims["sub"] == "alice"

        # Revocation: the refresh token (and its whole grant) is dead after it.
        refresh = second.get("refresh_token") or first["refresh_token"]
        revoked = await client.revoke_token(
            w.op.revocation_endpoint, token=refresh, token_type_hint="refresh_token"
        )
        assert revoked.status_code == 200
        looked_up = await client.introspect_token(w.op.introspection_endpoint, token=refresh)
        assert looked_up.json() == {"active": False}
        with pytest.raises(OAuthError) as refused:
            await client.refresh_token(w.op.token_endpoint, refresh_token=refresh)
        assert refused.value.error == "invalid_grant"


@pytest.mark.browser
async def test_a_dynamically_registered_public_client_works() -> None:
    async with world() as w:
        # What the MCP SDK's OAuth client sends: its OAuthClientMetadata, dumped as it does.
        metadata = OAuthClientMetadata(
            redirect_uris=[w.callback.url],  # type: ignore[list-item]  # pydantic parses it
            token_endpoint_auth_method="none",
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope="files:read offline_access",
            client_name="A registered client",
        )
        async with httpx2.AsyncClient() as http:
            answer = await http.post(
                w.op.registration_endpoint,
                json=metadata.model_dump(by_alias=True, mode="json", exclude_none=True),
            )
        assert answer.status_code == 201, answer.text
        registered = OAuthClientInformationFull.model_validate(answer.json())
        assert registered.client_id and registered.client_secret is None
        assert registered.token_endpoint_auth_method == "none"

        client = AsyncOAuth2Client(
            client_id=registered.client_id,
            token_endpoint_auth_method="none",
            redirect_uri=w.callback.url,
            scope="files:read offline_access",
            code_challenge_method="S256",
        )
        # A plain OAuth client: no resource anywhere, so the default resource.
        token = await code_flow(w.browser, w.op, client, "bob", resource=None)
        _, claims = await verified(w.op, token["access_token"])
        assert claims["aud"] == FILES_API and claims["client_id"] == registered.client_id
        assert (await files_as(w.files.url, token["access_token"])).json()["owner"] == "bob"

        # A public client's refresh token rotates; presenting the used one again is taken
        # as theft and revokes the grant, the new refresh token with it.
        fresh = await client.refresh_token(
            w.op.token_endpoint, refresh_token=token["refresh_token"]
        )
        assert fresh["refresh_token"] != token["refresh_token"]
        assert (await files_as(w.files.url, fresh["access_token"])).status_code == 200
        for used in (token["refresh_token"], fresh["refresh_token"]):
            with pytest.raises(OAuthError) as refused:
                await client.refresh_token(w.op.token_endpoint, refresh_token=used)
            assert refused.value.error == "invalid_grant"


async def test_the_provider_stops_on_sigterm() -> None:
    with start_provider(config()) as op:
        process = op.process
    assert process.returncode == 0
    with anyio.fail_after(5):
        async with httpx2.AsyncClient() as http:
            with pytest.raises(httpx2.ConnectError):
                await http.get(op.metadata_url)


def test_a_bad_config_fails_with_what_the_provider_said() -> None:
    with (
        pytest.raises(RuntimeError, match="exited before it was ready") as failed,
        start_provider({"resource": {"indicator": "files", "scope": ""}}),
    ):
        pass  # pragma: no cover
    assert 'a resource indicator must be an http(s) URL or "*", not "files"' in str(failed.value)
