"""mcp_elicit.tasks.state: the transition table, the keys (K1-K3), the lease's fencing, the
revision's isError mapping; and random event sequences that keep K1, rule 4's invariant and
terminal finality."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from mcp_elicit.protocol import create_task_result, get_task_result, parse_get_task_result
from mcp_elicit.tasks import (
    MAX_KEYS,
    MAX_OUTSTANDING,
    NO_CHANGE,
    WAITING,
    Fenced,
    Lease,
    NoChange,
    TaskState,
    TooManyQuestions,
    answer,
    broken_rules,
    cancel,
    create,
    expire,
    finish,
    note,
    orphan,
    renew,
    request_input,
    settle,
    withdraw,
)

R2, R3 = "2025-11-25", "2026-07-28"
T0 = 1_000_000.0
FORM = {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object"}}
LINK = {"mode": "url", "message": "Sign in", "url": "https://example.com/in"}
ACCEPT = {"action": "accept", "content": {"name": "Ada"}}
RESULT = {"content": [{"type": "text", "text": "done"}]}
TOOL_ERROR = {"content": [{"type": "text", "text": "no"}], "isError": True}
ERROR = {"code": -32603, "message": "boom"}


def new(revision: str = R3, **overrides: Any) -> TaskState:
    args: dict[str, Any] = {
        "task_id": "t1",
        "server": "s",
        "user": "alice",
        "revision": revision,
        "tool": "report",
        "now": T0,
        "ttl_ms": 60_000,
        "poll_interval_ms": 1_000,
        "instance": "A",
        "lease_until": T0 + 15,
        **overrides,
    }
    return create(**args)


def changed(result: TaskState | NoChange) -> TaskState:
    assert isinstance(result, TaskState), result
    assert broken_rules(result) == []
    return result


def asked(state: TaskState, params: dict[str, Any] = FORM, **kwargs: Any) -> tuple[TaskState, str]:
    result = request_input(state, params, epoch=state.lease.epoch, now=T0 + 1, **kwargs)
    assert not isinstance(result, NoChange)
    assert broken_rules(result[0]) == []
    return result


# -- creation ------------------------------------------------------------------------------------


def test_a_task_begins_working_and_owned() -> None:
    state = new()
    assert state.status == "working" and not state.terminal
    assert (state.lease.instance, state.lease.epoch, state.lease.until) == ("A", 1, T0 + 15)
    assert state.key_seq == 0 and state.version == 1
    assert state.expires_at == T0 + 60
    assert broken_rules(state) == []


@pytest.mark.parametrize("revision", ["2025-06-18", "url-draft"])
def test_no_task_on_a_revision_without_tasks(revision: str) -> None:
    with pytest.raises(ValueError, match="has no tasks"):
        new(revision)


def test_creation_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="user"):
        new(user="")
    with pytest.raises(ValueError, match="positive"):
        new(ttl_ms=0)


def test_the_record_speaks_both_wires() -> None:
    state = new()
    assert create_task_result(state.task(), revision=R3)["ttlMs"] == 60_000
    assert create_task_result(state.task(), revision=R2)["task"]["ttl"] == 60_000


# -- asking and answering (rule 4, K1, K2) -------------------------------------------------------


def test_asking_makes_a_key_and_input_required() -> None:
    state, key = asked(new())
    assert key == "q-1"
    assert state.status == "input_required" and state.status_message == WAITING
    assert state.outstanding == {key: {"method": "elicitation/create", "params": FORM}}
    assert state.updated_at == T0 + 1 and state.version == 2
    state, link = asked(state, LINK)
    assert link == "link-2"
    state, named = asked(state, base="api_key", message="Two things")
    assert named == "api_key-3" and state.status_message == "Two things"
    # tasks/get shows every outstanding request
    wire = get_task_result(state.task(), revision=R3, input_requests=state.outstanding)
    parsed = parse_get_task_result(wire, revision=R3)
    assert not isinstance(parsed, list) and set(parsed.input_requests or {}) == {
        "q-1",
        "link-2",
        "api_key-3",
    }


def test_the_stored_request_is_a_copy() -> None:
    params = {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object"}}
    state, key = asked(new(), params)
    params["requestedSchema"]["type"] = "changed"
    assert state.outstanding[key]["params"]["requestedSchema"] == {"type": "object"}


def test_a_bad_base_is_refused() -> None:
    with pytest.raises(ValueError, match="key"):
        request_input(new(), FORM, epoch=1, now=T0, base="two words")
    with pytest.raises(ValueError, match="key"):
        request_input(new(), FORM, epoch=1, now=T0, base="")


def test_answers_get_verdicts_and_only_accepted_ones_change_the_record() -> None:
    state, first = asked(new())
    state, second = asked(state, LINK)
    replies = {
        first: ACCEPT,
        second: {"action": "maybe"},  # malformed: stays outstanding
        "q-99": ACCEPT,  # never issued
    }
    result, verdicts = answer(state, replies, now=T0 + 2)
    state = changed(result)
    assert verdicts == {first: "accepted", second: "malformed", "q-99": "unknown"}
    assert state.status == "input_required" and set(state.outstanding) == {second}
    assert state.answered[first].response == ACCEPT and not state.answered[first].settled
    # a replay changes nothing
    replay, verdicts = answer(state, {first: ACCEPT}, now=T0 + 3)
    assert replay is NO_CHANGE and verdicts == {first: "answered"}
    # the last key answered: working again, message cleared
    state = changed(answer(state, {second: {"action": "accept"}}, now=T0 + 4)[0])
    assert state.status == "working" and state.status_message is None
    assert not state.outstanding and set(state.answered) == {first, second}


@pytest.mark.parametrize("reply", ["yes", 3, None, [ACCEPT], {"content": {"x": object()}}])
def test_an_answer_of_the_wrong_shape_is_malformed(reply: Any) -> None:
    state, key = asked(new())
    result, verdicts = answer(state, {key: reply}, now=T0)
    assert result is NO_CHANGE and verdicts == {key: "malformed"}


def test_settle_marks_the_answer_taken_once() -> None:
    state, key = asked(new())
    state = changed(answer(state, {key: ACCEPT}, now=T0 + 2)[0])
    updated = state.updated_at
    state = changed(settle(state, key, epoch=1, now=T0 + 3))
    assert state.answered[key].settled
    assert state.updated_at == updated  # invisible to a client
    assert settle(state, key, epoch=1, now=T0 + 4) is NO_CHANGE
    with pytest.raises(ValueError, match="no answer"):
        settle(state, "q-7", epoch=1, now=T0)


def test_withdraw_and_a_late_answer() -> None:
    state, key = asked(new())
    state = changed(withdraw(state, key, epoch=1, now=T0 + 2, reason="timeout"))
    assert state.status == "working" and state.withdrawn == {key: "timeout"}
    result, verdicts = answer(state, {key: ACCEPT}, now=T0 + 3)
    assert result is NO_CHANGE and verdicts == {key: "withdrawn"}
    # asking again after a timeout (or an invalid answer) takes a new key
    state, again = asked(state)
    assert again == "q-2"


def test_an_answer_that_won_the_race_stays_an_answer() -> None:
    state, key = asked(new())
    state = changed(answer(state, {key: ACCEPT}, now=T0 + 2)[0])
    assert withdraw(state, key, epoch=1, now=T0 + 3, reason="timeout") is NO_CHANGE
    with pytest.raises(ValueError, match="never issued"):
        withdraw(state, "q-5", epoch=1, now=T0, reason="timeout")


# -- K3 ------------------------------------------------------------------------------------------


def test_at_most_16_outstanding() -> None:
    state = new()
    for _ in range(MAX_OUTSTANDING):
        state, _key = asked(state)
    with pytest.raises(TooManyQuestions, match="at once"):
        request_input(state, FORM, epoch=1, now=T0)


def test_at_most_256_in_a_life() -> None:
    state = new()
    for _ in range(MAX_KEYS):
        state, key = asked(state)
        state = changed(answer(state, {key: ACCEPT}, now=T0)[0])
    assert state.key_seq == MAX_KEYS
    with pytest.raises(TooManyQuestions, match="life"):
        request_input(state, FORM, epoch=1, now=T0)


# -- the end (rule 4, A4) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("revision", "outcome", "status"),
    [
        (R3, {"result": RESULT}, "completed"),
        (R2, {"result": RESULT}, "completed"),
        (R3, {"result": TOOL_ERROR}, "completed"),  # EXT: isError is a completed result
        (R2, {"result": TOOL_ERROR}, "failed"),  # T25: isError is failed
        (R3, {"error": ERROR}, "failed"),
        (R2, {"error": ERROR}, "failed"),
    ],
)
def test_finish_maps_the_outcome_by_revision(
    revision: str, outcome: dict[str, Any], status: str
) -> None:
    state = changed(finish(new(revision), epoch=1, now=T0 + 5, **outcome))
    assert state.status == status and state.terminal and state.finished_at == T0 + 5
    assert state.result == outcome.get("result") and state.error == outcome.get("error")


def test_a_failed_task_says_why() -> None:
    state = changed(finish(new(), epoch=1, now=T0 + 5, error=ERROR))
    assert state.status_message == "boom"
    state = changed(finish(new(), epoch=1, now=T0 + 5, error=ERROR, message="It broke"))
    assert state.status_message == "It broke"


def test_finish_takes_exactly_one_outcome() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        finish(new(), epoch=1, now=T0)
    with pytest.raises(ValueError, match="exactly one"):
        finish(new(), epoch=1, now=T0, result=RESULT, error=ERROR)
    with pytest.raises(ValueError, match="JSON-RPC"):
        finish(new(), epoch=1, now=T0, error={"code": "x", "message": "m"})


def test_the_end_withdraws_what_is_still_out() -> None:
    state, key = asked(new())
    state = changed(finish(state, epoch=1, now=T0 + 5, result=RESULT))
    assert not state.outstanding and state.withdrawn == {key: "finished"}
    result, verdicts = answer(state, {key: ACCEPT, "q-9": ACCEPT}, now=T0 + 6)
    assert result is NO_CHANGE and verdicts == {key: "finished", "q-9": "finished"}


def test_cancel_is_immediate_and_final() -> None:
    state, key = asked(new())
    state = changed(cancel(state, now=T0 + 2, message="The client cancelled"))
    assert state.status == "cancelled" and state.withdrawn == {key: "cancelled"}
    assert state.status_message == "The client cancelled"
    # a result racing the cancel is dropped, and every other write too
    assert finish(state, epoch=1, now=T0 + 3, result=RESULT) is NO_CHANGE
    assert cancel(state, now=T0 + 3) is NO_CHANGE
    assert request_input(state, FORM, epoch=1, now=T0 + 3) is NO_CHANGE
    assert note(state, "hi", epoch=1, now=T0 + 3) is NO_CHANGE
    assert renew(state, epoch=1, now=T0 + 3, until=T0 + 30) is NO_CHANGE
    assert orphan(state, now=T0 + 1000) is NO_CHANGE
    assert expire(state, now=T0 + 1000) is NO_CHANGE


# -- the lease (rule 6) --------------------------------------------------------------------------


def test_orphan_only_once_the_lease_ran_out_and_it_fences_the_owner() -> None:
    state, key = asked(new())
    state = changed(answer(state, {key: ACCEPT}, now=T0 + 2)[0])
    assert orphan(state, now=T0 + 15) is NO_CHANGE  # until < now is needed
    state = changed(orphan(state, now=T0 + 16))
    assert state.status == "failed" and state.lease.epoch == 2
    assert state.error is not None and state.error["code"] == -32603
    assert state.error["data"] == {"answeredKeys": [key]}  # the keys, never the values
    assert state.status_message is not None and "ran out" in state.status_message


def test_renew_extends_the_lease_and_orphan_then_waits() -> None:
    state = changed(renew(new(), epoch=1, now=T0 + 5, until=T0 + 20))
    assert state.lease.until == T0 + 20 and state.updated_at == T0
    assert orphan(state, now=T0 + 18) is NO_CHANGE
    # a renewal never shortens the lease
    assert changed(renew(state, epoch=1, now=T0 + 6, until=T0 + 1)).lease.until == T0 + 20


def test_a_stale_epoch_is_fenced() -> None:
    state = new()
    moved = TaskState(**{**_fields(state), "lease": Lease("B", 2, T0 + 15)})
    for write in (
        lambda: request_input(moved, FORM, epoch=1, now=T0),
        lambda: withdraw(moved, "q-1", epoch=1, now=T0, reason="timeout"),
        lambda: finish(moved, epoch=1, now=T0, result=RESULT),
        lambda: note(moved, "x", epoch=1, now=T0),
        lambda: renew(moved, epoch=1, now=T0, until=T0 + 30),
        lambda: settle(moved, "q-1", epoch=1, now=T0),
    ):
        with pytest.raises(Fenced):
            write()


def _fields(state: TaskState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in TaskState.__dataclass_fields__}


def test_expire_once_the_ttl_ran_out() -> None:
    state, _key = asked(new())
    assert expire(state, now=T0 + 59.999) is NO_CHANGE
    state = changed(expire(state, now=T0 + 60))
    assert state.status == "failed" and state.error is not None
    assert "60000 ms" in state.error["message"]


def test_note_sets_the_status_message() -> None:
    state = changed(note(new(), "Waiting for the page on example.com", epoch=1, now=T0 + 1))
    assert state.status_message == "Waiting for the page on example.com"
    assert note(state, "Waiting for the page on example.com", epoch=1, now=T0 + 2) is NO_CHANGE


def test_a_broken_record_is_named() -> None:
    state = new()
    bad = TaskState(**{**_fields(state), "status": "input_required"})
    assert any("rule 4" in rule for rule in broken_rules(bad))
    twice = TaskState(
        **{**_fields(state), "key_seq": 1, "outstanding": {"q-1": {}}, "withdrawn": {"q-1": "x"}}
    )
    assert any("two sets" in rule for rule in broken_rules(twice))
    live = TaskState(**{**_fields(state), "result": RESULT})
    assert any("live task" in rule for rule in broken_rules(live))


# -- random event sequences ----------------------------------------------------------------------

REVISIONS = st.sampled_from([R2, R3])
RESPONSES = st.sampled_from([ACCEPT, {"action": "decline"}, {"action": "maybe"}, "junk"])
KEYS = st.sampled_from(["q-1", "q-2", "link-3", "nope", "q-300"])


class TaskLife(RuleBasedStateMachine):
    """Any interleaving of the owner's and other instances' writes. After each step: the record
    is sound (rule 4, K1), no key was ever issued twice, and once terminal nothing changes."""

    issued = Bundle("issued")

    def __init__(self) -> None:
        super().__init__()
        self.state = new()
        self.now = T0
        self.ever: list[str] = []
        self.ended: TaskState | None = None

    @initialize(revision=REVISIONS)
    def born_on(self, revision: str) -> None:
        self.state = new(revision)  # the revision is the record's for life (rule 7)

    def _apply(self, result: TaskState | NoChange) -> None:
        if self.ended is not None:
            assert result is NO_CHANGE, "a terminal task changed"
            return
        if isinstance(result, TaskState):
            assert result.version == self.state.version + 1
            assert result.updated_at >= self.state.updated_at
            self.state = result
            if result.terminal:
                self.ended = result

    @rule(target=issued, url=st.booleans(), base=st.none() | st.sampled_from(["k", "api_key"]))
    def ask(self, url: bool, base: str | None) -> Any:
        self.now += 1
        try:
            result = request_input(
                self.state,
                LINK if url else FORM,
                epoch=self.state.lease.epoch,
                now=self.now,
                base=base,
            )
        except TooManyQuestions:
            assert len(self.state.outstanding) >= MAX_OUTSTANDING or self.state.key_seq >= MAX_KEYS
            return multiple()
        if isinstance(result, NoChange):
            assert self.state.terminal
            return multiple()
        new_state, key = result
        assert key not in self.ever, f"K1: {key} issued twice"
        assert key.endswith(f"-{new_state.key_seq}")
        self.ever.append(key)
        self._apply(new_state)
        return key

    @rule(keys=st.lists(issued | KEYS, max_size=4), reply=RESPONSES)
    def answer_some(self, keys: list[str], reply: Any) -> None:
        self.now += 1
        before = self.state
        result, verdicts = answer(before, dict.fromkeys(keys, reply), now=self.now)
        for key, verdict in verdicts.items():
            if before.terminal:
                assert verdict == "finished"
            elif verdict == "accepted":
                assert key in before.outstanding
            elif verdict == "answered":
                assert key in before.answered
            elif verdict == "withdrawn":
                assert key in before.withdrawn
            elif verdict == "unknown":
                assert key not in self.ever
            else:
                assert verdict == "malformed" and key in before.outstanding
        assert (result is NO_CHANGE) == ("accepted" not in verdicts.values())
        self._apply(result)

    @rule(key=issued)
    def settle_one(self, key: str) -> None:
        if key in self.state.answered:
            self._apply(settle(self.state, key, epoch=self.state.lease.epoch, now=self.now))

    @rule(key=consumes(issued))
    def withdraw_one(self, key: str) -> None:
        if key in self.ever:
            self.now += 1
            self._apply(
                withdraw(
                    self.state, key, epoch=self.state.lease.epoch, now=self.now, reason="timeout"
                )
            )

    @rule(outcome=st.sampled_from([RESULT, TOOL_ERROR, None]))
    def finish_call(self, outcome: dict[str, Any] | None) -> None:
        self.now += 1
        kwargs: dict[str, Any] = {"result": outcome} if outcome else {"error": ERROR}
        self._apply(finish(self.state, epoch=self.state.lease.epoch, now=self.now, **kwargs))

    @rule()
    def cancel_it(self) -> None:
        self.now += 1
        self._apply(cancel(self.state, now=self.now))

    @rule(later=st.floats(min_value=0, max_value=100))
    def sweep(self, later: float) -> None:
        self.now += later
        self._apply(orphan(self.state, now=self.now))
        self._apply(expire(self.state, now=self.now))

    @rule(later=st.floats(min_value=0, max_value=10))
    def renew_lease(self, later: float) -> None:
        self.now += later
        self._apply(
            renew(self.state, epoch=self.state.lease.epoch, now=self.now, until=self.now + 15)
        )

    @precondition(lambda self: self.state.lease.epoch > 1)
    @rule()
    def old_owner_is_fenced_or_ignored(self) -> None:
        try:
            result = finish(self.state, epoch=1, now=self.now, result=RESULT)
        except Fenced:
            assert not self.state.terminal
        else:
            assert result is NO_CHANGE

    @invariant()
    def sound(self) -> None:
        assert broken_rules(self.state) == []
        state = self.state
        held = [*state.outstanding, *state.answered, *state.withdrawn]
        assert sorted(held) == sorted(self.ever)  # each issued key in exactly one set
        assert (state.status == "input_required") == bool(state.outstanding)

    @invariant()
    def terminal_is_final(self) -> None:
        if self.ended is not None:
            assert self.state is self.ended


TestTaskLife = TaskLife.TestCase
