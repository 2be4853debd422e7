"""Identities for tests only.

:class:`HeaderIdentity` trusts an ``X-Test-User`` request header for the browser side, which
any client can set: it exists so that tests can play two people in two browsers. Never use
it in a server.
"""

from __future__ import annotations

from starlette.requests import Request

from mcp_elicit.server.identity import AccessTokenIdentity

TEST_USER_HEADER = "X-Test-User"


class HeaderIdentity(AccessTokenIdentity):
    """FOR TESTS ONLY. The MCP side is the SDK's verified access token (inherited from
    :class:`AccessTokenIdentity`); the browser side is the ``X-Test-User`` header, ``None``
    when it is absent. ``login`` is where a browser without the header is sent to sign in
    (``None``: refused)."""

    def __init__(self, login: str | None = None) -> None:
        self._login = login

    async def user_of_browser(self, request: Request) -> str | None:
        return request.headers.get(TEST_USER_HEADER) or None

    def login_url(self, request: Request) -> str | None:
        return self._login
