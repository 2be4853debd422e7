"""The gateway between every pair of eras, in-process: our server behind it (pinned to a push
revision, or speaking 2026-07-28), real SDK clients (and ours for 2025-06-18) in front.

A tool that asks three questions in a row (``trip``) must come out the same through the
gateway as directly: each question reaches the person once, in the client's revision's
shape, and every answer reaches the server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from mcp_elicit.client import AuditLog
from mcp_elicit.gateway import Gateway, Safeguards
from mcp_elicit.gateway.bridge import VERDICT_META
from mcp_elicit.gateway.state import HeldQuestion, write_state
from tests.server_support import Person, booking_server, connect, text

pytestmark = pytest.mark.anyio

UPSTREAMS = ["2025-06-18", "2025-11-25", "2026-07-28"]
CLIENTS = ["2025-06-18", "2025-11-25", "2026-07-28"]
WHO = {"action": "accept", "content": {"name": "Ada"}}
SURE = {"action": "accept", "content": {"confirm": True}}
ROOM = {"action": "accept", "content": {"choice": "ste"}}


def answers() -> list[dict[str, Any]]:
    return [dict(WHO), dict(SURE), dict(ROOM)]


@pytest.mark.parametrize("client_era", CLIENTS)
@pytest.mark.parametrize("upstream_era", UPSTREAMS)
async def test_three_questions_cross_every_pair_of_eras(upstream_era: str, client_era: str) -> None:
    made = booking_server()
    async with Gateway(made.server, upstream_protocol=upstream_era) as gateway:
        assert gateway.upstream.version == upstream_era
        person = Person(answers())
        async with connect(gateway.server, client_era, person) as client:
            result = await client.call_tool("trip", {"n": 7})
    assert text(result) == "7: Ada True ste"
    assert [seen["message"] for seen in person.seen] == ["Who travels?", "Go ahead?", "Which room?"]
    # The shape of the client's revision: 2025-06-18 has no `mode`.
    assert all(("mode" in seen) == (client_era != "2025-06-18") for seen in person.seen)
    # Each tool body ran to its end once per round it needed, and finished once.
    assert made.finished["trip"] == 1
    assert len(gateway.held) == 0  # nothing left held


@pytest.mark.parametrize("upstream_era", ["2025-11-25", "2026-07-28"])
async def test_a_decline_reaches_the_server_as_a_decline(upstream_era: str) -> None:
    made = booking_server()
    async with Gateway(made.server, upstream_protocol=upstream_era) as gateway:
        for client_era in ("2025-11-25", "2026-07-28"):
            person = Person([{"action": "decline"}])
            async with connect(gateway.server, client_era, person) as client:
                result = await client.call_tool("go_ahead", {})
            assert text(result) == "no"


@pytest.mark.parametrize("upstream_era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("client_era", ["2025-11-25", "2026-07-28"])
async def test_an_answer_that_breaks_the_schema_never_reaches_the_server(
    upstream_era: str, client_era: str
) -> None:
    made = booking_server()
    async with Gateway(made.server, upstream_protocol=upstream_era) as gateway:
        bad = {"action": "accept", "content": {"name": "Ada", "arrival": "someday"}}
        async with connect(gateway.server, client_era, Person([bad])) as client:
            result = await client.call_tool("book", {})
    assert result.is_error
    assert "arrival" in text(result) and "invalid" in text(result)
    assert made.outcomes == []  # the tool never saw the answer


async def test_a_schema_the_client_revision_cannot_express_is_an_error_naming_it() -> None:
    made = booking_server()
    # Multi-select does not exist on 2025-06-18.
    async with (
        Gateway(made.server, upstream_protocol="2026-07-28") as gateway,
        connect(gateway.server, "2025-06-18", Person()) as client,
    ):
        with pytest.raises(MCPError) as raised:
            await client.call_tool("pick_extras", {})
    assert "2025-06-18" in str(raised.value) and "multi-select" in str(raised.value)


@pytest.mark.parametrize("upstream_era", ["2025-11-25", "2026-07-28"])
async def test_only_the_modes_the_client_declared_are_declared_upstream(
    upstream_era: str,
) -> None:
    made = booking_server()
    async with (
        Gateway(made.server, upstream_protocol=upstream_era) as gateway,
        connect(gateway.server, "2026-07-28", Person(), declare=False) as client,
    ):
        result = await client.call_tool("book_or_walk_in", {})
    # The server saw a client without elicitation and took its fallbacks: nobody was asked.
    assert text(result) == "booked Walk-in 2030-01-01 standard x2; sure=True"


async def test_concurrent_clients_each_get_their_own_questions_and_answers() -> None:
    made = booking_server()
    names = [f"Guest {n}" for n in range(8)]
    results: dict[str, str] = {}
    async with Gateway(made.server, upstream_protocol="2025-11-25") as gateway:

        async def one(name: str, era: str) -> None:
            person = Person(
                [{"action": "accept", "content": {"name": name}}, dict(SURE), dict(ROOM)],
                delay=0.05,
            )
            async with connect(gateway.server, era, person) as client:
                results[name] = text(await client.call_tool("trip", {"n": 1}))

        async with anyio.create_task_group() as tasks:
            for number, name in enumerate(names):
                tasks.start_soon(one, name, CLIENTS[1 + number % 2])
    assert results == {name: f"1: {name} True ste" for name in names}


@pytest.mark.parametrize("sdk_mode", ["legacy", "auto"])
async def test_url_questions_carry_the_link_unchanged_and_its_verdict(sdk_mode: str) -> None:
    server = MCPServer("links")
    link = "https://pages.example.com/elicit/flows/abc?x=1"

    @server.tool()
    async def open_page(ctx: Context) -> str:
        result = await ctx.elicit_url("Open the page", link, "flow-1")
        return result.action

    async with Gateway(server, upstream_protocol="2025-11-25") as gateway:
        seen: list[dict[str, Any]] = []

        async def answer(context: Any, params: Any) -> Any:
            seen.append(params.model_dump(by_alias=True, mode="json", exclude_none=True))
            return types.ElicitResult(action="accept")

        async with Client(gateway.server, elicitation_callback=answer, mode=sdk_mode) as client:
            result = await client.call_tool("open_page", {})
    assert text(result) == "accept"
    assert seen[0]["url"] == link
    assert seen[0]["mode"] == "url"
    if sdk_mode == "legacy":  # 2025-11-25: the SDK's server strips `_meta` from 2026 input requests
        assert seen[0]["elicitationId"] == "flow-1"
        assert seen[0]["_meta"][VERDICT_META]["registrable_domain"] == "example.com"


async def test_a_forged_request_state_is_refused() -> None:
    made = booking_server()
    async with (
        Gateway(made.server, upstream_protocol="2025-11-25") as gateway,
        Client(gateway.server, mode="auto") as client,
    ):
        # The gateway's own record, well formed, but not sealed by this gateway.
        forged = write_state(HeldQuestion("x", "q1"))
        with pytest.raises(MCPError) as raised:
            await client.session.send_request(_call("book", forged), _raw())
    assert "requestState" in str(raised.value)


def _call(name: str, state: str) -> Any:
    return types.CallToolRequest(
        params=types.CallToolRequestParams(
            name=name, arguments={}, input_responses={"q1": WHO}, request_state=state
        )
    )


def _raw() -> Any:
    return TypeAdapter(dict[str, Any])


async def test_the_audit_log_records_each_question_with_answers_redacted(tmp_path: Path) -> None:
    made = booking_server()
    log = tmp_path / "audit.jsonl"
    audit = AuditLog(log)
    try:
        async with (
            Gateway(
                made.server, upstream_protocol="2025-11-25", safeguards=Safeguards(audit=audit)
            ) as gateway,
            connect(gateway.server, "2026-07-28", Person([dict(WHO), dict(SURE), dict(ROOM)])) as c,
        ):
            await c.call_tool("trip", {})
    finally:
        audit.close()
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["message"] for e in entries] == ["Who travels?", "Go ahead?", "Which room?"]
    assert all(e["by"] == "gateway" and e["action"] == "accept" for e in entries)
    assert entries[0]["content"] == {"name": "[redacted]"}
    assert "Ada" not in log.read_text()
    assert log.stat().st_mode & 0o777 == 0o600
