"""Our client against our server, both halves of the tasks extension (2026-07-28,
``io.modelcontextprotocol/tasks``): ``ElicitingClient(tasks=True)`` calling a server run with
``Elicitation(tasks=True)``, in a process of its own.

The server's half is tested with a hand-written client (tests/server/test_task_extension.py)
and the client's with a hand-written server (tests/client/test_task_extension_client.py);
here each meets the real other: the call is answered with a task, the client polls
``tasks/get``, asks the question through its handler, answers with ``tasks/update``, and
``call_tool`` returns the tool's result. A URL-mode secret is consented to by the script (the
link recorded, never opened) and entered on the hosted page by the test acting as the
browser; the secret must then be nowhere in what the client wrote down or sent and received.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import secrets
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from mcp_elicit.client import ElicitationHandler, ElicitingClient, ScriptedRenderer
from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.policy import Policy
from mcp_elicit.protocol.codes import TASKS_EXTENSION
from mcp_elicit.testing import enter_secret
from mcp_elicit.urls import UrlPolicy
from tests.peer_servers import task_server
from tests.peer_servers.secret_server import Wire, mcp_http

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

MODERN = "2026-07-28"
SECRET = "sk-bank-" + secrets.token_hex(8) + "-6789"

TOOLS = ("--tools", "book,sign", "--required", "book")


@contextlib.asynccontextmanager
async def http_server(tmp_path: Path) -> AsyncIterator[str]:
    served = task_server.served(tmp_path / "server.log", *TOOLS)
    try:
        yield served.url()
    finally:
        served.stop()


def stdio_server(tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(task_server.SCRIPT), *TOOLS],
        env={**os.environ, "MCP_ELICIT_KEY": secrets.token_urlsafe(32)},
        cwd=str(tmp_path),
    )


def scripted(answers: list[dict[str, Any]], **options: Any) -> tuple[ElicitationHandler, Any]:
    """A handler answering from ``answers``, writing its audit log to a string."""
    sink = io.StringIO()
    h = ElicitationHandler(ScriptedRenderer(answers), audit=AuditLog(sink), **options)
    return h, sink


def text_of(result: Any) -> str:
    return str(result.content[0].text)


# -- (1) a form --------------------------------------------------------------------------------


async def test_a_form_asked_in_a_task_is_answered_and_the_call_returns_its_result(
    tmp_path: Path,
) -> None:
    wire = Wire()
    h, sink = scripted([{"action": "accept", "content": {"name": "Ada"}}])
    async with (
        http_server(tmp_path) as url,
        mcp_http("ada", wire) as http,
        ElicitingClient(url, h, protocol=MODERN, http_client=http) as client,
    ):
        with anyio.fail_after(30):
            result = await client.call_tool("book", {})
    assert text_of(result) == "booked Ada"
    sent = wire.data().decode(errors="replace")
    # The call was answered with a task ("book" is required to be one), followed to its end:
    # polled with tasks/get, answered with tasks/update, every request declaring the extension.
    assert '"resultType":"task"' in sent.replace(" ", "")
    assert "tasks/get" in sent and "tasks/update" in sent
    assert TASKS_EXTENSION in sent
    assert '"inputResponses"' in sent
    (entry,) = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert entry["mode"] == "form" and entry["outcome"] == "accept"


async def test_a_form_asked_in_a_task_over_stdio(tmp_path: Path) -> None:
    h, _ = scripted([{"action": "accept", "content": {"name": "Grace"}}])
    async with ElicitingClient(stdio_server(tmp_path), h, protocol=MODERN) as client:
        with anyio.fail_after(30):
            result = await client.call_tool("book", {})
    assert text_of(result) == "booked Grace"


# -- (2) a URL-mode secret ---------------------------------------------------------------------


async def test_a_secret_asked_in_a_task_is_entered_on_the_page_and_never_seen_by_the_client(
    tmp_path: Path,
) -> None:
    wire = Wire()
    links: list[str] = []
    # The hosted page of a test server is on http://127.0.0.1: a local development setup.
    local = Policy(url_policy=UrlPolicy(allow_http_loopback=True))
    h, sink = scripted([{"action": "accept"}], opener=links.append, policy=local)
    async with (
        http_server(tmp_path) as url,
        mcp_http("ada", wire) as http,
        ElicitingClient(url, h, protocol=MODERN, http_client=http) as client,
        anyio.create_task_group() as group,
    ):

        async def person_at_the_browser() -> None:
            # The script consented, and the link was recorded, not opened: the test is
            # the browser, and types the secret on the hosted page.
            with anyio.fail_after(20):
                while not links:
                    await anyio.sleep(0.02)
            await enter_secret(SECRET)(links[0])

        group.start_soon(person_at_the_browser)
        with anyio.fail_after(30):
            result = await client.call_tool("sign", {})
    assert text_of(result) == "signed with a key ending 6789"
    (link,) = links
    assert link.startswith("http://127.0.0.1:")
    logged = sink.getvalue()
    (entry,) = [json.loads(line) for line in logged.splitlines()]
    assert entry["mode"] == "url" and entry["outcome"] == "accept"  # the consent, logged...
    assert SECRET not in logged  # ...and the secret never was
    assert SECRET.encode() not in wire.data()  # nor sent or received by the client
    assert b"tasks/update" in wire.data()  # the consent went back in the task
