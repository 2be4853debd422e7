"""Who the user is, on the MCP side and in the browser: the same-user rule rests on this.

A flow is bound to the user who started it (``user_of_request``), and the hosted page takes
the secret only from a browser that ``user_of_browser`` says is that same user. Never a
session id alone, never anything the client claims: a session id or a client-sent name can
be replayed by whoever holds the link, which is the phishing attack URL mode must stop.

- :class:`LocalIdentity` — one user, for a stdio server or a server on loopback run by the
  person who uses it. Single-user by definition: anyone who can reach the pages is that user.
- :class:`AccessTokenIdentity` — the MCP side from the authorization context (the OAuth
  access token the SDK verified). Its browser side is left to a subclass: a later release
  signs the browser in against an OpenID provider (``login_url`` is where it will send a
  browser that is not signed in).
"""

from __future__ import annotations

import json
from typing import Any, Protocol, runtime_checkable

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import principal_components
from mcp.server.context import ServerRequestContext
from starlette.requests import Request

LOCAL_USER = "local"


@runtime_checkable
class Identity(Protocol):
    """Tells who the user is, from an MCP request and from a browser request."""

    def user_of_request(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """The authenticated user behind an MCP request, or ``None`` when there is none."""
        ...

    async def user_of_browser(self, request: Request) -> str | None:
        """The user signed in to this browser, or ``None``."""
        ...

    def login_url(self, request: Request) -> str | None:
        """Where to send a browser that is not signed in (``None``: nowhere; refuse)."""
        ...


class LocalIdentity:
    """One user, ``local``, everywhere. For stdio and loopback servers only: documented as
    single-user, because every browser that reaches the pages is taken to be that user."""

    def __init__(self, user: str = LOCAL_USER) -> None:
        self.user = user

    def user_of_request(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        return self.user

    async def user_of_browser(self, request: Request) -> str | None:
        return self.user

    def login_url(self, request: Request) -> str | None:
        return None


class AccessTokenIdentity:
    """The MCP side from the verified OAuth access token: issuer-scoped subject, else the
    client id. Subclass it and implement :meth:`user_of_browser` (and :meth:`login_url`)
    with the same naming, so one person is one user on both sides."""

    def user_of_request(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        token = get_access_token()
        if token is None:
            return None
        client_id, issuer, subject = principal_components(token)
        if subject:
            return json.dumps([issuer or "", subject], separators=(",", ":"))
        return f"client:{client_id}"

    async def user_of_browser(self, request: Request) -> str | None:
        return None  # no browser sign-in yet: every page visit is refused

    def login_url(self, request: Request) -> str | None:
        return None
