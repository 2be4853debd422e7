"""A push-era server to a 2026-07-28 client (``mcp_elicit.gateway.push_to_rounds``): the
retry's ``requestState`` read as the gateway's records, and the rules of a retry, unit by
unit (the whole held call, end to end, is in test_held.py and test_eras.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.gateway.bridge import Bridge
from mcp_elicit.gateway.context import ANONYMOUS
from mcp_elicit.gateway.held import HeldCall, HeldCalls
from mcp_elicit.gateway.links import Links
from mcp_elicit.gateway.push_to_rounds import PushToRounds
from mcp_elicit.gateway.state import HeldQuestion, RequiredLink, RequiredLinks, write_state
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol import FORM_AND_URL, ElicitationRequest
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision
from tests.gateway.support import ScriptedUpstream, request_context

pytestmark = pytest.mark.anyio

CLIENT = Peer("2026-07-28", Revision.V2026_07_28, FORM_AND_URL)
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
WHO = ElicitationRequest("form", "Who?", NAME)


@asynccontextmanager
async def holding() -> AsyncIterator[PushToRounds]:
    async with anyio.create_task_group() as tasks:
        upstream = cast(Upstream, ScriptedUpstream("2025-11-25"))
        yield PushToRounds(upstream, Bridge(), HeldCalls(60.0), Links(), tasks, link_wait=0.1)
        tasks.cancel_scope.cancel()


def retry(state: str, responses: dict[str, Any] | None = None) -> Any:
    params = {"name": "t", "requestState": state, "inputResponses": responses or {}}
    return request_context("2026-07-28", params=params)


async def asking(way: PushToRounds) -> HeldCall:
    """A held call of the (anonymous 2026-07-28) client's whose server asked ``WHO`` (as
    ``q1``)."""
    held = way.held.new(ANONYMOUS)
    way.tasks.start_soon(held.ask, WHO, {"message": "Who?"})
    await anyio.sleep(0.01)
    return held


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ('{"call": "c", "key": "q1"}', "Invalid requestState: it is not a state of this"),
        (
            '{"gateway": "links", "id": "r", "links": {}}',
            "Invalid requestState: required links' 'links'",
        ),
    ],
)
async def test_a_state_that_is_not_one_of_the_gateways_records_is_refused(
    state: str, said: str
) -> None:
    async with holding() as way:
        with pytest.raises(MCPError) as refused:
            await way.call(retry(state), CLIENT, "tools/call")
    assert said in refused.value.message


async def test_a_call_no_longer_held_is_refused() -> None:
    async with holding() as way:
        with pytest.raises(MCPError, match="no longer held"):
            await way.call(retry(write_state(HeldQuestion("gone", "q1"))), CLIENT, "tools/call")


async def test_only_the_question_waiting_is_answered_and_a_misfit_answer_gives_the_call_up() -> (
    None
):
    async with holding() as way:
        held = await asking(way)
        with pytest.raises(MCPError, match="no longer waiting"):
            await way.call(retry(write_state(HeldQuestion(held.id, "q2"))), CLIENT, "tools/call")
        same = await way.call(retry(write_state(HeldQuestion(held.id, "q1"))), CLIENT, "tools/call")
        assert same["inputRequests"] == {
            "q1": {"method": "elicitation/create", "params": {"message": "Who?"}}
        }
        bad = {"q1": {"action": "accept", "content": {}}}
        state = write_state(HeldQuestion(held.id, "q1"))
        result = await way.call(retry(state, bad), CLIENT, "tools/call")
        assert result["isError"] is True and "name" in result["content"][0]["text"]
        assert held.state == "expired" and way.held.get(held.id) is None


@pytest.mark.parametrize("response", [None, {"action": "decline"}, {"action": "cancel"}])
async def test_links_the_person_did_not_accept_end_the_call(response: Any) -> None:
    link = RequiredLink("e-1", "https://a.example.com/x", "Sign in")
    state = write_state(RequiredLinks("r-1", {"link1": link}))
    responses = {} if response is None else {"link1": response}
    async with holding() as way:
        result = await way.call(retry(state, responses), CLIENT, "tools/call")
        assert result["isError"] is True
        assert "did not open the link" in result["content"][0]["text"]
        with pytest.raises(MCPError, match="did not open the link"):
            await way.call(retry(state, responses), CLIENT, "prompts/get")
