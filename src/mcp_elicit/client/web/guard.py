"""Who may talk to the page server: only the person's own browser, holding the link.

One pure ASGI middleware in front of every route, so that nothing can forget a check:

- **The token.** Every path starts with ``/TOKEN/`` (``secrets.token_urlsafe(32)``, new for each
  renderer). Without it: 404 and nothing else, not even whether a prompt is pending. Other
  users of the machine can reach a loopback port; they cannot guess 256 bits.
- **The Host header** must be ``127.0.0.1:PORT`` or ``localhost:PORT``: a page on another site
  that rebinds its own name to 127.0.0.1 (DNS rebinding) still sends its own name as Host.
- **Writes** (POST) must be JSON (a cross-site form cannot send that without a preflight this
  server never grants) and, when the browser says where they come from (``Origin``,
  ``Sec-Fetch-Site``), come from this page.
- **Headers** on every response, refusals included: a strict Content-Security-Policy (only
  this server's own script, stylesheet and JSON; no inline code, no framing), no referrer, no
  caching, no sniffing.
"""

from __future__ import annotations

import secrets

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_elicit.i18n import _

RENDERER_SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Frame-Options", "DENY"),
    # The page's address holds the token: never send it to the sites the person opens.
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    # Other sites may not load our script or JSON as a resource of theirs.
    ("Cross-Origin-Resource-Policy", "same-origin"),
)


class Guard:
    def __init__(self, app: ASGIApp, *, token: str, port: int) -> None:
        self.app = app
        self._prefix = f"/{token}"
        self._hosts = frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})
        self._origins = frozenset(f"http://{host}" for host in self._hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan is off; there are no websockets
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in RENDERER_SECURITY_HEADERS:
                    headers[name] = value
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        # The routes see paths without the token: Starlette routes on the path after
        # ``root_path``.
        scope = dict(scope, root_path=scope.get("root_path", "") + self._prefix)
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope) -> Response | None:
        headers = Headers(scope=scope)
        if headers.get("host", "").lower() not in self._hosts:
            return PlainTextResponse(_("Forbidden: wrong Host.") + "\n", status_code=403)
        path: str = scope["path"]
        given, _slash, rest = path[1:].partition("/")
        if not secrets.compare_digest(f"/{given}".encode(), self._prefix.encode()):
            return PlainTextResponse(_("Not found.") + "\n", status_code=404)
        if not rest and not path.endswith("/"):
            # The page's links are relative to /TOKEN/: it must be loaded with the slash.
            return RedirectResponse(f"{self._prefix}/", status_code=307)
        if scope["method"] == "POST":
            media = headers.get("content-type", "").split(";")[0].strip().lower()
            origin = headers.get("origin")
            site = headers.get("sec-fetch-site")
            if media != "application/json":
                return PlainTextResponse(_("Unsupported media type.") + "\n", status_code=415)
            if (origin is not None and origin not in self._origins) or site not in (
                None,
                "same-origin",
            ):
                return PlainTextResponse(
                    _("Forbidden: not from this page.") + "\n", status_code=403
                )
        return None
