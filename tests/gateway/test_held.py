"""Held calls (``mcp_elicit.gateway.held``): a 2025 server's call kept open for a 2026-07-28
client. The state machine move by move, then the attacks through a real gateway: a replayed
retry, a retry after the hold limit, another tool's state."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from mcp_elicit.gateway import Gateway
from mcp_elicit.gateway.held import CallEnded, HeldCall, HeldCalls, OpenQuestion, Stale
from mcp_elicit.protocol import ElicitationRequest
from tests.server_support import booking_server

pytestmark = pytest.mark.anyio

QUESTION = ElicitationRequest("form", "Who?", {"type": "object", "properties": {}})
WHO = {"action": "accept", "content": {"name": "Ada"}}
RAW = TypeAdapter(dict[str, Any])


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_question_is_answered_once_and_only_under_its_own_key() -> None:
    held = HeldCall(60.0)
    got: list[Any] = []
    async with anyio.create_task_group() as tasks:

        async def server() -> None:
            got.append(await held.ask(QUESTION))
            held.finish(CallEnded(result={"content": []}))

        tasks.start_soon(server)
        step = await held.next_step()
        assert step == OpenQuestion("q1", QUESTION)
        assert held.question("q1") == step
        with pytest.raises(Stale):
            held.question("q2")
        with pytest.raises(Stale):
            held.answer("q2", WHO)  # not the question waiting
        held.answer("q1", WHO)
        with pytest.raises(Stale):
            held.answer("q1", WHO)  # a replay, or a second retry racing the first
        assert await held.next_step() == CallEnded(result={"content": []})
    assert got == [WHO]


async def test_the_hold_clock_stops_while_a_request_waits_and_runs_after() -> None:
    clock = Clock()
    held = HeldCall(10.0, clock=clock)
    cancelled: list[bool] = []
    held.cancel = lambda: cancelled.append(True)
    assert held.expired_at() == 110.0
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(held.next_step)
        await anyio.sleep(0.01)
        assert held.expired_at() is None  # somebody waits: no expiry
        clock.now = 150.0
        held.finish(CallEnded(result={}))
    assert held.expired_at() == 160.0  # counted from when the wait ended
    held.expire()
    assert held.state == "expired" and cancelled == [True]
    with pytest.raises(Stale):
        await held.next_step()


async def test_a_call_given_up_is_cancelled_upstream_and_forgotten() -> None:
    calls = HeldCalls(60.0)
    held = calls.new()
    cancelled: list[bool] = []
    held.cancel = lambda: cancelled.append(True)
    calls.give_up(held)
    assert held.state == "expired" and cancelled == [True] and len(calls) == 0


async def test_an_idle_call_expires_once_its_limit_has_passed() -> None:
    calls = HeldCalls(0.05)
    held = calls.new()
    with anyio.fail_after(5):
        await calls.expire_when_idle(held)
    assert held.state == "expired" and len(calls) == 0


async def _unused(context: Any, params: Any) -> Any:
    raise AssertionError("these tests answer by retrying themselves")


async def _first_round(client: Client, tool: str = "book") -> dict[str, Any]:
    request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments={}))
    result = await client.session.send_request(request, RAW)
    assert result["resultType"] == "input_required"
    return result


async def _retry(
    client: Client, state: str, responses: dict[str, Any], tool: str = "book"
) -> dict[str, Any]:
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(
            name=tool, arguments={}, input_responses=responses, request_state=state
        )
    )
    return await client.session.send_request(request, RAW)


BOOKING = {
    "action": "accept",
    "content": {"name": "Ada", "arrival": "2030-05-01", "room": "suite", "guests": 2},
}


async def test_a_replayed_retry_is_refused_and_the_call_goes_on() -> None:
    made = booking_server()
    async with (
        Gateway(made.server, upstream_protocol="2025-11-25") as gateway,
        Client(gateway.server, mode="auto", elicitation_callback=_unused) as client,
    ):
        first = await _first_round(client, "trip")
        state = first["requestState"]
        second = await _retry(client, state, {"q1": WHO}, "trip")
        assert second["resultType"] == "input_required"  # the next question
        with pytest.raises(MCPError) as replayed:
            await _retry(
                client, state, {"q1": {"action": "accept", "content": {"name": "Eve"}}}, "trip"
            )
        assert "no longer waiting" in str(replayed.value)
    assert made.finished["trip"] == 0  # Eve's answer never reached the server


async def test_a_retry_after_the_hold_limit_finds_nothing_and_the_server_call_is_cancelled() -> (
    None
):
    made = booking_server()
    async with (
        Gateway(made.server, upstream_protocol="2025-11-25", hold_limit=0.3) as gateway,
        Client(gateway.server, mode="auto", elicitation_callback=_unused) as client,
    ):
        first = await _first_round(client)
        assert len(gateway.held) == 1
        await anyio.sleep(1.0)
        assert len(gateway.held) == 0
        with pytest.raises(MCPError) as late:
            await _retry(client, first["requestState"], {"q1": BOOKING})
    assert "no longer held" in str(late.value)
    assert made.outcomes == []


async def test_another_tools_state_is_refused() -> None:
    made = booking_server()
    async with (
        Gateway(made.server, upstream_protocol="2025-11-25") as gateway,
        Client(gateway.server, mode="auto", elicitation_callback=_unused) as client,
    ):
        first = await _first_round(client, "book")
        with pytest.raises(MCPError) as moved:
            await _retry(client, first["requestState"], {"q1": WHO}, "go_ahead")
    assert "requestState" in str(moved.value)
