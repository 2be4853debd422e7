"""mcp_elicit.protocol.tasks: the task shapes of 2025-11-25 (against its official schema.json)
and of the 2026-07-28 extension (against ext-tasks-schema.ts, by hand: it has no schema.json);
parse errors name the field."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from mcp_elicit.protocol import (
    DetailedTask,
    ProtocolProblem,
    Task,
    TaskUpdate,
    codes,
    create_task_result,
    declares_tasks,
    get_task_result,
    ignored_keys,
    iso_time,
    parse_create_task_result,
    parse_get_task_result,
    parse_iso_time,
    parse_missing_capability_error,
    parse_related_task,
    parse_task,
    parse_task_id,
    parse_task_update,
    related_task_meta,
    request_meta,
    requested_task_ttl,
    server_tasks_capability,
    task_ack,
    task_object,
    tasks_declaration,
    tasks_required_error,
    tool_task_support,
    with_related_task,
)
from tests.spec_data import official_json_schema
from tests.strategies import json_values

R1, S4, R2, R3 = "2025-06-18", "url-draft", "2025-11-25", "2026-07-28"
EXT = "io.modelcontextprotocol/tasks"
T0 = 1_764_066_600.0  # 2025-11-25T10:30:00Z
TASK = Task("786512e2", "working", T0, T0 + 600, 60_000, 5_000, "In progress")
QUESTION = {
    "method": "elicitation/create",
    "params": {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object"}},
}


@cache
def _validator(definition: str) -> Any:
    doc = official_json_schema(R2)
    return validator_for(doc)({**doc, "$ref": f"#/$defs/{definition}"})


def assert_valid_r2(definition: str, instance: Any) -> None:
    errors = [e.message for e in _validator(definition).iter_errors(instance)]
    assert not errors, f"{R2}#{definition}: {errors}"


def fields_of(problems: Any) -> list[str | None]:
    assert isinstance(problems, list), problems
    assert all(isinstance(p, ProtocolProblem) for p in problems)
    return [p.field for p in problems]


# -- constants -----------------------------------------------------------------------------------


def test_the_names_on_the_wire() -> None:
    assert codes.TASKS_EXTENSION == EXT
    assert codes.META_RELATED_TASK == "io.modelcontextprotocol/related-task"
    assert codes.META_IGNORED == "mcp-elicit/ignored"
    assert codes.INTERNAL_ERROR == -32603
    assert codes.HEADER_MISMATCH == -32020
    assert codes.MISSING_REQUIRED_CLIENT_CAPABILITY == -32021


# -- times ---------------------------------------------------------------------------------------


def test_times_are_iso_utc() -> None:
    assert iso_time(T0) == "2025-11-25T10:30:00.000Z"
    assert parse_iso_time("2025-11-25T10:30:00Z") == (T0, None)
    assert parse_iso_time("2025-11-25T11:30:00+01:00") == (T0, None)
    at, quirk = parse_iso_time("2025-11-25T10:30:00") or (0, None)
    assert at == T0 and quirk and "UTC" in quirk
    assert parse_iso_time("yesterday") is None
    assert parse_iso_time(17) is None


@given(st.integers(min_value=0, max_value=4_000_000_000_000))
def test_times_round_trip_to_the_millisecond(ms: int) -> None:
    parsed = parse_iso_time(iso_time(ms / 1000))
    assert parsed is not None and round(parsed[0] * 1000) == ms


# -- Task and CreateTaskResult -------------------------------------------------------------------


def test_the_2025_task_is_the_schemas() -> None:
    wire = task_object(TASK, revision=R2)
    assert wire == {
        "taskId": "786512e2",
        "status": "working",
        "statusMessage": "In progress",
        "createdAt": "2025-11-25T10:30:00.000Z",
        "lastUpdatedAt": "2025-11-25T10:40:00.000Z",
        "ttl": 60_000,
        "pollInterval": 5_000,
    }
    assert_valid_r2("Task", wire)
    created = create_task_result(TASK, revision=R2)
    assert created == {"task": wire}
    assert_valid_r2("CreateTaskResult", created)
    assert_valid_r2("GetTaskResult", get_task_result(TASK, revision=R2))


def test_the_extensions_task_is_flat() -> None:
    created = create_task_result(TASK, revision=R3)
    assert created == {
        "resultType": "task",
        "taskId": "786512e2",
        "status": "working",
        "statusMessage": "In progress",
        "createdAt": "2025-11-25T10:30:00.000Z",
        "lastUpdatedAt": "2025-11-25T10:40:00.000Z",
        "ttlMs": 60_000,
        "pollIntervalMs": 5_000,
    }
    assert not {"result", "error", "inputRequests", "requestState", "task"} & set(created)


@pytest.mark.parametrize("revision", [R2, R3])
def test_optional_members_are_left_out_and_a_null_ttl_is_kept(revision: str) -> None:
    bare = Task("t", "working", T0, T0, None)
    wire = task_object(bare, revision=revision)
    assert set(wire) == {
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttl" + "Ms" * (revision == R3),
    }
    assert None in wire.values()
    if revision == R2:
        assert_valid_r2("Task", wire)


@pytest.mark.parametrize("revision", [R1, S4])
def test_revisions_without_tasks_are_refused(revision: str) -> None:
    with pytest.raises(ValueError, match="has no tasks"):
        task_object(TASK, revision=revision)
    with pytest.raises(ValueError, match="has no tasks"):
        parse_task({}, revision=revision)


def test_a_task_that_cannot_be_said_is_refused() -> None:
    with pytest.raises(ValueError, match="taskId"):
        task_object(Task("", "working", T0, T0, 1), revision=R3)
    with pytest.raises(ValueError, match="status"):
        task_object(Task("t", "paused", T0, T0, 1), revision=R3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="integer"):
        task_object(Task("t", "working", T0, T0, 1.5), revision=R3)  # type: ignore[arg-type]


@pytest.mark.parametrize("revision", [R2, R3])
def test_what_is_built_parses_back(revision: str) -> None:
    created = create_task_result(TASK, revision=revision)
    assert parse_create_task_result(created, revision=revision) == TASK
    wire = task_object(TASK, revision=revision)
    parsed = parse_task(wire, revision=revision)
    assert parsed == TASK and isinstance(parsed, Task) and parsed.accepted_quirks == ()


def test_a_plain_result_is_no_task() -> None:
    plain = {"content": [], "isError": False}
    assert parse_create_task_result(plain, revision=R2) is None
    assert parse_create_task_result(plain, revision=R3) is None
    assert parse_create_task_result({**plain, "resultType": "complete"}, revision=R3) is None
    # the 2025 shape on the extension's revision is not a task (it has no resultType "task")
    assert parse_create_task_result(create_task_result(TASK, revision=R2), revision=R3) is None


def test_parse_errors_name_the_field() -> None:
    wire = task_object(TASK, revision=R3)
    broken = {
        **wire,
        "taskId": "",
        "status": "paused",
        "createdAt": "then",
        "ttlMs": -1,
        "pollIntervalMs": 1.5,
        "statusMessage": 3,
    }
    assert fields_of(parse_task(broken, revision=R3)) == [
        "taskId",
        "status",
        "createdAt",
        "ttlMs",
        "pollIntervalMs",
        "statusMessage",
    ]
    no_ttl = {k: v for k, v in task_object(TASK, revision=R2).items() if k != "ttl"}
    assert fields_of(parse_task(no_ttl, revision=R2)) == ["ttl"]
    assert fields_of(parse_task("task", revision=R2)) == [None]
    nested = parse_create_task_result({"task": {**no_ttl, "status": 1}}, revision=R2)
    assert fields_of(nested) == ["task.status", "task.ttl"]


def test_parsing_is_liberal_and_says_so() -> None:
    wire = {**task_object(TASK, revision=R3), "pollIntervalMs": 5000.0}
    wire["createdAt"] = "2025-11-25T10:30:00"
    wire["ttl"] = wire.pop("ttlMs")  # the other revision's spelling
    parsed = parse_task(wire, revision=R3)
    assert isinstance(parsed, Task)
    assert parsed.ttl_ms == 60_000 and parsed.poll_interval_ms == 5_000
    assert parsed.created_at == T0
    assert any("ttl read as ttlMs" in q for q in parsed.accepted_quirks)
    assert any("UTC" in q for q in parsed.accepted_quirks)


# -- tasks/get -----------------------------------------------------------------------------------


def _at(status: str) -> Task:
    return Task("t1", status, T0, T0, 60_000, 1_000)  # type: ignore[arg-type]


def test_the_extensions_get_carries_what_the_status_needs() -> None:
    asking = get_task_result(_at("input_required"), revision=R3, input_requests={"q-1": QUESTION})
    assert asking["resultType"] == "complete" and asking["inputRequests"] == {"q-1": QUESTION}
    done = get_task_result(_at("completed"), revision=R3, result={"content": [], "isError": True})
    assert done["result"] == {"content": [], "isError": True}
    error = {"code": -32603, "message": "boom"}
    assert get_task_result(_at("failed"), revision=R3, error=error)["error"] == error
    for status in ("working", "cancelled"):
        wire = get_task_result(_at(status), revision=R3)
        assert not {"inputRequests", "result", "error"} & set(wire)


def test_the_extensions_get_refuses_a_mismatch() -> None:
    with pytest.raises(ValueError, match="must carry inputRequests"):
        get_task_result(_at("input_required"), revision=R3)
    with pytest.raises(ValueError, match="must carry result"):
        get_task_result(_at("completed"), revision=R3)
    with pytest.raises(ValueError, match="carries no result"):
        get_task_result(_at("working"), revision=R3, result={})
    with pytest.raises(ValueError, match="JSON-RPC error"):
        get_task_result(_at("failed"), revision=R3, error={"message": "no code"})
    with pytest.raises(ValueError, match="method and params"):
        get_task_result(_at("input_required"), revision=R3, input_requests={"k": {"x": 1}})


def test_the_2025_get_is_the_task_alone() -> None:
    wire = get_task_result(_at("completed"), revision=R2, result={"content": []})
    assert wire == task_object(_at("completed"), revision=R2)
    assert_valid_r2("GetTaskResult", wire)


@pytest.mark.parametrize(
    ("status", "extra"),
    [
        ("working", {}),
        ("input_required", {"input_requests": {"q-1": QUESTION}}),
        ("completed", {"result": {"content": []}}),
        ("failed", {"error": {"code": -32603, "message": "x"}}),
        ("cancelled", {}),
    ],
)
def test_the_extensions_get_parses_back(status: str, extra: dict[str, Any]) -> None:
    wire = get_task_result(_at(status), revision=R3, **extra)
    parsed = parse_get_task_result(wire, revision=R3)
    assert isinstance(parsed, DetailedTask)
    assert parsed.task == _at(status)
    assert parsed.input_requests == extra.get("input_requests")
    assert parsed.result == extra.get("result")
    assert parsed.error == extra.get("error")


def test_a_get_with_result_type_task_is_accepted_and_noted() -> None:
    # EXT §Task Execution Errors' own examples send it (design A2)
    wire = {**get_task_result(_at("working"), revision=R3), "resultType": "task"}
    parsed = parse_get_task_result(wire, revision=R3)
    assert isinstance(parsed, DetailedTask)
    assert any("resultType" in q for q in parsed.accepted_quirks)


def test_a_get_without_result_type_is_accepted_and_noted() -> None:
    wire = get_task_result(_at("working"), revision=R3)
    del wire["resultType"]
    parsed = parse_get_task_result(wire, revision=R3)
    assert isinstance(parsed, DetailedTask)
    assert any("resultType missing" in q for q in parsed.accepted_quirks)


def test_a_get_missing_its_payload_names_the_field() -> None:
    bare = {**task_object(_at("input_required"), revision=R3), "resultType": "complete"}
    assert fields_of(parse_get_task_result(bare, revision=R3)) == ["inputRequests"]
    bad = {**bare, "inputRequests": {"q-1": "ask"}}
    assert fields_of(parse_get_task_result(bad, revision=R3)) == ["inputRequests.q-1"]
    done = {**bare, "status": "completed"}
    assert fields_of(parse_get_task_result(done, revision=R3)) == ["result"]
    failed = {**bare, "status": "failed"}
    assert fields_of(parse_get_task_result(failed, revision=R3)) == ["error"]
    odd = {**bare, "status": "working", "resultType": "input_required"}
    assert fields_of(parse_get_task_result(odd, revision=R3)) == ["resultType"]


# -- tasks/* params and acks ---------------------------------------------------------------------


def test_task_ids_are_read_from_params() -> None:
    assert parse_task_id({"taskId": "t1"}) == "t1"
    assert fields_of(parse_task_id({"taskId": 3})) == ["taskId"]
    assert fields_of(parse_task_id({})) == ["taskId"]
    assert fields_of(parse_task_id(["t1"])) == ["params"]


def test_an_update_is_read() -> None:
    answer = {"action": "accept", "content": {"name": "Ada"}}
    update = parse_task_update({"taskId": "t1", "inputResponses": {"q-1": answer, "q-2": 7}})
    # a single odd answer is not an error here: the state machine judges it ("malformed")
    assert update == TaskUpdate("t1", {"q-1": answer, "q-2": 7})


@pytest.mark.parametrize(
    ("params", "field"),
    [
        (None, "params"),
        ("update", "params"),
        ({"inputResponses": {}}, "taskId"),
        ({"taskId": "t1"}, "inputResponses"),
        ({"taskId": "t1", "inputResponses": ["q-1"]}, "inputResponses"),
        ({"taskId": "t1", "inputResponses": "yes"}, "inputResponses"),
    ],
)
def test_an_update_that_is_not_one_names_the_field(params: Any, field: str) -> None:
    assert fields_of(parse_task_update(params)) == [field]


def test_the_ack_names_ignored_keys() -> None:
    assert task_ack() == {"resultType": "complete"}
    assert task_ack({}) == {"resultType": "complete"}
    ack = task_ack({"q-1": "answered", "zz": "unknown"})
    assert ack == {
        "resultType": "complete",
        "_meta": {"mcp-elicit/ignored": {"q-1": "answered", "zz": "unknown"}},
    }
    assert ignored_keys(ack) == {"q-1": "answered", "zz": "unknown"}
    assert ignored_keys(task_ack()) == {}
    assert ignored_keys("nothing") == {}


# -- capabilities --------------------------------------------------------------------------------


def test_the_declaration_is_read_per_request() -> None:
    declared = {"_meta": request_meta(tasks_declaration()), "name": "tool"}
    assert declares_tasks(declared)
    assert not declares_tasks({"name": "tool"})
    assert not declares_tasks({"_meta": request_meta({"elicitation": {}})})
    assert not declares_tasks({"_meta": request_meta({"extensions": {EXT: True}})})
    assert not declares_tasks({"_meta": request_meta({"extensions": ["tasks"]})})
    assert not declares_tasks(None)


def test_the_missing_extension_error() -> None:
    error = tasks_required_error()
    assert error["code"] == -32021
    assert error["data"] == {"requiredCapabilities": {"extensions": {EXT: {}}}}
    assert parse_missing_capability_error(error) == {"extensions": {EXT: {}}}


def test_the_2025_server_capability_validates() -> None:
    capability = server_tasks_capability()
    assert capability == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert "list" not in server_tasks_capability(listing=False)
    doc = official_json_schema(R2)
    tasks_schema = doc["$defs"]["ServerCapabilities"]["properties"]["tasks"]
    assert not list(validator_for(doc)({**doc, **tasks_schema}).iter_errors(capability))


@pytest.mark.parametrize(
    ("tool", "support"),
    [
        ({"name": "t"}, "forbidden"),
        ({"name": "t", "execution": {}}, "forbidden"),
        ({"name": "t", "execution": {"taskSupport": "optional"}}, "optional"),
        ({"name": "t", "execution": {"taskSupport": "required"}}, "required"),
        ({"name": "t", "execution": {"taskSupport": "sometimes"}}, "forbidden"),
        ("t", "forbidden"),
    ],
)
def test_tool_task_support(tool: Any, support: str) -> None:
    assert tool_task_support(tool) == support


def test_the_2025_task_request() -> None:
    assert requested_task_ttl({"name": "t"}) is False
    assert requested_task_ttl({"name": "t", "task": {}}) is None
    assert requested_task_ttl({"name": "t", "task": {"ttl": 60000}}) == 60000
    assert requested_task_ttl({"name": "t", "task": {"ttl": "1h"}}) is None


# -- related-task _meta --------------------------------------------------------------------------


def test_related_task_meta() -> None:
    assert related_task_meta("t1") == {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}
    assert_valid_r2("RelatedTaskMetadata", related_task_meta("t1")[codes.META_RELATED_TASK])
    params = {"message": "m", "_meta": {"other": 1}}
    tagged = with_related_task(params, "t1")
    assert tagged["_meta"] == {"other": 1, codes.META_RELATED_TASK: {"taskId": "t1"}}
    assert params == {"message": "m", "_meta": {"other": 1}}  # not changed in place
    assert parse_related_task(tagged) == "t1"
    assert parse_related_task(params) is None
    assert parse_related_task({"_meta": {codes.META_RELATED_TASK: {"taskId": ""}}}) is None
    with pytest.raises(ValueError, match="taskId"):
        related_task_meta("")


# -- parsers never raise -------------------------------------------------------------------------

ANY_TASKISH = st.fixed_dictionaries(
    {},
    optional={
        "taskId": json_values,
        "status": st.sampled_from(["working", "input_required", "completed", "failed"]),
        "createdAt": st.just("2025-11-25T10:30:00Z") | json_values,
        "lastUpdatedAt": st.just("2025-11-25T10:30:00Z") | json_values,
        "ttl": json_values,
        "ttlMs": json_values,
        "pollIntervalMs": json_values,
        "resultType": st.sampled_from(["task", "complete", "x"]) | json_values,
        "inputRequests": json_values,
        "inputResponses": json_values,
        "result": json_values,
        "error": json_values,
        "task": json_values,
    },
)


@given(ANY_TASKISH | json_values)
def test_parsers_answer_anything_without_raising(value: Any) -> None:
    for revision in (R2, R3):
        parse_task(value, revision=revision)
        parse_create_task_result(value, revision=revision)
        parse_get_task_result(value, revision=revision)
    parse_task_id(value)
    parse_task_update(value)
    declares_tasks(value)
    parse_related_task(value)
    ignored_keys(value)
    tool_task_support(value)
    requested_task_ttl(value)
