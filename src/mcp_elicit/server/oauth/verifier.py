"""The MCP side of a protected server: verify the access tokens MCP requests carry.

:class:`JwtVerifier` is the SDK's ``TokenVerifier`` for JWT access tokens (RFC 9068): the
signature against the issuer's JWKS (fetched, cached, fetched again for a key id it has not
seen, at most once a minute), then ``iss`` equal to the issuer, ``aud`` holding this server's
resource URL (RFC 8707: a token made for another resource is refused, which is what stops a
token being passed through to us), ``exp`` in the future and ``nbf``/``iat`` not ahead of
now (with a little leeway for clocks). The user is (issuer, subject): the SDK's
``principal_components`` reads them from what is returned.

:func:`protected_resource` gives the ``MCPServer(...)`` arguments: the SDK's ``AuthSettings``
(the bearer middleware, the Protected Resource Metadata it serves at
``/.well-known/oauth-protected-resource``) and this verifier.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import httpx2
from joserfc import jwt
from joserfc.errors import JoseError
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

from mcp_elicit.server.oauth.metadata import KeyCache, MetadataError

logger = logging.getLogger(__name__)

ALGORITHMS = ("RS256", "PS256", "ES256", "EdDSA")
"""Asymmetric algorithms only: a verifier that took HS256 could be fooled with the public
key as an HMAC secret."""


class JwtVerifier:
    """Verifies JWT access tokens issued by ``issuer`` for ``audience`` (this server's
    resource URL). ``jwks_uri``: where the keys are; by default read from the issuer's
    metadata. ``required_scopes``: scopes every token must carry (the SDK checks them too
    when ``AuthSettings.required_scopes`` is set)."""

    def __init__(
        self,
        issuer: str,
        audience: str,
        *,
        jwks_uri: str | None = None,
        required_scopes: Sequence[str] = (),
        leeway: int = 30,
        algorithms: Sequence[str] = ALGORITHMS,
        http: httpx2.AsyncClient | None = None,
    ) -> None:
        unsafe = [a for a in algorithms if a.upper().startswith("HS") or a.lower() == "none"]
        if unsafe:
            raise ValueError(f"algorithms must be asymmetric, not {', '.join(unsafe)}")
        self.issuer = issuer
        self.audience = audience
        self.required_scopes = tuple(required_scopes)
        self._keys = KeyCache(issuer, jwks_uri=jwks_uri, http=http)
        self._leeway = leeway
        self._algorithms = list(algorithms)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's principal and scopes, or ``None`` (the SDK then answers 401)."""
        try:
            claims = await self._keys.decode(token, self._algorithms)
            self._check_claims(claims)
        except (JoseError, ValueError, MetadataError, httpx2.HTTPError) as error:
            logger.info("refused an access token: %s", _why(error))
            return None
        scopes = _scopes(claims)
        if any(s not in scopes for s in self.required_scopes):
            logger.info("refused an access token without the scopes %s", self.required_scopes)
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or ""),
            scopes=scopes,
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=str(claims["sub"]),
            claims={k: v for k, v in claims.items() if k in ("iss", "sub", "aud", "act", "azp")},
        )

    def _check_claims(self, claims: dict[str, Any]) -> None:
        registry = jwt.JWTClaimsRegistry(
            leeway=self._leeway,
            iss={"essential": True, "value": self.issuer},
            sub={"essential": True},
            exp={"essential": True},
        )
        registry.validate(claims)
        audience = claims.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience
        if not isinstance(audiences, list) or self.audience not in audiences:
            raise ValueError(f"the token is for {audience!r}, not {self.audience!r}")


def protected_resource(
    issuer: str,
    resource_url: str,
    *,
    scopes: Sequence[str] = (),
    jwks_uri: str | None = None,
    http: httpx2.AsyncClient | None = None,
) -> dict[str, Any]:
    """The ``MCPServer(...)`` arguments for a server whose requests need access tokens from
    ``issuer``, made for ``resource_url`` (this server's MCP endpoint, e.g.
    ``https://mcp.example.com/mcp``): ``auth`` (the SDK serves the Protected Resource
    Metadata, answers 401 with ``WWW-Authenticate`` pointing to it) and ``token_verifier``."""
    return {
        "auth": AuthSettings(
            issuer_url=issuer,  # type: ignore[arg-type]  # pydantic parses the URL
            resource_server_url=resource_url,  # type: ignore[arg-type]
            required_scopes=list(scopes) or None,
            validate_token_resource=True,
        ),
        "token_verifier": JwtVerifier(
            issuer, resource_url, jwks_uri=jwks_uri, required_scopes=scopes, http=http
        ),
    }


def _scopes(claims: dict[str, Any]) -> list[str]:
    scope = claims.get("scope")
    if isinstance(scope, str):
        return scope.split()
    scp = claims.get("scp")
    return [str(s) for s in scp] if isinstance(scp, list) else []


def _why(error: Exception) -> str:
    # The token itself is never logged: it is a bearer credential.
    return f"{type(error).__name__}: {getattr(error, 'description', None) or error}"
