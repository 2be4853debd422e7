"""A 2025-11-25 client spoken by hand over Streamable HTTP that records, for every message the
server sends, **which stream it came on**: the response stream of one POSTed request (named by
its method and id) or the session's standalone GET stream. It is the honest test of SEP-2260
("requests MUST NOT be sent on the standalone GET stream"; each server request relates to the
POST it rides on), which no SDK client shows.

A request the server sends on the GET stream is refused with -32602, as SEP-2260 asks of a
client ("For Client Implementers"), and recorded.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import httpx2

VERSION = "2025-11-25"
GET_STREAM = "GET"

OnRequest = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""Answers a server request (its result), or ``None`` to leave it unanswered and drop the
stream it came on."""


@dataclass
class Arrival:
    stream: str  # "GET", or "POST <method> #<id>"
    message: dict[str, Any]


@dataclass
class StreamProbe:
    url: str
    http: httpx2.AsyncClient = field(
        default_factory=lambda: httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=300.0))
    )
    arrivals: list[Arrival] = field(default_factory=list)
    session_id: str | None = None
    _next: int = 0

    def headers(self) -> dict[str, str]:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
            headers["MCP-Protocol-Version"] = VERSION
        return headers

    def requests_on(self, stream_prefix: str, method: str = "") -> list[Arrival]:
        """The server requests that came on streams named ``stream_prefix``...; of ``method``
        only, unless it is empty."""
        return [
            a
            for a in self.arrivals
            if a.stream.startswith(stream_prefix)
            and "method" in a.message
            and "id" in a.message
            and (not method or a.message["method"] == method)
        ]

    def notices(self, method: str) -> list[Arrival]:
        return [
            a for a in self.arrivals if a.message.get("method") == method and "id" not in a.message
        ]

    async def start(self, group: anyio.abc.TaskGroup) -> dict[str, Any]:
        """``initialize`` (declaring form and URL mode), then the GET stream, read in
        ``group``. The ``initialize`` result."""
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": VERSION,
                "capabilities": {"elicitation": {"form": {}, "url": {}}},
                "clientInfo": {"name": "stream-probe", "version": "0"},
            },
        )
        await self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        opened = anyio.Event()
        group.start_soon(self._listen, opened)
        with anyio.fail_after(10):
            await opened.wait()
        return answer

    async def request(
        self, method: str, params: dict[str, Any], on_request: OnRequest | None = None
    ) -> dict[str, Any]:
        """POST a request and read its stream to its response, answering each server request
        on it with ``on_request``. The response; a dropped stream: ``{"dropped": message}``."""
        self._next += 1
        ident = self._next
        stream = f"POST {method} #{ident}"
        message = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        async with self.http.stream(
            "POST", self.url, content=json.dumps(message), headers=self.headers()
        ) as response:
            assert response.status_code == 200, (response.status_code, await response.aread())
            self.session_id = response.headers.get("mcp-session-id", self.session_id)
            if response.headers.get("content-type", "").startswith("application/json"):
                found: dict[str, Any] = json.loads(await response.aread())
                self.arrivals.append(Arrival(stream, found))
                return found
            async for sent in _events(response):
                self.arrivals.append(Arrival(stream, sent))
                if "method" in sent and "id" in sent:
                    result = await on_request(sent) if on_request is not None else None
                    if result is None:
                        return {"dropped": sent}  # leaving the block closes the stream
                    await self._post({"jsonrpc": "2.0", "id": sent["id"], "result": result})
                elif sent.get("id") == ident:
                    return sent
        raise AssertionError(f"the stream of {stream} ended without its response")

    async def _post(self, message: dict[str, Any]) -> None:
        response = await self.http.post(
            self.url, content=json.dumps(message), headers=self.headers()
        )
        assert response.status_code in (200, 202), (response.status_code, response.text)

    async def _listen(self, opened: anyio.Event) -> None:
        headers = self.headers()
        headers["Accept"] = "text/event-stream"
        async with self.http.stream("GET", self.url, headers=headers) as response:
            assert response.status_code == 200, response.status_code
            opened.set()
            async for sent in _events(response):
                self.arrivals.append(Arrival(GET_STREAM, sent))
                if "method" in sent and "id" in sent:
                    refusal = {"code": -32602, "message": "no request of mine is open for this"}
                    await self._post({"jsonrpc": "2.0", "id": sent["id"], "error": refusal})

    async def aclose(self) -> None:
        if self.session_id is not None:
            await self.http.delete(self.url, headers=self.headers())
        await self.http.aclose()


async def _events(response: httpx2.Response) -> Any:
    event: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            event.append(line[5:].lstrip())
        elif not line.strip() and event:
            data = "\n".join(event)
            event = []
            if data:
                yield json.loads(data)
