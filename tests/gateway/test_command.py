"""``mcp-elicit gateway`` on stdio at both ends, as a host runs it: the host starts the
gateway as its server's command, and the gateway starts the server (our conformance server,
over stdio, its stderr to a log). Both bridges, with the official SDK's client as the host."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.gateway.support import CLI, ROOT, Ended, stdio_process
from tests.server_support import Person

pytestmark = pytest.mark.slow

USER = {"username": "ada", "email": "ada@example.com"}


@pytest.mark.parametrize(
    ("upstream_era", "sdk_mode", "client_era"),
    [("2025-11-25", "auto", "2026-07-28"), ("2026-07-28", "legacy", "2025-11-25")],
)
def test_a_host_runs_the_gateway_as_its_servers_command(
    upstream_era: str, sdk_mode: str, client_era: str
) -> None:
    gateway = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_elicit",
            "gateway",
            "--upstream-protocol",
            upstream_era,
            "--",
            sys.executable,
            str(ROOT / "examples/conformance_server.py"),
            "--stdio",
        ],
        env=dict(os.environ),
        cwd=str(ROOT),
    )
    person = Person([{"action": "accept", "content": USER}])

    async def run() -> types.CallToolResult:
        async with Client(gateway, mode=sdk_mode, elicitation_callback=person.sdk_callback) as c:
            assert c.protocol_version == client_era
            assert c.server_info is not None and "via mcp-elicit gateway" in c.server_info.name
            return await c.call_tool("test_elicitation", {"message": "Who are you?"})

    result = anyio.run(run)
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert "ada@example.com" in block.text
    assert [seen["message"] for seen in person.seen] == ["Who are you?"]


EXIT_WAIT = 10.0
"""How long a gateway may take to end once its client has gone: it closes its upstream's stdin
and waits for it (the SDK's shutdown gives a server 2 s, then a signal, 2 s more)."""
ASKED_AT_ONCE = 3


@pytest.mark.parametrize(
    ("upstream_era", "sdk_mode", "client_era"),
    [
        ("2025-11-25", "legacy", "2025-11-25"),
        ("2025-11-25", "auto", "2026-07-28"),
        ("2026-07-28", "legacy", "2025-11-25"),
        ("2026-07-28", "auto", "2026-07-28"),
    ],
)
def test_a_client_closing_stdin_ends_the_gateway_quietly(
    upstream_era: str, sdk_mode: str, client_era: str, tmp_path: Path
) -> None:
    """A host's session: the tools listed, a plain call, three calls asked at once (on a
    push-era upstream each runs on an upstream session leased for it, so the gateway has four
    open), another plain call; all finished, the host closes the gateway's stdin, as one that
    quits does. The gateway ends at once with 0 and says nothing more. Each upstream session
    ends in the task that opened it: each used to close the server opened last, whoever's it
    was, and as often as not the gateway ended with 1 and an ExceptionGroup ("Attempted to
    exit cancel scope in a different task than it was entered in")."""
    argv = [
        *CLI,
        "gateway",
        "--no-url-verdicts",  # its warning aside, the gateway says one line as it starts
        "--upstream-protocol",
        upstream_era,
        "--",
        sys.executable,
        str(ROOT / "examples/conformance_server.py"),
        "--stdio",
    ]
    ended = Ended()
    asked: list[str] = []
    all_asked = anyio.Event()

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if len(asked) == ASKED_AT_ONCE:
            all_asked.set()
        await all_asked.wait()  # every call asked before any is answered: all at once
        return types.ElicitResult(action="accept", content=USER)

    async def run() -> list[str]:
        transport = stdio_process(argv, ended, stderr=tmp_path / "stderr", wait=EXIT_WAIT)
        said: list[str] = []

        async def call(tool: str, arguments: dict[str, Any]) -> None:
            result = await client.call_tool(tool, arguments)
            said.append(getattr(result.content[0], "text", ""))

        with anyio.fail_after(60):
            async with Client(transport, mode=sdk_mode, elicitation_callback=answer) as client:
                assert client.protocol_version == client_era
                await client.list_tools()
                await call("greet", {"name": "Ada"})
                async with anyio.create_task_group() as calls:
                    for n in range(ASKED_AT_ONCE):
                        calls.start_soon(call, "test_elicitation", {"message": f"Who? {n}"})
                await call("greet", {"name": "Bo"})
        return said

    said = anyio.run(run)
    assert said[0] == "Hello, Ada!" and said[-1] == "Hello, Bo!"
    assert ["ada@example.com" in text for text in said[1:-1]] == [True] * ASKED_AT_ONCE
    assert ended.code == 0, ended.stderr
    assert ended.seconds < EXIT_WAIT
    for noise in ("Traceback", "ExceptionGroup", "cancel scope"):
        assert noise not in ended.stderr
    kind = "multi round-trip" if upstream_era == "2026-07-28" else "push"
    assert ended.stderr.splitlines() == [f"mcp-elicit gateway: upstream {upstream_era} ({kind})"]
