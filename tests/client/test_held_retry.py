"""2026-07-28, after a link: the retry that carries the person's accept may be held by the
server until the page is finished. The person sees that it waits and can say "done" (the
client asks again at once), cancel (the server is told ``cancel``), or let it end by itself;
a script keeps its second ``accept`` for the link asked again (docs/scripting.md)."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import anyio
import httpx2
import pytest

from mcp_elicit.client import (
    AuditLog,
    ElicitationHandler,
    ElicitingClient,
    ScriptedRenderer,
)
from mcp_elicit.client.web import WebRenderer
from tests.client.held_support import FLOW, LINK, HeldServer, Person
from tests.client_support import RecordingRenderer

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"


async def connect(held: HeldServer, renderer: Any, **options: Any) -> tuple[str, list[Any]]:
    sink = io.StringIO()
    handler = ElicitationHandler(renderer, opener=lambda url: None, audit=AuditLog(sink))
    with anyio.fail_after(20):
        async with ElicitingClient(held.server, handler, protocol=MODERN, **options) as client:
            result = await client.call_tool("connect", {})
    entries = [json.loads(line) for line in sink.getvalue().splitlines()]
    return " ".join(getattr(c, "text", "") for c in result.content), entries


async def test_the_person_sees_the_held_retry_and_it_ends_when_the_server_answers() -> None:
    held = HeldServer(hold=30.0)
    person = Person(waits=["await"])

    async def finish_the_page() -> None:
        await held.when_holding()
        # The retry is in and held: the waiting screen is up meanwhile, not after.
        with anyio.fail_after(5):
            while not person.waited:
                await anyio.sleep(0.01)
        held.page_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(finish_the_page)
        text, entries = await connect(held, person)
    assert text == "connected"
    ((prompt, completed_at_start),) = person.waited
    assert prompt.held and prompt.url == LINK and prompt.revision == MODERN
    assert not completed_at_start
    assert person.ended == ["completed"]  # ended by the server's answer
    assert held.retries == ["accept"] and held.outcomes == ["connected"]
    assert [e["outcome"] for e in entries] == ["accept"]


async def test_done_while_held_asks_the_server_again_at_once() -> None:
    held = HeldServer(hold=30.0)  # far longer than the test: "done" must not wait it out
    person = Person(waits=["done", "await"])

    async def finish_the_page() -> None:
        await held.when_holding(retries=2)
        held.page_done.set()

    started = time.monotonic()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(finish_the_page)
        text, entries = await connect(held, person)
    assert text == "connected"
    assert time.monotonic() - started < 15
    assert held.retries == ["accept", "accept"]
    with anyio.fail_after(5):  # the retry given up is given up at the server too
        while "given up" not in held.outcomes:
            await anyio.sleep(0.01)
    assert held.outcomes == ["given up", "connected"]
    assert [p.held for p, _ in person.waited] == [True, True]
    assert person.ended == ["done", "completed"]
    # The person's word is in the audit log, the link redacted.
    done = [e for e in entries if e.get("while_held")]
    assert [e["outcome"] for e in done] == ["done"]
    assert FLOW not in json.dumps(entries)


async def test_cancel_while_held_tells_the_server_cancel() -> None:
    held = HeldServer(hold=30.0)
    person = Person(waits=["cancel"])
    text, entries = await connect(held, person)
    assert text == "link cancel"
    assert held.retries == ["accept", "cancel"]
    assert person.ended == ["cancel"]
    assert [e["outcome"] for e in entries if e.get("while_held")] == ["cancel"]


async def test_past_the_hold_the_link_is_asked_again_and_the_wait_taken_down() -> None:
    held = HeldServer(hold=0.3)
    person = Person(waits=["await", "await"])

    async def finish_the_page() -> None:
        with anyio.fail_after(10):
            while len(person.asked) < 2:
                await anyio.sleep(0.01)
        held.page_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(finish_the_page)
        text, _ = await connect(held, person)
    assert text == "connected"
    assert held.outcomes == ["asked again", "connected"]
    assert len(person.asked) == 2  # the consent screen again, for the same link
    assert person.ended == ["taken down", "completed"]


async def test_a_script_keeps_its_second_accept_for_the_link_asked_again() -> None:
    # docs/scripting.md: one accept per url_resume_wait the page may take. The script never
    # says "done" early: the first retry is held its whole time, then the link is asked
    # again and the second accept answers it.
    held = HeldServer(hold=0.5)
    renderer = RecordingRenderer([{"action": "accept"}, {"action": "accept"}])

    async def finish_the_page() -> None:
        with anyio.fail_after(10):
            while len(renderer.prompts) < 2:
                await anyio.sleep(0.01)
        held.page_done.set()

    started = time.monotonic()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(finish_the_page)
        text, _ = await connect(held, renderer)
    assert text == "connected"
    assert time.monotonic() - started >= 0.5  # the first hold ran out, not cut short
    assert held.retries == ["accept", "accept"]
    assert held.outcomes == ["asked again", "connected"]
    assert renderer._script.used == 2


async def test_a_script_whose_page_is_done_in_time_uses_one_accept() -> None:
    held = HeldServer(hold=10.0)
    renderer = ScriptedRenderer([{"action": "accept"}, {"action": "accept"}])

    async def finish_the_page() -> None:
        await held.when_holding()
        held.page_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(finish_the_page)
        text, _ = await connect(held, renderer)
    assert text == "connected" and renderer.used == 1 and held.retries == ["accept"]


async def test_the_web_page_shows_the_held_wait_and_its_done_asks_again() -> None:
    held = HeldServer(hold=30.0)
    async with WebRenderer(opener=None, announce=None) as page:
        handler = ElicitationHandler(page, opener=None)
        async with (
            ElicitingClient(held.server, handler, protocol=MODERN) as client,
            httpx2.AsyncClient(timeout=10) as http,
        ):
            results: list[str] = []

            async def call() -> None:
                result = await client.call_tool("connect", {})
                results.append(" ".join(getattr(c, "text", "") for c in result.content))

            async def shown(kind: str) -> dict[str, Any]:
                with anyio.fail_after(10):
                    while True:
                        state = (await http.get(f"{page.url}api/state")).json()
                        found = [p for p in state["prompts"] if p["kind"] == kind]
                        if found:
                            return found[0]
                        await anyio.sleep(0.05)

            async def answer(prompt: dict[str, Any], action: str) -> None:
                reply = await http.post(
                    f"{page.url}api/answer", json={"id": prompt["id"], "action": action}
                )
                assert reply.status_code == 200, reply.text

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call)
                await answer(await shown("url"), "accept")  # "Open link" (the page opens it)
                waiting = await shown("wait")
                assert waiting["held"] is True and waiting["url"] == LINK
                await held.when_holding()
                await answer(waiting, "done")  # I'm done: asked again at once
                await held.when_holding(retries=2)
                again = await shown("wait")
                assert again["id"] != waiting["id"]
                held.page_done.set()
                with anyio.fail_after(10):
                    while not results:
                        await anyio.sleep(0.02)
    assert results == ["connected"]
    assert held.retries == ["accept", "accept"]
