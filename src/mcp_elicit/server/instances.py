"""Routing behind a load balancer: the instance's tag in 2025-era ``Mcp-Session-Id``
(:class:`SessionTag`), and the tasks extension's ``Mcp-Name`` checked against the task a
request names (:class:`TaskNameCheck`).

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

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from mcp.shared.inbound import decode_header_value

from mcp_elicit.protocol.codes import HEADER_MISMATCH, INVALID_REQUEST

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


# -- the tasks extension's routing header ---------------------------------------------------------

TASK_ROUTED: Final = frozenset({b"tasks/get", b"tasks/update", b"tasks/cancel"})
"""The extension's requests that carry ``Mcp-Name: <taskId>`` over Streamable HTTP."""
EXTENSION_VERSION: Final = b"2026-07-28"
MAX_TASK_BODY: Final = 1 << 20
"""Bytes of a ``tasks/*`` body read to find its ``taskId`` (a ``tasks/update`` carries answers;
past this the request is refused, as no honest one is that large)."""


class TaskNameCheck:
    """ASGI middleware: a 2026-07-28 ``tasks/get``, ``tasks/update`` or ``tasks/cancel`` whose
    ``Mcp-Name`` header is not its ``params.taskId`` is answered -32020 (HTTP 400), before the
    server sees it.

    Why here: the header exists so that a load balancer can route a task's requests to the
    instance holding it (EXT §Streamable HTTP: Routing Headers). A request whose header says
    one task and whose body another would be routed by one and served for the other, so it is
    refused, as the SDK refuses a ``tools/call`` whose ``Mcp-Name`` is not its tool; the SDK
    does not know the extension's methods (design R2). Only requests whose ``Mcp-Method``
    header names one of them are read (the SDK refuses a body whose method differs from that
    header on its own); the body is then handed on unchanged."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        if (
            headers.get(b"mcp-method") not in TASK_ROUTED
            or headers.get(b"mcp-protocol-version") != EXTENSION_VERSION
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message.get("type") != "http.request":
                await self.app(scope, _replay([], message, receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_TASK_BODY:
                too_big = f"a tasks/* request over {MAX_TASK_BODY} bytes"
                await _refuse(send, None, too_big, status=413, code=INVALID_REQUEST)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        problem, request_id = _name_problem(body, headers.get(b"mcp-name"))
        if problem is not None:
            await _refuse(send, request_id, problem, status=400, code=HEADER_MISMATCH)
            return
        await self.app(scope, _replay([body], None, receive), send)


def _name_problem(body: bytes, header: bytes | None) -> tuple[str | None, Any]:
    """Why ``header`` does not route ``body`` (``None`` when it does, or when the body is not
    one request with a ``taskId``: the server says what is wrong with it)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None, None
    if not isinstance(message, dict):
        return None, None
    params = message.get("params")
    task_id = params.get("taskId") if isinstance(params, dict) else None
    if not isinstance(task_id, str):
        return None, None
    name = decode_header_value(header.decode("latin-1")) if header is not None else None
    if name == task_id:
        return None, None
    said = "is missing" if header is None else "does not match the request body's 'taskId'"
    return f"mcp-name header {said} ({message.get('method')} routes by it)", message.get("id")


def _replay(chunks: list[bytes], first: Message | None, receive: Receive) -> Receive:
    """``receive`` that gives the body read already (or the message that ended the reading)
    once, then the rest from the client."""
    pending: list[Message] = (
        [{"type": "http.request", "body": chunks[0], "more_body": False}] if chunks else []
    )
    if first is not None:
        pending.append(first)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


async def _refuse(send: Send, request_id: Any, message: str, *, status: int, code: int) -> None:
    error = {"code": code, "message": message}
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
