"""No path unassociated (SEP-2260; docs/tasks-design.md §2): every path that sends
``elicitation/create`` sends it on the response stream of the client request it belongs to,
never on the standalone GET stream, on each push revision.

The raw probe of ``mcp-elicit check`` (``mcp_elicit.check.streams.StreamProbe``: plain HTTP,
the GET stream open) calls each path's tools one at a time, declines every question (so that
no tool waits for a page) and keeps the stream each came on. The paths of the design's table:

1. ``ask``, ``confirm``, ``choose`` (``server/asking.py``);
2. ``ask_url``, ``secret`` (``server/url_mode.py``);
3. a question inside a 2025-11-25 task (``server/tasks.py``): on the stream of the client's
   ``tasks/result``, with the related-task ``_meta``;
4. ``mcp-elicit gateway`` pushing to a push-era host, from a push-era upstream
   (``push_to_push``) and from a 2026-07-28 one (``rounds_to_push``);
5. the scripted server of ``mcp-elicit check client`` (``check/client_checks.py:
   Scripted._ask``), check by check, on each push revision the check has;
6. ``examples/booking_server.py`` on the SDK alone (``ctx.elicit_url``; and its form, through
   the SDK's ``Resolve``).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_elicit.check.catalog import CHECKS, CLIENT_CHECKS
from mcp_elicit.check.client_checks import Scripted
from mcp_elicit.check.probe import ProbeReply
from mcp_elicit.check.streams import POST, PUSH_REVISIONS, Arrival, StreamProbe
from mcp_elicit.revisions import Revision
from tests.gateway.support import gateway, python_server
from tests.served import Served

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

PAY_URL = "https://pay.example/checkout"
WITH_URL_MODE = (Revision.URL_DRAFT, Revision.V2025_11_25)
"""The push revisions that have URL mode (2025-06-18 has none: the URL tools refuse there)."""

# Paths 1, 2 and 3 in one server of ours: tasks on (a call without `task` asks as before).
OURS = f"""
import sys
from dataclasses import dataclass
from mcp.server.mcpserver import Context, MCPServer
from mcp_elicit.server import Elicitation, ask, ask_url, choose, confirm, secret

server = MCPServer("associated")
elicitation = Elicitation(server, store="memory://", tasks=True, url_draft=True)

@dataclass
class Who:
    name: str

@server.tool()
async def asks(ctx: Context) -> str:
    return repr(await ask(ctx, Who, "Who travels?"))

@server.tool()
async def confirms(ctx: Context) -> str:
    return repr(await confirm(ctx, "Go ahead?"))

@server.tool()
async def chooses(ctx: Context) -> str:
    return repr(await choose(ctx, "Which seat?", ["aisle", "window"]))

@server.tool()
async def opens_link(ctx: Context) -> str:
    return repr(await ask_url(ctx, {PAY_URL!r}, "Pay on the bank's page."))

@server.tool()
async def takes_secret(ctx: Context) -> str:
    return repr(await secret(ctx, "SERVICE_API_KEY", "Your service key"))

elicitation.run("streamable-http", port=int(sys.argv[1]))
"""
FORM_TOOLS = ("asks", "confirms", "chooses")  # path 1
ARGUMENTS = {"test_elicitation": {"message": "Who travels?"}}
URL_TOOLS = ("opens_link", "takes_secret")  # path 2


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = Served(
        lambda port: [sys.executable, "-c", OURS, str(port)],
        log=tmp_path_factory.mktemp("ours") / "server.log",
        env={"MCP_ELICIT_KEY": secrets.token_urlsafe(32)},
    )
    yield served
    served.stop()


@pytest.fixture(scope="module")
def conformance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The gateway's upstream: our check server."""
    served = python_server(
        "examples/conformance_server.py", "--port", log=tmp_path_factory.mktemp("up") / "log"
    )
    yield served
    served.stop()


@pytest.fixture(scope="module")
def booking(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = python_server(
        "examples/booking_server.py", "--http", log=tmp_path_factory.mktemp("booking") / "log"
    )
    yield served
    served.stop()


async def arrivals_per_tool(
    url: str, revision: str, tools: Sequence[str], replies: dict[str, ProbeReply]
) -> dict[str, list[Arrival]]:
    """Each tool called in turn, on one session: the questions that came meanwhile (and in
    ``replies`` what each call answered)."""
    found: dict[str, list[Arrival]] = {}
    async with StreamProbe(url, revision, respond=decline) as probe:
        assert probe.get_refused is None, f"no GET stream: {probe.get_refused}"
        for tool in tools:
            before = len(probe.arrivals)
            replies[tool] = await probe.call(tool, ARGUMENTS.get(tool))
            found[tool] = [a for a in probe.arrivals[before:] if a.method == "elicitation/create"]
    return found


async def decline(message: dict[str, Any]) -> dict[str, Any]:
    """Every question declined: a link agreed to would keep its tool waiting for the page."""
    return {"action": "decline"}


def assert_each_on_its_call(
    found: dict[str, list[Arrival]], asking: Sequence[str], replies: dict[str, ProbeReply]
) -> None:
    """Every question came on the stream of the tool call that was running; each tool of
    ``asking`` asked at least one (else the path was not exercised)."""
    for tool, arrivals in found.items():
        for arrival in arrivals:
            where = f"{tool}: {arrival.describe()} came on {arrival.where()}"
            assert arrival.stream == POST, where
            assert arrival.post is not None
            assert arrival.post.get("method") == "tools/call", where
            assert arrival.post["params"]["name"] == tool, where
    silent = [tool for tool in asking if not found.get(tool)]
    assert not silent, {tool: replies[tool].describe() for tool in silent}


@pytest.mark.parametrize("revision", PUSH_REVISIONS)
async def test_ask_confirm_choose_ask_url_and_secret_push_on_their_calls_stream(
    ours: Served, revision: str
) -> None:
    """Paths 1 and 2."""
    asking = FORM_TOOLS + (URL_TOOLS if revision in WITH_URL_MODE else ())
    replies: dict[str, ProbeReply] = {}
    found = await arrivals_per_tool(ours.url(), revision, FORM_TOOLS + URL_TOOLS, replies)
    assert_each_on_its_call(found, asking, replies)


async def test_a_question_inside_a_task_goes_on_the_stream_of_tasks_result(ours: Served) -> None:
    """Path 3, 2025-11-25 only: the tool of a task-augmented call asks; the question is kept in
    the task and sent on the response stream of the client's ``tasks/result``, with the
    related-task ``_meta`` (before issue 29's step 2 it went out on the standalone stream)."""
    async with StreamProbe(ours.url(), Revision.V2025_11_25, respond=decline) as probe:
        created = await probe.request(
            "tools/call", {"name": "asks", "arguments": {}, "task": {"ttl": 60_000}}
        )
        assert created.result is not None, created.describe()
        task_id = created.result["task"]["taskId"]
        with anyio.fail_after(30):
            result = await probe.request("tasks/result", {"taskId": task_id})
        assert result.error is None, result.describe()
        [arrival] = probe.associated()
    assert arrival.params["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    assert arrival.stream == POST, arrival.where()
    assert arrival.post is not None and arrival.post["method"] == "tasks/result"


@pytest.mark.parametrize("upstream_era", [Revision.V2025_11_25, Revision.V2026_07_28])
@pytest.mark.parametrize("revision", PUSH_REVISIONS)
async def test_the_gateway_pushes_to_a_push_era_host_on_its_calls_stream(
    conformance: Served, upstream_era: str, revision: str, tmp_path: Path
) -> None:
    """Path 4: ``PushedQuestions.ask``, from a push-era upstream (push_to_push) and from a
    2026-07-28 one (rounds_to_push)."""
    through = gateway(
        lambda: [conformance.url()], upstream_era, "--url-draft", log=tmp_path / "gateway.log"
    )
    tools = ("test_elicitation", "test_url_elicitation")
    asking = tools if revision in WITH_URL_MODE else tools[:1]
    replies: dict[str, ProbeReply] = {}
    try:
        found = await arrivals_per_tool(through.url(), revision, tools, replies)
    finally:
        through.stop()
    assert_each_on_its_call(found, asking, replies)


@pytest.mark.parametrize("revision", PUSH_REVISIONS)
async def test_the_booking_example_asks_on_its_calls_stream(booking: Served, revision: str) -> None:
    """Path 6: the SDK's ``ctx.elicit_url`` (URL mode from 2025-11-25 on, as the example
    says), and the form of its ``Resolve``."""
    tools = ("book_table", "link_account")
    asking = tools if revision == Revision.V2025_11_25 else tools[:1]
    replies: dict[str, ProbeReply] = {}
    found = await arrivals_per_tool(booking.url(), revision, asking, replies)
    assert_each_on_its_call(found, asking, replies)


SCRIPTED_RUNS = [
    (check.id, revision)
    for check in CLIENT_CHECKS
    for revision in PUSH_REVISIONS
    if revision in check.revisions
]
"""Each client check on each push revision it has: the scripted server asks there."""
QUIET = {"client-retry-after-completion"}
"""Checks whose scripted tool asks nothing on the wire (-32042 and a notice instead)."""


@pytest.mark.parametrize(("check", "revision"), SCRIPTED_RUNS)
async def test_the_check_s_scripted_server_asks_on_its_calls_stream(
    check: str, revision: str
) -> None:
    """Path 5: ``Scripted._ask`` sends ``elicitation/create`` with ``send_raw_request`` on the
    session of the tool call being served; each question must come on that call's stream. The
    probe declares form only for the undeclared-mode check (so that it asks a link), both modes
    otherwise."""
    scripted = Scripted(check)
    modes = frozenset({"form"} if check == "client-refuses-undeclared-mode" else {"form", "url"})
    [tool] = CHECKS[check].tools_on(revision)
    async with anyio.create_task_group() as serving:
        await serving.start(scripted.serve)
        async with StreamProbe(scripted.url, revision, modes=modes, respond=decline) as probe:
            assert probe.get_refused is None, f"no GET stream: {probe.get_refused}"
            reply = await probe.call(tool)
        serving.cancel_scope.cancel()
    found = {tool: [a for a in probe.arrivals if a.method == "elicitation/create"]}
    asking = () if check in QUIET else (tool,)
    assert_each_on_its_call(found, asking, {tool: reply})
    assert len(found[tool]) == len(scripted.record.exchanges), scripted.record.exchanges
