"""The server checks of 2025-11-25's core tasks (``basic/utilities/tasks``: experimental tasks
in that revision's core, not wire-compatible with the 2026-07-28 extension the
``server-task-*`` checks of :mod:`mcp_elicit.check.server_checks` cover).

A task is a ``tools/call`` carrying ``params.task``; its result is read with ``tasks/result``,
which also carries the questions the task asks (SEP-2260: on that request's own stream). The
checks run only against a server whose ``initialize`` declares
``capabilities.tasks.requests.tools.call`` (``run_check`` says "not applicable" otherwise), with
the same check tools as the extension's checks plus ``test_task_forbidden`` and
``test_task_link`` (docs/check.md). Each body is registered in ``server_checks`` by ID when
:mod:`mcp_elicit.check.running` imports this module.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import anyio

from mcp_elicit.check.catalog import (
    TASK_ASK_TOOL,
    TASK_FORBIDDEN_TOOL,
    TASK_LINK_TOOL,
    TASK_PROTOCOL_ERROR_TOOL,
    TASK_REQUIRED_TOOL,
    TASK_SLOW_TOOL,
    TASK_TOOL_ERROR_TOOL,
)
from mcp_elicit.check.probe import MAX_PAGES, Probe, ProbeReply
from mcp_elicit.check.server_checks import (
    NOTICE_WAIT,
    TASK_POLL,
    TASK_WAIT,
    TERMINAL_TASK,
    ServerRun,
    _body,
    failed,
    valid_answer,
)
from mcp_elicit.protocol.codes import ELICITATION_COMPLETE as NOTICE
from mcp_elicit.protocol.codes import INVALID_PARAMS, META_RELATED_TASK, METHOD_NOT_FOUND

TTL_MS = 60_000
"""The ``ttl`` each check task asks for: long enough for any check, short enough that a
server keeps nothing of the check for long."""
LIVE_SECONDS = 1.0
"""How long the task whose ``tasks/result`` must wait works: long enough that an answer
before its end shows."""
ASKED = "elicitation/create"


async def answer_validly(params: dict[str, Any]) -> dict[str, Any]:
    """A person who agrees: opens the link, or fills the form validly (an invalid answer
    would only be asked again)."""
    if params.get("mode") == "url" or "url" in params:
        return {"action": "accept"}
    return {"action": "accept", "content": valid_answer(params.get("requestedSchema") or {})}


def _task_params(tool: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"name": tool, "arguments": dict(arguments or {}), "task": {"ttl": TTL_MS}}


def _created_id(reply: ProbeReply) -> str | None:
    """The id of the task a ``tools/call`` was answered with (``{task: Task}``), else None."""
    task = (reply.result or {}).get("task")
    task_id = task.get("taskId") if isinstance(task, Mapping) else None
    return task_id if isinstance(task_id, str) and task_id else None


async def _new_task(probe: Probe, tool: str, arguments: Mapping[str, Any] | None = None) -> str:
    reply = await probe.request("tools/call", _task_params(tool, arguments))
    task_id = _created_id(reply)
    if task_id is None:
        raise failed(
            f"{tool}, called with params.task, was not answered with a CreateTaskResult: "
            f"{reply.describe()}"
        )
    return task_id


async def _task_get(probe: Probe, task_id: str) -> dict[str, Any]:
    reply = await probe.request("tasks/get", {"taskId": task_id})
    if reply.result is None:
        raise failed(f"tasks/get of the task just created: {reply.describe()}")
    return reply.result


async def _until_ended(probe: Probe, task_id: str) -> dict[str, Any]:
    """Poll ``tasks/get`` until the task is terminal; the check fails after ``TASK_WAIT``."""
    got = await _task_get(probe, task_id)
    with anyio.move_on_after(TASK_WAIT):
        while got.get("status") not in TERMINAL_TASK:
            await anyio.sleep(TASK_POLL)
            got = await _task_get(probe, task_id)
        return got
    raise failed(f"the task did not end within {TASK_WAIT:g} s: it is {got.get('status')!r}")


async def _cancel_quietly(probe: Probe, task_id: str | None) -> None:
    """Leave no task of the check running on the server under test."""
    if task_id is not None:
        with contextlib.suppress(Exception):
            await probe.request("tasks/cancel", {"taskId": task_id})


def _related(message: Mapping[str, Any] | None) -> Any:
    """The related-task ``_meta`` of params or a result (``None``: absent)."""
    meta = (message or {}).get("_meta")
    return meta.get(META_RELATED_TASK) if isinstance(meta, Mapping) else None


def _names(message: Mapping[str, Any] | None, task_id: str) -> bool:
    related = _related(message)
    return isinstance(related, Mapping) and related.get("taskId") == task_id


# -- server-task-support --------------------------------------------------------------------


async def _listed_support(probe: Probe, tools: set[str]) -> dict[str, Any]:
    """``execution.taskSupport`` of each of ``tools`` as ``tools/list`` shows it (absent:
    ``None``, which means ``forbidden``)."""
    support: dict[str, Any] = {}
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = (await probe.list_tools_raw(cursor)).result or {}
        for tool in page.get("tools") or []:
            if isinstance(tool, Mapping) and tool.get("name") in tools:
                execution = tool.get("execution")
                support[tool["name"]] = (
                    execution.get("taskSupport") if isinstance(execution, Mapping) else None
                )
        cursor = page.get("nextCursor")
        if not cursor:
            break
    return support


def _refusal(reply: ProbeReply, what: str) -> str | None:
    """What is wrong when ``reply`` should be -32601 (``None``: it is)."""
    if reply.code == METHOD_NOT_FOUND:
        return None
    if _created_id(reply) is not None:
        return f"{what}: expected -32601, the call was made a task"
    return f"{what}: expected -32601, got {reply.describe()}"


@_body("server-task-support")
async def _task_support(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        listed = await _listed_support(probe, {TASK_REQUIRED_TOOL, TASK_FORBIDDEN_TOOL})
        plain = await probe.request("tools/call", {"name": TASK_REQUIRED_TOOL, "arguments": {}})
        await _cancel_quietly(probe, _created_id(plain))
        augmented = await probe.request("tools/call", _task_params(TASK_FORBIDDEN_TOOL))
        await _cancel_quietly(probe, _created_id(augmented))
    problems = []
    if listed.get(TASK_REQUIRED_TOOL) != "required":
        shown = listed.get(TASK_REQUIRED_TOOL)
        problems.append(f"tools/list shows {TASK_REQUIRED_TOOL}'s taskSupport as {shown!r}")
    if listed.get(TASK_FORBIDDEN_TOOL) not in (None, "forbidden"):
        shown = listed.get(TASK_FORBIDDEN_TOOL)
        problems.append(f"tools/list shows {TASK_FORBIDDEN_TOOL}'s taskSupport as {shown!r}")
    for wrong in (
        _refusal(plain, f"{TASK_REQUIRED_TOOL} ('required') called without params.task"),
        _refusal(augmented, f"{TASK_FORBIDDEN_TOOL} ('forbidden') called with params.task"),
    ):
        if wrong is not None:
            problems.append(wrong)
    if problems:
        raise failed("; ".join(problems))
    return (
        f"{TASK_REQUIRED_TOOL} without params.task: -32601; {TASK_FORBIDDEN_TOOL} with it: -32601"
    )


# -- server-task-related-task ---------------------------------------------------------------


async def _asked_in_task(
    probe: Probe, tool: str, problems: list[str]
) -> tuple[str, list[dict[str, Any]]]:
    """Run ``tool`` as a task and read its result with ``tasks/result``, answering what it
    asks there; judge the related-task ``_meta`` of each question and of the result. The
    task's id and the questions' params."""
    task_id = await _new_task(probe, tool)
    before = len(probe.wire.received(ASKED))
    try:
        reply = await probe.request("tasks/result", {"taskId": task_id})
    finally:
        await _cancel_quietly(probe, task_id)  # ended already, unless something broke
    questions = [message.get("params") or {} for message in probe.wire.received(ASKED)[before:]]
    if not questions:
        raise failed(f"{tool} asked nothing on tasks/result; it answered {reply.describe()}")
    for params in questions:
        if not _names(params, task_id):
            problems.append(
                f"{tool}'s elicitation/create ({params.get('mode', 'form')}) has related-task "
                f"_meta {_related(params)!r}, not the task's id"
            )
    if reply.result is None:
        problems.append(f"{tool}'s tasks/result: {reply.describe()}")
    elif not _names(reply.result, task_id):
        problems.append(
            f"{tool}'s tasks/result result has related-task _meta {_related(reply.result)!r}, "
            "not the task's id"
        )
    return task_id, questions


@_body("server-task-related-task")
async def _task_related_task(run: ServerRun, revision: str) -> str:
    problems: list[str] = []
    async with run.probe(revision, answer=answer_validly) as probe:
        await _asked_in_task(probe, TASK_ASK_TOOL, problems)
        task_id, questions = await _asked_in_task(probe, TASK_LINK_TOOL, problems)
        links = {p.get("elicitationId") for p in questions if p.get("mode") == "url"}
        if not links:
            raise failed(f"{TASK_LINK_TOOL} asked no URL-mode question in its task")

        def the_notices() -> list[dict[str, Any]]:
            return [
                notice.get("params") or {}
                for notice in probe.wire.received(NOTICE)
                if (notice.get("params") or {}).get("elicitationId") in links
            ]

        # Sent before the task's result, on its tasks/result stream; a server may send it on
        # the standalone stream, which can come later.
        with anyio.move_on_after(NOTICE_WAIT):
            while not the_notices():
                await probe.wire.until_any(timeout=NOTICE_WAIT)
        notices = the_notices()
    for notice in notices:
        if not _names(notice, task_id):
            problems.append(
                f"the completion notice of {TASK_LINK_TOOL}'s link has related-task _meta "
                f"{_related(notice)!r}, not the task's id"
            )
    if problems:
        raise failed("; ".join(problems))
    told = (
        "and on the link's completion notice"
        if notices
        else f"(no completion notice came within {NOTICE_WAIT:g} s: it is optional)"
    )
    return f"the task's id on each question asked on tasks/result, on its result, {told}"


# -- server-task-result ---------------------------------------------------------------------


def _as_returned(reply: ProbeReply) -> dict[str, Any]:
    """What a call returned, for comparing a plain call with a task's ``tasks/result``: the
    result without its related-task ``_meta`` (the one difference the spec asks for), or the
    error."""
    if reply.error is not None:
        return {"error": {k: v for k, v in reply.error.items() if v is not None}}
    result = dict(reply.result or {})
    meta = {k: v for k, v in (result.pop("_meta", None) or {}).items() if k != META_RELATED_TASK}
    if meta:
        result["_meta"] = meta
    return {"result": result}


@_body("server-task-result")
async def _task_result(run: ServerRun, revision: str) -> str:
    listed = await run.tools(revision)
    calls: list[tuple[str, dict[str, Any]]] = [(TASK_SLOW_TOOL, {"seconds": 0})]
    calls += [
        (tool, {}) for tool in (TASK_TOOL_ERROR_TOOL, TASK_PROTOCOL_ERROR_TOOL) if tool in listed
    ]
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_SLOW_TOOL, {"seconds": LIVE_SECONDS})
        try:
            waited = await probe.request("tasks/result", {"taskId": task_id})
            after = await _task_get(probe, task_id)
        finally:
            await _cancel_quietly(probe, task_id)
        if after.get("status") not in TERMINAL_TASK:
            raise failed(
                f"tasks/result answered ({waited.describe()}) while the task was still "
                f"{after.get('status')!r}: it must wait for the end"
            )
        if waited.result is not None and "status" in waited.result:
            raise failed(f"tasks/result answered with a task ({waited.result!r}), not its result")
        differences = []
        for tool, arguments in calls:
            plain = await probe.request("tools/call", {"name": tool, "arguments": arguments})
            task_id = await _new_task(probe, tool, arguments)
            await _until_ended(probe, task_id)
            got = await probe.request("tasks/result", {"taskId": task_id})
            if _as_returned(got) != _as_returned(plain):
                differences.append(
                    f"{tool}: the call returned {_as_returned(plain)!r}, tasks/result "
                    f"{_as_returned(got)!r}"
                )
    if differences:
        raise failed("; ".join(differences))
    return (
        f"tasks/result waited for the end of a {LIVE_SECONDS:g} s task; for an ended task it "
        f"returned what the call did ({', '.join(tool for tool, _ in calls)})"
    )


# -- server-task-cancel-terminal ------------------------------------------------------------


@_body("server-task-cancel-terminal")
async def _task_cancel_terminal(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_SLOW_TOOL, {"seconds": 30})
        first = await probe.request("tasks/cancel", {"taskId": task_id})
        if (first.result or {}).get("status") != "cancelled":
            await _cancel_quietly(probe, task_id)
            said = first.result if first.result is not None else first.describe()
            raise failed(
                f"tasks/cancel of a working task answered {said!r}, not the task, 'cancelled'"
            )
        after = await _task_get(probe, task_id)
        again = await probe.request("tasks/cancel", {"taskId": task_id})
        done_id = await _new_task(probe, TASK_SLOW_TOOL, {"seconds": 0})
        done = await _until_ended(probe, done_id)
        late = await probe.request("tasks/cancel", {"taskId": done_id})
    problems = []
    if after.get("status") != "cancelled":
        problems.append(f"after the cancel tasks/get says {after.get('status')!r}")
    if again.code != INVALID_PARAMS:
        problems.append(
            f"cancelling the cancelled task again: expected -32602, got {again.describe()}"
        )
    if late.code != INVALID_PARAMS:
        problems.append(
            f"cancelling a task that ended {done.get('status')!r}: expected -32602, got "
            f"{late.describe()}"
        )
    if problems:
        raise failed("; ".join(problems))
    return (
        "the cancel answered the task 'cancelled'; cancelling it again, or a task that ended "
        f"{done.get('status')!r}: -32602"
    )
