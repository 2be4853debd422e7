"""Hosts that give up on a question while a person has it (tests/client/test_withdrawn.py).

Run as a program, this is the host: ``python -m tests.client.withdraw_support MODE``.

- ``form``, ``url``: the real terminal renderer; a first question (a form, or a link's consent
  screen) is asked under a short time limit, the way an agent framework runs a tool call
  (anyio.fail_after here; the OpenAI Agents SDK's session timeout is 5 s), and a second form
  is asked meanwhile, so it waits its turn behind the first. The limit runs out while the
  first is on screen; the second must then show at once and take an answer.
- ``server``: the same through MCP: ``ElicitingClient`` and the terminal renderer in front of
  the every-field server, whose ``impatient`` tool gives up on its question after three
  seconds (the server's ``notifications/cancelled`` withdraws it), while ``quick`` waits.
- ``queued``: no person at all: prompts of every kind (form, link consent, waiting screen)
  withdrawn on screen and while waiting their turn, on a terminal renderer whose input is a
  pipe. Run with ``-W error::RuntimeWarning``: stderr must stay empty (no coroutine left
  unawaited), and no task may be left over.

Each prints what happened, one line a step, and ``[done]`` at the end.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import anyio

from mcp_elicit.client import Asking, ElicitationHandler, UrlPrompt
from mcp_elicit.client.terminal import TerminalRenderer
from mcp_elicit.protocol import ElicitationRequest, parse_elicitation_params
from mcp_elicit.revisions import Revision
from mcp_elicit.urls import check_url

SERVER = "weather"
FIRST_FORM = "First question: which city?"
FIRST_LINK = "Sign in to Example to go on."
LINK = "https://example.com/sign-in"
SECOND = "Second question: which town?"
TIME_LIMIT = 2.0
"""How long the host waits for the first question: long enough for the pane to show it."""

WITHDRAWN = f"Withdrawn: {SERVER} no longer waits for an answer to this question"


def form(message: str, name: str = "town") -> dict[str, Any]:
    return {
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {name: {"type": "string", "title": name.capitalize()}},
            "required": [name],
        },
    }


def link(message: str = FIRST_LINK, elicitation_id: str = "e1") -> dict[str, Any]:
    return {"mode": "url", "message": message, "url": LINK, "elicitationId": elicitation_id}


ASKING = Asking(SERVER, Revision.V2025_11_25)


async def _under_limit(
    handler: ElicitationHandler, params: dict[str, Any], label: str, limit: float
) -> None:
    try:
        with anyio.fail_after(limit):
            result = await handler.handle(params, ASKING)
    except TimeoutError:
        print(f"{label}: timed out", flush=True)
    else:
        print(f"{label}: {result}", flush=True)


async def terminal_host(mode: str) -> None:
    handler = ElicitationHandler(TerminalRenderer(), opener=None)
    first = form(FIRST_FORM, "city") if mode == "form" else link()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_under_limit, handler, first, "first", TIME_LIMIT)
        await anyio.sleep(0.2)  # the first is on screen; the second waits its turn
        tasks.start_soon(_under_limit, handler, form(SECOND), "second", 60.0)


async def server_host() -> None:
    from mcp_elicit.client import ElicitingClient
    from tests.peer_servers.every_field_server import build

    made = build()
    handler = ElicitationHandler(TerminalRenderer(), opener=None)
    async with ElicitingClient(made.server, handler, protocol="2025-11-25") as client:

        async def call(tool: str, arguments: dict[str, Any]) -> None:
            result = await client.call_tool(tool, arguments)
            text = "".join(getattr(c, "text", "") for c in result.content)
            print(f"{tool}: {text}", flush=True)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call, "impatient", {})
            await anyio.sleep(0.5)  # the impatient question is on screen; quick waits
            tasks.start_soon(call, "quick", {"n": 1})


async def queued_host() -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    lines: list[str] = []
    with create_pipe_input() as pipe:
        renderer = TerminalRenderer(input=pipe, output=DummyOutput(), write=lines.append)
        handler = ElicitationHandler(renderer, opener=None)
        prompt = UrlPrompt(SERVER, "Waiting for you", LINK, check_url(LINK), "e9")
        async with anyio.create_task_group() as tasks:
            # On screen: a form; queued behind it: a form, a link's consent, a waiting screen.
            # The queued ones give up long before the shown one (order holds on a busy machine).
            tasks.start_soon(_under_limit, handler, form(FIRST_FORM, "city"), "shown form", 2.0)
            await anyio.sleep(0.1)
            tasks.start_soon(_under_limit, handler, form(SECOND), "queued form", 0.3)
            tasks.start_soon(_under_limit, handler, link(), "queued link", 0.3)

            async def queued_wait() -> None:
                with anyio.move_on_after(0.3):
                    await handler.wait_while_held(prompt, anyio.Event())
                    print("queued wait: answered", flush=True)
                    return
                print("queued wait: timed out", flush=True)

            tasks.start_soon(queued_wait)
        # Then on screen each in turn: a link's consent, and a waiting screen.
        await _under_limit(handler, link(elicitation_id="e2"), "shown link", 0.3)
        with anyio.move_on_after(0.3):
            await handler.wait_while_held(prompt, anyio.Event())
        print("shown wait: timed out", flush=True)
        # The required-URL path, given up on its consent screen.
        request = parse_elicitation_params(link(elicitation_id="e3"), revision=ASKING.revision)
        assert isinstance(request, ElicitationRequest)
        with anyio.move_on_after(0.3):
            await handler.obtain([request], ASKING)
        print("obtain: timed out", flush=True)
    print(f"withdrawn on screen: {sum(line.startswith('Withdrawn:') for line in lines)}")
    left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    print(f"tasks left: {len(left)}", flush=True)


def main() -> None:
    mode = sys.argv[1]
    if mode in ("form", "url"):
        anyio.run(terminal_host, mode)
    elif mode == "server":
        anyio.run(server_host)
    else:
        anyio.run(queued_host)
    gc.collect()  # a coroutine never awaited would warn now, not at some later collection
    print("[done]", flush=True)


if __name__ == "__main__":
    main()
