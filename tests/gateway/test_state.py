"""The gateway's own ``requestState`` (``mcp_elicit.gateway.state``): each record round-trips
through its JSON, and anything else (a malformed record, a server's state, not JSON at all)
is refused with an error that says what is wrong."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_elicit.gateway.state import (
    HeldQuestion,
    InvalidState,
    RequiredLink,
    RequiredLinks,
    read_state,
    write_state,
)

LINK = {"elicitationId": "e-1", "url": "https://a.example/x", "message": "Sign in"}


@pytest.mark.parametrize(
    ("record", "as_json"),
    [
        (HeldQuestion("c-1", "q2"), {"gateway": "held", "call": "c-1", "key": "q2"}),
        (
            RequiredLinks(
                "r-1",
                {
                    "link1": RequiredLink("e-1", "https://a.example/x", "Sign in"),
                    "link2": RequiredLink(None, "https://b.example/", ""),
                },
            ),
            {
                "gateway": "links",
                "id": "r-1",
                "links": {
                    "link1": {
                        "elicitationId": "e-1",
                        "url": "https://a.example/x",
                        "message": "Sign in",
                    },
                    "link2": {"elicitationId": None, "url": "https://b.example/", "message": ""},
                },
            },
        ),
    ],
)
def test_each_record_round_trips_through_its_json(
    record: HeldQuestion | RequiredLinks, as_json: dict[str, Any]
) -> None:
    assert record.to_json() == as_json
    assert type(record).from_json(as_json) == record
    assert json.loads(write_state(record)) == as_json
    assert read_state(write_state(record)) == record


def test_no_state_is_a_first_call() -> None:
    assert read_state(None) is None


@pytest.mark.parametrize(
    ("state", "why"),
    [
        ("{not json", "it is not JSON"),
        (json.dumps(["held"]), "it is not a state of this gateway's"),
        # A 2026-07-28 server's own state (ours, say): a stranger to the gateway.
        (json.dumps({"mcp-elicit": 1, "answers": {}, "asked": {}}), "not a state of this"),
        (json.dumps({"call": "c-1", "key": "q1"}), "not a state of this gateway's"),
        (json.dumps({"gateway": "rounds"}), "not a state of this gateway's"),
        (json.dumps({"gateway": "held", "call": "c-1"}), "exactly ['call', 'key']"),
        (json.dumps({"gateway": "held", "call": 7, "key": "q1"}), "'call' must be"),
        (json.dumps({"gateway": "held", "call": "c-1", "key": ""}), "'key' must be"),
        (json.dumps({"gateway": "held", "call": "c", "key": "q1", "x": 1}), "exactly"),
        (json.dumps({"gateway": "links", "id": "r", "links": {}}), "at least one link"),
        (json.dumps({"gateway": "links", "id": "r", "links": ["e-1"]}), "at least one link"),
        (json.dumps({"gateway": "links", "links": {"link1": LINK}}), "exactly ['id', 'links']"),
        (json.dumps({"gateway": "links", "id": "", "links": {"link1": LINK}}), "'id' must name"),
        (json.dumps({"gateway": "links", "id": "r", "links": {"link1": 3}}), "'link1' must have"),
        (
            json.dumps({"gateway": "links", "id": "r", "links": {"link1": {**LINK, "url": ""}}}),
            "'link1''s 'url' must be a URL",
        ),
        (
            json.dumps(
                {"gateway": "links", "id": "r", "links": {"link1": {**LINK, "elicitationId": 3}}}
            ),
            "'elicitationId' must be a string or null",
        ),
    ],
)
def test_anything_else_is_refused_saying_why(state: str, why: str) -> None:
    with pytest.raises(InvalidState) as refused:
        read_state(state)
    assert why in str(refused.value)


def test_a_state_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(InvalidState, match="not a string"):
        read_state({"gateway": "held", "call": "c-1", "key": "q1"})


def test_a_record_of_the_other_kind_is_refused_by_each_reader() -> None:
    with pytest.raises(InvalidState, match="not a 'held' record"):
        HeldQuestion.from_json(
            RequiredLinks("r-1", {"link1": RequiredLink.from_json("link1", LINK)}).to_json()
        )
    with pytest.raises(InvalidState, match="not a 'links' record"):
        RequiredLinks.from_json(HeldQuestion("c-1", "q1").to_json())
