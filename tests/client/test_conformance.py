"""The official conformance suite's client scenarios, against examples/conformance_client.py."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.peers import conformance_command

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "examples" / "conformance_client.py"

pytestmark = [pytest.mark.node, pytest.mark.slow]

# A bare SDK 2.3 client, the control: it cannot take a result without `resultType`.
BARE_SDK_CLIENT = """
import sys, anyio, mcp_types
from mcp import Client

async def accept(context, params):
    return mcp_types.ElicitResult(action="accept", content={})

async def main(url):
    async with Client(url, elicitation_callback=accept) as client:
        for tool in (await client.list_tools()).tools:
            await client.call_tool(tool.name, {})

anyio.run(main, sys.argv[1])
"""


def run_scenario(client_command: str, scenario: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *conformance_command(),
            "client",
            "--command",
            client_command,
            "--scenario",
            scenario,
            "--timeout",
            "60000",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.parametrize(
    "scenario", ["elicitation-sep1034-client-defaults", "sep-2322-client-request-state"]
)
def test_our_client_passes_the_scenario(scenario: str) -> None:
    done = run_scenario(f"exec {shlex.join([sys.executable, str(CLIENT)])}", scenario)
    report = done.stderr
    assert done.returncode == 0, report
    assert "OVERALL: PASSED" in report
    assert ", 0 failed, 0 warnings" in report
    assert "SKIPPED" not in report


def test_the_request_state_scenario_fails_the_bare_sdk_client(tmp_path: Path) -> None:
    script = tmp_path / "bare_client.py"
    script.write_text(BARE_SDK_CLIENT, encoding="utf-8")
    done = run_scenario(
        f"exec {shlex.join([sys.executable, str(script)])}", "sep-2322-client-request-state"
    )
    assert done.returncode == 1
    assert "OVERALL: FAILED" in done.stderr
