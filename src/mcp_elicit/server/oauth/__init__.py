"""OAuth and OpenID Connect for servers with many people (the ``oauth`` extra).

- :class:`JwtVerifier` and :func:`protected_resource` — the MCP side: requests carry access
  tokens from the MCP authorization server, verified (signature through JWKS, issuer,
  audience, expiry); the user is (issuer, subject).
- :class:`OidcIdentity` — the browser side: the hosted pages sign people in at the same
  issuer (authorization code + PKCE), so the same-user rule holds for many people.
- :func:`authorize` with :class:`OAuthProvider` — downstream OAuth: a tool gets the current
  user's token at a third party through URL mode; the token never passes through the client.

Every OAuth and OpenID step goes through authlib and joserfc (``pip install
'mcp-elicit[oauth]'``); nothing here hand-writes JWT or PKCE code.

Floors
------

As in ``mcp_elicit.server`` (``tests/test_layers.py`` reads this table too), top first:

    connect                         downstream OAuth's connect page and the provider's callback
    downstream, signin, verifier    a tool's token at a third party; browser sign-in; the MCP
                                    side's access tokens
    metadata, response, sealed      discovery and keys; a provider's answer judged (RFC 9207,
                                    error codes, its words); sealed values
    _extra                          the extra's imports
"""

from mcp_elicit.server.oauth.downstream import (
    AuthorizationFailed,
    OAuthProvider,
    ProviderToken,
    authorization_required,
    authorize,
    forget_authorization,
    stored_authorization,
)
from mcp_elicit.server.oauth.metadata import MetadataError, ProviderMetadata, discover
from mcp_elicit.server.oauth.signin import OidcIdentity
from mcp_elicit.server.oauth.verifier import JwtVerifier, protected_resource

__all__ = [
    "AuthorizationFailed",
    "JwtVerifier",
    "MetadataError",
    "OAuthProvider",
    "OidcIdentity",
    "ProviderMetadata",
    "ProviderToken",
    "authorization_required",
    "authorize",
    "discover",
    "forget_authorization",
    "protected_resource",
    "stored_authorization",
]
