"""Each HTTP request in its own language: the one ASGI wrapper the web renderer and the hosted
pages share (their rules for choosing differ, and are theirs: ``choose``).

The request runs under ``with language(tag)``, so everything worded while it is answered is
in that language, while another request, answered at the same time, keeps its own. Every
response says that its language depends on ``Accept-Language`` (``Vary``, for any cache in
between) and, when it holds words, which language it chose (``Content-Language``).
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_elicit.i18n.choosing import language


class InLanguage:
    """``choose(accept_language)`` → the request's language tag. ``worded``: the content
    types that carry words (``Content-Language`` on those only); None: every response."""

    def __init__(
        self,
        app: ASGIApp,
        choose: Callable[[str | None], str],
        *,
        worded: tuple[str, ...] | None = None,
    ) -> None:
        self.app = app
        self.choose = choose
        self.worded = worded

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tag = self.choose(Headers(scope=scope).get("accept-language"))

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.add_vary_header("Accept-Language")
                if self.worded is None or headers.get("content-type", "").startswith(self.worded):
                    headers["Content-Language"] = tag
            await send(message)

        with language(tag):
            await self.app(scope, receive, send_with_language)
