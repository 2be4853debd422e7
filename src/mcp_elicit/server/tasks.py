"""Tasks, opt-in with ``Elicitation(tasks=True)`` or ``Elicitation(tasks=TaskSettings(...))``:
the per-request part, for both revisions that have them: task-augmented ``tools/call`` of MCP
2025-11-25 (basic/utilities/tasks), and the extension ``io.modelcontextprotocol/tasks`` of
2026-07-28 (the two are not wire-compatible; each is spoken only on its own revision).

A task's record and every rule of its state are :mod:`mcp_elicit.tasks.state`'s; they are
kept and committed by :class:`mcp_elicit.tasks.lifecycle.TaskBook`: in this process's memory
(gone when the server stops), or, when the server's store is one its instances share (Redis,
PostgreSQL: :meth:`Tasks.use_store`), in that store, sealed, so that any instance serves
``tasks/*`` of a task another one runs (rule 13). This module creates a task for a call,
runs the call as it, and serves ``tasks/*`` in the shape of the task's revision
(:mod:`mcp_elicit.protocol.tasks`). The tool code is the same on both: a question it asks
becomes an outstanding input request of the record (``TaskBook.ask``); only how the client
reads it and answers differs (rule 6 and rule 11).

The rules of this part
----------------------

1. **Creation** (design ``docs/tasks-design.md`` §3 rule 1). Only on a 2025-11-25 session of a
   server with tasks on, only for a ``tools/call``. Each tool has a ``taskSupport``
   (:class:`TaskSettings`; ``tasks=True`` makes every tool ``optional``), shown in
   ``tools/list`` as ``execution.taskSupport`` and enforced (T25 §Tool-Level Negotiation):
   a call with ``task`` to an ``optional`` or ``required`` tool becomes a task; a call without
   it to a ``required`` tool gets -32601 (MUST; design A7); a call with it to a ``forbidden``
   tool gets -32601 (SHOULD). Anywhere else ``task`` is ignored.
2. **Owner.** A task belongs to the user of the request that created it
   (``Identity.user_of_request``); a request with no user creates none (-32600). Another
   user's task, an id never issued and a purged task all get the same -32602 "task not found".
3. **Ids** are ``secrets.token_urlsafe(24)`` (192 random bits), derived from nothing.
4. **TTL.** The ``ttl`` asked for is held to [``MIN_TTL_MS``, ``MAX_TTL_MS``]; none asked:
   ``DEFAULT_TTL_MS``. Past it a live task is ``failed`` ("The task's ttl of N ms ran out")
   and its tool cancelled; the record stays readable ``PURGE_AFTER`` seconds more, then is
   forgotten.
5. **Limit.** ``MAX_TASKS_PER_USER`` tasks kept per user (live, or finished and not purged):
   past it a task-augmented call is refused (-32600) and its tool does not run.
6. **Questions through ``tasks/result``** (SEP-2260; design §2 path 3). A question the tool
   asks is an outstanding input request of the record (``TaskBook.ask``), never pushed on the
   session's standalone stream. A ``tasks/result`` loops while the task is live: it sends each
   outstanding request, with related-task ``_meta``, on **its own** response stream, and
   commits each answer with ``state.answer``. If that stream drops, the key stays outstanding
   and the next ``tasks/result`` sends it again. A client that only polls ``tasks/get`` never
   sees the question (design R4).
7. **Methods.** ``tasks/get``: the ``Task``. ``tasks/list``: the user's own tasks, oldest
   first, ``PAGE_SIZE`` at a time (the cursor must name one of them). ``tasks/cancel``: a
   terminal task is -32602; otherwise it is ``cancelled`` before the reply, and its tool's run
   cancelled. ``tasks/result``: as rule 6, then the ``CallToolResult`` with related-task
   ``_meta``, or the JSON-RPC error the call ended with; a cancelled task has none (-32600).
8. **Status notices.** Every change of a task's status is told to the session that created
   it as ``notifications/tasks/status`` (the full ``Task``, no related-task ``_meta``: T25
   §Task Notifications), on its standalone stream (notifications may go there). Extension
   tasks send none (``notifications/tasks`` rides ``subscriptions/listen``, not built: clients
   poll).

The extension (2026-07-28; design ``docs/tasks-design.md`` §1, EXT)
--------------------------------------------------------------------

9. **Creation.** ``server/discover`` declares ``capabilities.extensions[TASKS_EXTENSION]``
   (never ``capabilities.tasks``). A ``tools/call`` becomes a task when **its own** request
   declares the extension in ``_meta[clientCapabilities].extensions`` (read per request, never
   inferred) and its tool is ``optional`` or ``required``; a ``required`` tool called without
   the declaration is -32021 with ``data.requiredCapabilities.extensions``. ``params.task`` is
   ignored. The answer is the flat ``CreateTaskResult`` (``resultType: "task"``), sent once
   the record is committed; ttl: the default (``DEFAULT_TTL_MS``), as nothing is asked for.
10. **Gate.** Every ``tasks/*`` request must declare the extension itself (else -32021);
    ``tasks/result`` and ``tasks/list`` do not exist here (-32601). Rules 2 and 3 hold: another
    user's task, an unknown id and a 2025-11-25 task are the same -32602.
11. **Questions.** The tool's question is an outstanding request under a key (K1: ``q-1``,
    ``link-2``, never reused). ``tasks/get`` returns the ``DetailedTask``: every outstanding
    request when ``input_required``, the result when ``completed`` (``isError`` too: design
    A4), the error when ``failed``. ``tasks/update`` commits ``state.answer`` and then acks;
    keys not applied are named with their verdicts in ``_meta["mcp-elicit/ignored"]``
    (design A1); -32602 only for the task (unknown) or malformed params.
12. **Cancel** is immediate, and always the empty ack, a terminal task's too (design A3).
    Progress inside an extension task is not sent (EXT: not supported on tasks);
    :func:`mcp_elicit.server.task_status` sets the ``statusMessage`` instead.

Tasks in a shared store (design ``docs/tasks-design.md`` §4)
-------------------------------------------------------------

13. **Any instance serves them.** The instance that created a task runs its tool and holds
    its lease (``lease_until`` = now + ``LEASE``, renewed every ``RENEW_EVERY`` beside the
    tool; a renewal that finds the task ended, or a store unreachable for ``GIVE_UP``, stops
    the tool). Every instance sweeps (``TaskBook.run_sweeper``) and listens to the store's
    task feed (``TaskBook.run_feed``, which wakes the owner's waiting tool when another
    instance answers); each ``tasks/*`` runs the same check inline first
    (``TaskBook.settle_stale``). So a kill -9 of the owner fails its tasks ("The server
    instance running this task stopped") within 20 s, and their answered keys stay named.
    A graceful stop fails the tasks this instance runs at once ("The server stopped").
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

import anyio
import anyio.abc
import mcp_types as types
import pydantic
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, METHOD_NOT_FOUND, REQUEST_TIMEOUT

from mcp_elicit import _sdk
from mcp_elicit.protocol.codes import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    TASKS_CANCEL,
    TASKS_EXTENSION,
    TASKS_GET,
    TASKS_LIST,
    TASKS_RESULT,
    TASKS_UPDATE,
)
from mcp_elicit.protocol.tasks import (
    TASK_SUPPORTS,
    TaskSupport,
    create_task_result,
    declares_tasks,
    get_task_result,
    parse_task_id,
    parse_task_update,
    requested_task_ttl,
    server_tasks_capability,
    task_ack,
    task_object,
    tasks_required_error,
    with_related_task,
)
from mcp_elicit.revisions import Revision
from mcp_elicit.stores import StoreError, TooManyTasks
from mcp_elicit.tasks import state
from mcp_elicit.tasks.lifecycle import (
    EPOCH,
    LEASE,
    NO_LEASE_END,
    AskTimedOut,
    Conflict,
    TaskBook,
    TaskGone,
)
from mcp_elicit.tasks.state import NO_CHANGE, TaskState
from mcp_elicit.tasks.storage import TaskStorage

logger = logging.getLogger(__name__)

TASKS_VERSION: Final = Revision.V2025_11_25.value
"""The revision whose core has tasks (2026-07-28 moved them to an extension)."""
TASK_METHODS: Final = frozenset({TASKS_GET, TASKS_RESULT, TASKS_LIST, TASKS_CANCEL})
EXTENSION_VERSION: Final = Revision.V2026_07_28.value
"""The revision that has tasks only as the extension ``io.modelcontextprotocol/tasks``."""
EXTENSION_METHODS: Final = frozenset({TASKS_GET, TASKS_UPDATE, TASKS_CANCEL})
REMOVED_METHODS: Final = frozenset({TASKS_RESULT, TASKS_LIST})
"""2025-11-25's ``tasks/*`` the extension dropped (SEP-2663: -32601 there)."""

DEFAULT_TTL_MS: Final = 3_600_000
MIN_TTL_MS: Final = 1_000
MAX_TTL_MS: Final = 86_400_000
MAX_TASKS_PER_USER: Final = 100
PAGE_SIZE: Final = 50
POLL_INTERVAL_MS: Final = 1_000
STATUS_MAX_CHARS: Final = 200
"""``task_status``: the longest ``statusMessage`` a tool may set (design §3)."""
STATUS_MIN_INTERVAL: Final = 1.0
"""``task_status``: seconds between two writes of it (a tool may call it in a hot loop; the
last text wins, written when the second is over)."""
SWEEP_INTERVAL: Final = 1.0
"""Seconds between two looks for tasks past their ttl (also looked for on every request)."""
PURGE_AFTER: Final = 300.0
"""Seconds a task past its ttl stays readable (``failed``, or as it ended) before it is
forgotten (design §4: ttl plus 5 minutes)."""

UserOf = Callable[[ServerRequestContext[Any, Any]], str | None]


@dataclass(frozen=True, slots=True)
class TaskSettings:
    """Which tools may run as tasks, on both revisions: ``execution.taskSupport`` per tool.

    ``default`` is every tool's unless ``tools`` names it: ``"forbidden"`` (never as a task),
    ``"optional"`` (either way) or ``"required"`` (only as a task; a plain call gets -32601
    on 2025-11-25, and -32021 naming the extension on 2026-07-28).
    ``Elicitation(tasks=True)`` is ``TaskSettings()``: every tool optional. What a tool
    declared itself in ``execution.taskSupport`` is replaced by what these settings say, so
    that what ``tools/list`` shows (2025-11-25; the extension has no per-tool field) is what
    is enforced.
    """

    default: TaskSupport = "optional"
    tools: Mapping[str, TaskSupport] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for where, support in [("default", self.default), *self.tools.items()]:
            if support not in TASK_SUPPORTS:
                raise ValueError(
                    f"TaskSettings: taskSupport of {where} is {support!r}, not one of "
                    f"{', '.join(TASK_SUPPORTS)}"
                )

    def support(self, tool: str) -> TaskSupport:
        return self.tools.get(tool, self.default)

    @classmethod
    def of(cls, tasks: bool | TaskSettings) -> TaskSettings | None:
        """``Elicitation(tasks=...)``'s value as settings (``None``: tasks off)."""
        if isinstance(tasks, TaskSettings):
            return tasks
        if tasks is True:
            return cls()
        if tasks is False:
            return None
        raise TypeError(f"tasks= is True, False or a TaskSettings, not {type(tasks).__name__}")


def requested_task(ctx: ServerRequestContext[Any, Any]) -> Mapping[str, Any] | None:
    """The ``task`` a 2025-11-25 ``tools/call`` asks for, else ``None`` (rule 1)."""
    if ctx.method != "tools/call" or ctx.protocol_version != TASKS_VERSION:
        return None
    task = (ctx.params or {}).get("task")
    return task if isinstance(task, Mapping) else None


@dataclass(eq=False, slots=True)
class TaskRun:
    """A task as the tool code running it sees it (on the request's scope): where its
    questions go and where its completion notice goes."""

    id: str
    tasks: Tasks
    session: ServerSession
    """The session of the ``tools/call`` that created it (2025-11-25 status notices go there)."""
    revision: str = TASKS_VERSION
    """2025-11-25 (the core tasks) or 2026-07-28 (the extension): the wire it is served on."""
    _status_at: float = field(default=-math.inf, init=False)
    _status_pending: str | None = field(default=None, init=False)
    _status_flushing: bool = field(default=False, init=False)
    _note_wanted: str | None = field(default=None, init=False)
    _note_writing: bool = field(default=False, init=False)

    @property
    def extension(self) -> bool:
        return self.revision == EXTENSION_VERSION

    def status(self, text: str) -> None:
        """``task_status(text)``: the ``statusMessage`` the tool sets, at most
        :data:`STATUS_MAX_CHARS` long and written at most once every
        :data:`STATUS_MIN_INTERVAL` seconds (a call within the second is kept and written when
        it is over; the last one wins)."""
        if not isinstance(text, str):
            raise TypeError(f"task_status takes a str, not {type(text).__name__}")
        text = " ".join(text.split())  # one line: it is shown as a status, not a document
        if len(text) > STATUS_MAX_CHARS:
            text = text[: STATUS_MAX_CHARS - 1] + "\u2026"
        self._status_pending = text or None
        wait = self._status_at + STATUS_MIN_INTERVAL - self.tasks.clock()
        if wait <= 0:
            self._write_status()
        elif not self._status_flushing and self.tasks._group is not None:
            self._status_flushing = True
            self.tasks._group.start_soon(self._flush_status, wait)

    async def _flush_status(self, wait: float) -> None:
        try:
            await anyio.sleep(wait)
        finally:
            self._status_flushing = False
        self._write_status()

    def _write_status(self) -> None:
        self._status_at = self.tasks.clock()
        self._note(self._status_pending)

    async def ask(self, params: Mapping[str, Any], *, timeout: float | None) -> Any:
        """An ``elicitation/create`` inside the task (rule 6): the client's raw answer."""
        try:
            return await self.tasks.book.ask(self.id, params, now=self.tasks.clock, timeout=timeout)
        except AskTimedOut:
            raise MCPError(REQUEST_TIMEOUT, "The person did not answer in time") from None

    @contextlib.contextmanager
    def waiting_for_page(self, url: str) -> Iterator[None]:
        """While the person is on a URL-mode page whose consent is answered: the task is
        ``working`` (no key is outstanding), and its ``statusMessage`` says what it waits for
        (design §3 rule 4, A10)."""
        host = urlsplit(url).hostname or "the page"
        self._note(f"Waiting for the page on {host} to be completed")
        try:
            yield
        finally:
            self._note(None)

    def _note(self, message: str | None) -> None:
        if not self.tasks.shared:
            now = self.tasks.clock()
            with contextlib.suppress(KeyError):
                self.tasks.book.commit(
                    self.id, lambda r: state.note(r, message, epoch=EPOCH, now=now)
                )
            return
        # A store is asynchronous and this is called from synchronous code: one writer per
        # task writes the newest wish, so that two notes in a row cannot land in the wrong
        # order (a plain task per note could: each retries its compare-and-set on its own).
        self._note_wanted = message
        if not self._note_writing and self.tasks._group is not None:
            self._note_writing = True
            self.tasks._group.start_soon(self._write_notes)

    def _noting(self, message: str | None) -> Callable[[TaskState], TaskState | state.NoChange]:
        now = self.tasks.clock()
        return lambda r: state.note(r, message, epoch=EPOCH, now=now)

    async def _write_notes(self) -> None:
        try:
            written: object = object()  # nothing yet
            while written != self._note_wanted:
                message = written = self._note_wanted
                try:
                    await self.tasks.book.acommit(self.id, self._noting(message))
                except (KeyError, StoreError, Conflict, state.Fenced) as error:
                    logger.info("task %s: status not written (%r)", self.id[:6], error)
                    return
        finally:
            self._note_writing = False

    async def send_elicit_complete(
        self, elicitation_id: str, related_request_id: types.RequestId | None = None
    ) -> None:
        """The URL-mode completion notice of a link asked in this task, with related-task
        ``_meta`` (T25 §Associating Task-Related Messages): on an open ``tasks/result``'s
        stream when there is one, else on the session's standalone stream (notifications may
        go there: SEP-2260 restricts requests)."""
        params = with_related_task({"elicitationId": elicitation_id}, self.id)
        notice = types.ElicitCompleteNotification(
            params=types.ElicitCompleteNotificationParams.model_validate(params, by_name=False)
        )
        streams = self.tasks.open_results(self.id)
        if streams:
            ctx = streams[-1]
            await ctx.session.send_notification(notice, related_request_id=ctx.request_id)
        else:
            await self.session.send_notification(notice)


class Tasks:
    """The tasks of one server (rules in the module docstring)."""

    def __init__(
        self,
        user_of: UserOf,
        settings: TaskSettings | None = None,
        *,
        server: str = "",
        default_ttl_ms: int = DEFAULT_TTL_MS,
        max_ttl_ms: int = MAX_TTL_MS,
        max_per_user: int = MAX_TASKS_PER_USER,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._user_of = user_of
        self.settings = settings if settings is not None else TaskSettings()
        self.server = server
        self.clock = clock
        self.default_ttl_ms = default_ttl_ms
        self.max_ttl_ms = max_ttl_ms
        self.max_per_user = max_per_user
        self.book = TaskBook()
        self.shared = False
        """Whether the tasks are kept in a store the instances share (rule 13)."""
        self.instance = "memory"
        """This instance's name in the leases it holds."""
        self._runs: dict[str, anyio.CancelScope] = {}
        self._sessions: dict[str, ServerSession] = {}
        self._results: dict[str, list[ServerRequestContext[Any, Any]]] = {}
        self._group: anyio.abc.TaskGroup | None = None

    def use_store(self, storage: TaskStorage, *, server: str) -> None:
        """Keep the tasks in ``storage``, a store the instances share, as ``server`` (the
        server's id there: rule 13). Called once, before :meth:`running`."""
        if self._group is not None:
            raise RuntimeError("use_store() while the tasks are running")
        self.book = TaskBook(storage)
        self.server = server
        self.shared = True
        # Only to tell the owners' leases apart: nothing is derived from it.
        self.instance = secrets.token_urlsafe(12)

    @contextlib.asynccontextmanager
    async def running(self, group: anyio.abc.TaskGroup) -> AsyncIterator[None]:
        """While the server runs: tasks run in ``group`` (and the sweeper of rule 4; on a
        shared store, the store's sweeper and task feed: rule 13); the live ones this
        instance runs fail when it stops."""
        self._group = group
        if self.shared:
            group.start_soon(self._store_sweeper, name="mcp-elicit task sweeper")
            group.start_soon(self.book.run_feed, name="mcp-elicit task feed")
        else:
            group.start_soon(self._sweeper, name="mcp-elicit task sweeper")
        with self.book.observing(self._status_changed):
            try:
                yield
            finally:
                self._group = None
                now = self.clock()
                stopped = {"code": INTERNAL_ERROR, "message": "The server stopped"}
                if self.shared:
                    await self._stop_owned(now, stopped)
                else:
                    for record in self.book.all():
                        self.book.commit(
                            record.id,
                            lambda r: state.finish(r, epoch=EPOCH, now=now, error=stopped),
                        )
                        self.book.purge(record.id)
                self._sessions.clear()

    async def _store_sweeper(self) -> None:
        await self.book.run_sweeper(clock=self.clock)

    async def _stop_owned(self, now: float, stopped: Mapping[str, Any]) -> None:
        """A graceful stop on a shared store: fail the tasks this instance runs at once (the
        others' sweepers would only after the lease), shielded, as the server is stopping."""
        with anyio.move_on_after(5.0, shield=True):
            for task_id in list(self._runs):
                try:
                    await self.book.afinish(task_id, now=now, error=stopped)
                except (KeyError, StoreError, Conflict, state.Fenced) as error:
                    logger.warning("task %s: not failed at stop (%r)", task_id[:6], error)

    # -- rule 1: which calls become tasks ---------------------------------------------------------

    def offer(self, listed: HandlerResult) -> HandlerResult:
        """A 2025-11-25 ``tools/list`` result, each tool saying its ``taskSupport``."""
        if not isinstance(listed, dict) or not isinstance(listed.get("tools"), list):
            return listed
        tools = []
        for tool in listed["tools"]:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                support = self.settings.support(tool["name"])
                tool = {
                    **tool,
                    "execution": {**(tool.get("execution") or {}), "taskSupport": support},
                }
            tools.append(tool)
        return {**listed, "tools": tools}

    def requested(self, ctx: ServerRequestContext[Any, Any]) -> Mapping[str, Any] | None:
        """The ``task`` of a 2025-11-25 ``tools/call`` that is to run as one, ``None`` for a
        plain call; -32601 when the tool's ``taskSupport`` refuses the call's kind (rule 1)."""
        name = (ctx.params or {}).get("name")
        if ctx.method != "tools/call" or not isinstance(name, str):
            return None
        support = self.settings.support(name)
        requested = requested_task(ctx)
        if requested is None and support == "required":
            raise MCPError(
                METHOD_NOT_FOUND,
                f'tool {name!r} runs only as a task (execution.taskSupport is "required"): '
                "call it with params.task",
            )
        if requested is not None and support == "forbidden":
            raise MCPError(
                METHOD_NOT_FOUND,
                f"tool {name!r} does not run as a task (execution.taskSupport is "
                '"forbidden"): call it without params.task',
            )
        return requested

    # -- creating and running ------------------------------------------------------------------

    def requested_extension(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """Whether a 2026-07-28 ``tools/call`` runs as an extension task (rule 9): its request
        declares the extension and its tool is ``optional`` or ``required``. A ``required``
        tool called without the declaration is -32021 naming the extension."""
        params = ctx.params or {}
        name = params.get("name")
        if ctx.method != "tools/call" or not isinstance(name, str):
            return False
        support = self.settings.support(name)
        if support == "forbidden":
            return False
        if declares_tasks(params):  # this request's own _meta: never an earlier one's
            return True
        if support == "required":
            error = tasks_required_error(
                f"tool {name!r} runs only as a task: declare the {TASKS_EXTENSION} extension "
                "in this request's clientCapabilities"
            )
            raise MCPError(error["code"], error["message"], error["data"])
        return False

    async def create(
        self,
        ctx: ServerRequestContext[Any, Any],
        requested: Mapping[str, Any],
        *,
        revision: str = TASKS_VERSION,
    ) -> TaskRun:
        """A new task for the user of ``ctx`` (rules 2 to 5), committed before the
        ``CreateTaskResult`` leaves, or ``MCPError``. ``revision``: the wire it is served on
        (the extension asks for no ttl: ``requested`` is ``{}`` and the default is granted)."""
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
        if not self.shared:  # a store's sweeper purges on its own
            self._sweep(now)
        asked = requested_task_ttl({"task": requested})
        ttl = asked if asked is not None and asked is not False else None
        granted = self.default_ttl_ms if ttl is None else min(max(ttl, MIN_TTL_MS), self.max_ttl_ms)
        record = state.create(
            task_id=secrets.token_urlsafe(24),
            server=self.server,
            user=owner,
            revision=revision,
            tool=str((ctx.params or {}).get("name", "")),
            now=now,
            ttl_ms=granted,
            poll_interval_ms=POLL_INTERVAL_MS,
            instance=self.instance,
            lease_until=now + LEASE if self.shared else NO_LEASE_END,
        )
        try:
            # The count and the insert are one step (rule 5).
            await self.book.ainsert(record, limit=self.max_per_user)
        except TooManyTasks:
            raise MCPError(
                INVALID_REQUEST,
                f"too many tasks: at most {self.max_per_user} are kept for one user (a "
                "finished task is kept until its ttl)",
            ) from None
        if revision == TASKS_VERSION:  # the extension's status goes over subscriptions/listen
            self._sessions[record.id] = ctx.session
        return TaskRun(record.id, self, ctx.session, revision)

    def start(self, run: TaskRun, body: Callable[[], Awaitable[Any]]) -> None:
        """Run ``body`` (the call, shaped for the wire) as ``run`` in the server's group."""
        if self._group is None:
            raise RuntimeError("start() after create() outside running()")
        self._group.start_soon(self._run, run, body, name=f"mcp-elicit task {run.id[:6]}")

    async def _run(self, run: TaskRun, body: Callable[[], Awaitable[Any]]) -> None:
        lease = anyio.CancelScope()
        with anyio.CancelScope() as scope:
            self._runs[run.id] = scope
            record = await self.book.aget(run.id)
            if record is None or record.terminal:  # cancelled (or expired) before it started
                scope.cancel()
            elif self.shared and self._group is not None:
                self._group.start_soon(self._hold_lease, run.id, scope, lease)
            try:
                result = _wire(await body())
            except MCPError as error:
                wire_error: dict[str, Any] = {"code": error.code, "message": error.message}
                if error.error.data is not None:
                    wire_error["data"] = error.error.data
                await self._finish(run.id, error=wire_error)
            except TaskGone:
                pass  # ended already (cancelled, expired): nothing to record
            except Exception:
                logger.exception("the tool of task %s failed", run.id[:6])
                await self._finish(
                    run.id, error={"code": INTERNAL_ERROR, "message": "Internal error"}
                )
            else:
                await self._finish(run.id, result=result)
            finally:
                lease.cancel()  # the outcome is committed (or cannot be): no more renewals
        self._runs.pop(run.id, None)

    async def _hold_lease(
        self, task_id: str, body: anyio.CancelScope, lease: anyio.CancelScope
    ) -> None:
        """Renew the lease beside the tool (rule 13); stop the tool when it is lost: the
        task ended elsewhere (cancelled through another instance, failed by a sweeper), or
        the store was unreachable too long for this instance to prove that it owns it."""
        with lease:
            lost = await self.book.keep_lease(task_id, clock=self.clock)
            if lost != "ended":
                logger.warning(
                    "task %s: the lease was lost (%s); stopping its tool", task_id[:6], lost
                )
            body.cancel()

    async def _finish(self, task_id: str, **outcome: Any) -> None:
        now = self.clock()
        try:
            await self.book.afinish(task_id, now=now, **outcome)
        except KeyError:  # purged meanwhile
            pass
        except (StoreError, Conflict, state.Fenced) as error:
            # Its lease runs out and a sweeper fails it: the client learns it ended.
            logger.warning("task %s: the outcome was not committed (%r)", task_id[:6], error)

    # -- the methods ---------------------------------------------------------------------------

    async def created(self, run: TaskRun) -> dict[str, Any]:
        """The ``CreateTaskResult`` a task-augmented ``tools/call`` is answered with (the
        record as it is now: a task that ended at once says so)."""
        record = await self.book.aget(run.id)
        if record is None:
            raise MCPError(INVALID_PARAMS, "task not found")
        return create_task_result(record.task(), revision=record.revision)

    async def handle(
        self, ctx: ServerRequestContext[Any, Any], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Serve ``tasks/get``, ``tasks/result``, ``tasks/list`` or ``tasks/cancel``."""
        raw = dict(params or {})
        if method == "tasks/list":
            try:
                cursor = types.PaginatedRequestParams.model_validate(raw, by_name=False).cursor
            except pydantic.ValidationError as exc:
                problem = exc.errors()[0]["msg"]
                raise MCPError(INVALID_PARAMS, f"invalid {method} params: {problem}") from None
            return await self._list(ctx, cursor)
        parsed = parse_task_id(raw)
        if isinstance(parsed, list):
            wrong = parsed[0]
            raise MCPError(
                INVALID_PARAMS, f"invalid {method} params: {wrong.field} {wrong.message}"
            )
        task_id = parsed
        record = await self._find(ctx, task_id)
        if method == "tasks/get":
            return task_object(record.task(), revision=TASKS_VERSION)
        if method == "tasks/cancel":
            return await self._cancel(record)
        return await self._result(ctx, task_id)

    async def _current(self, task_id: str) -> TaskState | None:
        """The record after ending it when its ttl (or, on a store, its owner's lease) ran
        out: what every request reads (rules 4 and 13)."""
        now = self.clock()
        if self.shared:
            return await self.book.settle_stale(task_id, now=now)
        self._sweep(now)
        return self.book.get(task_id)

    async def _find(
        self, ctx: ServerRequestContext[Any, Any], task_id: str, *, revision: str = TASKS_VERSION
    ) -> TaskState:
        """The user's own task ``task_id`` of ``revision``; the same error for anything else
        (rule 2; a 2025-11-25 task is never served to an extension request, nor the reverse:
        design §3 rule 7)."""
        owner = self._user_of(ctx)
        # The inline check may end another user's task before the owner is compared below:
        # harmless, it ends only a task whose ttl or owner's lease has run out already.
        record = await self._current(task_id) if owner else None
        if (
            record is None
            or not owner
            or record.user != owner
            or record.server != self.server
            or record.revision != revision
        ):
            raise MCPError(INVALID_PARAMS, "task not found")
        return record

    async def _list(
        self, ctx: ServerRequestContext[Any, Any], cursor: str | None
    ) -> dict[str, Any]:
        owner = self._user_of(ctx)
        if self.shared:
            return await self._list_stored(owner, cursor)
        self._sweep(self.clock())
        mine = [
            r for r in self.book.all() if owner and r.user == owner and r.revision == TASKS_VERSION
        ]
        start = 0
        if cursor is not None:
            ids = [r.id for r in mine]
            if cursor not in ids:
                raise MCPError(INVALID_PARAMS, "invalid cursor")
            start = ids.index(cursor) + 1
        page = mine[start : start + PAGE_SIZE]
        listed: dict[str, Any] = {
            "tasks": [task_object(r.task(), revision=TASKS_VERSION) for r in page]
        }
        if start + PAGE_SIZE < len(mine):
            listed["nextCursor"] = page[-1].id
        return listed

    async def _list_stored(self, owner: str | None, cursor: str | None) -> dict[str, Any]:
        """``tasks/list`` on a store (``tasks_of``, oldest first): the owner's 2025-11-25
        tasks, a page of :data:`PAGE_SIZE`; the cursor is the last id of the page before."""
        if not owner:
            return {"tasks": []}
        if cursor is not None:
            named = await self.book.aget(cursor)
            if (
                named is None
                or named.user != owner
                or named.server != self.server
                or named.revision != TASKS_VERSION
            ):
                raise MCPError(INVALID_PARAMS, "invalid cursor")
        mine: list[TaskState] = []
        after = cursor
        while len(mine) <= PAGE_SIZE:
            batch = await self.book.tasks_of(self.server, owner, after=after, limit=PAGE_SIZE + 1)
            mine += [r for r in batch if r.revision == TASKS_VERSION]
            if len(batch) <= PAGE_SIZE:
                break
            after = batch[-1].id
        now = self.clock()
        page = []
        for record in mine[:PAGE_SIZE]:
            if not record.terminal and (record.lease.until < now or record.expires_at <= now):
                record = await self.book.settle_stale(record.id, now=now) or record
            page.append(record)
        listed: dict[str, Any] = {
            "tasks": [task_object(r.task(), revision=TASKS_VERSION) for r in page]
        }
        if len(mine) > PAGE_SIZE:
            listed["nextCursor"] = page[-1].id
        return listed

    async def _cancel(self, record: TaskState) -> dict[str, Any]:
        now = self.clock()
        cancelled = await self.book.acommit(
            record.id, lambda r: state.cancel(r, now=now, message="Cancelled by the client")
        )
        if cancelled is NO_CHANGE:
            raise MCPError(
                INVALID_PARAMS, f"the task is {record.status} already: it cannot be cancelled"
            )
        assert isinstance(cancelled, TaskState)
        self._stop(record.id)
        return task_object(cancelled.task(), revision=TASKS_VERSION)

    def _stop(self, task_id: str) -> None:
        scope = self._runs.get(task_id)
        if scope is not None:
            scope.cancel()

    # -- the extension's methods (rules 9 to 12) --------------------------------------------------

    async def handle_extension(
        self, ctx: ServerRequestContext[Any, Any], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Serve a ``tasks/*`` request of 2026-07-28 (rules 10 to 12)."""
        if method in REMOVED_METHODS:
            raise MCPError(
                METHOD_NOT_FOUND,
                f"{method} is not in {EXTENSION_VERSION}: the {TASKS_EXTENSION} extension "
                "inlines the result in tasks/get and has no listing",
            )
        if method not in EXTENSION_METHODS:
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
        raw = dict(params or {})
        if not declares_tasks(raw):
            error = tasks_required_error(
                f"{method} needs the {TASKS_EXTENSION} extension declared in this request's "
                "clientCapabilities"
            )
            raise MCPError(error["code"], error["message"], error["data"])
        if method == TASKS_UPDATE:
            update = parse_task_update(raw)
            if isinstance(update, list):
                raise _invalid(method, update[0].field, update[0].message)
            return await self._update(
                await self._find(ctx, update.task_id, revision=EXTENSION_VERSION),
                update.input_responses,
            )
        parsed = parse_task_id(raw)
        if isinstance(parsed, list):
            raise _invalid(method, parsed[0].field, parsed[0].message)
        record = await self._find(ctx, parsed, revision=EXTENSION_VERSION)
        if method == TASKS_GET:
            return _detailed(record)
        now = self.clock()
        # Always the empty ack (EXT §Task Cancellation; design A3): a terminal task stays as
        # it ended, a live one is cancelled at once and its tool stopped.
        if (
            await self.book.acommit(
                record.id, lambda r: state.cancel(r, now=now, message="Cancelled by the client")
            )
            is not NO_CHANGE
        ):
            self._stop(record.id)
        return task_ack()

    async def _update(self, record: TaskState, responses: Mapping[str, Any]) -> dict[str, Any]:
        """``tasks/update``: the answers applied (K2), acknowledged only once committed; every
        key not applied named with its verdict in the ack's ``_meta`` (design A1)."""
        verdicts: dict[str, state.AnswerVerdict] = {}
        now = self.clock()

        def answered(current: TaskState) -> TaskState | state.NoChange:
            verdicts.clear()  # a lost race runs this again on the newer record
            new, given = state.answer(current, responses, now=now)
            verdicts.update(given)
            return new

        try:
            await self.book.acommit(record.id, answered)
        except KeyError:  # purged between the lookup and the write
            raise MCPError(INVALID_PARAMS, "task not found") from None
        ignored = {key: verdict for key, verdict in verdicts.items() if verdict != "accepted"}
        if ignored:
            logger.info("task %s: answers ignored: %s", record.id[:6], ignored)
        return task_ack(ignored)

    @staticmethod
    def declare_extension(discovered: HandlerResult) -> HandlerResult:
        """The ``server/discover`` result of a server with tasks on, declaring the extension
        under ``capabilities.extensions`` (never ``capabilities.tasks`` on this revision)."""
        if isinstance(discovered, pydantic.BaseModel):
            discovered = discovered.model_dump(by_alias=True, mode="json", exclude_none=True)
        if not isinstance(discovered, dict):
            return discovered
        capabilities = dict(discovered.get("capabilities") or {})
        capabilities.pop("tasks", None)
        extensions = dict(capabilities.get("extensions") or {})
        extensions[TASKS_EXTENSION] = {}
        capabilities["extensions"] = extensions
        return {**discovered, "capabilities": capabilities}

    # -- tasks/result: the questions on its own stream (rule 6) ----------------------------------

    def open_results(self, task_id: str) -> list[ServerRequestContext[Any, Any]]:
        """The ``tasks/result`` requests of ``task_id`` open now, oldest first."""
        return list(self._results.get(task_id, ()))

    async def _result(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> dict[str, Any]:
        open_here = self._results.setdefault(task_id, [])
        open_here.append(ctx)
        try:
            record = await self._deliver_questions(ctx, task_id)
        finally:
            open_here.remove(ctx)
            if not open_here:
                self._results.pop(task_id, None)
        if record.status == "cancelled":
            raise MCPError(INVALID_REQUEST, "the task was cancelled: it has no result")
        if record.result is not None:
            return with_related_task(record.result, task_id)
        error = record.error or {"code": INTERNAL_ERROR, "message": "Internal error"}
        raise MCPError(error["code"], error["message"], error.get("data"))

    async def _deliver_questions(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> TaskState:
        """While the task is live, send each outstanding request on this request's stream (once
        per stream) and commit the answers; the terminal record."""
        sending: dict[str, anyio.CancelScope] = {}
        record: TaskState | None = await self.book.aget(task_id)
        async with anyio.create_task_group() as group:
            while record is not None and not record.terminal:
                for key, scope in list(sending.items()):
                    if key not in record.outstanding:  # answered elsewhere, withdrawn
                        scope.cancel()
                        del sending[key]
                for key, request in record.outstanding.items():
                    if key not in sending:
                        sending[key] = anyio.CancelScope()
                        group.start_soon(self._send_one, ctx, task_id, key, request, sending[key])
                record = await self.book.changed(task_id, record.version)
                record = await self._current(task_id)  # a ttl that ran out meanwhile ends it
            group.cancel_scope.cancel()
        # Outside the group, so that "not found" is the error itself, not inside a group.
        return await self._find(ctx, task_id)

    async def _send_one(
        self,
        ctx: ServerRequestContext[Any, Any],
        task_id: str,
        key: str,
        request: Mapping[str, Any],
        scope: anyio.CancelScope,
    ) -> None:
        with scope:
            params = with_related_task(request["params"], task_id)
            try:
                raw = await _sdk.send_raw_request(
                    ctx.session, request["method"], params, timeout=None
                )
            except MCPError as error:
                self.book.deliver(task_id, key, error)
                return
            except Exception as exc:
                # The stream went away: the key stays outstanding, and the next tasks/result
                # sends it again (rule 6).
                logger.info("task %s: %s not delivered: %r", task_id[:6], key, exc)
                return
            verdicts: dict[str, state.AnswerVerdict] = {}

            def answered(record: TaskState) -> TaskState | state.NoChange:
                new, given = state.answer(record, {key: raw}, now=self.clock())
                verdicts.update(given)
                return new

            with contextlib.suppress(KeyError):  # purged meanwhile
                await self.book.acommit(task_id, answered)
            if verdicts.get(key) == "malformed":
                # Not an answer state.answer takes: the asker reports it, as a pushed
                # question's would be (field by field), and may ask again under a new key.
                self.book.deliver(task_id, key, raw)
            elif verdicts.get(key) not in (None, "accepted"):
                logger.info("task %s: answer to %s ignored (%s)", task_id[:6], key, verdicts[key])

    # -- rule 8: status notices -----------------------------------------------------------------

    def _status_changed(self, before: TaskState | None, after: TaskState) -> None:
        if before is None or before.status == after.status:
            return
        if after.terminal:  # cancelled or expired from outside the run: the tool stops
            self._stop(after.id)
        session = self._sessions.get(after.id)
        if session is None or self._group is None:
            return
        wire = task_object(after.task(), revision=TASKS_VERSION)
        self._group.start_soon(self._tell_status, session, wire)

    @staticmethod
    async def _tell_status(session: ServerSession, wire: dict[str, Any]) -> None:
        notice = types.TaskStatusNotification(
            params=types.TaskStatusNotificationParams.model_validate(wire, by_name=False)
        )
        try:
            # The SDK's ServerNotification union lacks the 2025-11-25 task notice, though its
            # own type; send_notification only dumps what it is given.
            await session.send_notification(notice)  # type: ignore[arg-type]
        except Exception as exc:  # the client went away: it polls when it comes back
            logger.debug("task %s: status notice not sent: %s", wire["taskId"][:6], exc)

    # -- rule 4: ttl -----------------------------------------------------------------------------

    async def _sweeper(self) -> None:
        while True:
            await anyio.sleep(SWEEP_INTERVAL)
            self._sweep(self.clock())

    def _sweep(self, now: float) -> None:
        """A live task past its ttl fails and its tool is cancelled; a task past its ttl and
        ``PURGE_AFTER`` is forgotten (rule 4)."""
        for record in self.book.all():
            if not record.terminal and record.expires_at <= now:
                self.book.commit(record.id, lambda r: state.expire(r, now=now))
                self._stop(record.id)
            elif record.terminal and record.expires_at + PURGE_AFTER < now:
                self.book.purge(record.id)
                self._sessions.pop(record.id, None)

    # -- what the session is told ----------------------------------------------------------------

    @staticmethod
    def declare(initialized: HandlerResult) -> HandlerResult:
        """The ``initialize`` result, declaring tasks when 2025-11-25 was agreed."""
        if not isinstance(initialized, dict) or initialized.get("protocolVersion") != TASKS_VERSION:
            return initialized
        capabilities = dict(initialized.get("capabilities") or {})
        capabilities["tasks"] = server_tasks_capability()
        return {**initialized, "capabilities": capabilities}


def _invalid(method: str, where: str | None, problem: str) -> MCPError:
    return MCPError(INVALID_PARAMS, f"invalid {method} params: {where or 'params'} {problem}")


def _detailed(record: TaskState) -> dict[str, Any]:
    """The extension's ``tasks/get`` result: the ``DetailedTask`` of the record's status (every
    outstanding request when ``input_required``, the result when ``completed``, the error when
    ``failed``; rule 11)."""
    task = record.task()
    if record.status == "input_required":
        return get_task_result(task, revision=EXTENSION_VERSION, input_requests=record.outstanding)
    if record.status == "completed" and record.result is not None:
        return get_task_result(task, revision=EXTENSION_VERSION, result=record.result)
    if record.status == "failed":
        error = record.error or {"code": INTERNAL_ERROR, "message": "Internal error"}
        return get_task_result(task, revision=EXTENSION_VERSION, error=error)
    return get_task_result(task, revision=EXTENSION_VERSION)


def _wire(result: Any) -> dict[str, Any]:
    if isinstance(result, pydantic.BaseModel):
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped
    if isinstance(result, Mapping):
        return dict(result)
    raise TypeError(f"a task's call returned {type(result).__name__}, not a result")
