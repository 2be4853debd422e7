"""The 2026-07-28 round state machine (``mcp_elicit.server.rounds``), transition by transition,
with no server: a round is built from what a request carries, a question is resolved
against it, and what is recorded or asked is read back from the state it would send."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_elicit.server import Accepted, Cancelled, Declined
from mcp_elicit.server.rounds import (
    LINK_KEY,
    STATE_KEY,
    STATE_VERSION,
    Asked,
    AskPending,
    Recorded,
    Responded,
    Restored,
    Round,
    TimedOut,
    Unanswered,
    digest,
    find_pending,
)

PIN = digest({"mode": "form", "message": "Who?", "requestedSchema": {"type": "object"}})
OTHER_PIN = digest({"mode": "form", "message": "Where?", "requestedSchema": {"type": "object"}})
ANSWER = {"action": "accept", "content": {"name": "Ada"}}
NOW = 1_000_000.0
REQUEST = {"method": "elicitation/create", "params": {}}


def next_round(pending: AskPending, responses: dict[str, Any] | None = None) -> Round:
    """The round of the client's retry after ``pending``: its state echoed, its answers."""
    result = pending.result()
    assert result["resultType"] == "input_required"
    return Round.from_request(responses, result["requestState"])


def ask_first(key: str = "q1", pin: str = PIN, **asked: Any) -> AskPending:
    round_ = Round.from_request(None, None)
    assert round_.next_key() == key
    assert isinstance(round_.resolve(key, pin, now=NOW), Unanswered)
    return round_.ask(key, REQUEST, Asked(pin, NOW, **asked))


def test_first_call_nothing_recorded_nothing_asked() -> None:
    round_ = Round.from_request(None, None)
    key = round_.next_key()
    standing = round_.resolve(key, PIN, now=NOW)
    assert standing == Unanswered(None)
    assert standing.tries == 0 and standing.note is None


def test_the_question_leaves_with_its_request_and_its_record_in_the_state() -> None:
    pending = ask_first()
    result = pending.result()
    assert result["inputRequests"] == {"q1": {"method": "elicitation/create", "params": {}}}
    state = json.loads(result["requestState"])
    assert state == {
        STATE_KEY: STATE_VERSION,
        "answers": {},
        "asked": {"q1": {"q": PIN, "at": NOW}},
    }


def test_answered_the_response_is_read_then_recorded_and_restored_next_round() -> None:
    retry = next_round(ask_first(), {"q1": ANSWER})
    key = retry.next_key()
    standing = retry.resolve(key, PIN, now=NOW + 5)
    assert standing == Responded(ANSWER, Asked(PIN, NOW))
    retry.record(key, Recorded.of(PIN, Accepted("Ada"), ANSWER["content"]))
    # A later question in the same body leaves; the answer travels with it.
    later = retry.ask("q2", REQUEST, Asked(OTHER_PIN, NOW))
    third = next_round(later, {"q2": ANSWER})
    third.next_key()
    restored = third.resolve("q1", PIN, now=NOW + 10)
    assert isinstance(restored, Restored)
    assert restored.recorded.answer(lambda content: content["name"]) == Accepted("Ada")


@pytest.mark.parametrize(
    "answer", [Accepted({"x": 1}), Declined(), Cancelled("timeout"), Cancelled()]
)
def test_every_outcome_round_trips_through_the_state(answer: Any) -> None:
    content = {"x": 1} if isinstance(answer, Accepted) else None
    recorded = Recorded.of(PIN, answer, content)
    round_ = Round()
    round_.record("q1", recorded)
    state = round_.state({})
    again = Round.from_request(None, state)
    assert again.answers["q1"] == recorded
    assert again.answers["q1"].answer(dict) == answer


def test_a_response_after_the_timeout_is_timed_out() -> None:
    retry = next_round(ask_first(), {"q1": ANSWER})
    retry.next_key()
    assert retry.resolve("q1", PIN, now=NOW + 5, timeout=10) == Responded(ANSWER, Asked(PIN, NOW))
    assert retry.resolve("q1", PIN, now=NOW + 11, timeout=10) == TimedOut(Asked(PIN, NOW))


def test_an_invalid_answer_asked_again_carries_its_tries_and_note() -> None:
    retry = next_round(ask_first(), {"q1": {"action": "accept", "content": {}}})
    standing = retry.resolve(retry.next_key(), PIN, now=NOW)
    assert isinstance(standing, Responded) and standing.tries == 0
    again = retry.ask("q1", REQUEST, Asked(PIN, NOW, standing.tries + 1, "name: required"))
    # The client retries without answering (it lost the question): the note stays.
    third = next_round(again, {})
    unanswered = third.resolve(third.next_key(), PIN, now=NOW)
    assert isinstance(unanswered, Unanswered)
    assert (unanswered.tries, unanswered.note) == (1, "name: required")


def test_a_question_whose_schema_changed_is_asked_afresh() -> None:
    retry = next_round(ask_first(tries=2, note="old"), {"q1": ANSWER})
    standing = retry.resolve(retry.next_key(), OTHER_PIN, now=NOW)
    # The response answered another question: it is not taken, nothing carries over.
    assert standing == Unanswered(None)


def test_an_answer_recorded_for_another_question_is_not_restored() -> None:
    round_ = Round()
    round_.record("q1", Recorded.of(PIN, Accepted("x"), {"name": "x"}))
    again = Round.from_request({}, round_.state({}))
    assert again.resolve("q1", OTHER_PIN, now=NOW) == Unanswered(None)


def test_a_response_with_no_state_at_all_is_not_an_answer() -> None:
    # A first call that brings its own answer: nothing sealed says the question was sent,
    # so the response is ignored and the question is asked (rules at the top of rounds).
    round_ = Round.from_request({"q1": ANSWER}, None)
    assert round_.resolve(round_.next_key(), PIN, now=NOW) == Unanswered(None)


def test_a_response_to_a_question_the_state_never_asked_is_not_an_answer() -> None:
    # The state asked q1; a response slipped in for q2 (never sent) does not answer q2.
    retry = next_round(ask_first(), {"q1": ANSWER, "q2": ANSWER})
    assert isinstance(retry.resolve(retry.next_key(), PIN, now=NOW), Responded)
    assert retry.resolve(retry.next_key(), OTHER_PIN, now=NOW) == Unanswered(None)


def test_a_response_without_a_record_is_not_timed_out_either_it_is_asked() -> None:
    # Without an Asked record there is no time it was sent: it cannot skip timeout= by
    # being taken at once; it is asked, and the timeout runs from then.
    round_ = Round.from_request({"q1": ANSWER}, None)
    standing = round_.resolve(round_.next_key(), PIN, now=NOW, timeout=0.0)
    assert standing == Unanswered(None)


def test_keys_follow_the_order_of_the_body_unless_the_author_names_them() -> None:
    round_ = Round()
    assert [round_.next_key(), round_.next_key("room"), round_.next_key()] == ["q1", "room", "q3"]


def test_a_link_the_tool_raised_names_its_flow_for_the_retry() -> None:
    round_ = Round()
    pending = round_.ask(LINK_KEY, REQUEST, Asked(None, NOW, flow="flow-1"))
    retry = next_round(pending, {LINK_KEY: {"action": "accept"}})
    assert retry.linked_flow() == "flow-1"
    assert Round().linked_flow() is None


def test_a_link_question_keeps_its_flow_across_rounds() -> None:
    pending = ask_first(flow="flow-7")
    retry = next_round(pending, {"q1": {"action": "accept"}})
    standing = retry.resolve(retry.next_key(), PIN, now=NOW)
    assert isinstance(standing, Responded) and standing.asked is not None
    assert standing.asked.flow == "flow-7"


@pytest.mark.parametrize(
    "state",
    [
        "not json",
        json.dumps({STATE_KEY: STATE_VERSION + 1, "answers": {}, "asked": {}}),
        json.dumps({STATE_KEY: STATE_VERSION, "answers": [], "asked": {}}),
        json.dumps([1, 2]),
    ],
    ids=["not-json", "other-version", "wrong-shape", "not-an-object"],
)
def test_a_state_we_cannot_read_starts_over(state: str) -> None:
    round_ = Round.from_request({"q1": ANSWER}, state)
    assert round_.answers == {} and round_.asked == {}


def test_a_damaged_record_is_dropped_and_the_rest_kept() -> None:
    state = json.dumps(
        {
            STATE_KEY: STATE_VERSION,
            "answers": {
                "q1": {"q": PIN, "action": "explode"},
                "q2": {"q": PIN, "action": "decline"},
            },
            "asked": {"q3": {"q": 7, "at": NOW}, "q4": {"q": PIN, "at": NOW, "try": 1}},
        }
    )
    round_ = Round.from_request(None, state)
    assert round_.answers == {"q2": Recorded(PIN, "decline")}
    assert round_.asked == {"q4": Asked(PIN, NOW, 1)}


def test_a_pending_question_inside_a_task_group_is_found() -> None:
    pending = ask_first()
    group = BaseExceptionGroup("tools", [ValueError("x"), BaseExceptionGroup("inner", [pending])])
    assert find_pending(group) is pending
    assert find_pending(BaseExceptionGroup("none", [ValueError("x")])) is None


def test_ask_pending_is_not_caught_by_except_exception() -> None:
    def tool_body() -> None:
        try:
            raise ask_first()
        except Exception:  # what a tool author might write around an ask
            pytest.fail("a tool's except Exception swallowed the question")

    with pytest.raises(AskPending):
        tool_body()


def test_the_response_to_a_raised_link_is_read_only_if_that_link_was_asked() -> None:
    round_ = Round()
    pending = round_.ask(LINK_KEY, REQUEST, Asked(None, NOW))
    assert next_round(pending, {LINK_KEY: {"action": "decline"}}).link_response() == {
        "action": "decline"
    }
    # A response under that key with no link asked (nothing sealed says so) is not one.
    assert Round.from_request({LINK_KEY: {"action": "decline"}}, None).link_response() is None
