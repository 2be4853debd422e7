"""A 2026-07-28 client written by hand for the tasks extension's tests: the per-request
``_meta`` a request declares, and a raw client that sends one POST per request."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2

from mcp_elicit.protocol.codes import TASKS_EXTENSION
from mcp_elicit.revisions import Revision

MODERN = Revision.V2026_07_28.value
EXTENSION: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}}
FORMS: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}


def meta(user: str, *, tasks: bool = True, forms: bool = True) -> dict[str, Any]:
    capabilities: dict[str, Any] = {}
    if forms:
        capabilities.update(FORMS)
    if tasks:
        capabilities.update(EXTENSION)
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": user, "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


@dataclass
class RawModern:
    """A 2026-07-28 client written by hand: one POST per request, the headers it must send
    (``Mcp-Name`` too, unless told otherwise)."""

    url: str
    http: httpx2.AsyncClient
    _next: int = 0

    async def send(
        self, method: str, params: dict[str, Any], *, name: str | None = None
    ) -> tuple[int, dict[str, Any]]:
        self._next += 1
        body = {
            "jsonrpc": "2.0",
            "id": self._next,
            "method": method,
            "params": {**params, "_meta": {**params.get("_meta", {}), **meta("local")}},
        }
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": method,
        }
        routed = name if name is not None else params.get("taskId", params.get("name"))
        if routed is not None:
            headers["Mcp-Name"] = routed
        response = await self.http.post(self.url, content=json.dumps(body), headers=headers)
        text = response.text.strip()
        if not text.startswith("{"):  # an SSE body: its one message
            data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
            text = data[-1]
        return response.status_code, json.loads(text)

    async def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        status, answer = await self.send(method, params)
        assert status == 200 and "result" in answer, (status, answer)
        result: dict[str, Any] = answer["result"]
        return result

    async def until(self, task_id: str, status: str) -> dict[str, Any]:
        with anyio.fail_after(10):
            while (got := await self.result("tasks/get", {"taskId": task_id}))["status"] != status:
                await anyio.sleep(0.02)
        return got
