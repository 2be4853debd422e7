"""The bearer tokens the gateway's Streamable HTTP endpoint may require (``--token-file``).

Why. ``--http`` listens on a port any local process can reach; without a token, any of them
can call the upstream through the gateway, spawn its sessions, and answer held calls.

Rules:

- A token file holds one token a line (blank lines and ``#`` comments skipped), each at least
  :data:`MIN_TOKEN_LENGTH` characters. Each line is a client of its own: a held call made
  with one token cannot be answered with another (:func:`~.context.client_of`), and the
  per-client caps count each token apart. Give each host its own line.
- A request is let through only with ``Authorization: Bearer <token>`` for one of them,
  compared in constant time against every token (no early exit). Otherwise: 401 with
  ``WWW-Authenticate: Bearer realm="mcp-elicit gateway"`` (RFC 6750), and the body says how
  to send it; nothing reaches the MCP server.
- The client that got in is made the request's signed-in user the SDK's way (its
  ``AuthContextMiddleware``), named ``gateway-token-N`` after the line: so the SDK's
  ``requestState`` seal binds to it as it does to an OAuth user. The token itself is kept
  nowhere else and never logged.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.responses import JSONResponse

MIN_TOKEN_LENGTH = 16
"""Shorter tokens are refused: a token for a port on a shared machine must not be guessable."""

REALM = "mcp-elicit gateway"


class BearerTokens:
    """The tokens a client may present (the module's rules)."""

    def __init__(self, tokens: Iterable[str]) -> None:
        self._tokens = [token.encode("utf-8") for token in tokens]
        if not self._tokens:
            raise ValueError("no token given")
        for number, token in enumerate(self._tokens, start=1):
            if len(token) < MIN_TOKEN_LENGTH or any(byte <= 0x20 for byte in token):
                raise ValueError(
                    f"token {number} must be at least {MIN_TOKEN_LENGTH} characters, without spaces"
                )

    @classmethod
    def read(cls, path: str | Path) -> BearerTokens:
        """The tokens in the file at ``path`` (``OSError`` if it cannot be read,
        ``ValueError`` if it holds none, or a short one)."""
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        return cls(
            line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")
        )

    def __len__(self) -> int:
        return len(self._tokens)

    def who(self, presented: str) -> str | None:
        """The client ``presented`` names (``gateway-token-N``), or ``None``; every token is
        compared, in constant time, whatever matches first."""
        given = presented.encode("utf-8", "surrogatepass")
        found = None
        for number, token in enumerate(self._tokens, start=1):
            if hmac.compare_digest(given, token) and found is None:
                found = f"gateway-token-{number}"
        return found

    def guard(self, app: Any) -> Any:
        """``app`` (ASGI), served only to requests that present a token."""
        return _Guard(self, AuthContextMiddleware(app), app)


class _Guard:
    def __init__(self, tokens: BearerTokens, signed_in: Any, app: Any) -> None:
        self._tokens = tokens
        self._signed_in = signed_in
        self._app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)  # lifespan: the app's own start and stop
            return
        presented = _bearer(scope)
        who = None if presented is None else self._tokens.who(presented)
        if who is None:
            await _unauthorized(scope, receive, send, presented is not None)
            return
        token = AccessToken(token=who, client_id=who, scopes=[])
        await self._signed_in({**scope, "user": AuthenticatedUser(token)}, receive, send)


def _bearer(scope: Any) -> str | None:
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization":
            text: str = bytes(value).decode("latin-1")
            scheme, _, credentials = text.partition(" ")
            if scheme.lower() == "bearer" and credentials.strip():
                return credentials.strip()
            return None
    return None


async def _unauthorized(scope: Any, receive: Any, send: Any, presented: bool) -> None:
    challenge = f'Bearer realm="{REALM}"'
    if presented:  # RFC 6750 §3.1: an error code only when a token was sent
        challenge += ', error="invalid_token"'
    body = {
        "error": "invalid_token" if presented else "unauthorized",
        "error_description": (
            "This gateway requires a bearer token: send the header "
            "'Authorization: Bearer <token>' with a token from its --token-file"
        ),
    }
    response = JSONResponse(body, status_code=401, headers={"www-authenticate": challenge})
    await response(scope, receive, send)
