"""Many ``secret()`` calls asking one user for one name at once: each call gets exactly what
was typed on its own flow's page, never the value another call's page stored.

The attack (issue 13, break 3): the page used to store each value under (user, name) only,
overwriting, and ``secret()`` then read (user, name) back instead of its own flow's value, so
with several calls in flight most of them returned whichever value was written last. On
2026-07-28 the tool body runs again on every retry, and ``reuse`` (the default) read the
vault there too. Here 50 calls run at once; the person waits until every page is open, then
saves all of them together in a shuffled order, each with a value of its own.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.server import (
    Accepted,
    DeploymentKey,
    Elicitation,
    ask,
    secret,
)
from mcp_elicit.testing import connect

pytestmark = pytest.mark.anyio

CALLS = 50
NAME = "SHARED_API_KEY"
TIMEOUT = 120.0


def typed_for(call: int) -> str:
    return f"sk-typed-on-the-page-of-call-{call:02d}"


def concurrent_server(store: str) -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(
        key=DeploymentKey.generate(),
        store=store,
        # Every retry is held until its page is saved: the pages are saved all together, once
        # every one of them is open, which can take a while on a busy machine.
        url_resume_wait=TIMEOUT,
        max_open_flows=CALLS,  # the default (20) would refuse the 21st call: see test_secret_limits
    )
    server = MCPServer("concurrent", **elicitation.server_options())

    @server.tool()
    async def connect_call(call: int, ctx: Context) -> str:
        answer = await secret(ctx, NAME, f"Your key, for call {call:02d}.")
        if isinstance(answer, Accepted):
            # A test server: it returns the value so that the test can see which one it got.
            return answer.value.get_secret_value()
        return f"not connected: {answer}"

    @server.tool()
    async def connect_then_greet(ctx: Context) -> str:
        key = await secret(ctx, NAME, "Your key, to greet you.", reuse=False)
        name = await ask(ctx, {"type": "object", "properties": {"name": {"type": "string"}}}, "?")
        if not isinstance(key, Accepted) or not isinstance(name, Accepted):
            return f"not connected: {key}, {name}"
        return f"{name.value['name']} with {key.value.get_secret_value()}"

    return server, elicitation


def person_saving_all_pages_at_once(
    calls: int,
) -> tuple[Callable[[str], Coroutine[Any, Any, None]], list[int]]:
    """What the person does on each page: open it, read which call it is for (its message),
    wait until every page is open, then save the value for that call. The saves go out in a
    shuffled order, all at once."""
    opened: list[int] = []
    all_open = anyio.Event()
    order = list(range(calls))
    random.Random(13).shuffle(order)
    turn = {call: position for position, call in enumerate(order)}

    async def on_page(url: str) -> None:
        # A connection per request: the save may come long after the page (every page must be
        # open first), past the server's keep-alive, and a POST sent on a connection the
        # server is closing fails (a browser would send it again; httpx does not).
        no_keep_alive = httpx2.Limits(max_keepalive_connections=0)
        async with httpx2.AsyncClient(timeout=60.0, limits=no_keep_alive) as browser:
            page = await browser.get(url)
            assert page.status_code == 200, page.status_code
            call = int(re.search(r"for call (\d+)\.", page.text).group(1))  # type: ignore[union-attr]
            token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
            opened.append(call)
            if len(opened) == calls:
                all_open.set()
            await all_open.wait()
            await anyio.sleep(turn[call] * 0.001)
            fields = {"csrf": token, "action": "submit", "value": typed_for(call)}
            saved = await browser.post(url, data=fields)
            assert saved.status_code == 303, saved.status_code

    return on_page, opened


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("engine", ["memory", "sqlite"])
async def test_each_call_gets_the_value_typed_on_its_own_page(
    protocol: str, engine: str, tmp_path: Path
) -> None:
    store = "memory://" if engine == "memory" else f"sqlite:///{tmp_path / 'flows.db'}"
    server, elicitation = concurrent_server(store)
    on_page, opened = person_saving_all_pages_at_once(CALLS)
    results: dict[int, str] = {}
    with anyio.fail_after(TIMEOUT):
        async with connect(
            server,
            protocol=protocol,
            answers=[{"action": "accept"}] * (2 * CALLS),
            links=on_page,
            elicitation=elicitation,
        ) as mcp:

            async def one(call: int) -> None:
                results[call] = (await mcp.call("connect_call", {"call": call})).text

            async with anyio.create_task_group() as calls:
                for call in range(CALLS):
                    calls.start_soon(one, call)
    await elicitation.store.aclose()
    assert sorted(opened) == list(range(CALLS)), "every call sent its own page once"
    wrong = {call: got for call, got in results.items() if got != typed_for(call)}
    assert not wrong, f"{len(wrong)} of {CALLS} calls got another call's value: {wrong}"


async def test_2026_07_28_a_secret_then_a_question_reads_its_own_flow_each_round() -> None:
    """On 2026-07-28 the body runs again for the question that follows the secret: the secret
    comes back from its own flow (recorded by id in the sealed state), without asking again,
    while the vault meanwhile holds a value another page stored."""
    server, elicitation = concurrent_server("memory://")
    pages: list[str] = []

    async def person(url: str) -> None:
        pages.append(url)
        async with httpx2.AsyncClient(timeout=30.0) as browser:
            page = await browser.get(url)
            token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
            fields = {"csrf": token, "action": "submit", "value": "sk-this-call"}
            assert (await browser.post(url, data=fields)).status_code == 303
        # Another call's page, saved after ours: last in the vault, and not ours.
        await elicitation.vault.put("local", NAME, "sk-someone-elses-page")

    with anyio.fail_after(TIMEOUT):
        async with connect(
            server,
            protocol="2026-07-28",
            answers=[{"action": "accept"}, {"action": "accept", "content": {"name": "Ada"}}],
            links=person,
            elicitation=elicitation,
        ) as mcp:
            result = await mcp.call("connect_then_greet")
    await elicitation.store.aclose()
    assert result.text == "Ada with sk-this-call", result.text
    assert len(pages) == 1, "the link was sent once"
