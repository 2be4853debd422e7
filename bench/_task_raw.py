"""Raw 2026-07-28 requests for the tasks benchmarks (18, 19), sent on the official SDK
client's own dispatcher (``client.session._dispatcher.send_raw_request``) with the per-request
``_meta`` written by hand, as ``tests/server/test_task_extension.py`` does: a ``tools/call``
that declares the extension ``io.modelcontextprotocol/tasks`` in
``_meta["io.modelcontextprotocol/clientCapabilities"].extensions`` becomes a task on the
``--tasks`` server of ``_server_tools.py``; one that does not is the plain 2026-07-28 call
(``InputRequiredResult``, then the retry with ``inputResponses`` and ``requestState``).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp
from _server_tools import question, reply_for

from mcp_elicit.protocol.codes import TASKS_EXTENSION

MODERN = "2026-07-28"
FORMS: dict[str, Any] = {"elicitation": {"form": {}}}


def meta(*, tasks: bool) -> dict[str, Any]:
    capabilities: dict[str, Any] = dict(FORMS)
    if tasks:
        capabilities["extensions"] = {TASKS_EXTENSION: {}}
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


TASK_META = meta(tasks=True)
PLAIN_META = meta(tasks=False)


def accept(n: int) -> dict[str, Any]:
    return {"action": "accept", "content": {"value": reply_for(n)}}


def text_of(result: dict[str, Any]) -> str:
    text: str = result["content"][0]["text"]
    return text


class Raw:
    """One connected ``mcp.Client``'s raw requests (2026-07-28)."""

    def __init__(self, client: mcp.Client) -> None:
        if client.protocol_version != MODERN:
            raise AssertionError(f"asked for {MODERN}, got {client.protocol_version}")
        self._send = client.session._dispatcher.send_raw_request
        self.polls = 0  # tasks/get requests sent

    async def request(self, method: str, params: dict[str, Any], *, tasks: bool) -> dict[str, Any]:
        sent = {**params, "_meta": TASK_META if tasks else PLAIN_META}
        got: dict[str, Any] = await self._send(method, sent, {})
        return got

    # -- as a task -------------------------------------------------------------------------

    async def start_task(self, tool: str, n: int) -> str:
        """``tools/call`` as a task: the ``CreateTaskResult``'s task id."""
        created = await self.request(
            "tools/call", {"name": tool, "arguments": {"n": n}}, tasks=True
        )
        if created.get("resultType") != "task":
            raise AssertionError(f"question {n}: expected a CreateTaskResult, got {created!r}")
        task_id: str = created["taskId"]
        return task_id

    async def get(self, task_id: str) -> dict[str, Any]:
        self.polls += 1
        return await self.request("tasks/get", {"taskId": task_id}, tasks=True)

    async def until(
        self, task_id: str, status: str, *, wait: float = 0.0, limit: int = 10_000
    ) -> dict[str, Any]:
        """``tasks/get`` again and again until ``status``: at once by default (the server's
        ``pollIntervalMs`` is a fixed 1,000 ms, which a benchmark of round trips cannot sit
        out), or ``wait`` seconds apart."""
        for _ in range(limit):
            got = await self.get(task_id)
            if got["status"] == status:
                return got
            if got["status"] in ("failed", "cancelled", "completed"):
                raise AssertionError(f"task ended {got['status']}, expected {status}: {got!r}")
            if wait:
                await anyio.sleep(wait)
        raise AssertionError(f"task still {got['status']} after {limit} polls")

    async def waiting_question(self, task_id: str, n: int, *, wait: float = 0.0) -> str:
        """Poll until the task waits for input; check it asks question ``n``; its key."""
        waiting = await self.until(task_id, "input_required", wait=wait)
        [(key, request)] = waiting["inputRequests"].items()
        if request["method"] != "elicitation/create" or request["params"]["message"] != question(n):
            raise AssertionError(f"task {n} asks {request!r}")
        return str(key)

    async def answer_task(self, task_id: str, key: str, n: int) -> str:
        """``tasks/update`` with the answer, then ``tasks/get`` until completed: the text."""
        acked = await self.request(
            "tasks/update", {"taskId": task_id, "inputResponses": {key: accept(n)}}, tasks=True
        )
        if acked != {"resultType": "complete"}:
            raise AssertionError(f"tasks/update of {n} acked {acked!r}")
        done = await self.until(task_id, "completed")
        return text_of(done["result"])

    async def as_task(self, tool: str, n: int) -> str:
        """The whole round trip as a task."""
        task_id = await self.start_task(tool, n)
        key = await self.waiting_question(task_id, n)
        return await self.answer_task(task_id, key, n)

    # -- plain 2026-07-28 ------------------------------------------------------------------

    async def plain(self, tool: str, n: int) -> str:
        """``tools/call`` -> ``InputRequiredResult`` -> the retry with the answer and state."""
        arguments = {"n": n}
        first = await self.request(
            "tools/call", {"name": tool, "arguments": arguments}, tasks=False
        )
        if first.get("resultType") != "input_required":
            raise AssertionError(f"question {n}: expected an InputRequiredResult, got {first!r}")
        [(key, request)] = first["inputRequests"].items()
        if request["params"]["message"] != question(n):
            raise AssertionError(f"question {n} asks {request!r}")
        retry = {
            "name": tool,
            "arguments": arguments,
            "inputResponses": {key: accept(n)},
            "requestState": first["requestState"],
        }
        return text_of(await self.request("tools/call", retry, tasks=False))
