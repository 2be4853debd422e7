"""The scripted server's tasks: the client checks ``client-task-*`` of the 2026-07-28 tasks
extension (``io.modelcontextprotocol/tasks``).

The SDK's server has no task runtime, and what these checks judge is seen only on the wire:
the per-request declaration, the ``Mcp-Name`` header, the time between two polls, the keys of
each ``tasks/update``. So :class:`TaskFront`, an ASGI layer in front of the scripted server,
answers the check tool's ``tools/call`` with a ``CreateTaskResult`` and serves ``tasks/get``,
``tasks/update`` and ``tasks/cancel`` itself from a :class:`TaskScript` (what the task shows
at each poll), recording every request as it came (:class:`TaskTraffic`). Everything else
goes on to the server unchanged.

A task is created only for a call that declares the extension (a client that never declares
it has nothing to judge: the checks are "not applicable"), except in
``client-task-unsolicited``, which answers a task to a call that did *not* declare it.
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Final

from mcp.shared.inbound import decode_header_value

from mcp_elicit.check.report import Status
from mcp_elicit.protocol.capabilities import capabilities_from_request
from mcp_elicit.protocol.codes import INVALID_PARAMS, META_PROTOCOL_VERSION
from mcp_elicit.protocol.tasks import (
    Task,
    create_task_result,
    declares_tasks,
    get_task_result,
    task_ack,
)
from mcp_elicit.revisions import Revision

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_App = Callable[[_Scope, _Receive, _Send], Awaitable[None]]

_TASK_METHODS: Final = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
TTL_MS: Final = 120_000
DONE: Final[dict[str, Any]] = {
    "content": [{"type": "text", "text": "done: the task ran its script"}],
    "isError": False,
}
DEFAULTS: Final[dict[str, Any]] = {
    "enabled": {"type": "boolean", "title": "Enabled", "default": False},
    "count": {"type": "integer", "title": "Count", "default": 0},
    "note": {"type": "string", "title": "Note", "default": ""},
}
"""The form of ``client-task-input-checks``: every field has a falsy default."""


@dataclass(frozen=True)
class Plan:
    """What one check's task does: ``working_polls`` polls in ``working``, then its
    ``questions`` one after another (each shown once the one before it is answered), each
    answered key still shown for ``linger`` more polls (the extension's acknowledgement is
    eventually consistent), then ``completed``."""

    questions: tuple[str, ...] = ("form",)
    working_polls: int = 1
    linger: int = 0
    poll_ms: int = 300


PLANS: Final[dict[str, Plan]] = {
    "client-task-declares": Plan(),
    "client-task-unsolicited": Plan(questions=()),
    "client-task-poll-interval": Plan(questions=(), working_polls=4, poll_ms=400),
    "client-task-mcp-name": Plan(),
    "client-task-dedup": Plan(linger=2),
    "client-task-update-keys": Plan(questions=("form", "form")),
    "client-task-input-checks": Plan(questions=("defaults", "link")),
}
TASK_CHECKS: Final = frozenset(PLANS)


@dataclass(frozen=True)
class TaskRequest:
    """One ``tasks/*`` request as it came: when, the task it names, whether its own ``_meta``
    declared the extension, and its ``Mcp-Name`` header (decoded; ``None``: absent)."""

    at: float
    method: str
    task_id: str | None
    declared: bool
    mcp_name: str | None
    params: dict[str, Any]


@dataclass(frozen=True)
class TaskAnswer:
    """One key of one ``tasks/update``, and whether it was outstanding when it came (shown,
    and not answered before)."""

    key: str
    response: Any
    outstanding: bool


@dataclass
class TaskTraffic:
    """What the client did with the task, as the front saw it."""

    call_declared: bool | None = None
    """Whether the check tool's 2026-07-28 ``tools/call`` declared the extension."""
    task_id: str | None = None
    modes: frozenset[str] = frozenset()
    """The elicitation modes the call declared."""
    requests: list[TaskRequest] = field(default_factory=list)
    shown: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Every key the task showed, with its request's params."""
    kinds: dict[str, str] = field(default_factory=dict)
    """The kind of question under each key (a :class:`Plan`'s names)."""
    answers: list[TaskAnswer] = field(default_factory=list)
    cancelled: bool = False

    def gets(self) -> list[TaskRequest]:
        return [r for r in self.requests if r.method == "tasks/get"]


class TaskScript:
    """One task's state, poll by poll (no I/O): :meth:`get` is the next ``tasks/get`` result,
    :meth:`update` takes the answers of a ``tasks/update``."""

    def __init__(
        self,
        plan: Plan,
        traffic: TaskTraffic,
        question: Callable[[str], dict[str, Any]],
        task_id: str,
    ) -> None:
        self.plan = plan
        self.traffic = traffic
        self.question = question
        self.task_id = task_id
        self.created = time.time()
        self.polls = 0
        self.waiting = list(plan.questions)
        self.outstanding: dict[str, dict[str, Any]] = {}
        self.lingering: dict[str, int] = {}  # answered keys still shown: polls left
        self.status = "working"

    def task(self, status: str) -> Task:
        return Task(
            task_id=self.task_id,
            status=status,  # type: ignore[arg-type]  # one of TASK_STATUSES, set here
            created_at=self.created,
            last_updated_at=time.time(),
            ttl_ms=TTL_MS,
            poll_interval_ms=self.plan.poll_ms,
        )

    def created_result(self) -> dict[str, Any]:
        return create_task_result(self.task("working"), revision=Revision.V2026_07_28)

    def get(self) -> dict[str, Any]:
        self.polls += 1
        if self.status == "cancelled" or self.polls <= self.plan.working_polls:
            return get_task_result(self.task(self.status), revision=Revision.V2026_07_28)
        shown = {key: self.traffic.shown[key] for key in self.lingering}
        for key in list(self.lingering):
            self.lingering[key] -= 1
            if self.lingering[key] <= 0:
                del self.lingering[key]
        if not self.outstanding and not shown and self.waiting:
            kind = self.waiting.pop(0)
            key = f"q-{len(self.traffic.shown) + 1}"
            self.outstanding[key] = self.question(kind)
            self.traffic.shown[key] = self.outstanding[key]
            self.traffic.kinds[key] = kind
        shown.update(self.outstanding)
        if shown:
            self.status = "input_required"
            requests = {
                key: {"method": "elicitation/create", "params": params}
                for key, params in shown.items()
            }
            return get_task_result(
                self.task(self.status), revision=Revision.V2026_07_28, input_requests=requests
            )
        self.status = "completed"
        return get_task_result(self.task(self.status), revision=Revision.V2026_07_28, result=DONE)

    def update(self, responses: dict[str, Any]) -> None:
        for key, response in responses.items():
            outstanding = key in self.outstanding
            self.traffic.answers.append(TaskAnswer(key, response, outstanding))
            if outstanding:
                del self.outstanding[key]
                if self.plan.linger:
                    self.lingering[key] = self.plan.linger

    def cancel(self) -> None:
        self.traffic.cancelled = True
        if self.status not in ("completed", "failed"):
            self.status = "cancelled"
            self.outstanding.clear()
            self.waiting.clear()


class TaskFront:
    """ASGI, in front of the scripted server of a ``client-task-*`` check: serves the task of
    the check tool's 2026-07-28 call (see the module's docstring)."""

    def __init__(
        self,
        app: _App,
        check: str,
        tool: str,
        traffic: TaskTraffic,
        question: Callable[[str], dict[str, Any]],
        called: Callable[[str], None],
    ) -> None:
        self.app, self.check, self.tool = app, check, tool
        self.traffic = traffic
        self.question = question
        self.called = called  # told of each call the front answers itself: its revision
        self.script: TaskScript | None = None

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[_Message] = []
        while True:
            message = await receive()
            chunks.append(message)
            if message.get("type") != "http.request" or not message.get("more_body"):
                break
        body = b"".join(m.get("body", b"") for m in chunks)
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        answer = self._answer(body, headers)
        if answer is None:
            replay = iter(chunks)

            async def again() -> _Message:
                return next(replay, None) or await receive()

            await self.app(scope, again, send)
            return
        out = json.dumps(answer, separators=(",", ":")).encode()
        start = {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
        await send(start)
        await send({"type": "http.response.body", "body": out})

    def _answer(self, body: bytes, headers: dict[bytes, bytes]) -> dict[str, Any] | None:
        """The JSON-RPC response the front gives itself, or ``None`` to pass it on."""
        try:
            message = json.loads(body)
        except ValueError:
            return None
        if not isinstance(message, dict) or "id" not in message:
            return None
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if _version(headers, params) != Revision.V2026_07_28:
            return None
        method = message.get("method")
        if method == "tools/call" and params.get("name") == self.tool:
            result = self._call(params)
        elif method in _TASK_METHODS:
            result = self._task_request(str(method), params, headers)
        else:
            return None
        if result is None:
            return None
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if "code" in result and "message" in result:
            reply["error"] = result
        else:
            reply["result"] = result
        return reply

    def _call(self, params: dict[str, Any]) -> dict[str, Any] | None:
        declared = declares_tasks(params)
        self.traffic.call_declared = declared
        capabilities = capabilities_from_request(params) or {}
        elicitation = capabilities.get("elicitation")
        if isinstance(elicitation, dict):
            modes = {mode for mode in ("form", "url") if isinstance(elicitation.get(mode), dict)}
            self.traffic.modes = frozenset(modes or {"form"})
        unsolicited = self.check == "client-task-unsolicited"
        if declared == unsolicited:
            return None  # the tool answers plainly: there is no task to script here
        self.called(Revision.V2026_07_28)
        task_id = secrets.token_urlsafe(18)
        self.traffic.task_id = task_id
        self.script = TaskScript(PLANS[self.check], self.traffic, self.question, task_id)
        return self.script.created_result()

    def _task_request(
        self, method: str, params: dict[str, Any], headers: dict[bytes, bytes]
    ) -> dict[str, Any]:
        raw_name = headers.get(b"mcp-name")
        task_id = params.get("taskId")
        self.traffic.requests.append(
            TaskRequest(
                at=time.monotonic(),
                method=method,
                task_id=task_id if isinstance(task_id, str) else None,
                declared=declares_tasks(params),
                mcp_name=None if raw_name is None else decode_header_value(raw_name.decode()),
                params=params,
            )
        )
        script = self.script
        if script is None or task_id != script.task_id:
            return {"code": INVALID_PARAMS, "message": f"no task {task_id!r} here"}
        if method == "tasks/get":
            return script.get()
        if method == "tasks/update":
            responses = params.get("inputResponses")
            if not isinstance(responses, dict):
                return {"code": INVALID_PARAMS, "message": "inputResponses must be an object"}
            script.update(responses)
            return task_ack()
        script.cancel()
        return task_ack()


def _version(headers: dict[bytes, bytes], params: dict[str, Any]) -> str | None:
    said = headers.get(b"mcp-protocol-version")
    if said is not None:
        return said.decode("latin-1")
    meta = params.get("_meta")
    version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


# -- judging --------------------------------------------------------------------------------

TaskVerdict = tuple[Status, str]


def _followed(traffic: TaskTraffic) -> TaskVerdict | None:
    """The verdict when there is no task to judge, else ``None``."""
    if not traffic.call_declared:
        return Status.NOT_APPLICABLE, "the client's tools/call does not declare the extension"
    return None


def judge_declares(traffic: TaskTraffic, hits: int) -> TaskVerdict:
    if (skip := _followed(traffic)) is not None:
        return skip
    undeclared = [r.method for r in traffic.requests if not r.declared]
    if undeclared:
        return Status.FAILED, f"without the extension in its _meta: {', '.join(undeclared)}"
    methods = sorted({r.method for r in traffic.requests})
    return Status.PASSED, (
        f"tools/call and {len(traffic.requests)} tasks/* request(s) "
        f"({', '.join(methods) or 'none'}) each declared the extension"
    )


def judge_unsolicited(traffic: TaskTraffic, hits: int) -> TaskVerdict:
    if traffic.call_declared:
        return Status.NOT_APPLICABLE, (
            "the client declared the extension on its tools/call: a task is no surprise there "
            "(run the client with tasks off to see this rule)"
        )
    if traffic.task_id is None:
        return Status.FAILED, f"the check's tools/call never came on {Revision.V2026_07_28}"
    followed = [r.method for r in traffic.requests]
    if followed:
        return Status.FAILED, (
            f"a task answered to a call that did not declare the extension was followed: "
            f"{', '.join(followed)}"
        )
    return Status.PASSED, "a task answered to an undeclared call was not followed"


def judge_poll_interval(traffic: TaskTraffic, hits: int) -> TaskVerdict:
    if (skip := _followed(traffic)) is not None:
        return skip
    interval = PLANS["client-task-poll-interval"].poll_ms / 1000
    times = [r.at for r in traffic.gets()]
    if len(times) < 2:
        return Status.FAILED, f"tasks/get came {len(times)} time(s): the task was not followed"
    closest = min(b - a for a, b in itertools.pairwise(times))
    if closest < 0.9 * interval:
        return Status.FAILED, (
            f"two polls {closest * 1000:.0f} ms apart; pollIntervalMs is {interval * 1000:.0f}"
        )
    return Status.PASSED, (
        f"{len(times)} polls, the closest {closest * 1000:.0f} ms apart "
        f"(pollIntervalMs {interval * 1000:.0f})"
    )


def judge_mcp_name(traffic: TaskTraffic, hits: int) -> TaskVerdict:
    if (skip := _followed(traffic)) is not None:
        return skip
    if not traffic.requests:
        return Status.FAILED, "no tasks/* request came: the task was not followed"
    wrong = [
        f"{r.method} with {'no Mcp-Name' if r.mcp_name is None else f'Mcp-Name {r.mcp_name!r}'}"
        for r in traffic.requests
        if r.mcp_name != r.task_id
    ]
    if wrong:
        return Status.FAILED, "; ".join(wrong)
    return (
        Status.PASSED,
        f"Mcp-Name was the taskId on all {len(traffic.requests)} tasks/* request(s)",
    )


def judge_dedup(traffic: TaskTraffic, hits: int) -> TaskVerdict:
    if (skip := _followed(traffic)) is not None:
        return skip
    if not traffic.answers:
        return Status.SKIPPED, "nothing was answered: a repeat cannot be told"
    counts: dict[str, int] = {}
    for answer in traffic.answers:
        counts[answer.key] = counts.get(answer.key, 0) + 1
    again = {key: n for key, n in counts.items() if n > 1}
    polls = len(traffic.gets())
    if again:
        said = ", ".join(f"{key} {n} times" for key, n in again.items())
        return Status.FAILED, f"answered {said} (shown on {polls} polls)"
    return Status.PASSED, f"each key answered once, though shown on {polls} polls"


def judge_update_keys(traffic: TaskTraffic, hits: int) -> TaskVerdict:
    if (skip := _followed(traffic)) is not None:
        return skip
    if not traffic.answers:
        return Status.SKIPPED, "no tasks/update came: nothing to judge"
    stray = [a.key for a in traffic.answers if not a.outstanding]
    if stray:
        return Status.FAILED, f"tasks/update carried key(s) not outstanding: {', '.join(stray)}"
    return Status.PASSED, f"{len(traffic.answers)} answer(s), each to an outstanding key"


def judge_input_checks(traffic: TaskTraffic, hits: int) -> TaskVerdict:
    if (skip := _followed(traffic)) is not None:
        return skip
    failures: list[str] = []
    seen: list[str] = []
    for answer in traffic.answers:
        kind = traffic.kinds.get(answer.key)
        response = answer.response if isinstance(answer.response, dict) else {}
        action = response.get("action")
        if kind == "defaults" and action == "accept":
            content = response.get("content") or {}
            missing = [name for name in DEFAULTS if name not in content]
            if missing:
                failures.append(f"the form accepted without its defaults {', '.join(missing)}")
        if kind == "link" and action == "accept":
            failures.append(f"the link {_link_said(traffic)} was accepted")
        seen.append(f"{answer.key}: {action}")
    if hits:
        failures.append(f"the link was fetched {hits} time(s)")
    if failures:
        return Status.FAILED, "; ".join(failures)
    if not seen and not traffic.cancelled:
        return Status.SKIPPED, "nothing was answered and the task was not cancelled"
    ended = "; the task was cancelled" if traffic.cancelled else ""
    return Status.PASSED, f"answered {', '.join(seen) or 'nothing'}{ended}"


def _link_said(traffic: TaskTraffic) -> str:
    return "(undeclared mode)" if "url" not in traffic.modes else "(credentials in it)"


TASK_JUDGES: Final[dict[str, Callable[[TaskTraffic, int], TaskVerdict]]] = {
    "client-task-declares": judge_declares,
    "client-task-unsolicited": judge_unsolicited,
    "client-task-poll-interval": judge_poll_interval,
    "client-task-mcp-name": judge_mcp_name,
    "client-task-dedup": judge_dedup,
    "client-task-update-keys": judge_update_keys,
    "client-task-input-checks": judge_input_checks,
}
assert set(TASK_JUDGES) == TASK_CHECKS, "a task check without a judge"
