"""Around each request (``handling``): its scope is made once, with a round only on the
revision that asks in rounds, and a URL question reaches the runtime's services once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.server import (
    Accepted,
    DeploymentKey,
    Elicitation,
    ask,
    rounds,
    runtime,
    secret,
    url_mode,
)
from mcp_elicit.server.scope import current_scope
from mcp_elicit.testing import connect, enter_secret

pytestmark = pytest.mark.anyio

CONSENT = {"action": "accept"}


def counting_server() -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://")
    server = MCPServer("counting", **elicitation.server_options())

    @server.tool()
    async def has_round(ctx: Context) -> str:
        return str(current_scope(ctx).round is not None)

    @server.tool()
    async def connect_service(ctx: Context) -> str:
        answer = await secret(ctx, "SERVICE_KEY", "Your service key, to connect")
        return "connected" if isinstance(answer, Accepted) else f"not connected: {answer}"

    @server.tool()
    async def name(ctx: Context) -> str:
        answer = await ask(ctx, {"type": "object", "properties": {"n": {"type": "string"}}}, "?")
        return "named" if isinstance(answer, Accepted) else "unnamed"

    return server, elicitation


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [("2025-06-18", "False"), ("2025-11-25", "False"), ("2026-07-28", "True")],
)
async def test_only_a_request_of_the_round_era_gets_a_round(protocol: str, expected: str) -> None:
    server, elicitation = counting_server()
    async with connect(server, protocol=protocol, elicitation=elicitation) as client:
        assert (await client.call("has_round")).text == expected


def counted(monkeypatch: pytest.MonkeyPatch, seen: Counter[str], owner: Any, name: str) -> None:
    original = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen[name] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)


async def test_a_2025_secret_finds_its_scope_checks_its_words_and_reads_the_runtime_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: Counter[str] = Counter()
    counted(monkeypatch, seen, url_mode, "current_scope")
    counted(monkeypatch, seen, url_mode, "refuse_links_in_text")
    counted(monkeypatch, seen, runtime.Runtime, "services_for")
    counted(monkeypatch, seen, rounds.Round, "from_request")
    server, elicitation = counting_server()
    with anyio.fail_after(30):
        async with connect(
            server,
            protocol="2025-11-25",
            answers=[CONSENT],
            links=enter_secret("sk-counted"),
            elicitation=elicitation,
        ) as client:
            assert (await client.call("connect_service")).text == "connected"
    assert seen == {"current_scope": 1, "refuse_links_in_text": 1, "services_for": 1}


async def test_a_form_question_never_reads_the_runtimes_services(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The services are read for a link only: a question in a form needs none of them.
    seen: Counter[str] = Counter()
    counted(monkeypatch, seen, runtime.Runtime, "services_for")
    server, elicitation = counting_server()
    answers = [{"action": "accept", "content": {"n": "Ada"}}]
    for protocol in ("2025-11-25", "2026-07-28"):
        async with connect(
            server, protocol=protocol, answers=answers, elicitation=elicitation
        ) as c:
            assert (await c.call("name")).text == "named"
    assert seen == {}
