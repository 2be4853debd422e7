"""Real peers on both sides of ``mcp-elicit gateway`` (each a process of its own):

- 2025-era servers behind it, 2026-07-28 clients in front: the official Python SDK's server
  (``tests/peer_servers/sdk_check_server.py``, ``ctx.elicit`` / ``ctx.elicit_url`` /
  ``UrlElicitationRequiredError``) and ``@modelcontextprotocol/server-everything`` (over
  stdio), used by our client and the TypeScript SDK v2's;
- 2026-07-28 servers behind it, 2025-era clients in front: the Python SDK's server
  (``Resolve(Elicit)``) and ours (``examples/conformance_server.py``), used by the Python
  SDK's ``mode="legacy"`` client, fastmcp's client and the TypeScript SDK's.

Form, URL mode, -32042 and completion, wherever the server has them. The check servers'
links lead nowhere (``.invalid``), so the gateway runs with ``--allow-blocked-links``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from mcp_elicit.client import ElicitingClient
from mcp_elicit.protocol import FORM_AND_URL
from tests.gateway.support import gateway, python_server
from tests.peers import server_everything_command
from tests.served import Served
from tests.server_support import Person, _ScriptedHandler
from tests.typescript_support import ts_client

pytestmark = [pytest.mark.slow, pytest.mark.node]

EMAIL = {"username": "ada", "email": "ada@example.com"}
ACCEPT = {"action": "accept"}


@pytest.fixture(scope="module")
def sdk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = python_server(
        "tests/peer_servers/sdk_check_server.py",
        "--http",
        log=tmp_path_factory.mktemp("sdk") / "log",
    )
    yield served
    served.stop()


@pytest.fixture(scope="module")
def our_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = python_server(
        "examples/conformance_server.py", "--port", log=tmp_path_factory.mktemp("ours") / "log"
    )
    yield served
    served.stop()


@pytest.fixture(scope="module")
def gateways(
    tmp_path_factory: pytest.TempPathFactory, sdk_server: Served, our_server: Served
) -> Iterator[dict[str, Served]]:
    tmp = tmp_path_factory.mktemp("gateways")
    made = {
        name: gateway(upstream, era, "--link-wait", "3", log=tmp / f"{name}.log")
        for name, upstream, era in (
            ("sdk-2025", lambda: [sdk_server.url()], "2025-11-25"),
            ("everything-2025", lambda: ["--", *server_everything_command()], "2025-11-25"),
            ("sdk-2026", lambda: [sdk_server.url()], "2026-07-28"),
            ("ours-2026", lambda: [our_server.url()], "2026-07-28"),
        )
    }
    yield made
    for served in made.values():
        served.stop()


# -- the clients -----------------------------------------------------------------------------


def ours(url: str, tool: str, args: dict[str, Any], answers: list[dict[str, Any]]) -> Any:
    """Our client on 2026-07-28, answering from ``answers``."""
    person = Person(list(answers))

    async def run() -> Any:
        handler = _ScriptedHandler(person, FORM_AND_URL)
        async with ElicitingClient(url, handler, protocol="2026-07-28") as client:
            return await client.call_tool(tool, args)

    result = anyio.run(run)
    return _text(result), person.seen


def sdk_legacy(url: str, tool: str, args: dict[str, Any], answers: list[dict[str, Any]]) -> Any:
    """The Python SDK's client on 2025-11-25 (``mode="legacy"``), with the completion
    notices it received."""
    person = Person(list(answers))
    completions: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            completions.append(message.params.elicitation_id)

    async def run() -> Any:
        async with Client(
            url, mode="legacy", elicitation_callback=person.sdk_callback, message_handler=on_message
        ) as client:
            assert client.protocol_version == "2025-11-25"
            result = await client.call_tool(tool, args)
            await anyio.sleep(0.2)  # a notice sent as the call ends
            return result

    result = anyio.run(run)
    return _text(result), person.seen, completions


def fastmcp_client(url: str, tool: str, args: dict[str, Any], answers: list[dict[str, Any]]) -> Any:
    """fastmcp's client on 2025-11-25 (``mode="legacy"``), its ``elicitation_handler``
    answering; what it was asked (message, and the URL of a URL-mode request)."""
    from fastmcp import Client as FastMCPClient
    from fastmcp.client.elicitation import ElicitResult

    queue = list(answers)
    seen: list[tuple[str, str | None]] = []

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        seen.append((message, getattr(params, "url", None)))
        answer = queue.pop(0)
        return ElicitResult(action=answer["action"], content=answer.get("content"))

    async def run() -> Any:
        async with FastMCPClient(url, elicitation_handler=handler, mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            return await client.call_tool(tool, args, raise_on_error=False)

    result = anyio.run(run)
    return "".join(c.text for c in result.content if hasattr(c, "text")), seen


def ts(
    url: str, tool: str, args: dict[str, Any], answers: list[dict[str, Any]], protocol: str
) -> Any:
    report = ts_client(
        tool,
        url,
        "--protocol",
        protocol,
        "--args",
        json.dumps(args),
        "--answers",
        json.dumps(answers),
        env={},
    )
    assert report.returncode == 0, (report.data, report.stderr[-2000:])
    return report


def _text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


# -- 2025-era servers, 2026-07-28 clients ----------------------------------------------------


def test_sdk_2025_server_form_url_and_32042_to_our_2026_client(
    gateways: dict[str, Served],
) -> None:
    url = gateways["sdk-2025"].url()
    text, seen = ours(
        url, "test_elicitation", {"message": "Who?"}, [{"action": "accept", "content": EMAIL}]
    )
    assert "ada@example.com" in text and seen[0]["message"] == "Who?"
    text, seen = ours(url, "test_url_elicitation", {}, [ACCEPT])
    assert text == "URL elicitation: accept"
    assert seen[0]["mode"] == "url" and seen[0]["url"] == "https://check.invalid/done"
    # -32042 becomes a URL input request; the retry waits for the notice, then calls again.
    text, seen = ours(url, "test_url_elicitation_required", {"key": "k1"}, [ACCEPT])
    assert text == "The link was opened: done."
    assert seen[0]["url"] == "https://check.invalid/done"


def test_sdk_2025_server_to_the_typescript_2026_client(gateways: dict[str, Served]) -> None:
    url = gateways["sdk-2025"].url()
    report = ts(
        url,
        "test_elicitation",
        {"message": "Who?"},
        [{"action": "accept", "content": EMAIL}],
        "2026-07-28",
    )
    assert report.data["protocolVersion"] == "2026-07-28"
    assert "ada@example.com" in report.text
    report = ts(url, "test_url_elicitation", {}, [ACCEPT], "2026-07-28")
    assert report.text == "URL elicitation: accept"
    assert report.data["elicitations"][0]["url"] == "https://check.invalid/done"
    report = ts(url, "test_url_elicitation_required", {"key": "k2"}, [ACCEPT], "2026-07-28")
    assert report.text == "The link was opened: done."


def test_server_everything_to_2026_clients(gateways: dict[str, Served]) -> None:
    url = gateways["everything-2025"].url()
    text, seen = ours(
        url, "trigger-elicitation-request", {}, [{"action": "accept", "content": {"name": "Ada"}}]
    )
    assert "Ada" in text and seen[0]["requestedSchema"]["required"] == ["name"]
    link = "https://example.com/finish"
    report = ts(url, "trigger-url-elicitation", {"url": link}, [ACCEPT], "2026-07-28")
    assert report.data["elicitations"][0]["url"] == link
    # -32042 with its prerequisite link (it sends no completion notice: the retry goes
    # upstream when the person says they are done, which a scripted accept says at once,
    # else after --link-wait), then the retry goes the request path with the link asked.
    text, seen = ours(
        url, "trigger-url-elicitation", {"url": link, "errorPath": True}, [ACCEPT, ACCEPT]
    )
    assert [s["url"] for s in seen] == ["https://modelcontextprotocol.io", link]
    assert "Open this link to satisfy the prerequisite" in seen[0]["message"]


# -- 2026-07-28 servers, 2025-era clients ----------------------------------------------------


@pytest.mark.parametrize("upstream", ["sdk-2026", "ours-2026"])
def test_2026_server_form_to_2025_clients(gateways: dict[str, Served], upstream: str) -> None:
    url = gateways[upstream].url()
    name = {"action": "accept", "content": {"name": "Ada"}}
    text, seen, _ = sdk_legacy(url, "test_input_required_result_elicitation", {}, [name])
    assert "Ada" in text and seen[0]["mode"] == "form"
    text, asked = fastmcp_client(url, "test_input_required_result_elicitation", {}, [name])
    assert "Ada" in text and asked == [("What is your name?", None)]
    report = ts(url, "test_input_required_result_elicitation", {}, [name], "legacy")
    assert report.data["protocolVersion"] == "2025-11-25" and "Ada" in report.text


def test_our_2026_server_links_reach_2025_clients_with_completion(
    gateways: dict[str, Served],
) -> None:
    url = gateways["ours-2026"].url()
    text, seen, completions = sdk_legacy(url, "test_url_elicitation", {}, [ACCEPT])
    assert text == "URL elicitation: Accepted"
    assert seen[0]["mode"] == "url" and seen[0]["url"] == "https://check.invalid/done"
    # 2026-07-28 has no elicitationId: the gateway names the link, and says when it is done.
    assert completions == [seen[0]["elicitationId"]]
    text, asked = fastmcp_client(url, "test_url_elicitation", {}, [ACCEPT])
    assert text == "URL elicitation: Accepted"
    assert asked == [("Open the check page.", "https://check.invalid/done")]
    report = ts(url, "test_url_elicitation_required", {"key": "k3"}, [ACCEPT], "legacy")
    assert report.text == "The link was opened: done."
    assert report.data["completions"] == [report.data["elicitations"][0]["elicitationId"]]
