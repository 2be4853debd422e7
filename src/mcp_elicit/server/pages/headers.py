"""Security headers on every response the pages send, errors included.

A pure ASGI middleware rather than per-handler code, so nothing can forget them: not the
router's own 404 and 405, not the stylesheet, not a response to an exception.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_elicit.i18n import _
from mcp_elicit.server.pages import html

SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    # Only our own stylesheet; no script at all; the form posts only back to us; no framing
    # (clickjacking a password field); no <base> that could redirect relative links.
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Frame-Options", "DENY"),  # frame-ancestors for browsers that predate it
    # A flow URL is a link to someone's secret form: never hand it to another site. The HTML
    # pages narrow this to same-origin with a <meta> (html.py says why: a real browser's
    # form POST would carry ``Origin: null``); everything else keeps it.
    ("Referrer-Policy", "no-referrer"),
    # Pages hold per-user state and a CSRF token: no shared or back-button cache.
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
)


class SecurityHeaders:
    def __init__(self, app: ASGIApp, server_name: str) -> None:
        self.app = app
        self._server_name = server_name  # for the header of the error page below

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    headers[name] = value
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            if started:
                raise
            # Starlette's own error response is sent outside this middleware, bare; answer
            # here instead, then re-raise so the server still logs the failure.
            page = html.problem_page(
                base=scope.get("root_path", ""),
                server_name=self._server_name,
                title=_("Something went wrong"),
                message=_("The server could not handle this request. Try again in a moment."),
            )
            await HTMLResponse(page, status_code=500)(scope, receive, send_with_headers)
            raise
