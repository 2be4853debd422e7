"""A small, hand-written server of the tasks extension (``io.modelcontextprotocol/tasks``), for
the client's tests: independent of mcp-elicit's own server, so the client is tested against the
extension's text (EXT), not against our reading of it on the other side.

It is an SDK ``MCPServer`` with one middleware that answers ``tools/call`` of :data:`TOOL` and
the ``tasks/*`` requests itself (the SDK serves neither shape): the call creates a task; the
task asks its questions in ``inputRequests`` until each key has an answer through
``tasks/update``; then it completes, its result naming the answers it got. Everything received
is recorded, so the tests can read what the client sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from mcp_elicit.protocol.tasks import (
    Task,
    TaskStatusValue,
    create_task_result,
    declares_tasks,
    get_task_result,
    task_ack,
    tasks_required_error,
)

TOOL = "work"
REV = "2026-07-28"


@dataclass
class TaskScript:
    """How the server's one task behaves."""

    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Input requests by key (``{"method": ..., "params": ...}``), asked until answered."""
    status_message: str | None = "Working on it"
    poll_ms: int | None = 250
    ttl_ms: int | None = 60_000
    finishes: bool = True
    """``False``: the task stays ``working`` forever (for the time limits)."""
    always_task: bool = False
    """Answer with a task even to a call that did not declare the extension (misbehaving)."""
    ask_again: bool = False
    """A declined or cancelled question is followed by a new one (a server that will not take
    no for an answer)."""
    fail_with: dict[str, Any] | None = None
    """Once answered, fail with this JSON-RPC error instead of completing."""


@dataclass
class Received:
    method: str
    params: dict[str, Any]
    headers: Mapping[str, str] | None


class TaskServer:
    """The middleware, and the one task it runs (``task_id`` once created)."""

    def __init__(self, script: TaskScript) -> None:
        self.script = script
        self.received: list[Received] = []
        self.answers: dict[str, Any] = {}
        self.task_id: str | None = None
        self.status: TaskStatusValue = "working"
        self.created_at = 0.0
        self.cancelled = False
        self.clock_offset = 0.0  # seconds this server's clock is off the client's

    def of(self, method: str) -> list[Received]:
        return [r for r in self.received if r.method == method]

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        method = ctx.method
        params = dict(ctx.params or {})
        if method == "tools/call" and params.get("name") == TOOL:
            self.received.append(Received(method, params, _headers(ctx)))
            if not declares_tasks(params) and not self.script.always_task:
                return await call_next(ctx)  # EXT: no task for a call that did not declare it
            return self._create()
        if method in ("tasks/get", "tasks/update", "tasks/cancel"):
            self.received.append(Received(method, params, _headers(ctx)))
            if not declares_tasks(params):  # EXT §Protocol Errors: -32021
                error = tasks_required_error()
                raise MCPError(error["code"], error["message"], error["data"])
            if params.get("taskId") != self.task_id:
                raise MCPError(-32602, f"unknown task {params.get('taskId')!r}")
            if method == "tasks/get":
                return self._get()
            if method == "tasks/update":
                outstanding = self._outstanding()
                for key, answer in (params.get("inputResponses") or {}).items():
                    if key in outstanding:  # other keys are ignored (EXT: SHOULD)
                        self.answers[key] = answer
                        refused = isinstance(answer, Mapping) and answer.get("action") != "accept"
                        if self.script.ask_again and refused:
                            again = f"q-{len(self.script.questions) + 1}"
                            self.script.questions[again] = form_request(f"Again ({again})?")
                return task_ack()
            if self.status not in ("completed", "failed", "cancelled"):
                self.status = "cancelled"
            self.cancelled = True
            return task_ack()
        return await call_next(ctx)

    def _task(self, status: TaskStatusValue) -> Task:
        assert self.task_id is not None
        return Task(
            task_id=self.task_id,
            status=status,
            created_at=self.created_at,
            last_updated_at=time.time() + self.clock_offset,
            ttl_ms=self.script.ttl_ms,
            poll_interval_ms=self.script.poll_ms,
            status_message=self.script.status_message,
        )

    def _create(self) -> dict[str, Any]:
        self.task_id = f"task-{len(self.of('tools/call'))}"
        self.created_at = time.time() + self.clock_offset
        return create_task_result(self._task("working"), revision=REV)

    def _outstanding(self) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.script.questions.items() if k not in self.answers}

    def _get(self) -> dict[str, Any]:
        outstanding = self._outstanding()
        if self.status == "cancelled":
            return get_task_result(self._task("cancelled"), revision=REV)
        if outstanding:
            self.status = "input_required"
            return get_task_result(
                self._task("input_required"), revision=REV, input_requests=outstanding
            )
        if not self.script.finishes:
            self.status = "working"
            return get_task_result(self._task("working"), revision=REV)
        if self.script.fail_with is not None:
            self.status = "failed"
            return get_task_result(self._task("failed"), revision=REV, error=self.script.fail_with)
        self.status = "completed"
        text = json.dumps(self.answers, sort_keys=True)
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        return get_task_result(self._task("completed"), revision=REV, result=result)


def _headers(ctx: Any) -> Mapping[str, str] | None:
    """The HTTP request's headers (``None`` in process)."""
    return getattr(getattr(ctx, "request", None), "headers", None)


def task_server(script: TaskScript) -> tuple[MCPServer, TaskServer]:
    """An SDK server whose tool :data:`TOOL` runs as the extension's task."""
    middleware = TaskServer(script)
    server = MCPServer("tasks", middleware=[middleware])

    @server.tool(name=TOOL)
    async def work() -> str:
        return "ran without a task"  # only reached when the middleware lets a call through

    return server, middleware


def form_request(message: str = "Your name?") -> dict[str, Any]:
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string", "title": "Name"}},
                "required": ["name"],
            },
        },
    }


def url_request(url: str, elicitation_id: str = "e1") -> dict[str, Any]:
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "url",
            "message": "Authorize access",
            "url": url,
            "elicitationId": elicitation_id,
        },
    }
