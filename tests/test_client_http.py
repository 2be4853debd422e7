"""ElicitingClient over Streamable HTTP, against an official-SDK server in a subprocess.

The server is this file run as a script (``python tests/test_client_http.py PORT``): its tools
echo their argument ``n`` into the question and the reply, so every call's answer can be told
apart from every other's.
"""

from __future__ import annotations

import contextlib
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel, Field

from mcp_elicit.client import (
    Accept,
    Answer,
    Cancel,
    ElicitationHandler,
    ElicitingClient,
    FormPrompt,
    Notice,
    Policy,
    ScriptedRenderer,
    UrlPrompt,
)

pytestmark = pytest.mark.anyio

CONCURRENT = 1_000

# -- the server (run in a subprocess) -----------------------------------------------------


class Reply(BaseModel):
    value: str = Field(min_length=1, max_length=64)


def _question(n: int) -> str:
    return f"Question {n}?"


def _number(message: str) -> int:
    return int(message.removeprefix("Question ").removesuffix("?"))


def _reply(n: int) -> str:
    return f"answer-{n}"


def _ask(n: int) -> Elicit[Reply]:
    return Elicit(_question(n), Reply)


def make_server() -> MCPServer:
    """``ask(n)``: one form question in either era (``Resolve``); ``ask_pending(n)``: the same
    with ``ctx.elicit`` (2025-11-25), counting how many are outstanding at once;
    ``pending_peak()``: the most outstanding at once so far."""
    server = MCPServer("http-test-server", log_level="WARNING")
    pending = {"now": 0, "peak": 0}

    @server.tool()
    async def ask(n: int, reply: Annotated[ElicitationResult[Reply], Resolve(_ask)]) -> str:
        if isinstance(reply, AcceptedElicitation):
            return f"{n}:{reply.data.value}"
        return f"{n}:{reply.action}"

    @server.tool()
    async def ask_pending(n: int, ctx: Context) -> str:
        pending["now"] += 1
        pending["peak"] = max(pending["peak"], pending["now"])
        try:
            result = await ctx.elicit(_question(n), Reply)
        finally:
            pending["now"] -= 1
        if isinstance(result, AcceptedElicitation):
            return f"{n}:{result.data.value}"
        return f"{n}:{result.action}"

    @server.tool()
    async def pending_peak() -> int:
        return pending["peak"]

    return server


def serve(port: int) -> None:
    import uvicorn

    app = make_server().streamable_http_app(
        # One client is one session, so the session cap (10,000 by default) does not bind;
        # nothing in the SDK's server caps the concurrent requests of a session.
        max_sessions=None,
    )
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        # uvicorn takes any number of connections unless told otherwise (say so), and queues
        # up to `backlog` not yet accepted: the 1,000 calls connect at once, so keep it above.
        limit_concurrency=None,
        backlog=4 * CONCURRENT,
    )
    uvicorn.Server(config).run()


# -- the fixture --------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _enough_open_files(needed: int) -> None:
    """1,000 pending calls hold 1,000 sockets in each process (and answers open more): raise
    the soft limit within the hard one if it is lower. The server inherits it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    _enough_open_files(3 * CONCURRENT + 256)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                error = process.stderr.read().decode() if process.stderr else ""
                pytest.fail(f"the test server exited ({process.returncode}):\n{error}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"the test server did not listen on port {port}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()
        if process.stderr is not None:
            process.stderr.close()


# -- the client side ----------------------------------------------------------------------


class EchoRenderer:
    """Accepts each question ``n`` with ``answer-<n>``."""

    def __init__(self) -> None:
        self.asked = 0

    async def ask_form(self, prompt: FormPrompt) -> Answer:
        self.asked += 1
        return Accept({"value": _reply(_number(prompt.message))})

    async def ask_url(self, prompt: UrlPrompt) -> Answer:
        return Cancel()

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Answer:
        return Cancel()

    async def notify(self, notice: Notice) -> None:
        return None


def text(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_one_elicitation_round_trips_over_http(http_url: str, protocol: str) -> None:
    renderer = ScriptedRenderer(
        [{"action": "accept", "content": {"value": "hello"}}, {"action": "decline"}]
    )
    handler = ElicitationHandler(renderer, opener=None)
    with anyio.fail_after(30):
        async with ElicitingClient(http_url, handler, protocol=protocol) as client:
            assert client.protocol_version == protocol
            assert text(await client.call_tool("ask", {"n": 1})) == "1:hello"
            assert text(await client.call_tool("ask", {"n": 2})) == "2:decline"
    assert renderer.used == 2


async def test_1000_elicitations_pending_at_once_all_complete(http_url: str) -> None:
    renderer = EchoRenderer()
    handler = ElicitationHandler(renderer, policy=Policy(rate_limit=None), opener=None)
    # Hold every elicitation until all have reached the client, then answer: they are really
    # pending together. The gate sits in front of `handle`, outside the handler's
    # one-prompt-at-a-time lock (a renderer that waited for all would deadlock that lock).
    arrived = 0
    everyone_here = anyio.Event()
    handle = handler.handle

    async def gated(params: Any, asking: Any) -> dict[str, Any]:
        nonlocal arrived
        arrived += 1
        if arrived == CONCURRENT:
            everyone_here.set()
        await everyone_here.wait()
        return await handle(params, asking)

    handler.handle = gated  # type: ignore[method-assign]
    results: dict[int, str] = {}

    async def one(client: ElicitingClient, n: int) -> None:
        results[n] = text(await client.call_tool("ask_pending", {"n": n}))

    with anyio.fail_after(120):
        async with ElicitingClient(http_url, handler, protocol="2025-11-25") as client:
            async with anyio.create_task_group() as tasks:
                for n in range(CONCURRENT):
                    tasks.start_soon(one, client, n)
            peak = int(text(await client.call_tool("pending_peak", {})))
    assert arrived == CONCURRENT and renderer.asked == CONCURRENT
    assert peak == CONCURRENT  # the server had all 1,000 outstanding at the same time
    wrong = {n: got for n, got in results.items() if got != f"{n}:{_reply(n)}"}
    assert len(results) == CONCURRENT and not wrong


if __name__ == "__main__":
    serve(int(sys.argv[1]))
