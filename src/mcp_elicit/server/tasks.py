"""Task-augmented ``tools/call`` (MCP 2025-11-25, basic/utilities/tasks), opt-in with
``Elicitation(tasks=True)``.

A client that sends ``tools/call`` with ``task: {ttl}`` gets a ``CreateTaskResult`` at once; the
tool runs in the background (in ``Elicitation.running()``'s task group), and the client follows
it with ``tasks/get``, waits for its result with ``tasks/result``, sees its tasks with
``tasks/list`` and stops one with ``tasks/cancel``. A question the tool asks meanwhile
(``ask``, ``confirm``, ``choose``, a URL-mode link) reaches the client as an
``elicitation/create`` on the session's own channel (the ``tools/call`` was answered already)
carrying ``_meta["io.modelcontextprotocol/related-task"] = {"taskId": ...}``, and the task
shows ``input_required`` while the person has it.

In memory, in this process: a task lives in the process that created it and is gone when the
server stops; another instance of a deployment does not know it. (The multi-instance stores
come later.) ``notifications/tasks/status`` are optional and not sent: clients poll.

The rules
---------

Like h11's ``_state.py``, the whole state machine is here, and every change goes through
:func:`_move`.

1. **Creation.** Only on a 2025-11-25 session of a server with tasks on, and only for a
   ``tools/call`` whose params carry a ``task`` object. Anywhere else (another method, another
   revision, tasks off) ``task`` is ignored and the request runs as it always did: a receiver
   that did not declare task support for a request processes it normally. Every tool may run as
   a task (``tools/list`` says ``execution.taskSupport: "optional"``).
2. **Owner.** A task belongs to the user of the request that created it
   (``Identity.user_of_request``); a request with no user creates none (-32600). Every lookup
   is by owner and id: another user's task, an id never issued and an expired task all get the
   same -32602 "not found", so a reply never tells that a task exists but is someone else's.
3. **Ids** are ``secrets.token_urlsafe(24)`` (192 random bits), derived from nothing.
4. **TTL.** The ``ttl`` asked for (milliseconds) is held to [``MIN_TTL_MS``,
   ``MAX_TTL_MS``]; none asked: ``DEFAULT_TTL_MS``. It counts from creation; past it the task
   is forgotten, and a tool still running is cancelled. The task reports the ttl granted.
5. **Limit.** ``MAX_TASKS_PER_USER`` tasks kept per user (running or finished, until their
   ttl): past it a task-augmented call is refused (-32600) and its tool does not run.
6. **States.**

   ====================  ===============================================================
   ``working``           → ``input_required`` when a question the tool asked is out with
                         the client (questions asked at once are counted)
   ``input_required``    → ``working`` when the last of them is answered, declined,
                         cancelled or timed out
   either of them        → ``completed``: the tool returned a result without ``isError``
                         → ``failed``: a result with ``isError: true``, the JSON-RPC error
                         the call would have answered, an unexpected error, the server
                         stopping
                         → ``cancelled``: ``tasks/cancel`` (the tool's run is cancelled
                         before the reply is sent)
   ====================  ===============================================================

   ``completed``, ``failed`` and ``cancelled`` are terminal: nothing changes them (a result
   that races a cancel is dropped).
7. **Methods.** ``tasks/get``: the task. ``tasks/list``: the user's own tasks, oldest first,
   ``PAGE_SIZE`` at a time (the cursor must name one of them). ``tasks/cancel``: a terminal
   task is -32602; otherwise it is cancelled and returned. ``tasks/result``: waits until the
   task is terminal, then the ``CallToolResult`` (``_meta`` names the task), or the JSON-RPC
   error the call ended with; a cancelled task has no result (-32600).
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import anyio
import anyio.abc
import pydantic
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    CancelTaskRequestParams,
    GetTaskPayloadRequestParams,
    GetTaskRequestParams,
    PaginatedRequestParams,
)

from mcp_elicit.protocol.codes import INVALID_PARAMS, INVALID_REQUEST
from mcp_elicit.revisions import Revision

logger = logging.getLogger(__name__)

TASKS_VERSION: Final = Revision.V2025_11_25.value
"""The revision whose core has tasks (2026-07-28 moved them to an extension)."""
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
TASK_METHODS: Final = frozenset({"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"})

DEFAULT_TTL_MS: Final = 3_600_000
MIN_TTL_MS: Final = 1_000
MAX_TTL_MS: Final = 86_400_000
MAX_TASKS_PER_USER: Final = 100
PAGE_SIZE: Final = 50
POLL_INTERVAL_MS: Final = 1_000
SWEEP_INTERVAL: Final = 1.0
"""Seconds between two looks for tasks past their ttl (also looked for on every request)."""

CAPABILITY: Final[Mapping[str, Any]] = {
    "list": {},
    "cancel": {},
    "requests": {"tools": {"call": {}}},
}

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
_ALLOWED: Final[Mapping[str, frozenset[str]]] = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
    "completed": frozenset(),
    "failed": frozenset(),
    "cancelled": frozenset(),
}

UserOf = Callable[[ServerRequestContext[Any, Any]], str | None]


@dataclass(eq=False, slots=True)
class TaskRun:
    """One task: its state, and what it ended with."""

    id: str
    owner: str
    created: float
    ttl_ms: int
    updated: float
    status: TaskStatus = "working"
    message: str | None = None
    result: dict[str, Any] | None = None
    error: MCPError | None = None
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope | None = None
    asking: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def expires(self) -> float:
        return self.created + self.ttl_ms / 1000

    def wire(self) -> dict[str, Any]:
        """The ``Task`` object of the schema."""
        task: dict[str, Any] = {
            "taskId": self.id,
            "status": self.status,
            "createdAt": _iso(self.created),
            "lastUpdatedAt": _iso(self.updated),
            "ttl": self.ttl_ms,
            "pollInterval": POLL_INTERVAL_MS,
        }
        if self.message is not None:
            task["statusMessage"] = self.message
        return task

    @contextlib.contextmanager
    def input_required(self) -> Iterator[None]:
        """While a question of this task's tool is out with the person (rule 6)."""
        self.asking += 1
        if self.asking == 1:
            _move(self, "input_required", "Waiting for the person to answer")
        try:
            yield
        finally:
            self.asking -= 1
            if self.asking == 0:
                _move(self, "working", None)


def _move(task: TaskRun, to: TaskStatus, message: str | None) -> bool:
    """The one place a task's status changes (rule 6); ``False`` when it may not."""
    if to not in _ALLOWED[task.status]:
        if not task.terminal:
            raise AssertionError(f"task status {task.status} cannot become {to}")
        return False  # terminal: a late result or question end is dropped
    task.status = to
    task.message = message
    task.updated = time.time()
    if task.terminal:
        task.done.set()
    return True


def related_task(params: Mapping[str, Any], task_id: str) -> dict[str, Any]:
    """``params`` with ``_meta`` naming the task (kept: any other ``_meta`` key)."""
    meta = dict(params.get("_meta") or {})
    meta[RELATED_TASK] = {"taskId": task_id}
    return {**params, "_meta": meta}


def requested_task(ctx: ServerRequestContext[Any, Any]) -> Mapping[str, Any] | None:
    """The ``task`` a 2025-11-25 ``tools/call`` asks for, else ``None`` (rule 1)."""
    if ctx.method != "tools/call" or ctx.protocol_version != TASKS_VERSION:
        return None
    task = (ctx.params or {}).get("task")
    return task if isinstance(task, Mapping) else None


class Tasks:
    """The tasks of one server (rules in the module docstring)."""

    def __init__(
        self,
        user_of: UserOf,
        *,
        default_ttl_ms: int = DEFAULT_TTL_MS,
        max_ttl_ms: int = MAX_TTL_MS,
        max_per_user: int = MAX_TASKS_PER_USER,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._user_of = user_of
        self.clock = clock
        self.default_ttl_ms = default_ttl_ms
        self.max_ttl_ms = max_ttl_ms
        self.max_per_user = max_per_user
        self._tasks: dict[str, TaskRun] = {}
        self._group: anyio.abc.TaskGroup | None = None

    @contextlib.asynccontextmanager
    async def running(self, group: anyio.abc.TaskGroup) -> AsyncIterator[None]:
        """While the server runs: tasks run in ``group`` (and the sweeper of rule 4); they fail
        when it stops."""
        self._group = group
        group.start_soon(self._sweeper, name="mcp-elicit task sweeper")
        try:
            yield
        finally:
            self._group = None
            for task in self._tasks.values():
                _move(task, "failed", "The server stopped")
            self._tasks.clear()

    # -- creating and running ----------------------------------------------------------------

    def create(self, ctx: ServerRequestContext[Any, Any], requested: Mapping[str, Any]) -> TaskRun:
        """A new task for the user of ``ctx`` (rules 2 to 5), or ``MCPError``."""
        if self._group is None:
            raise MCPError(
                INVALID_REQUEST,
                "this server runs no tasks now: task-augmented calls need "
                "Elicitation.running() (Elicitation.run() enters it)",
            )
        owner = self._user_of(ctx)
        if not owner:
            raise MCPError(
                INVALID_REQUEST,
                "no authenticated user: a task is bound to the user who created it, and this "
                "request carries no identity",
            )
        now = self.clock()
        self._sweep(now)
        if sum(1 for t in self._tasks.values() if t.owner == owner) >= self.max_per_user:
            raise MCPError(
                INVALID_REQUEST,
                f"too many tasks: at most {self.max_per_user} are kept for one user (a "
                "finished task is kept until its ttl)",
            )
        asked = requested.get("ttl")
        ttl = asked if isinstance(asked, int) and not isinstance(asked, bool) else None
        granted = self.default_ttl_ms if ttl is None else min(max(ttl, MIN_TTL_MS), self.max_ttl_ms)
        task = TaskRun(secrets.token_urlsafe(24), owner, now, granted, now)
        self._tasks[task.id] = task
        return task

    def start(self, task: TaskRun, body: Callable[[], Awaitable[Any]]) -> None:
        """Run ``body`` (the call, shaped for the wire) as ``task`` in the server's group."""
        if self._group is None:
            raise RuntimeError("start() after create() outside running()")
        self._group.start_soon(self._run, task, body, name=f"mcp-elicit task {task.id[:6]}")

    async def _run(self, task: TaskRun, body: Callable[[], Awaitable[Any]]) -> None:
        with anyio.CancelScope() as scope:
            task.scope = scope
            if task.terminal:  # cancelled (or expired) before it started
                scope.cancel()
            try:
                result = _wire(await body())
            except MCPError as error:
                if not task.terminal:
                    task.error = error
                _move(task, "failed", error.error.message)
            except Exception:
                logger.exception("the tool of task %s failed", task.id[:6])
                if not task.terminal:
                    task.error = MCPError(INTERNAL_ERROR, "Internal error")
                _move(task, "failed", "Internal error")
            else:
                failed = result.get("isError") is True
                if not task.terminal:
                    task.result = result
                _move(task, "failed" if failed else "completed", None)
        task.scope = None

    # -- the methods -------------------------------------------------------------------------

    def created(self, task: TaskRun) -> dict[str, Any]:
        """The ``CreateTaskResult`` a task-augmented ``tools/call`` is answered with."""
        return {"task": task.wire()}

    async def handle(
        self, ctx: ServerRequestContext[Any, Any], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Serve ``tasks/get``, ``tasks/result``, ``tasks/list`` or ``tasks/cancel``."""
        raw = dict(params or {})
        try:
            if method == "tasks/list":
                cursor = PaginatedRequestParams.model_validate(raw, by_name=False).cursor
                return self._list(ctx, cursor)
            kinds: dict[str, type[pydantic.BaseModel]] = {
                "tasks/get": GetTaskRequestParams,
                "tasks/result": GetTaskPayloadRequestParams,
                "tasks/cancel": CancelTaskRequestParams,
            }
            task_id: str = kinds[method].model_validate(raw, by_name=False).task_id  # type: ignore[attr-defined]
        except pydantic.ValidationError as exc:
            problem = exc.errors()[0]["msg"]
            raise MCPError(INVALID_PARAMS, f"invalid {method} params: {problem}") from None
        task = self._find(ctx, task_id)
        if method == "tasks/get":
            return task.wire()
        if method == "tasks/cancel":
            return self._cancel(task)
        return await self._result(ctx, task)

    def _find(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> TaskRun:
        """The user's own live task ``task_id``; the same error for anything else (rule 2)."""
        self._sweep(self.clock())
        owner = self._user_of(ctx)
        task = self._tasks.get(task_id)
        if task is None or not owner or task.owner != owner:
            raise MCPError(INVALID_PARAMS, "task not found")
        return task

    def _list(self, ctx: ServerRequestContext[Any, Any], cursor: str | None) -> dict[str, Any]:
        self._sweep(self.clock())
        owner = self._user_of(ctx)
        mine = [t for t in self._tasks.values() if owner and t.owner == owner]
        start = 0
        if cursor is not None:
            ids = [t.id for t in mine]
            if cursor not in ids:
                raise MCPError(INVALID_PARAMS, "invalid cursor")
            start = ids.index(cursor) + 1
        page = mine[start : start + PAGE_SIZE]
        listed: dict[str, Any] = {"tasks": [t.wire() for t in page]}
        if start + PAGE_SIZE < len(mine):
            listed["nextCursor"] = page[-1].id
        return listed

    def _cancel(self, task: TaskRun) -> dict[str, Any]:
        if task.terminal:
            raise MCPError(
                INVALID_PARAMS, f"the task is {task.status} already: it cannot be cancelled"
            )
        _move(task, "cancelled", "Cancelled by the client")
        if task.scope is not None:
            task.scope.cancel()
        return task.wire()

    async def _result(self, ctx: ServerRequestContext[Any, Any], task: TaskRun) -> dict[str, Any]:
        await task.done.wait()
        self._find(ctx, task.id)  # still kept (not expired while we waited)
        if task.status == "cancelled":
            raise MCPError(INVALID_REQUEST, "the task was cancelled: it has no result")
        if task.result is None:
            error = task.error or MCPError(INTERNAL_ERROR, "Internal error")
            raise MCPError(error.error.code, error.error.message, error.error.data)
        return related_task(task.result, task.id)

    async def _sweeper(self) -> None:
        while True:
            await anyio.sleep(SWEEP_INTERVAL)
            self._sweep(self.clock())

    def _sweep(self, now: float) -> None:
        """Forget tasks past their ttl (rule 4); a tool still running is cancelled."""
        for task in [t for t in self._tasks.values() if now >= t.expires()]:
            del self._tasks[task.id]
            if not task.terminal:
                _move(task, "cancelled", "The task's ttl ran out")
                if task.scope is not None:
                    task.scope.cancel()
            task.done.set()

    # -- what the session is told ------------------------------------------------------------

    @staticmethod
    def declare(initialized: HandlerResult) -> HandlerResult:
        """The ``initialize`` result, declaring tasks when 2025-11-25 was agreed."""
        if not isinstance(initialized, dict) or initialized.get("protocolVersion") != TASKS_VERSION:
            return initialized
        capabilities = dict(initialized.get("capabilities") or {})
        capabilities["tasks"] = {k: dict(v) for k, v in CAPABILITY.items()}
        return {**initialized, "capabilities": capabilities}

    @staticmethod
    def offer(listed: HandlerResult) -> HandlerResult:
        """A 2025-11-25 ``tools/list`` result, every tool that says nothing of tasks saying
        ``taskSupport: "optional"`` (rule 1)."""
        if not isinstance(listed, dict) or not isinstance(listed.get("tools"), list):
            return listed
        tools = []
        for tool in listed["tools"]:
            if isinstance(tool, dict) and "taskSupport" not in (tool.get("execution") or {}):
                execution = {**(tool.get("execution") or {}), "taskSupport": "optional"}
                tool = {**tool, "execution": execution}
            tools.append(tool)
        return {**listed, "tools": tools}


def _wire(result: Any) -> dict[str, Any]:
    if isinstance(result, pydantic.BaseModel):
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped
    if isinstance(result, Mapping):
        return dict(result)
    raise TypeError(f"a task's call returned {type(result).__name__}, not a result")


def _iso(at: float) -> str:
    moment = datetime.datetime.fromtimestamp(at, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
