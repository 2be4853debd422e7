"""MCP sessions spoken by hand over Streamable HTTP, for the tests that look at the wire itself:
:class:`RawHttp` (2025-11-25, POSTs and the GET stream) and :class:`DraftSession` (the URL-mode
draft's client on 2025-06-18)."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2

from tests.peer_servers.secret_server import HttpServer, Wire, mcp_http

PUSH = "2025-11-25"  # what RawHttp speaks
DRAFT = "2025-06-18"  # what DraftSession speaks


def sse_messages(body: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages in an SSE body (or a plain JSON one)."""
    body = body.strip()
    if body.startswith("{"):
        return [json.loads(body)]
    messages = []
    for event in re.split(r"\r?\n\r?\n", body):
        data = [line[5:].lstrip() for line in event.splitlines() if line.startswith("data:")]
        if data and "".join(data):
            messages.append(json.loads("\n".join(data)))
    return messages


class RawHttp:
    """A 2025-11-25 client written by hand: POSTs, and the GET stream the server's own
    notifications arrive on."""

    def __init__(self, server: HttpServer, wire: Wire, user: str = "alice") -> None:
        self.url = server.url
        self.http = mcp_http(user, wire)
        self.session_id: str | None = None
        self.stream: list[dict[str, Any]] = []
        self.stream_open = anyio.Event()
        self.streamed = anyio.Event()
        self._next = 0

    def headers(self) -> dict[str, str]:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
            headers["MCP-Protocol-Version"] = PUSH
        return headers

    async def post(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        response = await self.http.post(
            self.url, content=json.dumps(message), headers=self.headers()
        )
        assert response.status_code in (200, 202), (response.status_code, response.text)
        if "mcp-session-id" in response.headers:
            self.session_id = response.headers["mcp-session-id"]
        return sse_messages(response.text) if response.status_code == 200 else []

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        messages = await self.post(
            {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        )
        answers = [m for m in messages if m.get("id") == ident]
        assert len(answers) == 1, messages
        return answers[0]

    async def initialize(self) -> None:
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": PUSH,
                "capabilities": {"elicitation": {"form": {}, "url": {}}},
                "clientInfo": {"name": "raw-test-client", "version": "0"},
            },
        )
        assert answer["result"]["protocolVersion"] == PUSH
        assert self.session_id
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def listen(self) -> None:
        """Read the GET stream until cancelled."""
        headers = self.headers()
        headers["Accept"] = "text/event-stream"
        async with self.http.stream("GET", self.url, headers=headers) as response:
            assert response.status_code == 200
            self.stream_open.set()
            event: list[str] = []
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    event.append(line[5:].lstrip())
                elif not line.strip() and event:
                    self.stream.append(json.loads("\n".join(event)))
                    event = []
                    self.streamed.set()
                    self.streamed = anyio.Event()

    async def aclose(self) -> None:
        if self.session_id is not None:
            await self.http.delete(self.url, headers=self.headers())
        await self.http.aclose()


class DraftSession:
    """One MCP session spoken by hand: the URL-mode draft's client (2025-06-18, declaring
    ``elicitation: {form, url}``). Every message the server sent is in :attr:`received`."""

    def __init__(self, http: httpx2.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url
        self.session_id: str | None = None
        self.received: list[dict[str, Any]] = []
        # Answers a request the server sends on a response stream (elicitation/create).
        self.on_request: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None
        self._next = 0

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request; return its response (a result or an error), reading an SSE stream
        through whatever the server sends first (progress notifications...)."""
        self._next += 1
        ident = self._next
        answer = await self._post(
            {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}, ident
        )
        assert answer is not None
        return answer

    async def notify(self, method: str) -> None:
        await self._post({"jsonrpc": "2.0", "method": method}, None)

    async def start(self) -> dict[str, Any]:
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": DRAFT,
                "capabilities": {"elicitation": {"form": {}, "url": {}}},
                "clientInfo": {"name": "url-draft-client", "version": "0"},
            },
        )
        await self.notify("notifications/initialized")
        return answer

    async def _post(self, message: dict[str, Any], ident: int | None) -> dict[str, Any] | None:
        headers = {"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": DRAFT}
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        async with self.http.stream("POST", self.url, json=message, headers=headers) as response:
            assert response.status_code in (200, 202), response.status_code
            self.session_id = response.headers.get("mcp-session-id", self.session_id)
            if ident is None:
                return None
            if response.headers.get("content-type", "").startswith("application/json"):
                found: dict[str, Any] = json.loads(await response.aread())
                self.received.append(found)
                return found
            async for line in response.aiter_lines():
                if not line.startswith("data:") or not line[5:].strip():
                    continue
                sent: dict[str, Any] = json.loads(line[5:])
                self.received.append(sent)
                if "method" in sent and "id" in sent and self.on_request is not None:
                    result = await self.on_request(sent)
                    await self._post({"jsonrpc": "2.0", "id": sent["id"], "result": result}, None)
                if sent.get("id") == ident and "method" not in sent:
                    return sent
        raise AssertionError(f"no response to request {ident}")
