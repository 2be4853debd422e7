"""The server the server-side benchmarks (6 and 7) time and weigh, and how to start it.

    .venv/bin/python bench/_server_tools.py                 # stdio, with Elicitation installed
    .venv/bin/python bench/_server_tools.py --bare          # stdio, the bare SDK server
    .venv/bin/python bench/_server_tools.py --http PORT     # Streamable HTTP on 127.0.0.1:PORT
    .venv/bin/python bench/_server_tools.py --tasks         # stdio, Elicitation(tasks=True)

One module, two servers: with ``Elicitation(server, key=DeploymentKey.generate(),
store="memory://")`` installed (ours), or without it (``--bare``: the official SDK's own
``MCPServer``, untouched, which is what the anchors run on, so that they pay nothing of ours).
The same tools are registered on both; each returns ``"{n}:{value}"`` for question ``n``:

- ``ours(n)``: ``mcp_elicit.server.ask(ctx, Reply, question(n))`` (needs ``Elicitation`` on
  2026-07-28);
- ``sdk_elicit(n)``: the SDK's ``ctx.elicit(question(n), Reply)`` (2025-11-25 only: a server
  cannot send requests on 2026-07-28);
- ``sdk_resolve(n)``: the SDK's ``Resolve(Elicit)`` (both eras; the 2026-07-28 anchor);
- ``pending()``: how many asks are waiting for their answer right now (push era only: on
  2026-07-28 nothing waits in the server);
- ``memory(trace)``: after ``gc.collect()``, the bytes ``tracemalloc`` holds (``trace=True``
  starts tracing first, so later calls count what was allocated since and is still alive),
  the resident set size and the number of live asyncio tasks, as JSON.

Question ``n``'s message is ``"Question {n}?"``; the client answers ``{"value": "answer-<n>"}``
(``number_of`` / ``reply_for``, as for the client benchmarks).

``--tasks`` (benchmarks 18 and 19): ``Elicitation(..., tasks=True)``, every tool ``optional``
as a task (a 2026-07-28 ``tools/call`` whose request declares ``io.modelcontextprotocol/tasks``
runs as one), run inside ``Elicitation.running()`` (tasks run in its task group; no hosted
pages), and the per-user limit raised to ``TASKS_PER_USER`` (the benchmark's single local user
keeps thousands of tasks; the default is 100).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import tracemalloc
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated

import anyio
from mcp.client.stdio import StdioServerParameters
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve

from mcp_elicit.server import Accepted, DeploymentKey, Elicitation, ask

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.peer_servers import numbered_server

SCRIPT = Path(__file__).resolve()
SERVER_NAME = "asking-server"
TASKS_PER_USER = 1_000_000  # --tasks: the one local user may keep this many tasks


# The same question, answer and numbering as the client benchmarks' server.
Reply = numbered_server.Reply
question = numbered_server.question
number_of = numbered_server.number_of
reply_for = numbered_server.reply_for


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


_waiting = 0


async def ours(n: int, ctx: Context) -> str:
    """One form question with mcp_elicit's ``ask``."""
    global _waiting
    _waiting += 1
    try:
        answer = await ask(ctx, Reply, question(n))
    finally:
        _waiting -= 1
    if isinstance(answer, Accepted):
        return f"{n}:{answer.value.value}"
    return f"{n}:{answer!r}"


async def sdk_elicit(n: int, ctx: Context) -> str:
    """One form question with the SDK's ``ctx.elicit`` (2025-11-25)."""
    global _waiting
    _waiting += 1
    try:
        result = await ctx.elicit(question(n), Reply)
    finally:
        _waiting -= 1
    if isinstance(result, AcceptedElicitation):
        return f"{n}:{result.data.value}"
    return f"{n}:{result.action}"


async def _elicit(n: int) -> Elicit[Reply]:
    # async on purpose: the SDK runs a plain-function resolver in a worker thread, which
    # would make the anchor slower than it need be.
    return Elicit(question(n), Reply)


async def sdk_resolve(n: int, reply: Annotated[ElicitationResult[Reply], Resolve(_elicit)]) -> str:
    """One form question with the SDK's ``Resolve(Elicit)`` (both eras)."""
    if isinstance(reply, AcceptedElicitation):
        return f"{n}:{reply.data.value}"
    return f"{n}:{reply.action}"


async def pending() -> int:
    """How many ``ours`` / ``sdk_elicit`` calls are waiting for an answer now."""
    return _waiting


async def memory(trace: bool = False) -> str:
    """After a full collection: traced bytes, RSS bytes and live tasks, as JSON."""
    if trace:
        tracemalloc.stop()
        tracemalloc.start()
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None
    return json.dumps({"traced": traced, "rss": _rss(), "tasks": len(asyncio.all_tasks())})


def build_server(*, bare: bool, tasks: bool = False) -> tuple[MCPServer, Elicitation | None]:
    """The server, with ``Elicitation`` installed unless ``bare`` (``tasks``: with tasks on)."""
    server = MCPServer(SERVER_NAME, log_level="WARNING")
    elicitation = None
    if not bare:
        elicitation = Elicitation(
            server, key=DeploymentKey.generate(), store="memory://", tasks=tasks
        )
        if elicitation.runtime.tasks is not None:
            elicitation.runtime.tasks.max_per_user = TASKS_PER_USER
    for tool in (ours, sdk_elicit, sdk_resolve, pending, memory):
        server.tool()(tool)
    return server, elicitation


# -- starting it ------------------------------------------------------------------------


def _args(*, bare: bool, tasks: bool = False) -> list[str]:
    return [str(SCRIPT), *(["--bare"] if bare else []), *(["--tasks"] if tasks else [])]


def stdio_params(*, bare: bool, tasks: bool = False) -> StdioServerParameters:
    """This server as a stdio subprocess (``mcp.Client`` starts and stops it)."""
    return StdioServerParameters(
        command=sys.executable, args=_args(bare=bare, tasks=tasks), env=dict(os.environ)
    )


def http_server(
    *, bare: bool, tasks: bool = False, timeout: float = 30.0
) -> AbstractContextManager[str]:
    """Run this server over Streamable HTTP in a subprocess; yield its URL; stop it after."""
    return numbered_server.http_server(
        timeout, command=[sys.executable, *_args(bare=bare, tasks=tasks)]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bare", action="store_true", help="no Elicitation: the SDK alone")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    parser.add_argument("--tasks", action="store_true", help="Elicitation(tasks=True)")
    args = parser.parse_args()
    if args.tasks and (args.bare or args.http is not None):
        parser.error("--tasks: stdio, with Elicitation (not with --bare or --http)")
    server, elicitation = build_server(bare=args.bare, tasks=args.tasks)
    if not args.tasks or elicitation is None:
        if args.http is None:
            server.run("stdio")
        else:
            server.run("streamable-http", port=args.http)
        return
    tasks_on = elicitation

    async def serve() -> None:
        async with tasks_on.running():  # tasks run in its task group
            await server.run_stdio_async()

    anyio.run(serve)


if __name__ == "__main__":
    main()
