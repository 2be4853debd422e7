"""The 2026-07-28 call round's rules, one transition at a time (mcp_elicit.client.call_round).

Pure: no SDK session, no server. The numbers are the rules' numbers in the module's docstring.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcp_elicit.client.call_round import MAX_REFUSED_ROUNDS, CallRound
from mcp_elicit.client.prompts import UrlPrompt
from mcp_elicit.urls import check_url
from tests.paths import SRC

LINK = "https://accounts.example.com/authorize"
OTHER = "https://files.example.com/grant"

DECLINED = {"q1": {"action": "decline"}}
CANCELLED = {"q1": {"action": "cancel"}, "q2": {"action": "decline"}}
ACCEPTED = {"q1": {"action": "accept", "content": {"name": "Ada"}}}


def link(url: str = LINK) -> UrlPrompt:
    return UrlPrompt("links", "Sign in", url, check_url(url), revision="2026-07-28")


def refused_in_a_row(round_: CallRound, times: int) -> None:
    for _ in range(times):
        round_.retrying(DECLINED)


def test_a_new_call_has_refused_nothing_and_holds_no_link() -> None:
    round_ = CallRound()
    assert round_.refused_in_a_row == 0
    assert not round_.given_up
    assert round_.retrying({"q1": {"action": "accept"}}) == {}


# -- rules 1 to 3: counting refusals ---------------------------------------------------------


@pytest.mark.parametrize("responses", [None, {}, "not responses"], ids=["none", "empty", "junk"])
def test_1_a_retry_with_no_responses_is_not_counted(responses: Any) -> None:
    round_ = CallRound()
    refused_in_a_row(round_, 2)
    round_.retrying(responses)
    assert round_.refused_in_a_row == 2


@pytest.mark.parametrize("responses", [DECLINED, CANCELLED], ids=["decline", "decline-cancel"])
def test_2_a_retry_of_only_refusals_counts_one_more(responses: dict[str, Any]) -> None:
    round_ = CallRound()
    round_.retrying(responses)
    round_.retrying(responses)
    assert round_.refused_in_a_row == 2


@pytest.mark.parametrize(
    "responses",
    [
        ACCEPTED,
        {"q1": {"action": "decline"}, "q2": {"action": "accept"}},
        {"q1": {"action": "decline"}, "q2": "not a response"},
        {"q1": {}},
    ],
    ids=["accept", "decline-and-accept", "decline-and-junk", "no-action"],
)
def test_2_any_other_response_starts_the_count_again(responses: dict[str, Any]) -> None:
    round_ = CallRound()
    refused_in_a_row(round_, MAX_REFUSED_ROUNDS)
    round_.retrying(responses)
    assert round_.refused_in_a_row == 0
    refused_in_a_row(round_, MAX_REFUSED_ROUNDS)
    assert not round_.given_up  # counted afresh: not past the limit yet


def test_3_the_call_is_given_up_past_the_limit_not_at_it() -> None:
    round_ = CallRound()
    refused_in_a_row(round_, MAX_REFUSED_ROUNDS)
    assert not round_.given_up
    round_.retrying(DECLINED)
    assert round_.given_up


# -- rule 4: a link accepted in a round rides on that round's retry ---------------------------


def test_4_an_accepted_link_rides_on_the_retry_that_accepts_it_as_held() -> None:
    round_ = CallRound()
    round_.link_accepted("url", link())
    carried = round_.retrying({"url": {"action": "accept"}})
    assert list(carried) == ["url"]
    assert carried["url"].held and carried["url"].url == LINK
    assert not link().held  # the prompt the person saw is not changed


def test_4_only_the_links_whose_response_accepts_are_carried() -> None:
    round_ = CallRound()
    round_.link_accepted("first", link())
    round_.link_accepted("second", link(OTHER))
    round_.link_accepted("third", link(OTHER))
    carried = round_.retrying(
        {"first": {"action": "accept"}, "second": {"action": "cancel"}, "q1": {"action": "accept"}}
    )
    assert list(carried) == ["first"]


def test_4_a_link_is_never_carried_by_a_later_rounds_retry() -> None:
    round_ = CallRound()
    round_.link_accepted("url", link())
    assert round_.retrying({"other": {"action": "accept"}}) == {}  # dropped here
    assert round_.retrying({"url": {"action": "accept"}}) == {}  # not kept for later


def test_4_a_retry_with_no_responses_drops_what_was_collected() -> None:
    round_ = CallRound()
    round_.link_accepted("url", link())
    assert round_.retrying(None) == {}
    assert round_.retrying({"url": {"action": "accept"}}) == {}


def test_4_each_round_collects_afresh() -> None:
    round_ = CallRound()
    round_.link_accepted("url", link())
    assert list(round_.retrying({"url": {"action": "accept"}})) == ["url"]
    round_.link_accepted("url", link(OTHER))  # the server asked again, the person agreed again
    carried = round_.retrying({"url": {"action": "accept"}})
    assert carried["url"].url == OTHER


def test_4_carrying_links_does_not_count_as_a_refusal() -> None:
    round_ = CallRound()
    refused_in_a_row(round_, 2)
    round_.link_accepted("url", link())
    round_.retrying({"url": {"action": "accept"}})
    assert round_.refused_in_a_row == 0


# -- rule 5: the retry sent again after the person gave up waiting -----------------------------


def test_5_sending_a_held_retry_again_with_cancels_counts_and_carries_nothing() -> None:
    round_ = CallRound()
    refused_in_a_row(round_, MAX_REFUSED_ROUNDS)
    round_.link_accepted("url", link())
    assert list(round_.retrying({"url": {"action": "accept"}})) == ["url"]  # count: 0
    again = round_.retrying({"url": {"action": "cancel"}})
    assert again == {}
    assert round_.refused_in_a_row == 1


def test_one_context_variable_carries_a_calls_rounds() -> None:
    """The round state travels in one documented ContextVar (connection.py's ``_CALL_ROUND``,
    holding a :class:`CallRound`); no other module of the client keeps per-call state in one."""
    made = re.compile(r"\bContextVar\(")
    found = {
        str(path.relative_to(SRC)): len(made.findall(path.read_text(encoding="utf-8")))
        for path in (SRC / "mcp_elicit" / "client").rglob("*.py")
    }
    assert {path: n for path, n in found.items() if n} == {"mcp_elicit/client/connection.py": 1}
    assert "_CALL_ROUND: ContextVar[CallRound | None] = ContextVar(" in (
        SRC / "mcp_elicit" / "client" / "connection.py"
    ).read_text(encoding="utf-8")
