"""OAuth and OpenID Connect for servers with many people (the ``oauth`` extra).

- :class:`JwtVerifier` and :func:`protected_resource` — the MCP side: requests carry access
  tokens from the MCP authorization server, verified (signature through JWKS, issuer,
  audience, expiry); the user is (issuer, subject).

Every OAuth and OpenID step goes through authlib and joserfc (``pip install
'mcp-elicit[oauth]'``); nothing here hand-writes JWT or PKCE code.
"""

from mcp_elicit.server.oauth.metadata import MetadataError, ProviderMetadata, discover
from mcp_elicit.server.oauth.verifier import JwtVerifier, protected_resource

__all__ = ["JwtVerifier", "MetadataError", "ProviderMetadata", "discover", "protected_resource"]
