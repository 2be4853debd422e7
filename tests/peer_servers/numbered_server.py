"""An official-SDK server whose questions are numbered, and how to start it; the client's HTTP
tests and benchmarks both talk to it.

    .venv/bin/python tests/peer_servers/numbered_server.py              # stdio
    .venv/bin/python tests/peer_servers/numbered_server.py --http PORT  # 127.0.0.1:PORT/mcp

Tools (every reply echoes ``n``, so each call's answer can be told apart):

- ``ask(n)`` asks one form question (``Resolve(Elicit)``, so it works in both eras: a
  standalone ``elicitation/create`` on 2025-11-25, an ``InputRequiredResult`` on 2026-07-28)
  and returns ``"{n}:{value}"``;
- ``ask_pending(n)`` (2025-11-25 only) asks the same question with ``ctx.elicit`` and counts
  the elicitations outstanding at once on the server; ``pending_peak()`` returns the highest
  count seen (and resets it), so the benchmark can prove they were all pending together.

Also :class:`AcceptingRenderer`, a client-side renderer that answers every form at once with
``reply_for(n)``. Nothing here is timed: the benchmarks time clients.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated

from mcp.client.stdio import StdioServerParameters
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel, Field

from mcp_elicit.client import Accept, Cancel, Decision, FormPrompt, Notice, UrlPrompt

SCRIPT = Path(__file__).resolve()
SERVER_NAME = "numbered-server"

server = MCPServer(SERVER_NAME, log_level="WARNING")


class Reply(BaseModel):
    value: str = Field(title="Your answer", min_length=1, max_length=64)


def question(n: int) -> str:
    return f"Question {n}?"


def number_of(message: str) -> int:
    """``n`` back from :func:`question`'s message (what the client answers with)."""
    return int(message.removeprefix("Question ").removesuffix("?"))


def reply_for(n: int) -> str:
    """The answer the client gives to question ``n``, and the server echoes."""
    return f"answer-{n}"


def _ask(n: int) -> Elicit[Reply]:
    return Elicit(question(n), Reply)


@server.tool()
async def ask(n: int, reply: Annotated[ElicitationResult[Reply], Resolve(_ask)]) -> str:
    """Ask one form question; return ``n:value`` (or ``n:declined`` / ``n:cancelled``)."""
    if isinstance(reply, AcceptedElicitation):
        return f"{n}:{reply.data.value}"
    return f"{n}:{reply.action}"


_pending = 0
_peak = 0


@server.tool()
async def ask_pending(n: int, ctx: Context) -> str:
    """Like ``ask``, with ``ctx.elicit`` (2025-11-25), counting elicitations outstanding."""
    global _pending, _peak
    _pending += 1
    _peak = max(_peak, _pending)
    try:
        result = await ctx.elicit(question(n), Reply)
    finally:
        _pending -= 1
    if isinstance(result, AcceptedElicitation):
        return f"{n}:{result.data.value}"
    return f"{n}:{result.action}"


@server.tool()
async def pending_peak() -> int:
    """The most elicitations outstanding at once since the last call (then reset)."""
    global _peak
    peak, _peak = _peak, _pending
    return peak


class AcceptingRenderer:
    """A renderer that accepts every form with ``{"value": reply_for(n)}`` at once (the
    :class:`~mcp_elicit.client.Renderer` protocol; a ``ScriptedRenderer`` would need one
    answer per request). URL mode is never asked here."""

    def __init__(self) -> None:
        self.asked = 0

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        self.asked += 1
        return Accept({"value": reply_for(number_of(prompt.message))})

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        return Cancel("not-in-benchmark")

    async def wait_for_completion(self, prompt: UrlPrompt, completed: object) -> Decision:
        return Cancel("not-in-benchmark")

    async def notify(self, notice: Notice) -> None:
        return None


# -- starting it ------------------------------------------------------------------------


def stdio_params() -> StdioServerParameters:
    """This server as a stdio subprocess (``mcp.Client`` starts and stops it)."""
    return StdioServerParameters(command=sys.executable, args=[str(SCRIPT)], env=dict(os.environ))


def raise_open_files_limit(needed: int) -> str:
    """Raise the soft limit on open files to ``needed`` (within the hard limit); say what was
    done. 1,000 pending calls hold 1,000 sockets in each process; child processes started
    afterwards (the server) inherit the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return f"open files: soft limit {soft} is enough for {needed}"
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    short = "" if target >= needed else f" (the hard limit; {needed} wanted: expect failures)"
    return f"open files: raised the soft limit from {soft} to {target}{short}"


def free_port() -> int:
    """A loopback port for the server process (tests/ports.py says why not port 0)."""
    # Imported here: only the tests call this, and run as a script this file cannot import
    # the tests package.
    from tests.ports import free_port as reserved

    return reserved()


@contextlib.contextmanager
def http_server(timeout: float = 30.0, *, command: Sequence[str] = ()) -> Iterator[str]:
    """Run this server (or ``command``, a script that takes ``--http PORT`` too) over
    Streamable HTTP in a subprocess; yield its URL; stop it after."""
    port = free_port()
    process = subprocess.Popen(
        [*(command or [sys.executable, str(SCRIPT)]), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the HTTP server exited with status {process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the HTTP server did not listen on {port}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    args = parser.parse_args()
    if args.http is None:
        server.run("stdio")
    else:
        # The SDK's defaults are enough for the benchmarks: one client is one session
        # (max_sessions defaults to 10,000) and neither the session nor uvicorn caps
        # concurrent requests (uvicorn's limit_concurrency is None, its backlog 2048).
        server.run("streamable-http", port=args.http)


if __name__ == "__main__":
    main()
