"""Tasks on the wire, for both revisions that have them. Sans-IO: dicts in, dicts out.

2025-11-25 has tasks in its core; 2026-07-28 has them only as the extension
``io.modelcontextprotocol/tasks``, and the two are not wire-compatible (SEP-2663 §Backward
Compatibility), so every builder and parser here takes the revision:

===========================  ==================================  =================================
                             2025-11-25                          2026-07-28 + extension
===========================  ==================================  =================================
``Task``                     ``ttl``, ``pollInterval``           ``ttlMs``, ``pollIntervalMs``
``CreateTaskResult``         ``{task: Task}``                    flat: ``{resultType: "task", ...}``
``tasks/get`` result         the ``Task``                        ``DetailedTask`` +
                                                                 ``resultType: "complete"``
a question                   ``elicitation/create`` with         ``inputRequests`` in
                             related-task ``_meta``              ``tasks/get``
an answer                    that request's response             ``tasks/update``
===========================  ==================================  =================================

Builders are strict and raise ``ValueError`` for what the revision cannot say (a ``result`` on a
``working`` task, tasks on 2025-06-18); parsers are liberal, say what they accepted in
``accepted_quirks``, and otherwise return :class:`ProtocolProblem`\\ s naming the field.
Times are Unix seconds here and ISO 8601 UTC on the wire.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from mcp_elicit.i18n import _
from mcp_elicit.protocol.capabilities import capabilities_from_request
from mcp_elicit.protocol.codes import (
    META_IGNORED,
    META_RELATED_TASK,
    TASKS_EXTENSION,
)
from mcp_elicit.protocol.errors import missing_capability_error
from mcp_elicit.protocol.problems import ProtocolProblem
from mcp_elicit.revisions import Revision

TaskStatusValue = Literal["working", "input_required", "completed", "failed", "cancelled"]
TASK_STATUSES: Final[tuple[TaskStatusValue, ...]] = (
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
)
TERMINAL_STATUSES: Final[frozenset[str]] = frozenset({"completed", "failed", "cancelled"})

TaskSupport = Literal["forbidden", "optional", "required"]
TASK_SUPPORTS: Final[tuple[TaskSupport, ...]] = ("forbidden", "optional", "required")

TASK_RESULT_TYPE: Final = "task"  # the extension's discriminator of a CreateTaskResult
_COMPLETE: Final = "complete"

# The member names that differ between the two revisions' ``Task``.
_R2, _R3 = Revision.V2025_11_25, Revision.V2026_07_28
_TTL: Final = {_R2: "ttl", _R3: "ttlMs"}
_POLL: Final = {_R2: "pollInterval", _R3: "pollIntervalMs"}


def _tasks_revision(revision: Revision | str) -> Revision:
    version = Revision.parse(revision)
    if version not in _TTL:
        raise ValueError(
            f"{version} has no tasks ({_R2} has them in its core, {_R3} as the "
            f"{TASKS_EXTENSION} extension)"
        )
    return version


# -- times ---------------------------------------------------------------------------------------


def iso_time(at: float) -> str:
    """Unix seconds as ISO 8601 UTC with milliseconds: ``2025-11-25T10:30:00.000Z``."""
    moment = datetime.datetime.fromtimestamp(at, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso_time(text: Any) -> tuple[float, str | None] | None:
    """An ISO 8601 timestamp as Unix seconds, with a quirk when it had no offset (read as UTC);
    ``None`` when it is not one."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=datetime.UTC).timestamp(), f"{text}: no offset, read as UTC"
    return moment.timestamp(), None


# -- Task ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Task:
    """A task's operational data, whatever revision it came in (times in Unix seconds)."""

    task_id: str
    status: TaskStatusValue
    created_at: float
    last_updated_at: float
    ttl_ms: int | None  # ``None``: unlimited
    poll_interval_ms: int | None = None
    status_message: str | None = None
    accepted_quirks: tuple[str, ...] = field(default=(), compare=False)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


def task_object(task: Task, *, revision: Revision | str) -> dict[str, Any]:
    """The ``Task`` object of ``revision`` (2025-11-25: ``ttl``; 2026-07-28: ``ttlMs``)."""
    version = _tasks_revision(revision)
    if not task.task_id:
        raise ValueError("a task needs a taskId")
    if task.status not in TASK_STATUSES:
        raise ValueError(f"unknown task status {task.status!r}")
    for name, value in (("ttl", task.ttl_ms), ("poll interval", task.poll_interval_ms)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"the {name} must be an integer number of milliseconds")
    wire: dict[str, Any] = {
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": iso_time(task.created_at),
        "lastUpdatedAt": iso_time(task.last_updated_at),
        _TTL[version]: task.ttl_ms,
    }
    if task.status_message is not None:
        wire["statusMessage"] = task.status_message
    if task.poll_interval_ms is not None:
        wire[_POLL[version]] = task.poll_interval_ms
    return wire


def _int_ms(value: Any) -> bool:
    # JSON has one number type: 1000.0 is the integer 1000 (a JS peer may send it so).
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and float(value).is_integer() and value >= 0


def parse_task(obj: Any, *, revision: Revision | str) -> Task | list[ProtocolProblem]:
    """A ``Task`` object of ``revision`` (extra members, ``resultType`` included, are ignored).

    Accepted and noted: a timestamp without an offset (read as UTC) and the other revision's
    spelling of ``ttl``/``pollInterval`` (only when this revision's is absent).
    """
    version = _tasks_revision(revision)
    if not isinstance(obj, Mapping):
        return [ProtocolProblem("task_type", _("a task must be an object"))]
    problems: list[ProtocolProblem] = []
    quirks: list[str] = []
    task_id = obj.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        problems.append(ProtocolProblem("task_id", _("must be a non-empty string"), "taskId"))
    status = obj.get("status")
    if status not in TASK_STATUSES:
        problems.append(
            ProtocolProblem(
                "task_status", _("unknown status {status}").format(status=repr(status)), "status"
            )
        )
    times: dict[str, float] = {}
    for name in ("createdAt", "lastUpdatedAt"):
        parsed = parse_iso_time(obj.get(name))
        if parsed is None:
            problems.append(ProtocolProblem("task_time", _("must be an ISO 8601 timestamp"), name))
            continue
        times[name], quirk = parsed
        if quirk:
            quirks.append(f"{name}: {quirk}")
    other = _R3 if version is _R2 else _R2
    durations: dict[str, int | None] = {}
    for names, nullable in ((_TTL, True), (_POLL, False)):
        name = names[version]
        if name not in obj and names[other] in obj:
            quirks.append(f"{names[other]} read as {name}")
            name = names[other]
        if name not in obj:
            if nullable:  # ttl is required (and may be null); pollInterval is optional
                problems.append(ProtocolProblem("task_ttl", _("is required"), names[version]))
            durations[names[version]] = None
            continue
        value = obj[name]
        if value is None and nullable:
            durations[names[version]] = None
        elif _int_ms(value):
            durations[names[version]] = int(value)
        else:
            problems.append(
                ProtocolProblem("task_duration", _("must be whole milliseconds"), names[version])
            )
    message = obj.get("statusMessage")
    if message is not None and not isinstance(message, str):
        problems.append(ProtocolProblem("status_message", _("must be a string"), "statusMessage"))
    if problems:
        return problems
    assert isinstance(task_id, str) and status in TASK_STATUSES  # for the type checker
    return Task(
        task_id=task_id,
        status=status,
        created_at=times["createdAt"],
        last_updated_at=times["lastUpdatedAt"],
        ttl_ms=durations[_TTL[version]],
        poll_interval_ms=durations[_POLL[version]],
        status_message=message,
        accepted_quirks=tuple(quirks),
    )


# -- creation ------------------------------------------------------------------------------------


def create_task_result(task: Task, *, revision: Revision | str) -> dict[str, Any]:
    """The ``CreateTaskResult``: ``{task: Task}`` on 2025-11-25, the flat
    ``{resultType: "task", ...Task}`` on 2026-07-28 (with no ``result``, ``error`` or
    ``inputRequests``: a task is born with none of them on the wire)."""
    version = _tasks_revision(revision)
    wire = task_object(task, revision=version)
    if version is _R2:
        return {"task": wire}
    return {"resultType": TASK_RESULT_TYPE, **wire}


def parse_create_task_result(
    result: Any, *, revision: Revision | str
) -> Task | list[ProtocolProblem] | None:
    """The task a result announces; ``None`` when the result is not a ``CreateTaskResult`` (no
    ``task`` member on 2025-11-25; a ``resultType`` other than ``"task"`` on 2026-07-28)."""
    version = _tasks_revision(revision)
    if not isinstance(result, Mapping):
        return [ProtocolProblem("result_type", _("a result must be an object"))]
    if version is _R2:
        if "task" not in result:
            return None
        parsed = parse_task(result["task"], revision=version)
        if isinstance(parsed, list):
            return [_under("task", p) for p in parsed]
        return parsed
    if result.get("resultType") != TASK_RESULT_TYPE:
        return None
    return parse_task(result, revision=version)


def _under(prefix: str, problem: ProtocolProblem) -> ProtocolProblem:
    where = f"{prefix}.{problem.field}" if problem.field else prefix
    return ProtocolProblem(problem.code, problem.message, where)


# -- tasks/get -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DetailedTask:
    """A ``tasks/get`` result: the task, and what its status carries (the extension's
    ``DetailedTask``; on 2025-11-25 only ``task`` is ever set)."""

    task: Task
    input_requests: dict[str, dict[str, Any]] | None = None  # ``input_required``
    result: dict[str, Any] | None = None  # ``completed``
    error: dict[str, Any] | None = None  # ``failed``
    accepted_quirks: tuple[str, ...] = field(default=(), compare=False)


def get_task_result(
    task: Task,
    *,
    revision: Revision | str,
    input_requests: Mapping[str, Mapping[str, Any]] | None = None,
    result: Mapping[str, Any] | None = None,
    error: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``tasks/get`` result.

    2025-11-25: the ``Task`` alone; the questions travel as ``elicitation/create`` and the
    outcome through ``tasks/result``, so ``input_requests``, ``result`` and ``error`` are not
    sent (they may be passed, so that one call serves both revisions).

    2026-07-28: ``resultType: "complete"`` and what the status requires (EXT §Task Polling,
    Response): ``input_required`` needs every outstanding request, ``completed`` the result,
    ``failed`` the JSON-RPC error; anything else given is a ``ValueError``.
    """
    version = _tasks_revision(revision)
    wire = task_object(task, revision=version)
    if version is _R2:
        return wire
    carried = {
        "input_required": ("inputRequests", input_requests),
        "completed": ("result", result),
        "failed": ("error", error),
    }
    given = {
        name: value
        for name, value in (
            ("inputRequests", input_requests),
            ("result", result),
            ("error", error),
        )
        if value is not None
    }
    needed = carried.get(task.status)
    extra = set(given) - ({needed[0]} if needed else set())
    if extra:
        raise ValueError(f"a {task.status} task carries no {', '.join(sorted(extra))}")
    out: dict[str, Any] = {"resultType": _COMPLETE, **wire}
    if needed is not None:
        name, value = needed
        if not value:
            raise ValueError(f"a {task.status} task must carry {name}")
        if name == "inputRequests":
            out[name] = {key: _input_request(key, request) for key, request in value.items()}
        elif name == "error":
            out[name] = _error_object(value)
        else:
            out[name] = dict(value)
    return out


def _input_request(key: str, request: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(key, str) or not key:
        raise ValueError("input request keys must be non-empty strings")
    method, params = request.get("method"), request.get("params")
    if not isinstance(method, str) or not isinstance(params, Mapping):
        raise ValueError(f"input request {key!r} needs a method and params")
    return {"method": method, "params": dict(params)}


def _error_object(error: Mapping[str, Any]) -> dict[str, Any]:
    code, message = error.get("code"), error.get("message")
    if isinstance(code, bool) or not isinstance(code, int) or not isinstance(message, str):
        raise ValueError("a task's error is a JSON-RPC error: an integer code and a message")
    return dict(error)


def parse_get_task_result(
    result: Any, *, revision: Revision | str
) -> DetailedTask | list[ProtocolProblem]:
    """A ``tasks/get`` result. On 2026-07-28 a ``resultType`` of ``"task"`` is accepted and
    noted (the extension's own examples send it, against its text: design A2), and so is a
    missing one."""
    version = _tasks_revision(revision)
    task = parse_task(result, revision=version)
    if isinstance(task, list):
        return task
    if version is _R2:
        return DetailedTask(task, accepted_quirks=task.accepted_quirks)
    assert isinstance(result, Mapping)  # parse_task took it
    quirks = list(task.accepted_quirks)
    kind = result.get("resultType")
    if kind == TASK_RESULT_TYPE:
        quirks.append('resultType "task" on tasks/get read as "complete"')
    elif kind is None:  # a result without one is complete (as in mcp_elicit.protocol.mrtr)
        quirks.append('resultType missing on tasks/get: read as "complete"')
    elif kind != _COMPLETE:
        return [
            ProtocolProblem(
                "result_type_unknown",
                _("unknown resultType {kind}").format(kind=repr(kind)),
                "resultType",
            )
        ]
    problems: list[ProtocolProblem] = []
    requests = result.get("inputRequests")
    outcome = result.get("result")
    error = result.get("error")
    if task.status == "input_required":
        if not isinstance(requests, Mapping) or not requests:
            problems.append(
                ProtocolProblem(
                    "input_requests",
                    _("an input_required task must carry its requests"),
                    "inputRequests",
                )
            )
        else:
            for key, value in requests.items():
                if not isinstance(value, Mapping) or not isinstance(value.get("method"), str):
                    problems.append(
                        ProtocolProblem(
                            "input_request_type",
                            _("must be an object with a method"),
                            f"inputRequests.{key}",
                        )
                    )
    if task.status == "completed" and not isinstance(outcome, Mapping):
        problems.append(
            ProtocolProblem("task_result", _("a completed task must carry its result"), "result")
        )
    if task.status == "failed" and not (
        isinstance(error, Mapping) and isinstance(error.get("code"), int)
    ):
        problems.append(
            ProtocolProblem("task_error", _("a failed task must carry its error"), "error")
        )
    if problems:
        return problems
    done = task.status == "completed"
    return DetailedTask(
        task,
        input_requests=(
            {key: dict(value) for key, value in requests.items()}
            if task.status == "input_required" and isinstance(requests, Mapping)
            else None
        ),
        result=dict(outcome) if isinstance(outcome, Mapping) and done else None,
        error=dict(error) if isinstance(error, Mapping) and task.status == "failed" else None,
        accepted_quirks=tuple(quirks),
    )


# -- tasks/get, tasks/cancel, tasks/result, tasks/update params ----------------------------------


def parse_task_id(params: Any) -> str | list[ProtocolProblem]:
    """The ``taskId`` of a ``tasks/*`` request's params."""
    if not isinstance(params, Mapping):
        return [ProtocolProblem("params_type", _("params must be an object"), "params")]
    task_id = params.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        return [ProtocolProblem("task_id", _("must be a non-empty string"), "taskId")]
    return task_id


@dataclass(frozen=True, slots=True)
class TaskUpdate:
    """The params of a ``tasks/update``: the task and the answers, one per key, as sent (each
    is judged against its own request when it is applied)."""

    task_id: str
    input_responses: dict[str, Any]


def parse_task_update(params: Any) -> TaskUpdate | list[ProtocolProblem]:
    """A ``tasks/update``'s params. Only the envelope is checked here (-32602 when it is
    wrong); a single answer of the wrong shape is not an error but an ignored key."""
    task_id = parse_task_id(params)
    if isinstance(task_id, list):
        return task_id
    assert isinstance(params, Mapping)
    responses = params.get("inputResponses")
    if not isinstance(responses, Mapping):
        return [
            ProtocolProblem(
                "input_responses_type",
                _("must be an object of answers by key"),
                "inputResponses",
            )
        ]
    return TaskUpdate(task_id, {str(key): value for key, value in responses.items()})


def task_ack(ignored: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The empty acknowledgement of ``tasks/update`` and ``tasks/cancel`` (2026-07-28); the
    keys an update did not apply, with their verdicts, under ``_meta["mcp-elicit/ignored"]``."""
    ack: dict[str, Any] = {"resultType": _COMPLETE}
    if ignored:
        ack["_meta"] = {META_IGNORED: dict(ignored)}
    return ack


def ignored_keys(ack: Any) -> dict[str, str]:
    """The keys an ack says were not applied (``{}`` when it names none)."""
    meta = ack.get("_meta") if isinstance(ack, Mapping) else None
    ignored = meta.get(META_IGNORED) if isinstance(meta, Mapping) else None
    if not isinstance(ignored, Mapping):
        return {}
    return {str(key): str(value) for key, value in ignored.items()}


# -- capabilities --------------------------------------------------------------------------------


def declares_tasks(params: Any) -> bool:
    """Whether a 2026-07-28 request declares the extension in its own ``_meta`` (read per
    request: nothing is inferred from an earlier one; EXT §Capability Negotiation)."""
    capabilities = capabilities_from_request(params if isinstance(params, Mapping) else None)
    extensions = capabilities.get("extensions") if capabilities else None
    return isinstance(extensions, Mapping) and isinstance(extensions.get(TASKS_EXTENSION), Mapping)


def tasks_declaration() -> dict[str, Any]:
    """What a 2026-07-28 client adds to its per-request capabilities (and a server to its
    ``server/discover`` capabilities): ``{"extensions": {"io.modelcontextprotocol/tasks": {}}}``."""
    return {"extensions": {TASKS_EXTENSION: {}}}


def server_tasks_capability(*, listing: bool = True) -> dict[str, Any]:
    """The 2025-11-25 ``capabilities.tasks`` of a server that runs ``tools/call`` as tasks."""
    capability: dict[str, Any] = {"cancel": {}, "requests": {"tools": {"call": {}}}}
    if listing:
        capability = {"list": {}, **capability}
    return capability


def tasks_required_error(
    message: str = "This request needs the io.modelcontextprotocol/tasks extension",
) -> dict[str, Any]:
    """-32021 naming the extension in ``data.requiredCapabilities.extensions``: a ``tasks/*``
    request that did not declare it, or a call that cannot run without a task."""
    return missing_capability_error(tasks_declaration(), message=message)


def tool_task_support(tool: Any) -> TaskSupport:
    """A 2025-11-25 tool's ``execution.taskSupport``; ``"forbidden"`` when absent (the
    schema's default) or not one of the three."""
    execution = tool.get("execution") if isinstance(tool, Mapping) else None
    support = execution.get("taskSupport") if isinstance(execution, Mapping) else None
    for known in TASK_SUPPORTS:
        if support == known:
            return known
    return "forbidden"


def requested_task_ttl(params: Any) -> int | Literal[False] | None:
    """A 2025-11-25 ``tools/call``'s ``task``: ``False`` when it asks for no task, else the
    ``ttl`` it asks for (``None`` when it names none or not a whole number of ms)."""
    task = params.get("task") if isinstance(params, Mapping) else None
    if not isinstance(task, Mapping):
        return False
    ttl: Any = task.get("ttl")
    return int(ttl) if _int_ms(ttl) else None


# -- related-task _meta (2025-11-25) -------------------------------------------------------------


def related_task_meta(task_id: str) -> dict[str, Any]:
    """``{"io.modelcontextprotocol/related-task": {"taskId": ...}}`` for a ``_meta``."""
    if not task_id:
        raise ValueError("a related task needs its taskId")
    return {META_RELATED_TASK: {"taskId": task_id}}


def with_related_task(message: Mapping[str, Any], task_id: str) -> dict[str, Any]:
    """``message`` (params or a result) with its ``_meta`` naming the task; other ``_meta``
    keys are kept."""
    meta = message.get("_meta")
    merged = dict(meta) if isinstance(meta, Mapping) else {}
    merged.update(related_task_meta(task_id))
    return {**message, "_meta": merged}


def parse_related_task(message: Any) -> str | None:
    """The task id a message's ``_meta`` names, or ``None``."""
    meta = message.get("_meta") if isinstance(message, Mapping) else None
    related = meta.get(META_RELATED_TASK) if isinstance(meta, Mapping) else None
    task_id = related.get("taskId") if isinstance(related, Mapping) else None
    return task_id if isinstance(task_id, str) and task_id else None
