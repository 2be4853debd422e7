"""A task's state, and every change to it. Sans-IO: records in, records out.

This module is the one owner of a task's state, for both revisions (only the wire and the
carriage of a question differ: :mod:`mcp_elicit.protocol.tasks`). Every change is a pure
function ``f(state, ..., now) -> state'`` that the caller commits with a compare-and-set on
:attr:`TaskState.version`; a function that has nothing to change returns :data:`NO_CHANGE`
(so nothing is written), and one asked for something the rules forbid raises.

The rules
---------

Like h11's ``_state.py``, they are all here (design ``docs/tasks-design.md`` §3).

1. **Creation** (:func:`create`). A task begins ``working``, with no key issued, owned by the
   instance that runs it (``lease.epoch`` 1). Whether a call becomes a task, and its ttl, is
   decided above this module.
2. **Owner.** A task belongs to (``server``, ``user``); every lookup is by both and the id,
   above this module.
3. **Ids** are chosen above (``secrets.token_urlsafe(24)``); here they are only kept.
4. **States.**

   ==================  ==================  =================================================
   from                to                  when (the function)
   ==================  ==================  =================================================
   ``working``         ``input_required``  the owner asks: the outstanding set becomes
                                           non-empty (:func:`request_input`)
   ``input_required``  ``input_required``  another question, or an answer that leaves keys
                                           outstanding
   ``input_required``  ``working``         the last outstanding key is answered
                                           (:func:`answer`, any instance) or withdrawn
                                           (:func:`withdraw`, owner)
   either              ``completed``       the call returned a result (on 2025-11-25 without
                                           ``isError``) (:func:`finish`, owner)
   either              ``failed``          the call's JSON-RPC error; 2025-11-25: ``isError``
                                           (:func:`finish`, owner); the owner's lease ran
                                           out (:func:`orphan`, any); the ttl ran out
                                           (:func:`expire`, any)
   either              ``cancelled``       ``tasks/cancel`` (:func:`cancel`, any, immediate)
   terminal            --                  nothing: every later write is :data:`NO_CHANGE`,
                                           so a result that races a cancel is dropped
   ==================  ==================  =================================================

   **Invariant:** ``input_required`` if and only if at least one key is outstanding, because
   an ``input_required`` task MUST show its requests (EXT §Task Polling 2; design A10). A
   terminal task has none outstanding: what was still out is withdrawn with the reason.
5. **Keys.**

   - **K1.** A question's key is ``f"{base}-{n}"`` with ``n = key_seq + 1``; ``base`` is the
     author's key, else ``q`` (a form) or ``link`` (URL mode). Every key ever issued is in
     exactly one of ``outstanding``, ``answered`` and ``withdrawn`` for the record's life, so
     none is reused (EXT §Task Update Requests: unique over the task's lifetime).
   - **K2.** :func:`answer` gives each key of a ``tasks/update`` a verdict: ``accepted`` (the
     key moves to ``answered``), ``answered`` (already), ``withdrawn`` (timed out or
     superseded), ``unknown`` (never issued here), ``malformed`` (not an answer to its
     request; the key stays out), ``finished`` (the task is terminal). Only ``accepted``
     changes the record; the rest are ignored and reported, never an error (design A1).
   - **K3.** At most :data:`MAX_OUTSTANDING` keys out at once and :data:`MAX_KEYS` in a
     task's life; past either, :func:`request_input` raises :class:`TooManyQuestions`.
6. **Lease.** Only the owner (``lease.instance``, ``lease.epoch``) may :func:`request_input`,
   :func:`settle`, :func:`withdraw`, :func:`finish`, :func:`renew` and :func:`note`. Each
   names its epoch and raises :class:`Fenced` once the epoch has moved (fencing: the owner
   then stops the run); on a terminal task they are :data:`NO_CHANGE`, which tells the owner
   the same. Any instance may :func:`answer`, :func:`cancel`, :func:`orphan` (once
   ``lease.until < now``) and :func:`expire` (once ``expires_at <= now``).
7. **Revision.** The record keeps the revision it was created on; it decides the ``isError``
   mapping of rule 4 (design A4) and which wire serves it. Stored requests are kept as given:
   their shape is the caller's, in the record's revision.

Not here: answers and outcomes are held as plain JSON; sealing them at rest (design §4) is the
store's side, as are the ttl's and lease's lengths, the limits on tasks per user, and purging.
"""

from __future__ import annotations

import copy
import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from mcp_elicit.protocol.codes import ELICITATION_CREATE, INTERNAL_ERROR
from mcp_elicit.protocol.messages import parse_elicit_result
from mcp_elicit.protocol.tasks import TERMINAL_STATUSES, Task, TaskStatusValue, iso_time
from mcp_elicit.revisions import Revision

MAX_OUTSTANDING: Final = 16
"""K3: keys out at once (it also bounds the compare-and-set retries of many answers)."""
MAX_KEYS: Final = 256
"""K3: keys in a task's life."""

AnswerVerdict = Literal["accepted", "answered", "withdrawn", "unknown", "malformed", "finished"]

WAITING: Final = "Waiting for input"
"""The ``statusMessage`` of an ``input_required`` task whose asker gave none."""

_BASE = re.compile(r"[A-Za-z0-9_.]{1,64}")  # an author's key: short, printable, no separator
_TASK_REVISIONS: Final = frozenset({Revision.V2025_11_25.value, Revision.V2026_07_28.value})


class NoChange(enum.Enum):
    """The answer of a write that has nothing to change (so the caller commits nothing)."""

    NO_CHANGE = "no change"


NO_CHANGE: Final = NoChange.NO_CHANGE


class TaskStateError(Exception):
    """A change the rules refuse."""


class Fenced(TaskStateError):
    """The owner's epoch moved: this instance no longer owns the task and must stop its run."""


class TooManyQuestions(TaskStateError):
    """K3: too many keys out at once, or in the task's life."""


@dataclass(frozen=True, slots=True)
class Lease:
    """Who runs the task, under which epoch, until when (Unix seconds) unless renewed."""

    instance: str
    epoch: int
    until: float


@dataclass(frozen=True, slots=True)
class Answered:
    """An answer applied to a key; ``settled`` once the owner has taken it."""

    response: Mapping[str, Any]
    at: float
    settled: bool = False


@dataclass(frozen=True, slots=True)
class TaskState:
    """One task, immutable: change it only through this module's functions.

    The mappings are never changed in place: each change builds new ones.
    """

    id: str
    server: str
    user: str
    revision: str
    tool: str
    status: TaskStatusValue
    created_at: float
    updated_at: float
    ttl_ms: int
    poll_interval_ms: int
    lease: Lease
    status_message: str | None = None
    version: int = 1  # bumped by every change: the compare-and-set counter
    key_seq: int = 0
    outstanding: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # {method, params}
    answered: Mapping[str, Answered] = field(default_factory=dict)
    withdrawn: Mapping[str, str] = field(default_factory=dict)  # key -> why
    result: Mapping[str, Any] | None = None  # what the call returned
    error: Mapping[str, Any] | None = None  # the JSON-RPC error it failed with
    finished_at: float | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def expires_at(self) -> float:
        return self.created_at + self.ttl_ms / 1000

    def task(self) -> Task:
        """The wire's view of it (:mod:`mcp_elicit.protocol.tasks` builds either revision)."""
        return Task(
            task_id=self.id,
            status=self.status,
            created_at=self.created_at,
            last_updated_at=self.updated_at,
            ttl_ms=self.ttl_ms,
            poll_interval_ms=self.poll_interval_ms,
            status_message=self.status_message,
        )


# -- the checks ----------------------------------------------------------------------------------


def broken_rules(state: TaskState) -> list[str]:
    """What in ``state`` breaks the invariants (``[]`` for a sound record)."""
    broken: list[str] = []
    out, done, gone = set(state.outstanding), set(state.answered), set(state.withdrawn)
    if (state.status == "input_required") != bool(out):
        broken.append(f"rule 4: {state.status} with {len(out)} keys outstanding")
    if out & done or out & gone or done & gone:
        broken.append("K1: a key is in two sets")
    if len(out | done | gone) != state.key_seq:
        broken.append(f"K1: {len(out | done | gone)} keys held, {state.key_seq} issued")
    if len(out) > MAX_OUTSTANDING or state.key_seq > MAX_KEYS:
        broken.append("K3: past a limit")
    if state.terminal != (state.finished_at is not None):
        broken.append("a terminal task has its finish time, and only one")
    if state.status == "completed" and state.result is None:
        broken.append("a completed task without its result")
    if state.status == "failed" and state.result is None and state.error is None:
        broken.append("a failed task without its error or result")
    if not state.terminal and (state.result is not None or state.error is not None):
        broken.append("a live task with an outcome")
    return broken


def _changed(state: TaskState, now: float, *, visible: bool = True, **changes: Any) -> TaskState:
    """The one place a new record is made: the version moves, and ``lastUpdatedAt`` when a
    client could see the change."""
    if visible:
        changes["updated_at"] = max(now, state.updated_at)
    new = replace(state, version=state.version + 1, **changes)
    broken = broken_rules(new)
    if broken:  # a bug here, never a peer's doing
        raise AssertionError("; ".join(broken))
    return new


def _own(state: TaskState, epoch: int) -> bool:
    """Rule 6: ``False`` when the task is terminal (nothing to do), raises when fenced."""
    if state.terminal:
        return False
    if epoch != state.lease.epoch:
        raise Fenced(f"task {state.id}: epoch {epoch} is not the lease's {state.lease.epoch}")
    return True


# -- creation ------------------------------------------------------------------------------------


def create(
    *,
    task_id: str,
    server: str,
    user: str,
    revision: Revision | str,
    tool: str,
    now: float,
    ttl_ms: int,
    poll_interval_ms: int,
    instance: str,
    lease_until: float,
) -> TaskState:
    """Rule 1: a new ``working`` task, owned by ``instance`` under epoch 1."""
    version = Revision.parse(revision).value
    if version not in _TASK_REVISIONS:
        raise ValueError(f"{version} has no tasks")
    if not task_id or not user:
        raise ValueError("a task needs an id and a user")
    if ttl_ms < 1 or poll_interval_ms < 1:
        raise ValueError("the ttl and the poll interval are positive milliseconds")
    return TaskState(
        id=task_id,
        server=server,
        user=user,
        revision=version,
        tool=tool,
        status="working",
        created_at=now,
        updated_at=now,
        ttl_ms=ttl_ms,
        poll_interval_ms=poll_interval_ms,
        lease=Lease(instance, 1, lease_until),
    )


# -- the owner's writes --------------------------------------------------------------------------


def request_input(
    state: TaskState,
    params: Mapping[str, Any],
    *,
    epoch: int,
    now: float,
    base: str | None = None,
    method: str = ELICITATION_CREATE,
    message: str | None = None,
) -> tuple[TaskState, str] | NoChange:
    """The owner asks (K1, K3): a new key for ``params``, and the task is ``input_required``.

    ``base`` is the author's key; without one, ``link`` for a URL-mode elicitation and ``q``
    for anything else. ``message`` becomes the ``statusMessage`` (default :data:`WAITING`).
    """
    if base is not None and not _BASE.fullmatch(base):
        raise ValueError("a question's key is 1 to 64 letters, digits, '_' or '.'")
    if not isinstance(params, Mapping):
        raise ValueError("a question's params are an object")
    if not _own(state, epoch):
        return NO_CHANGE
    if len(state.outstanding) >= MAX_OUTSTANDING:
        raise TooManyQuestions(
            f"a task may have at most {MAX_OUTSTANDING} questions waiting at once"
        )
    if state.key_seq >= MAX_KEYS:
        raise TooManyQuestions(f"a task may ask at most {MAX_KEYS} questions in its life")
    if base is None:
        base = "link" if method == ELICITATION_CREATE and params.get("mode") == "url" else "q"
    seq = state.key_seq + 1
    key = f"{base}-{seq}"
    request = {"method": method, "params": copy.deepcopy(dict(params))}
    new = _changed(
        state,
        now,
        status="input_required",
        status_message=message or WAITING,
        key_seq=seq,
        outstanding={**state.outstanding, key: request},
    )
    return new, key


def settle(state: TaskState, key: str, *, epoch: int, now: float) -> TaskState | NoChange:
    """The owner has taken ``key``'s answer (so it is not handed over twice)."""
    if not _own(state, epoch):
        return NO_CHANGE
    answered = state.answered.get(key)
    if answered is None:
        raise ValueError(f"{key!r} has no answer to settle")
    if answered.settled:
        return NO_CHANGE
    settled = replace(answered, settled=True)
    return _changed(state, now, visible=False, answered={**state.answered, key: settled})


def withdraw(
    state: TaskState, key: str, *, epoch: int, now: float, reason: str
) -> TaskState | NoChange:
    """The owner gives up on ``key`` (a timeout, a superseded question). A key answered or
    withdrawn already is :data:`NO_CHANGE`: an answer that won the race stays an answer."""
    if not _own(state, epoch):
        return NO_CHANGE
    if key not in state.outstanding:
        if key in state.answered or key in state.withdrawn:
            return NO_CHANGE
        raise ValueError(f"{key!r} was never issued by this task")
    outstanding = {k: v for k, v in state.outstanding.items() if k != key}
    return _changed(
        state,
        now,
        outstanding=outstanding,
        withdrawn={**state.withdrawn, key: reason},
        **_after_leaving(state, outstanding),
    )


def _after_leaving(state: TaskState, outstanding: Mapping[str, Any]) -> dict[str, Any]:
    """Rule 4's invariant once keys have left: ``working`` when none is out any more."""
    if outstanding or state.status != "input_required":
        return {}
    return {"status": "working", "status_message": None}


def note(state: TaskState, message: str | None, *, epoch: int, now: float) -> TaskState | NoChange:
    """The owner sets the ``statusMessage`` (a URL-mode page still open, ``task_status``)."""
    if not _own(state, epoch) or message == state.status_message:
        return NO_CHANGE
    return _changed(state, now, status_message=message)


def renew(state: TaskState, *, epoch: int, now: float, until: float) -> TaskState | NoChange:
    """The owner extends its lease (rule 6; seen by no client)."""
    if not _own(state, epoch):
        return NO_CHANGE
    lease = replace(state.lease, until=max(until, state.lease.until))
    return _changed(state, now, visible=False, lease=lease)


def finish(
    state: TaskState,
    *,
    epoch: int,
    now: float,
    result: Mapping[str, Any] | None = None,
    error: Mapping[str, Any] | None = None,
    message: str | None = None,
) -> TaskState | NoChange:
    """The call is over: its result, or its JSON-RPC error (exactly one).

    A result with ``isError: true`` is ``failed`` on 2025-11-25 (T25 §Data Types) and
    ``completed`` on the extension (EXT §Task Execution Errors; design A4); either way the
    result is kept, since it is what ``tasks/result`` or ``tasks/get`` returns. ``message``
    becomes the ``statusMessage``; for an error it defaults to the error's message.
    """
    if (result is None) == (error is None):
        raise ValueError("a task finishes with a result or an error, exactly one")
    if error is not None:
        _require_error(error)
    if not _own(state, epoch):
        return NO_CHANGE  # a cancel won the race: the result is dropped
    tool_error = result is not None and result.get("isError") is True
    status: TaskStatusValue = "completed"
    if error is not None or (tool_error and state.revision == Revision.V2025_11_25.value):
        status = "failed"
    if error is not None and message is None:
        # EXT §Task Execution Errors: a failed task SHOULD say why in its statusMessage
        message = error["message"]
    return _end(
        state,
        now,
        status,
        why="finished",
        message=message,
        result=copy.deepcopy(dict(result)) if result is not None else None,
        error=dict(error) if error is not None else None,
    )


def _require_error(error: Mapping[str, Any]) -> None:
    code = error.get("code")
    if (
        isinstance(code, bool)
        or not isinstance(code, int)
        or not isinstance(error.get("message"), str)
    ):
        raise ValueError("a task's error is a JSON-RPC error: an integer code and a message")


def _end(
    state: TaskState,
    now: float,
    status: TaskStatusValue,
    *,
    why: str,
    message: str | None,
    result: Mapping[str, Any] | None = None,
    error: Mapping[str, Any] | None = None,
    lease: Lease | None = None,
) -> TaskState:
    """Into a terminal status: what is still out is withdrawn (rule 4), the outcome kept."""
    withdrawn = {**state.withdrawn, **dict.fromkeys(state.outstanding, why)}
    return _changed(
        state,
        now,
        status=status,
        status_message=message,
        outstanding={},
        withdrawn=withdrawn,
        result=result,
        error=error,
        finished_at=now,
        lease=lease or state.lease,
    )


# -- any instance's writes -----------------------------------------------------------------------


def answer(
    state: TaskState, responses: Mapping[str, Any], *, now: float
) -> tuple[TaskState | NoChange, dict[str, AnswerVerdict]]:
    """A ``tasks/update``'s answers (K2), from any instance: each key's verdict, and the record
    with the accepted ones applied (:data:`NO_CHANGE` when none was)."""
    verdicts: dict[str, AnswerVerdict] = {}
    accepted: dict[str, Answered] = {}
    for key, response in responses.items():
        verdicts[key] = _verdict(state, key, response)
        if verdicts[key] == "accepted":
            accepted[key] = Answered(copy.deepcopy(dict(response)), now)
    if not accepted:
        return NO_CHANGE, verdicts
    outstanding = {k: v for k, v in state.outstanding.items() if k not in accepted}
    new = _changed(
        state,
        now,
        outstanding=outstanding,
        answered={**state.answered, **accepted},
        **_after_leaving(state, outstanding),
    )
    return new, verdicts


def _verdict(state: TaskState, key: str, response: Any) -> AnswerVerdict:
    if state.terminal:
        return "finished"
    request = state.outstanding.get(key)
    if request is None:
        if key in state.answered:
            return "answered"
        return "withdrawn" if key in state.withdrawn else "unknown"
    if not isinstance(response, Mapping):
        return "malformed"
    if request.get("method") == ELICITATION_CREATE:
        params = request.get("params")
        mode = params.get("mode", "form") if isinstance(params, Mapping) else "form"
        parsed = parse_elicit_result(
            response, revision=state.revision, mode="url" if mode == "url" else "form"
        )
        if isinstance(parsed, list):
            return "malformed"
    return "accepted"


def cancel(state: TaskState, *, now: float, message: str | None = None) -> TaskState | NoChange:
    """``tasks/cancel``, from any instance: ``cancelled`` at once (the owner's run sees it at its
    next write or wake-up). A terminal task is :data:`NO_CHANGE` (2025-11-25 then answers
    -32602; the extension acks)."""
    if state.terminal:
        return NO_CHANGE
    return _end(state, now, "cancelled", why="cancelled", message=message)


def orphan(state: TaskState, *, now: float) -> TaskState | NoChange:
    """The owner's lease ran out (``lease.until < now``): ``failed``, and the epoch moves so
    that a late write of the old owner is fenced. :data:`NO_CHANGE` while the lease holds."""
    if state.terminal or not state.lease.until < now:
        return NO_CHANGE
    lease = replace(state.lease, epoch=state.lease.epoch + 1)
    error = _internal_error(
        state, "The server instance running this task stopped; the task cannot continue"
    )
    ran_out = iso_time(state.lease.until)
    message = f"The lease of the instance running this task ran out at {ran_out}"
    return _end(state, now, "failed", why="orphaned", message=message, error=error, lease=lease)


def expire(state: TaskState, *, now: float) -> TaskState | NoChange:
    """The ttl ran out (``expires_at <= now``) on a live task: ``failed``. A terminal task is
    :data:`NO_CHANGE` (purging it is the store's)."""
    if state.terminal or state.expires_at > now:
        return NO_CHANGE
    text = f"The task's ttl of {state.ttl_ms} ms ran out"
    return _end(
        state, now, "failed", why="expired", message=text, error=_internal_error(state, text)
    )


def _internal_error(state: TaskState, message: str) -> dict[str, Any]:
    """-32603 (neither revision has a code for this: design A8), naming the keys answered but
    not their values, so the client knows what it need not ask the person again."""
    return {
        "code": INTERNAL_ERROR,
        "message": message,
        "data": {"answeredKeys": sorted(state.answered)},
    }
