"""mcp_elicit.tasks.records: a task's state to a sealed store record and back. The round trip
is exact for every state the rules can make; the payload is sealed (nothing a person typed or
a tool returned is readable at rest) and bound to the server, the user and the task id."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_elicit.tasks import TaskState, answer, cancel, create, finish, orphan, request_input
from mcp_elicit.tasks.records import (
    MAX_PAYLOAD,
    RecordTooLarge,
    TaskSealer,
    from_json,
    to_json,
)

T0 = 1_700_000_000.25
KEY = bytes(range(32))
SENTINEL = "S3NT1NEL-the-persons-answer"
FORM = {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object"}}


def new(task_id: str = "task-1", **kw: Any) -> TaskState:
    args: dict[str, Any] = {
        "task_id": task_id,
        "server": "srv é",
        "user": "alice",
        "revision": "2026-07-28",
        "tool": "book",
        "now": T0,
        "ttl_ms": 3_600_000,
        "poll_interval_ms": 1_000,
        "instance": "inst-a",
        "lease_until": T0 + 15,
    }
    args.update(kw)
    return create(**args)


def asked_and_answered(text: str = SENTINEL) -> TaskState:
    asked = request_input(new(), FORM, epoch=1, now=T0 + 1)
    assert isinstance(asked, tuple)
    record, key = asked
    answered, verdicts = answer(
        record, {key: {"action": "accept", "content": {"name": text}}}, now=T0 + 2
    )
    assert verdicts == {key: "accepted"} and isinstance(answered, TaskState)
    again = request_input(answered, FORM, epoch=1, now=T0 + 3, base="second")
    assert isinstance(again, tuple)
    return again[0]


def test_a_state_round_trips_through_json_and_the_seal() -> None:
    sealer = TaskSealer([KEY])
    for record in (new(), asked_and_answered()):
        assert from_json(to_json(record)) == record
        stored = sealer.seal(record)
        assert (stored.id, stored.server, stored.user) == (record.id, record.server, record.user)
        assert stored.version == record.version and stored.status == record.status
        assert stored.expires_at == record.expires_at and stored.lease_until == record.lease.until
        assert stored.terminal is False
        assert sealer.open(stored, record.id) == record


def test_terminal_states_round_trip_with_their_outcome() -> None:
    sealer = TaskSealer([KEY])
    done = finish(asked_and_answered(), epoch=1, now=T0 + 9, result={"content": [], "x": 0.1})
    failed = orphan(asked_and_answered(), now=T0 + 100)
    cancelled = cancel(new(), now=T0 + 1)
    for record in (done, failed, cancelled):
        assert isinstance(record, TaskState)
        stored = sealer.seal(record)
        assert stored.terminal is True
        assert sealer.open(stored, record.id) == record


def test_a_lease_that_never_ends_is_stored_as_a_finite_time() -> None:
    record = new(lease_until=math.inf)
    stored = TaskSealer([KEY]).seal(record)
    assert math.isfinite(stored.lease_until) and stored.lease_until > 1e300
    assert TaskSealer([KEY]).open(stored, "task-1") == record


def test_nothing_a_person_typed_or_a_tool_returned_is_in_the_clear() -> None:
    record = finish(asked_and_answered(), epoch=1, now=T0 + 9, result={"text": SENTINEL * 2})
    assert isinstance(record, TaskState)
    stored = TaskSealer([KEY]).seal(record)
    assert SENTINEL.encode() not in stored.payload
    assert b"Name?" not in stored.payload  # nor the questions


def test_a_payload_opens_only_for_its_task_user_and_server() -> None:
    sealer = TaskSealer([KEY])
    stored = sealer.seal(asked_and_answered())
    assert sealer.open(stored, "task-2") is None  # another task's id
    assert sealer.open(replace(stored, user="mallory"), "task-1") is None
    assert sealer.open(replace(stored, server="other"), "task-1") is None
    assert sealer.open(replace(stored, version=stored.version + 1), "task-1") is None
    flipped = bytearray(stored.payload)
    flipped[-1] ^= 1
    assert sealer.open(replace(stored, payload=bytes(flipped)), "task-1") is None
    assert sealer.open(replace(stored, payload=b""), "task-1") is None
    assert TaskSealer([os.urandom(32)]).open(stored, "task-1") is None  # another key


def test_rotation_seals_with_the_first_key_and_opens_with_any() -> None:
    old, new_key = os.urandom(32), os.urandom(32)
    stored = TaskSealer([old]).seal(new())
    rotated = TaskSealer([new_key, old])
    assert rotated.open(stored, "task-1") == new()
    assert TaskSealer([new_key]).open(rotated.seal(new()), "task-1") == new()


def test_bad_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one key"):
        TaskSealer([])
    with pytest.raises(ValueError, match="32 bytes"):
        TaskSealer([b"short"])


def test_a_record_over_a_mebibyte_is_refused() -> None:
    record = finish(new(), epoch=1, now=T0 + 1, result={"text": "x" * MAX_PAYLOAD})
    assert isinstance(record, TaskState)
    with pytest.raises(RecordTooLarge, match="result too large"):
        TaskSealer([KEY]).seal(record)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(
    name=st.text(),
    content=st.dictionaries(st.text(min_size=1), JSON, max_size=4),
    result=st.dictionaries(st.text(), JSON, max_size=4),
    message=st.none() | st.text(),
    now=st.floats(min_value=0, max_value=4e9),
)
def test_any_answer_and_result_round_trip(
    name: str, content: dict[str, Any], result: dict[str, Any], message: str | None, now: float
) -> None:
    asked = request_input(
        new(now=now, lease_until=now + 15), FORM, epoch=1, now=now, message=message
    )
    assert isinstance(asked, tuple)
    record, key = asked
    answered, _ = answer(record, {key: {"action": "accept", "content": {name: content}}}, now=now)
    if not isinstance(answered, TaskState):
        answered = record  # a malformed answer: the state as asked
    done = finish(answered, epoch=1, now=now, result=result)
    sealer = TaskSealer([KEY])
    for state in (record, answered, done):
        assert isinstance(state, TaskState)
        assert sealer.open(sealer.seal(state), "task-1") == state
