"""The released 2025-11-25 task client, the TypeScript SDK v1 (``@modelcontextprotocol/sdk``
1.32.2, ``tests/peers_ts/task_client_v1.ts``), against our server with
``Elicitation(tasks=True)`` over Streamable HTTP (issue 29).

The client runs the task with the SDK's own runtime, ``client.experimental.tasks.callToolStream``
with ``task: {ttl}``: the SDK sends the task-augmented ``tools/call``, polls ``tasks/get``, and
on ``input_required`` calls ``tasks/result`` itself, which waits for the end. A form question
is answered from the test's script; for a URL-mode secret the client consents and reports the
link on stderr, and the test acts as the person's browser, entering the value on our page
while the task waits (as tests/server/test_typescript_client.py does without a task).

Which stream the questions arrive on: the response stream of the ``tasks/result`` the v1 SDK
calls itself (SEP-2260; mcp_elicit/server/tasks.py keeps the question in the task until one is
open), which is where v1 expects queued task messages (its ``shared/protocol.js`` delivers them
"via tasks/result only"). Before issue 29's step 2 they went out on the session's standalone
GET stream, and v1 answered them there too.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_elicit.protocol.codes import META_RELATED_TASK as RELATED_TASK
from tests.peers import typescript_v1_peer
from tests.served import Served
from tests.typescript_support import Report, enter_on_page, ts_client

pytestmark = [pytest.mark.node, pytest.mark.slow]

WHO = "Who travels?"
KEY_MESSAGE = "Your weather service key"
TERMINAL = {"completed", "failed", "cancelled"}
SERVER = f"""
import hashlib
import sys
from dataclasses import dataclass
from mcp.server.mcpserver import Context, MCPServer
from mcp_elicit.server import Accepted, Elicitation, ask, secret

server = MCPServer("tasks-ts-v1")
elicitation = Elicitation(server, store="memory://", tasks=True)

@dataclass
class Who:
    name: str

@server.tool()
async def book(ctx: Context) -> str:
    answer = await ask(ctx, Who, {WHO!r})
    return f"booked {{answer.value.name}}" if isinstance(answer, Accepted) else f"not ({{answer}})"

@server.tool()
async def connect_weather(ctx: Context) -> str:
    # What the tool got, shown only as its digest: the value itself never leaves the server.
    match await secret(ctx, "WEATHER_API_KEY", {KEY_MESSAGE!r}, reuse=False):
        case Accepted(key):
            return "got " + hashlib.sha256(key.get_secret_value().encode()).hexdigest()
        case other:
            return f"not ({{other}})"

elicitation.run("streamable-http", port=int(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = Served(
        lambda port: [sys.executable, "-c", SERVER, str(port)],
        log=tmp_path_factory.mktemp("tasks-ts-v1") / "server.log",
        env={"MCP_ELICIT_KEY": secrets.token_urlsafe(32)},
    )
    yield served
    served.stop()


def v1_client(tool: str, url: str, answers: list[dict[str, Any]], **kwargs: Any) -> Report:
    return ts_client(
        tool,
        url,
        "--answers",
        json.dumps(answers),
        env={},
        peer=typescript_v1_peer("task_client_v1.ts"),
        **kwargs,
    )


def assert_ran_as_a_task(report: Report) -> str:
    """The SDK's own task runtime ran the call: a task was created, polled, and its result
    fetched with ``tasks/result`` (the SDK's call, not ours); returns the task id."""
    data = report.data
    assert data["protocolVersion"] == "2025-11-25"
    assert data["capabilities"]["tasks"]["requests"] == {"tools": {"call": {}}}
    assert data["taskSupport"] == "optional"
    task_id = str(data["created"]["taskId"])
    assert data["created"]["status"] == "working"
    assert data["created"]["ttl"] == 60_000
    methods = [entry["method"] for entry in data["sent"]]
    assert methods.count("tools/call") == 1
    assert data["sent"][methods.index("tools/call")]["task"] is True
    assert "tasks/get" in methods
    assert "tasks/result" in methods
    assert methods.index("tools/call") < methods.index("tasks/get") < methods.index("tasks/result")
    # Each status it saw is a real one; it stops polling at input_required or a terminal one.
    assert data["statuses"], data
    assert set(data["statuses"]) <= {"working", "input_required", *TERMINAL}
    assert data["statuses"][-1] in {"input_required", *TERMINAL}
    assert data["final"]["taskId"] == task_id
    assert data["final"]["status"] == "completed"
    assert report.result["_meta"][RELATED_TASK] == {"taskId": task_id}
    return task_id


def test_a_form_asked_in_a_task_is_answered_by_the_v1_sdk(server: Served) -> None:
    report = v1_client("book", server.url(), [{"action": "accept", "content": {"name": "Ada"}}])
    assert report.returncode == 0, report.stderr[-3000:]
    task_id = assert_ran_as_a_task(report)
    (asked,) = report.data["elicitations"]
    assert asked["params"]["mode"] == "form"
    assert asked["params"]["message"] == WHO
    assert asked["params"]["requestedSchema"]["required"] == ["name"]
    assert asked["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}
    assert asked["answer"] == "accept"
    assert asked["stream"] == "POST tasks/result"  # SEP-2260: never the GET stream
    assert report.text == "booked Ada"


def test_a_secret_asked_in_a_task_is_entered_on_the_page_while_the_v1_sdk_waits(
    server: Served,
) -> None:
    value = "weather-key-" + secrets.token_urlsafe(12)
    report = v1_client(
        "connect_weather", server.url(), [{"action": "accept"}], on_link=enter_on_page(value)
    )
    assert report.returncode == 0, report.stderr[-3000:]
    task_id = assert_ran_as_a_task(report)
    (asked,) = report.data["elicitations"]
    params = asked["params"]
    assert params["mode"] == "url"
    assert params["message"] == KEY_MESSAGE
    assert params["url"].startswith(server.url().removesuffix("/mcp") + "/elicit/flows/")
    assert params["_meta"][RELATED_TASK] == {"taskId": task_id}
    assert asked["answer"] == "accept"
    # The tool got exactly what the person typed, and it never passed through the client.
    assert report.text == "got " + hashlib.sha256(value.encode()).hexdigest()
    assert value not in json.dumps(report.data)
    assert value not in report.stderr
    # A completion notice the client got (it may still be on its way) names that question.
    for notice in report.data["completions"]:
        assert notice["elicitationId"] == params["elicitationId"]
