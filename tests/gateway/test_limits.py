"""The gateway's caps and limits (``mcp_elicit.gateway.limits``), attacked as issue 30 found
them: unanswered calls that spawned an upstream session each without end, sessions left open,
a 10 MB question and a call that asks without end passed to the person, and answers of any
size or number passed to the server. Each stops at its cap or limit with an error naming it,
its value and what to do."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from mcp_elicit.cli._gateway import _LIMIT_OPTIONS
from mcp_elicit.gateway import Gateway, Limits
from mcp_elicit.gateway.bridge import Bridge
from mcp_elicit.gateway.held import HeldCalls
from mcp_elicit.gateway.limits import OverLimit
from mcp_elicit.gateway.rounds_to_rounds import RoundsToRounds
from mcp_elicit.protocol import FORM_AND_URL
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision
from tests.gateway.support import ROOT, ScriptedUpstream, request_context, send_round

pytestmark = pytest.mark.anyio

TEN_MB = 10 * 1024 * 1024
WHO = {"action": "accept", "content": {"name": "Ada"}}


class Name(BaseModel):
    name: str


def asking_server() -> MCPServer:
    """A 2025-era server: ``who`` asks once, ``big`` asks a 10 MB question, ``many`` asks
    until it is told no (or 100 times)."""
    server = MCPServer("asking")

    @server.tool()
    async def who(ctx: Context) -> str:
        answer = await ctx.elicit("Who?", Name)
        return f"{answer.action}"

    @server.tool()
    async def big(ctx: Context) -> str:
        answer = await ctx.elicit("x" * TEN_MB, Name)
        return f"{answer.action}"

    @server.tool()
    async def many(ctx: Context) -> str:
        for n in range(100):
            answer = await ctx.elicit(f"Question {n + 1}?", Name)
            if answer.action != "accept":
                return f"stopped at {n + 1}"
        return "asked 100"

    return server


def over(raised: pytest.ExceptionInfo[MCPError], limit: str, value: int) -> str:
    """The error's message, once its data names ``limit`` and ``value``."""
    assert raised.value.data == {"limit": limit, "value": value}, raised.value.message
    assert limit in raised.value.message and str(value) in raised.value.message
    return raised.value.message


# -- finding 2: held calls and upstream sessions ------------------------------------------------


async def test_forty_unanswered_calls_stop_at_the_held_call_cap() -> None:
    """The attack as found: a 2026-07-28 client makes 40 calls and answers none. Each held call
    keeps an upstream session; past the default cap per client (16) the call is refused at
    once, and no session is opened for it."""
    async with (
        Gateway(asking_server(), upstream_protocol="2025-11-25") as gateway,
        Client(gateway.server, mode="auto", elicitation_callback=_unused) as client,
    ):
        held, refused = 0, []
        for _ in range(40):
            try:
                first = await send_round(client, "who")
            except MCPError as error:
                refused.append(error)
            else:
                assert first["resultType"] == "input_required"
                held += 1
        assert held == Limits().held_calls_per_client == 16
        assert len(refused) == 24
        assert refused[0].data == {"limit": "held_calls_per_client", "value": 16}
        assert "answer or cancel a pending call first" in refused[0].message
        assert "--max-held-calls-per-client" in refused[0].message
        assert len(gateway.held) == 16
        assert gateway.upstream.sessions == 16  # none opened past the cap


async def test_held_calls_are_capped_in_all_as_well_as_per_client() -> None:
    calls = HeldCalls(60.0, Limits(held_calls=4, held_calls_per_client=3))
    for _ in range(3):
        calls.new("ada")
    with pytest.raises(OverLimit) as ada:
        calls.new("ada")
    assert ada.value.limit == "held_calls_per_client"
    calls.new("bob")  # the fourth in all
    with pytest.raises(OverLimit) as bob:
        calls.new("bob")
    assert bob.value.data == {"limit": "held_calls", "value": 4}
    assert "try again once other calls have ended" in bob.value.message
    assert len(calls) == 4 and calls.held_for("bob") == 1


async def test_pending_calls_of_several_clients_stop_at_the_session_caps() -> None:
    """2025-11-25 clients, each its own session: one client past its cap of upstream sessions,
    then everybody past the cap in all. The questions stay unanswered meanwhile."""
    limits = Limits(upstream_sessions=4, upstream_sessions_per_client=3)
    asked = 0
    question = anyio.Event()

    async def never_answers(context: Any, params: Any) -> types.ElicitResult:
        nonlocal asked
        asked += 1
        question.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def pending(client: Client, tasks: anyio.abc.TaskGroup) -> None:
        """Start a call and return once its question has reached the person."""
        nonlocal question
        question = anyio.Event()
        tasks.start_soon(client.call_tool, "who", {})
        with anyio.fail_after(10):
            await question.wait()

    async with (
        Gateway(asking_server(), upstream_protocol="2025-11-25", limits=limits) as gateway,
        Client(gateway.server, mode="legacy", elicitation_callback=never_answers) as ada,
        Client(gateway.server, mode="legacy", elicitation_callback=never_answers) as bob,
        anyio.create_task_group() as tasks,
    ):
        for _ in range(3):
            await pending(ada, tasks)
        with pytest.raises(MCPError) as ada_over:
            await ada.call_tool("who", {})
        over(ada_over, "upstream_sessions_per_client", 3)
        await pending(bob, tasks)  # the fourth in all
        with pytest.raises(MCPError) as bob_over:
            await bob.call_tool("who", {})
        over(bob_over, "upstream_sessions", 4)
        assert gateway.upstream.sessions == 4 and asked == 4
        tasks.cancel_scope.cancel()


async def test_an_idle_upstream_session_is_closed() -> None:
    limits = Limits(idle_session_close=0.3)
    async with (
        Gateway(asking_server(), upstream_protocol="2025-11-25", limits=limits) as gateway,
        Client(gateway.server, mode="legacy", elicitation_callback=_answer_who) as client,
    ):
        result = await client.call_tool("who", {})
        assert not result.is_error
        assert gateway.upstream.sessions == 1  # pooled for the next call
        with anyio.fail_after(5):
            while gateway.upstream.sessions:
                await anyio.sleep(0.05)
        # A call after that opens a session again.
        assert not (await client.call_tool("who", {})).is_error


@pytest.mark.slow
async def test_unanswered_calls_spawn_no_process_past_the_cap(tmp_path: Path) -> None:
    """A stdio upstream: every session is a process. Ten unanswered calls under a cap of three
    start three processes (and the main one), and all of them end with the gateway."""
    pids = tmp_path / "pids"
    upstream = StdioServerParameters(
        command="sh",
        args=[
            "-c",
            f'echo $$ >> {pids}; exec "$0" "$@"',
            sys.executable,
            str(ROOT / "examples/conformance_server.py"),
            "--stdio",
        ],
        env=dict(os.environ),
        cwd=str(ROOT),
    )
    limits = Limits(held_calls_per_client=3)
    refused: list[MCPError] = []
    async with (
        Gateway(upstream, upstream_protocol="2025-11-25", limits=limits) as gateway,
        Client(gateway.server, mode="auto", elicitation_callback=_unused) as client,
    ):
        for _ in range(10):
            try:
                first = await send_round(client, "test_elicitation", {"message": "Who?"})
                assert first["resultType"] == "input_required"
            except MCPError as error:
                refused.append(error)
        spawned = pids.read_text().split()
        assert len(spawned) == 1 + 3, spawned  # the main session, and one per held call
    assert len(refused) == 7
    assert {e.data["limit"] for e in refused} == {"held_calls_per_client"}
    for pid in spawned:  # none outlives the gateway
        with anyio.fail_after(10):
            while _alive(int(pid)):
                await anyio.sleep(0.1)


# -- finding 11: the size and count of questions and answers ------------------------------------


@pytest.mark.parametrize("client_era", ["2025-11-25", "2026-07-28"])
async def test_a_ten_megabyte_question_never_reaches_the_person(client_era: str) -> None:
    seen: list[Any] = []

    async def person(context: Any, params: Any) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action="decline")

    mode = "legacy" if client_era == "2025-11-25" else "auto"
    async with (
        Gateway(asking_server(), upstream_protocol="2025-11-25") as gateway,
        Client(gateway.server, mode=mode, elicitation_callback=person) as client,
    ):
        with pytest.raises(MCPError) as refused:
            await client.call_tool("big", {})
        said = over(refused, "question_bytes", 131072)
        assert "--max-question-bytes" in said
        assert len(gateway.held) == 0
    assert seen == []


@pytest.mark.parametrize("client_era", ["2025-11-25", "2026-07-28"])
async def test_a_call_that_keeps_asking_ends_at_the_question_limit(client_era: str) -> None:
    seen: list[str] = []

    async def person(context: Any, params: Any) -> types.ElicitResult:
        seen.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    mode = "legacy" if client_era == "2025-11-25" else "auto"
    async with (
        Gateway(asking_server(), upstream_protocol="2025-11-25") as gateway,
        Client(
            gateway.server, mode=mode, elicitation_callback=person, input_required_max_rounds=99
        ) as client,
    ):
        with pytest.raises(MCPError) as ended:
            await client.call_tool("many", {})
        said = over(ended, "questions_per_call", 32)
        assert "--max-questions-per-call" in said
    assert seen == [f"Question {n}?" for n in range(1, 33)]


async def test_a_retry_with_too_many_answers_or_one_too_large_is_refused() -> None:
    async with (
        Gateway(asking_server(), upstream_protocol="2025-11-25") as gateway,
        Client(gateway.server, mode="auto", elicitation_callback=_unused) as client,
    ):
        first = await send_round(client, "who")
        state = first["requestState"]
        many = {f"k{n}": WHO for n in range(33)}
        with pytest.raises(MCPError) as too_many:
            await send_round(client, "who", state=state, responses=many)
        over(too_many, "questions_per_call", 32)
        huge = {"q1": {"action": "accept", "content": {"name": "x" * TEN_MB}}}
        with pytest.raises(MCPError) as too_large:
            await send_round(client, "who", state=state, responses=huge)
        over(too_large, "question_bytes", 131072)
        # Neither reached the server, and the call goes on: the right answer still ends it.
        done = await send_round(client, "who", state=state, responses={"q1": WHO})
        assert done["content"][0]["text"] == "accept"


async def test_a_2026_server_round_too_large_or_too_long_is_not_relayed() -> None:
    """2026-07-28 at both ends: a round's questions are counted and measured before the
    client sees them, and a retry's answers before the server does."""
    client = Peer("2026-07-28", Revision.V2026_07_28, FORM_AND_URL)

    def question(message: str) -> dict[str, Any]:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        return {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": message, "requestedSchema": schema},
        }

    big = {"resultType": "input_required", "inputRequests": {"q": question("x" * TEN_MB)}}
    many = {
        "resultType": "input_required",
        "inputRequests": {f"q{n}": question(f"Q{n}?") for n in range(33)},
    }
    upstream = ScriptedUpstream("2026-07-28", [big, many])
    way = RoundsToRounds(upstream, Bridge())  # type: ignore[arg-type]
    ctx = request_context("2026-07-28", params={"name": "t", "arguments": {}})
    with pytest.raises(OverLimit) as too_large:
        await way.call(ctx, client, "tools/call")
    assert too_large.value.limit == "question_bytes"
    with pytest.raises(OverLimit) as too_many:
        await way.call(ctx, client, "tools/call")
    assert too_many.value.limit == "questions_per_call"
    answers = {f"q{n}": WHO for n in range(33)}
    retry = request_context(
        "2026-07-28", params={"name": "t", "requestState": "s", "inputResponses": answers}
    )
    with pytest.raises(OverLimit):
        await way.call(retry, client, "tools/call")
    assert len(upstream.sent) == 2  # the retry never went upstream


def test_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="held_calls"):
        Limits(held_calls=0)


async def _unused(context: Any, params: Any) -> Any:
    raise AssertionError("these calls are answered by hand, round by round")


async def _answer_who(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_command_lines_defaults_are_the_limits_defaults() -> None:
    """``gateway_command`` is cheap to import, so it spells the defaults in its help; they
    must be ``Limits()``'s."""
    from mcp_elicit.cli import build_parser

    parser = build_parser()
    gateway = next(
        sub.choices["gateway"]
        for sub in parser._actions
        if isinstance(sub, argparse._SubParsersAction)
    )
    helps = {option: action.help for action in gateway._actions for option in action.option_strings}
    defaults = Limits()
    for field, option in _LIMIT_OPTIONS.items():
        value = getattr(defaults, field)
        said = f"(default {value:g})" if isinstance(value, float) else f"(default {value})"
        assert said in str(helps["--" + option.replace("_", "-")]), option
