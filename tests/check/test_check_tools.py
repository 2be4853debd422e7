"""The check tools on your own server (mcp_elicit.check.tools, examples/checked_server.py):
with them every check runs and passes; without them nothing is checked, and the exit status
says so."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer

from mcp_elicit.check import CHECKS, Status, check_server, select
from mcp_elicit.check.tools import CHECK_TASK_SUPPORT, CHECK_TOOLS, add_check_tools
from mcp_elicit.server import Elicitation
from tests.check.conftest import ROOT, serving
from tests.peer_servers.secret_server import free_port

pytestmark = pytest.mark.anyio

CHECKED = ROOT / "examples" / "checked_server.py"
# Checks that would like a second user: this example has one user.
TWO_USERS = {"server-track-foreign-id", "server-request-state-foreign", "server-task-unknown-id"}


@pytest.fixture(scope="module")
def checked_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    os.environ["HOTEL_CHECK_TOOLS"] = "1"  # server_env copies the environment
    try:
        command = [sys.executable, str(CHECKED), "--port", str(port)]
        with serving(command, port, tmp_path_factory.mktemp("checked")) as url:
            yield url
    finally:
        del os.environ["HOTEL_CHECK_TOOLS"]


async def test_add_check_tools_adds_every_tool_the_checks_call(tmp_path: Path) -> None:
    elicitation = Elicitation(store=f"sqlite:///{tmp_path / 'f.db'}")
    server = MCPServer("mine", **elicitation.server_options())
    assert add_check_tools(server, elicitation) == CHECK_TOOLS
    listed = {tool.name for tool in await server.list_tools()}
    assert listed == set(CHECK_TOOLS)
    needed = {
        tool
        for check in CHECKS.values()
        if check.side == "server"
        for tools in check.tools.values()
        for tool in tools
    }
    assert needed - listed == set(), "a check calls a tool add_check_tools does not add"
    assert set(CHECK_TASK_SUPPORT) <= listed


@pytest.mark.slow
async def test_with_the_check_tools_every_check_runs_on_your_server(checked_server: str) -> None:
    report = await check_server(checked_server)
    found = {(o.check, o.revision): o for o in report.outcomes}
    assert set(found) == set(select())
    for (check, revision), outcome in found.items():
        allowed = {Status.PASSED, Status.NOT_APPLICABLE}
        if check in TWO_USERS:  # skipped when the server does not say how to be another user
            allowed.add(Status.SKIPPED)
        assert outcome.status in allowed, f"{check} [{revision}]\n{report.text()}"
    passed = sum(o.status is Status.PASSED for o in report.outcomes)
    assert passed >= len(found) // 2, report.text()
    assert report.exit_status == 0
