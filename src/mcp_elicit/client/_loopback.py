"""The loopback redirect of a sign-in: one page on ``127.0.0.1`` that the browser comes back to.

A native app receives the authorization response on a loopback port (RFC 8252 7.3). This
server answers only ``GET /callback``, only for ``Host: 127.0.0.1:PORT`` (a page elsewhere
that rebinds its name to 127.0.0.1 still sends its own name), and takes only the response
whose ``state`` is the one this sign-in sent: anything else on this machine can reach the
port, and a forged response must not end the wait. The first matching response ends it.

What the page shows of a peer's text (the authorization server's ``error`` and
``error_description``, the server's name) is cleaned as the renderers clean it
(:func:`mcp_elicit.client.prompt_text.clean`: controls, bidi and invisible characters written
out as ``\\u{…}``), and HTML-escaped.
"""

from __future__ import annotations

import html
import secrets
import socket
from dataclasses import dataclass
from types import TracebackType

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from mcp_elicit.client.page_server import SignalFreeServer
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.i18n import _, current_language, language, negotiate

_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


@dataclass(frozen=True, slots=True)
class Redirected:
    """What the authorization server sent back: a code, or an error."""

    code: str | None
    state: str
    iss: str | None
    error: str | None = None
    error_description: str | None = None


class LoopbackCallback:
    """Serve ``http://127.0.0.1:PORT/callback`` until one response for ``state`` arrives.

    ``async with LoopbackCallback(port, state, server="...") as callback: await
    callback.arrived.wait()``; then :attr:`response`. ``OSError`` on entering when the port
    is taken."""

    def __init__(self, port: int, state: str, *, server: str) -> None:
        self.port = port
        self.state = state
        self.server = server
        self.arrived = anyio.Event()
        self.response: Redirected | None = None
        self._uvicorn: SignalFreeServer | None = None
        self._tasks: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> LoopbackCallback:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", self.port))
        except OSError:
            sock.close()
            raise
        app = Starlette(routes=[Route("/callback", self._callback, methods=["GET"])])
        config = uvicorn.Config(
            app, log_config=None, log_level="warning", access_log=False, lifespan="off"
        )
        self._uvicorn = SignalFreeServer(config)
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        self._tasks.start_soon(self._serve, sock)
        while not self._uvicorn.started:
            await anyio.sleep(0.01)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._uvicorn is not None and self._tasks is not None
        self._uvicorn.should_exit = True
        with anyio.move_on_after(3):
            while self._uvicorn.started:
                await anyio.sleep(0.02)
        self._tasks.cancel_scope.cancel()
        await self._tasks.__aexit__(None, None, None)

    async def _serve(self, sock: socket.socket) -> None:
        assert self._uvicorn is not None
        with sock:
            await self._uvicorn.serve(sockets=[sock])
        self._uvicorn.started = False

    async def _callback(self, request: Request) -> Response:
        # The person's browser comes back here: its words are in the browser's language, else
        # the host's.
        with language(negotiate(request.headers.get("accept-language"))):
            return self._answer(request)

    def _answer(self, request: Request) -> Response:
        if request.headers.get("host") != f"127.0.0.1:{self.port}":
            return _page(400, _("Not this address"), _("This page answers only at 127.0.0.1."))
        query = request.query_params
        state = query.get("state", "")
        if not secrets.compare_digest(state.encode(), self.state.encode()):
            return _page(
                400,
                _("Not this sign-in"),
                _(
                    "This response was not for the sign-in mcp-elicit is waiting for. "
                    "Nothing was done with it."
                ),
            )
        if self.response is not None:
            return _page(410, _("Already done"), _("This sign-in has already come back."))
        self.response = Redirected(
            code=query.get("code"),
            state=state,
            iss=query.get("iss"),
            error=query.get("error"),
            error_description=query.get("error_description"),
        )
        self.arrived.set()
        if self.response.error is not None:
            # The authorization server's words: cleaned as every renderer cleans a peer's text
            # (a U+202E would reverse what follows; an escape means nothing on a page but is
            # shown, not obeyed), then escaped by _page.
            why = clean(self.response.error_description or self.response.error, newlines=False)
            return _page(
                200,
                _("Not signed in"),
                _("The sign-in did not finish: {why}. You can close this tab.").format(why=why),
            )
        return _page(
            200,
            _("Signed in"),
            _(
                "You are signed in to {server}. You can close this tab and go back to "
                "where you started."
            ).format(server=clean(self.server, newlines=False)),
        )


def _page(status: int, title: str, text: str) -> Response:
    body = (
        f'<!doctype html>\n<html lang="{current_language()}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} - mcp-elicit</title></head>"
        f"<body><main><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></main></body>"
        "</html>\n"
    )
    return HTMLResponse(body, status_code=status, headers=_HEADERS)


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
