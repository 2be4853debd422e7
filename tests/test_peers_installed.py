"""The real Node peers that `make peers` installs are there and work (see tests/peers.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.client.stdio import StdioServerParameters

from tests.peers import (
    NODE_MODULES,
    PEERS,
    TS_SDK_PACKAGES,
    TS_SDK_V1,
    conformance_command,
    node22,
    server_everything_command,
    typescript_peer,
    typescript_v1_peer,
)

pytestmark = pytest.mark.node


def test_node22_is_node_22() -> None:
    done = subprocess.run(
        [str(node22()), "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.startswith("v22."), done.stdout


def everything_server() -> StdioServerParameters:
    command, *args = server_everything_command()
    return StdioServerParameters(command=command, args=args)


async def decline(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_server_everything_lists_the_elicitation_tools(mode: str) -> None:
    server = everything_server()

    async def main() -> tuple[str, list[str]]:
        with anyio.fail_after(60):
            async with Client(server, mode=mode, elicitation_callback=decline) as client:
                tools = await client.list_tools()
                return client.protocol_version, [tool.name for tool in tools.tools]

    version, names = anyio.run(main)
    assert "trigger-elicitation-request" in names
    assert "trigger-url-elicitation" in names
    # server-everything speaks the 2025 handshake only: "auto" falls back to it.
    assert version == "2025-11-25"


def test_server_everything_hides_them_from_a_client_without_elicitation() -> None:
    server = everything_server()

    async def main() -> list[str]:
        with anyio.fail_after(60):
            async with Client(server, mode="legacy") as client:
                return [tool.name for tool in (await client.list_tools()).tools]

    names = anyio.run(main)
    assert "echo" in names
    assert not [name for name in names if "elicitation" in name]


def test_server_everything_sends_the_recorded_form(data_dir: Path) -> None:
    server = everything_server()
    seen: list[dict[str, Any]] = []

    async def record(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        seen.append(params.model_dump(by_alias=True, exclude_unset=True, mode="json"))
        return types.ElicitResult(action="cancel")

    async def main() -> list[str]:
        with anyio.fail_after(60):
            async with Client(server, mode="legacy", elicitation_callback=record) as client:
                result = await client.call_tool("trigger-elicitation-request", {})
                return [block.text for block in result.content if block.type == "text"]

    texts = anyio.run(main)
    recorded = json.loads((data_dir / "peers" / "server_everything_form_params.json").read_text())
    assert seen == [recorded]
    assert texts[0] == "⚠️ User cancelled the elicitation dialog."


def test_conformance_lists_the_client_scenarios() -> None:
    done = subprocess.run(
        [*conformance_command(), "list", "--client"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    scenarios = {line.strip().split()[1] for line in done.stdout.splitlines() if "  - " in line}
    assert "elicitation-sep1034-client-defaults" in scenarios
    assert "sep-2322-client-request-state" in scenarios


def test_the_typescript_sdk_is_the_pinned_one() -> None:
    typescript_peer("elicit_client.ts")  # skips (fails in CI) when it is not installed
    pinned = json.loads((PEERS / "package.json").read_text(encoding="utf-8"))["dependencies"]
    for package in TS_SDK_PACKAGES:
        manifest = NODE_MODULES / "@modelcontextprotocol" / package / "package.json"
        installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
        assert installed == pinned[f"@modelcontextprotocol/{package}"], package


def test_the_typescript_sdk_v1_is_the_pinned_one() -> None:
    # The released 2025-11-25 task client (tests/server/test_tasks_ts_v1.py), pinned directly
    # beside v2: the one node_modules holds both, and neither moves the other.
    typescript_v1_peer("task_client_v1.ts")  # skips (fails in CI) when it is not installed
    pinned = json.loads((PEERS / "package.json").read_text(encoding="utf-8"))["dependencies"]
    installed = json.loads(TS_SDK_V1.read_text(encoding="utf-8"))["version"]
    assert installed == pinned["@modelcontextprotocol/sdk"] == "1.32.2"
