"""Following one 2026-07-28 task (the ``io.modelcontextprotocol/tasks`` extension) to its end.

A ``tools/call`` the server chose to run as a task is answered with a ``CreateTaskResult``
(``resultType: "task"``). From then on the client polls ``tasks/get``; the server asks its
questions in that result's ``inputRequests`` and takes the answers in ``tasks/update``; the
outcome comes inlined in the ``tasks/get`` of a terminal status (EXT §Task Polling, §Task
Update Requests). :func:`follow_task` is that loop; :class:`TaskWatch` holds what it keeps
between polls, without I/O, so the rules below are tested one by one.

The rules (docs/tasks-design.md §5):

1. **Polling.** ``tasks/get`` every ``pollIntervalMs`` (1 s when absent), clamped to
   [:data:`MIN_POLL`, :data:`MAX_POLL`]: a server cannot make the client spin, nor stall it.
2. **Asking.** Each key of ``inputRequests`` is asked once in the task's life (keys are never
   reused, EXT: the client SHOULD deduplicate): the same question shown by two polls, before
   its answer landed, is not asked twice. Each answer leaves at once, as its own
   ``tasks/update`` with that one key (a partial update is allowed). At most
   :data:`MAX_SHOWN` questions are before the person at once.
3. **Status.** A change of ``status`` or ``statusMessage`` is told to the person, at most one
   notice every :data:`NOTICE_EVERY` seconds (the latest change wins; the end is told at
   once); the text is the server's, so it is cleaned of control characters before it is
   shown. A task that goes on
   ``working`` without a change is told again every :data:`REMIND_EVERY` seconds with the
   time it has run ("working… 40 s"), so a long task does not look stuck; never while it
   waits for input (the person has the question in front of them).
4. **Limits.** The task is cancelled (``tasks/cancel``) and the call fails when it runs past
   ``task_time_limit``, or past its own ``createdAt + ttlMs`` plus two polls (EXT: the client
   MAY treat ttl as a backstop); when it asks more than :data:`MAX_KEYS_PER_TASK` questions
   in its life, or shows more than :data:`MAX_OUTSTANDING_PER_POLL` at once.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from mcp_elicit.client.prompt_text import clean
from mcp_elicit.i18n import N_, _
from mcp_elicit.protocol.tasks import (
    TERMINAL_STATUSES,
    DetailedTask,
    Task,
    parse_get_task_result,
)
from mcp_elicit.revisions import Revision

logger = logging.getLogger(__name__)

MIN_POLL = 0.25
"""The shortest wait between two ``tasks/get`` (seconds), whatever the server asks."""
MAX_POLL = 30.0
"""The longest wait between two ``tasks/get``: a task shown as stuck for minutes is not."""
DEFAULT_POLL = 1.0
"""The wait when the server names no ``pollIntervalMs``."""
MAX_SHOWN = 4
"""Questions of one task before the person at the same time."""
MAX_KEYS_PER_TASK = 256
"""Questions one task may ask in its life: a server that never stops asking is stopped."""
MAX_OUTSTANDING_PER_POLL = 16
"""Questions one ``tasks/get`` may hold at once."""
NOTICE_EVERY = 2.0
"""Seconds between two status notices of one task: a flapping status is not a flood."""
REMIND_EVERY = 10.0
"""Seconds after which an unchanged ``working`` status is told again, with the time run."""
DEFAULT_TASK_TIME_LIMIT = 60 * 60.0
"""How long a task may run before the client cancels it (seconds)."""


class TaskError(RuntimeError):
    """A task did not give the call its result: it failed (``error`` is its JSON-RPC error),
    was cancelled, broke a limit, or was sent where none may be."""

    def __init__(
        self,
        message: str,
        *,
        task_id: str | None = None,
        status: str | None = None,
        error: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.task_id = task_id
        self.status = status
        self.error = dict(error) if error is not None else None


# The statuses as a person reads them; one not listed (a newer revision's) is shown cleaned.
_STATUS_WORDS = {
    "working": N_("working"),
    "input_required": N_("waiting for your input"),
    "completed": N_("completed"),
    "failed": N_("failed"),
    "cancelled": N_("cancelled"),
}


@dataclass(frozen=True)
class TaskStatus:
    """One status report of a task, as it is told to the person (rule 3).

    ``task_id`` is the server's, as sent (a caller keeps it to resume the task: show it with
    ``clean``); ``status`` and ``message`` (the ``statusMessage``) are cleaned of control
    characters; ``elapsed`` counts from when this client started following the task (its
    ``CreateTaskResult``, or :meth:`~mcp_elicit.client.ElicitingClient.resume_task`);
    ``first`` marks the first report of one following."""

    task_id: str
    status: str
    message: str | None
    elapsed: float
    first: bool = False

    @property
    def terminal(self) -> bool:
        return self.status in ("completed", "failed", "cancelled")

    def line(self) -> str:
        """``working… 12 s: Uploading 3 of 10 files``, in the language in effect."""
        word = _STATUS_WORDS.get(self.status)
        status = _(word) if word is not None else self.status
        seconds = f"{self.elapsed:.0f}"
        if self.terminal:
            text = _("{status} after {seconds} s").format(status=status, seconds=seconds)
        else:
            text = _("{status}… {seconds} s").format(status=status, seconds=seconds)
        if self.message:
            return _("{status}: {message}").format(status=text, message=self.message)
        return text


def poll_interval(task: Task) -> float:
    """Rule 1: the wait before the next ``tasks/get``, in seconds."""
    if task.poll_interval_ms is None:
        return DEFAULT_POLL
    return min(MAX_POLL, max(MIN_POLL, task.poll_interval_ms / 1000))


@dataclass
class TaskWatch:
    """What one task's follower keeps between polls (rules 2 to 4), without I/O.

    Times are monotonic seconds; ``started`` is when the ``CreateTaskResult`` arrived."""

    task_id: str
    time_limit: float
    started: float
    seen: set[str] = field(default_factory=set)
    _shown: tuple[str, str | None] | None = None  # the status last told
    _pending: tuple[str, str | None] | None = None  # a change not told yet (rule 3)
    _told_at: float = -math.inf
    _told_any: bool = False

    def new_requests(self, detailed: DetailedTask) -> dict[str, dict[str, Any]]:
        """Rule 2 and 4: the requests of this poll not asked before, marked asked; raises
        :class:`TaskError` past :data:`MAX_OUTSTANDING_PER_POLL` or :data:`MAX_KEYS_PER_TASK`."""
        requests = detailed.input_requests or {}
        if len(requests) > MAX_OUTSTANDING_PER_POLL:
            raise TaskError(
                f"task {self.task_id} asks {len(requests)} questions at once "
                f"(the limit is {MAX_OUTSTANDING_PER_POLL})",
                task_id=self.task_id,
            )
        new = {key: request for key, request in requests.items() if key not in self.seen}
        if len(self.seen) + len(new) > MAX_KEYS_PER_TASK:
            raise TaskError(
                f"task {self.task_id} asked more than {MAX_KEYS_PER_TASK} questions in its life",
                task_id=self.task_id,
            )
        self.seen.update(new)
        return new

    def report(self, task: Task, now: float) -> TaskStatus | None:
        """Rule 3: the status to tell now, or ``None`` (no change, or one told less than
        :data:`NOTICE_EVERY` s ago: kept, and told at a later poll; an unchanged ``working``
        is told again after :data:`REMIND_EVERY` s). A terminal status is told at once."""
        state = (task.status, task.status_message)
        if state != self._shown:
            self._pending = state
        elif task.status == "working" and now - self._told_at >= REMIND_EVERY:
            self._pending = state  # the same status, with the time it has run
        if self._pending is None:
            return None
        # The end is always told, however soon after the last notice: it is the last one.
        if now - self._told_at < NOTICE_EVERY and self._pending[0] not in TERMINAL_STATUSES:
            return None
        status, message = self._pending
        self._shown, self._pending, self._told_at = self._pending, None, now
        first, self._told_any = not self._told_any, True
        return TaskStatus(
            task_id=self.task_id,
            status=clean(status, newlines=False),
            message=clean(message, newlines=False) if message else None,
            elapsed=max(0.0, now - self.started),
            first=first,
        )

    def deadline(self, task: Task) -> float:
        """Rule 4: the time past which the task is cancelled, as of this poll (the server may
        change ``ttlMs`` as it goes).

        ``createdAt`` is read as ``started``: the server sends the ``CreateTaskResult`` as it
        creates the task, so the two are one network trip apart, while the server's wall clock
        may be minutes or hours off this machine's (a skewed clock would otherwise end every
        task at once, or never)."""
        limit = self.started + self.time_limit
        if task.ttl_ms is None:
            return limit
        return min(limit, self.started + task.ttl_ms / 1000 + 2 * poll_interval(task))


_Send = Callable[[str, dict[str, Any]], Awaitable[Any]]
"""Send one ``tasks/*`` request for this task (declared, with ``Mcp-Name``); its raw result."""
_Ask = Callable[[str, Mapping[str, Any]], Awaitable[dict[str, Any]]]
"""Answer one input request (its key, its ``{method, params}``) through the handler."""
_Tell = Callable[[TaskStatus], Awaitable[None]]
"""Tell the person one status report."""
_Answered = Callable[[str, dict[str, Any]], None]
"""Count one answer as it leaves (the call's refused-rounds rule); raises to give up."""


async def follow_task(
    task: Task,
    *,
    send: _Send,
    ask: _Ask,
    tell: _Tell,
    answered: _Answered,
    time_limit: float = DEFAULT_TASK_TIME_LIMIT,
) -> dict[str, Any]:
    """Poll ``task`` to a terminal status, answering its questions on the way; return the
    ``result`` of a completed task (the tool's ``CallToolResult``, raw). Raises
    :class:`TaskError` for a failed or cancelled task or a broken limit, ``TimeoutError``
    past the time limit; either way a live task is cancelled first."""
    watch = TaskWatch(task.task_id, time_limit, anyio.current_time())
    failures: list[BaseException] = []
    shown = anyio.Semaphore(MAX_SHOWN)
    outcome: DetailedTask | None = None
    current = task

    async def answer(key: str, request: Mapping[str, Any]) -> None:
        try:
            async with shown:
                response = await ask(key, request)
            # Counted as it leaves: a server that asks again after each "no" is stopped.
            answered(key, response)
            await send("tasks/update", {"inputResponses": {key: response}})
        except Exception as error:  # the whole task is given up; raised below, unwrapped
            failures.append(error)
            scope.cancel()

    async def poll(asking: anyio.abc.TaskGroup) -> None:
        nonlocal current, outcome
        while True:
            if (report := watch.report(current, anyio.current_time())) is not None:
                await tell(report)
            if outcome is not None:
                return
            await anyio.sleep(poll_interval(current))
            detailed = parsed_task(await send("tasks/get", {}), task.task_id)
            current = detailed.task
            scope.deadline = watch.deadline(current)
            if current.terminal:
                outcome = detailed
                continue
            for key, request in watch.new_requests(detailed).items():
                asking.start_soon(answer, key, request)

    try:
        with anyio.CancelScope() as scope:
            scope.deadline = watch.deadline(current)
            async with anyio.create_task_group() as asking:
                try:
                    await poll(asking)
                except Exception as error:  # a broken limit, a bad poll: the task is given up
                    failures.append(error)
                asking.cancel_scope.cancel()  # questions still up are moot now
    except anyio.get_cancelled_exc_class():
        await _cancel(send, task.task_id)  # the caller gave up the call: the task goes too
        raise
    if outcome is None:
        await _cancel(send, task.task_id)
        if failures:
            raise failures[0]
        raise TimeoutError(
            f"task {task.task_id} was not finished within its time limit "
            f"({time_limit:g} s, or its ttl); it was cancelled"
        )
    return _result(outcome)


def parsed_task(raw: Any, task_id: str) -> DetailedTask:
    """A ``tasks/get`` result about ``task_id``; :class:`TaskError` if it is malformed or
    about another task."""
    detailed = parse_get_task_result(raw, revision=Revision.V2026_07_28)
    if isinstance(detailed, list):
        problems = "; ".join(f"{p.field or 'result'}: {p.message}" for p in detailed)
        raise TaskError(f"tasks/get for {task_id} answered a malformed task: {problems}")
    if detailed.task.task_id != task_id:
        raise TaskError(
            f"tasks/get for {task_id} answered about another task, {detailed.task.task_id}",
            task_id=task_id,
        )
    return detailed


def _result(outcome: DetailedTask) -> dict[str, Any]:
    task = outcome.task
    if task.status == "completed" and outcome.result is not None:
        return outcome.result
    if task.status == "failed":
        error = outcome.error or {}
        raise TaskError(
            f"task {task.task_id} failed: {clean(str(error.get('message', '')))} "
            f"(code {error.get('code')})",
            task_id=task.task_id,
            status=task.status,
            error=error,
        )
    why = f": {clean(task.status_message)}" if task.status_message else ""
    raise TaskError(
        f"task {task.task_id} was cancelled by the server{why}",
        task_id=task.task_id,
        status=task.status,
    )


async def _cancel(send: _Send, task_id: str) -> None:
    """_Tell the server to stop the task; the call fails anyway, so a failure to tell it is
    logged, not raised (and the caller's own cancellation does not stop the telling)."""
    with anyio.move_on_after(10, shield=True):
        try:
            await send("tasks/cancel", {})
        except Exception:
            logger.warning("tasks/cancel for %s… failed", task_id[:6], exc_info=True)
