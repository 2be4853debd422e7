"""An official-SDK server whose tools run as tasks (``Elicitation(tasks=...)``), in a process.

For the task tests that need a server of its own: tests/server/test_tasks.py,
test_task_extension.py and test_task_round_trip.py.

    .venv/bin/python tests/peer_servers/task_server.py              # stdio
    .venv/bin/python tests/peer_servers/task_server.py --http PORT  # 127.0.0.1:PORT/mcp
    .venv/bin/python tests/peer_servers/task_server.py --http PORT \\
        --tools book,sign --required book --forbidden sign

The deployment key comes from ``MCP_ELICIT_KEY``; the store is ``memory://``. Every tool's
``taskSupport`` is ``optional`` unless ``--required`` or ``--forbidden`` names it (each may be
given more than once).

Tools (``--tools`` serves only those named, comma-separated; all by default):

- ``book`` asks a form question, ``Who travels?`` (a ``name``), and returns ``booked <name>``,
  or ``not booked`` if it was not accepted;
- ``sign`` asks for the secret ``api_key`` in URL mode (never reused) and returns ``signed
  with a key ending <last four characters>``, or ``not signed``;
- ``slow_book`` sets its status to ``status`` (an argument, "Warming up" by default), works
  for ``seconds`` (1 by default), then asks as ``book`` does;
- ``progressing`` reports progress twice with ``task_status("Half way there")`` between them,
  and returns ``progressed``;
- ``only_as_task`` returns ``ran as a task`` and ``never_as_task`` returns ``ran plainly``
  (give them ``--required`` and ``--forbidden``).

Also, for the tests: :func:`served`, this server on a free port (a :class:`tests.served.Served`).
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.protocol.tasks import TaskSupport
from mcp_elicit.server import Accepted, Elicitation, TaskSettings, ask, secret, task_status

if TYPE_CHECKING:
    from tests.served import Served

SCRIPT = Path(__file__).resolve()
WHO = "Who travels?"


@dataclass
class Who:
    name: str


async def book(ctx: Context) -> str:
    answer = await ask(ctx, Who, WHO)
    return f"booked {answer.value.name}" if isinstance(answer, Accepted) else "not booked"


async def sign(ctx: Context) -> str:
    answer = await secret(ctx, "api_key", "Your API key for the bank", reuse=False)
    if not isinstance(answer, Accepted):
        return "not signed"
    return "signed with a key ending " + answer.value.get_secret_value()[-4:]


async def slow_book(ctx: Context, seconds: float = 1.0, status: str = "Warming up") -> str:
    task_status(status)
    await anyio.sleep(seconds)
    return await book(ctx)


async def progressing(ctx: Context) -> str:
    await ctx.report_progress(1, 2, "half way")
    task_status("Half way there")
    await ctx.report_progress(2, 2, "done")
    return "progressed"


async def only_as_task(ctx: Context) -> str:
    return "ran as a task"


async def never_as_task(ctx: Context) -> str:
    return "ran plainly"


TOOLS: dict[str, Callable[..., Coroutine[Any, Any, str]]] = {
    "book": book,
    "slow_book": slow_book,
    "sign": sign,
    "progressing": progressing,
    "only_as_task": only_as_task,
    "never_as_task": never_as_task,
}


def build(
    tools: Sequence[str], *, required: Sequence[str] = (), forbidden: Sequence[str] = ()
) -> Elicitation:
    server = MCPServer("task-server")
    support: dict[str, TaskSupport] = {}
    for name in required:
        support[name] = "required"
    for name in forbidden:
        support[name] = "forbidden"
    elicitation = Elicitation(server, store="memory://", tasks=TaskSettings(tools=support))
    for name in tools:
        server.tool(name=name)(TOOLS[name])
    return elicitation


def command(*options: str) -> list[str]:
    """The argv of this server: ``sys.executable``, this script, ``options``."""
    return [sys.executable, str(SCRIPT), *options]


def served(log: Path, *options: str) -> Served:
    """This server on Streamable HTTP on a free port (started on the first ``url()``), with a
    deployment key of its own."""
    from tests.served import Served  # the tests', not the script's

    return Served(
        lambda port: command("--http", str(port), *options),
        log=log,
        env={"MCP_ELICIT_KEY": secrets.token_urlsafe(32)},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    parser.add_argument(
        "--tools", default=",".join(TOOLS), help="the tools to serve, comma-separated"
    )
    parser.add_argument(
        "--required", action="append", default=[], metavar="TOOL", help="runs only as a task"
    )
    parser.add_argument(
        "--forbidden", action="append", default=[], metavar="TOOL", help="never runs as a task"
    )
    args = parser.parse_args()
    tools = [name for name in args.tools.split(",") if name]
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown:
        parser.error(f"unknown tools: {', '.join(unknown)} (known: {', '.join(TOOLS)})")
    elicitation = build(tools, required=args.required, forbidden=args.forbidden)
    if args.http is None:
        elicitation.run("stdio")
    else:
        elicitation.run("streamable-http", port=args.http)


if __name__ == "__main__":
    main()
