"""What ``mcp-elicit gateway`` does with tasks today (issue 29; mcp_elicit.gateway.no_tasks):
it carries none, in either direction, and says so. The relays and bridges are planned
(docs/tasks-design.md §6); these are the cells of that table as they are now, the gateway in
front of our conformance server, whose task tools (its ``TaskSettings``) run as tasks upstream.

- A 2025-11-25 host is declared no ``capabilities.tasks``; its ``task`` is ignored, and the
  call runs plainly upstream, whatever the upstream's era.
- A 2026-07-28 host that declares the extension is declared none back, and gets a plain
  result: the gateway does not declare the extension upstream.
- A tool the upstream runs only as a task is refused with the gateway's sentence: -32601 from
  a 2025-11-25 upstream (T25), -32021 with its data from a 2026-07-28 one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from mcp_elicit import _sdk
from mcp_elicit.client import ElicitationHandler, ElicitingClient, ScriptedRenderer
from mcp_elicit.gateway.no_tasks import refusal_of, task_only_message, without_tasks_extension
from mcp_elicit.protocol.codes import MISSING_REQUIRED_CLIENT_CAPABILITY, TASKS_EXTENSION
from tests.gateway.support import ROOT, gateway, python_server
from tests.peer_servers.secret_server import Wire, mcp_http
from tests.served import Served

ERAS = ["2025-11-25", "2026-07-28"]
SLOW = "test_task_slow"  # optional: a task when asked for one, plain otherwise
REQUIRED = "test_task_required"  # required: only ever a task
METHOD_NOT_FOUND = -32601
REFUSAL_CODE = {"2025-11-25": METHOD_NOT_FOUND, "2026-07-28": MISSING_REQUIRED_CLIENT_CAPABILITY}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = python_server(
        "examples/conformance_server.py", "--port", log=tmp_path_factory.mktemp("upstream") / "log"
    )
    yield served
    served.stop()


@pytest.fixture(scope="module", params=ERAS)
def through(
    request: pytest.FixtureRequest, upstream: Served, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Served]]:
    """The gateway over HTTP speaking ``era`` to the upstream: (era, the gateway)."""
    era: str = request.param
    served = gateway(lambda: [upstream.url()], era, log=tmp_path_factory.mktemp("gateway") / "log")
    yield era, served
    served.stop()


def assert_refused(error: MCPError, era: str) -> None:
    assert error.code == REFUSAL_CODE[era], error.error
    assert error.message == task_only_message(REQUIRED)
    assert error.message == (
        f"upstream runs {REQUIRED} only as a task, and mcp-elicit gateway does not carry tasks yet"
    )
    if era == "2026-07-28":  # the upstream's data passes on: what it would need
        assert TASKS_EXTENSION in error.data["requiredCapabilities"]["extensions"]


def text_of(result: Any) -> str:
    return str(result["content"][0]["text"])


# -- a 2025-11-25 host ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_2025_11_25_hosts_task_is_ignored_and_the_call_runs_plainly(
    through: tuple[str, Served],
) -> None:
    _, served = through

    async def run() -> None:
        async with Client(served.url(), mode="legacy") as host:
            assert host.protocol_version == "2025-11-25"
            assert host.server_capabilities is not None
            assert host.server_capabilities.tasks is None  # no tasks declared to the host
            params = {"name": SLOW, "arguments": {"seconds": 0}, "task": {"ttl": 60_000}}
            with anyio.fail_after(30):
                result = await _sdk.send_stamped_request(host.session, "tools/call", params)
            assert "task" not in result  # a CallToolResult, not a CreateTaskResult
            assert text_of(result) == "Worked for 0 s."

    anyio.run(run)


@pytest.mark.slow
@pytest.mark.parametrize("with_task", [True, False])
def test_a_tool_upstream_runs_only_as_a_task_is_refused_to_a_2025_11_25_host(
    through: tuple[str, Served], with_task: bool
) -> None:
    era, served = through

    async def run() -> None:
        async with Client(served.url(), mode="legacy") as host:
            params: dict[str, Any] = {"name": REQUIRED, "arguments": {}}
            if with_task:
                params["task"] = {"ttl": 60_000}
            with anyio.fail_after(30), pytest.raises(MCPError) as refused:
                await _sdk.send_stamped_request(host.session, "tools/call", params)
        assert_refused(refused.value, era)

    anyio.run(run)


# -- a 2026-07-28 host that declares the extension -----------------------------------------------


@pytest.mark.slow
def test_a_2026_07_28_host_declaring_the_extension_gets_a_plain_result(
    through: tuple[str, Served],
) -> None:
    era, served = through
    wire = Wire()

    async def run() -> None:
        handler = ElicitationHandler(ScriptedRenderer([]))
        async with (
            mcp_http("ada", wire) as http,
            ElicitingClient(
                served.url(), handler, protocol="2026-07-28", tasks=True, http_client=http
            ) as host,
        ):
            capabilities = host.sdk.server_capabilities
            assert capabilities is not None
            assert capabilities.tasks is None
            assert TASKS_EXTENSION not in (capabilities.extensions or {})
            with anyio.fail_after(30):
                result = await host.call_tool(SLOW, {"seconds": 0})
            assert result.content[0].text == "Worked for 0 s."  # type: ignore[union-attr]

            with anyio.fail_after(30), pytest.raises(MCPError) as refused:
                await host.call_tool(REQUIRED, {})
            assert_refused(refused.value, era)

    anyio.run(run)
    sent = wire.data()
    assert TASKS_EXTENSION.encode() in sent  # the host did declare it...
    compact = sent.replace(b" ", b"")
    assert b'"resultType":"task"' not in compact  # ...and got no task
    assert b"tasks/get" not in sent  # so it polled none


# -- over stdio: the gateway as a host's command -------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("era", ERAS)
def test_over_stdio_the_refusal_and_the_plain_run_are_the_same(era: str, tmp_path: Path) -> None:
    command = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_elicit",
            "gateway",
            "--upstream-protocol",
            era,
            "--",
            sys.executable,
            str(ROOT / "examples/conformance_server.py"),
            "--stdio",
        ],
        env=dict(os.environ),
        cwd=str(ROOT),
    )

    async def run() -> None:
        async with Client(command, mode="legacy") as host:
            assert host.server_capabilities is not None
            assert host.server_capabilities.tasks is None
            params = {"name": SLOW, "arguments": {"seconds": 0}, "task": {"ttl": 60_000}}
            with anyio.fail_after(30):
                result = await _sdk.send_stamped_request(host.session, "tools/call", params)
            assert text_of(result) == "Worked for 0 s."
            with anyio.fail_after(30), pytest.raises(MCPError) as refused:
                await _sdk.send_stamped_request(
                    host.session, "tools/call", {"name": REQUIRED, "arguments": {}}
                )
        assert_refused(refused.value, era)

    anyio.run(run)


# -- the rules, without processes --------------------------------------------------------------


def test_the_extension_is_taken_out_of_what_goes_upstream_and_nothing_else() -> None:
    declared = {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}, "x/other": {"a": 1}}}
    assert without_tasks_extension(declared) == {
        "elicitation": {},
        "extensions": {"x/other": {"a": 1}},
    }
    assert without_tasks_extension({"extensions": {TASKS_EXTENSION: {}}}) == {}
    assert declared["extensions"] == {TASKS_EXTENSION: {}, "x/other": {"a": 1}}  # not changed


async def nothing_listed(params: dict[str, Any]) -> dict[str, Any]:
    return {"tools": [{"name": REQUIRED, "inputSchema": {"type": "object"}}]}


@pytest.mark.anyio
async def test_other_refusals_pass_on_unchanged() -> None:
    # -32021 for a missing mode is the upstream's to word.
    mode = MCPError(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        "declare elicitation.url",
        {"requiredCapabilities": {"elicitation": {"url": {}}}},
    )
    assert await refusal_of(mode, REQUIRED, rounds=True, list_tools=nothing_listed) is mode
    # -32601 for a tool that is not task-only (or that upstream does not list as such).
    unknown = MCPError(METHOD_NOT_FOUND, "no such tool")
    assert await refusal_of(unknown, REQUIRED, rounds=False, list_tools=nothing_listed) is unknown


@pytest.mark.anyio
async def test_a_task_only_tool_is_found_on_a_later_page() -> None:
    pages = {
        None: {"tools": [{"name": "a", "inputSchema": {}}], "nextCursor": "2"},
        "2": {"tools": [{"name": REQUIRED, "execution": {"taskSupport": "required"}}]},
    }

    async def listed(params: dict[str, Any]) -> dict[str, Any]:
        return pages[params.get("cursor")]

    refused = MCPError(METHOD_NOT_FOUND, "call it with params.task", {"why": "required"})
    said = await refusal_of(refused, REQUIRED, rounds=False, list_tools=listed)
    assert said.code == METHOD_NOT_FOUND
    assert said.message == task_only_message(REQUIRED)
    assert said.data == {"why": "required"}
