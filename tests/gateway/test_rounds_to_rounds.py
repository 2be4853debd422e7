"""2026-07-28 on both sides (``mcp_elicit.gateway.rounds_to_rounds``): the rounds relayed with
the server's ``requestState`` untouched, each retry's answers checked against the questions of
the round they answer before they go upstream."""

from __future__ import annotations

from typing import Any, cast

import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.gateway.bridge import Bridge
from mcp_elicit.gateway.rounds_to_rounds import RoundsToRounds
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol import FORM_AND_URL
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision
from tests.gateway.support import ScriptedUpstream, request_context

pytestmark = pytest.mark.anyio

CLIENT = Peer("2026-07-28", Revision.V2026_07_28, FORM_AND_URL)
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
DONE = {"content": [{"type": "text", "text": "done"}]}


def asking(params: dict[str, Any], state: str = "server-state") -> dict[str, Any]:
    return {
        "resultType": "input_required",
        "inputRequests": {"q1": {"method": "elicitation/create", "params": params}},
        "requestState": state,
    }


WHO = asking({"mode": "form", "message": "Who?", "requestedSchema": NAME})


def retry(responses: dict[str, Any], state: str = "server-state") -> Any:
    return request_context(
        "2026-07-28",
        params={"name": "t", "inputResponses": responses, "requestState": state},
    )


def relay(*results: dict[str, Any]) -> tuple[RoundsToRounds, ScriptedUpstream]:
    upstream = ScriptedUpstream("2026-07-28", list(results))
    return RoundsToRounds(cast(Upstream, upstream), Bridge()), upstream


async def test_an_answer_is_checked_against_its_rounds_question_and_relayed() -> None:
    way, upstream = relay(WHO, DONE)
    first = await way.call(
        request_context("2026-07-28", params={"name": "t"}), CLIENT, "tools/call"
    )
    assert first["requestState"] == "server-state"  # the server's, untouched
    assert first["inputRequests"]["q1"]["params"]["message"] == "Who?"
    answer = {"action": "accept", "content": {"name": "Ada"}}
    assert await way.call(retry({"q1": answer}), CLIENT, "tools/call") == DONE
    assert upstream.sent[1]["inputResponses"] == {"q1": answer}
    assert upstream.sent[1]["requestState"] == "server-state"


async def test_an_answer_that_does_not_fit_never_goes_upstream() -> None:
    bad = {"q1": {"action": "accept", "content": {}}}
    way, upstream = relay(WHO)
    await way.call(request_context("2026-07-28", params={"name": "t"}), CLIENT, "tools/call")
    result = await way.call(retry(bad), CLIENT, "tools/call")
    assert result["isError"] is True and "name" in result["content"][0]["text"]
    assert len(upstream.sent) == 1  # the retry was never sent
    way, upstream = relay(WHO)
    await way.call(request_context("2026-07-28", params={"uri": "r"}), CLIENT, "resources/read")
    with pytest.raises(MCPError, match="invalid"):  # no tool result to put it in: raised
        await way.call(retry(bad), CLIENT, "resources/read")
    assert len(upstream.sent) == 1


async def test_a_round_is_checked_once_and_one_never_seen_is_relayed_unchecked() -> None:
    bad = {"q1": {"action": "accept", "content": {}}}
    way, upstream = relay(WHO, DONE, DONE)
    await way.call(request_context("2026-07-28", params={"name": "t"}), CLIENT, "tools/call")
    await way.call(retry({"q1": {"action": "decline"}}), CLIENT, "tools/call")
    assert await way.call(retry(bad), CLIENT, "tools/call") == DONE  # a replay: the server's
    assert upstream.sent[2]["inputResponses"] == bad


async def test_a_blocked_link_ends_the_call_saying_the_gateway_blocked_it_and_why() -> None:
    link = asking({"mode": "url", "message": "Open", "url": "http://127.0.0.1/x"})
    way, _ = relay(link)
    first = request_context("2026-07-28", params={"name": "t"})
    result = await way.call(first, CLIENT, "tools/call")
    said = result["content"][0]["text"]
    assert result["isError"] is True and "inputRequests" not in result
    assert "The gateway blocked a link" in said and "'http:' is not allowed" in said
    way, _ = relay(link)
    with pytest.raises(MCPError, match="The gateway blocked a link") as raised:
        await way.call(request_context("2026-07-28", params={"name": "p"}), CLIENT, "prompts/get")
    assert raised.value.error.data == {
        "why": "url-blocked",
        "reasons": ["scheme_not_allowed", "loopback", "ip_address_host"],
    }
