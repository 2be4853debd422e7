"""Sticky 2025-era sessions behind a load balancer: the instance's tag in ``Mcp-Session-Id``.

A 2025-era Streamable HTTP session lives in one process: its server-to-client stream (where
a pushed ``elicitation/create`` goes) and its state are that instance's. Every request of
the session must reach it, or the SDK answers 404 and the client loses the session. The
session id is made by the SDK (a random hex string), so a load balancer cannot tell from it
where the session lives; hashing it would send most sessions elsewhere.

:class:`SessionTag` makes it tell: each response's ``Mcp-Session-Id`` goes out as
``<tag>.<id>`` (``a.5f0c…``), and a request's ``<tag>.<id>`` comes in as ``<id>``. The load
balancer routes on the part before the dot (docs/deploy.md has an nginx ``map`` that does),
and a request without a session id (``initialize``, and every 2026-07-28 request, which
needs no session) goes to any instance. A session id with another instance's tag is passed
on as it is, and the SDK answers it 404: it does not live here.

Pure ASGI, no framework: it wraps whatever app serves ``/mcp``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

HEADER: Final = b"mcp-session-id"
TAG: Final = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class SessionTag:
    """ASGI middleware: tag outgoing ``Mcp-Session-Id`` values with ``tag``, untag incoming
    ones. ``tag``: lower-case letters, digits and ``-``, at most 32 (it goes into a header
    and a load balancer's configuration)."""

    def __init__(self, app: App, tag: str) -> None:
        if not TAG.fullmatch(tag):
            raise ValueError(
                f"an instance tag is 1-32 lower-case letters, digits and '-', not {tag!r}"
            )
        self.app = app
        self.tag = tag
        self._prefix = f"{tag}.".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = [
            (name, value[len(self._prefix) :])
            if name == HEADER and value.startswith(self._prefix)
            else (name, value)
            for name, value in scope.get("headers", [])
        ]
        prefix = self._prefix

        async def tagged(message: Message) -> None:
            if message.get("type") == "http.response.start":
                message["headers"] = [
                    (name, prefix + value) if name.lower() == HEADER else (name, value)
                    for name, value in message.get("headers", [])
                ]
            await send(message)

        await self.app({**scope, "headers": headers}, receive, tagged)
