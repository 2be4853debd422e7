"""examples/langgraph_web_app.py, as its person uses it: a LangGraph agent runs in the app, the
README quick start's server asks through ``langchain.mcp``'s interrupts, and the person answers
in Chromium: the review with each link's verdict, the answers checked, the run resumed, the
result. Also: a paused run outlives the app, and what the app refuses (another site's form, a
wrong Host, a replayed answer, an accept of a blocked link)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sqlite3
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from mcp_elicit.client import AuditLog
from tests.browser_support import chromium, screenshot
from tests.integrations.fastmcp_support import audit_events, quick_start
from tests.paths import EXAMPLES
from tests.server_support import serve_on_loopback

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def _example() -> Any:
    """The example, loaded as a module (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "langgraph_web_app", EXAMPLES / "langgraph_web_app.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an imported module is: its types are found by name
    spec.loader.exec_module(module)
    return module


APP = _example()


@contextlib.asynccontextmanager
async def running(tmp_path: Path, **options: Any) -> AsyncIterator[str]:
    """The example app on a free loopback port, its server the quick start's over stdio."""
    app = APP.build_app(quick_start(tmp_path), database=tmp_path / "runs.sqlite", **options)
    async with serve_on_loopback(app, log_level="warning") as port:
        yield f"http://127.0.0.1:{port}"


async def start_run(page: Any, base: str, request: str) -> str:
    """The person asks the agent; the run's address once it has paused (or ended)."""
    await page.goto(base + "/")
    await page.get_by_label("What should the agent do?").fill(request)
    async with page.expect_navigation():
        await page.get_by_role("button", name="Run").click()
    return str(page.url)


async def send(page: Any) -> None:
    async with page.expect_navigation():
        await page.get_by_role("button", name="Send").click()


@pytest.mark.browser
async def test_a_form_is_reviewed_answered_and_the_run_resumes(tmp_path: Path) -> None:
    log = io.StringIO()
    async with running(tmp_path, audit=AuditLog(log)) as base, chromium() as browser:
        page = await browser.new_page()
        await start_run(page, base, "book")
        assert await page.locator("h1").inner_text() == "The agent needs your answer"
        assert "Who is staying, and when?" in await page.locator("legend").first.inner_text()
        await page.get_by_label("Guest").fill("Ada")
        await page.get_by_label("Arrival").fill("next week")
        await page.get_by_label("Nights (optional)").fill("2")
        await screenshot(page, "langgraph-review-form")
        await send(page)
        # Nothing sent: the problem named, what was typed kept.
        assert await page.locator("h1").inner_text() == "Please check your answers"
        assert "date" in (await page.get_by_role("alert").inner_text()).lower()
        assert await page.get_by_label("Guest").input_value() == "Ada"
        await page.get_by_label("Arrival").fill("2026-12-01")
        await send(page)
        assert await page.locator("h1").inner_text() == "Done"
        transcript = await page.locator("#transcript").inner_text()
    assert "Booked 2 night(s) from 2026-12-01 for Ada." in transcript
    refused, answered = audit_events(log)
    assert refused["outcome"] == "not-sent" and refused["tool"] == "book"
    assert answered["outcome"] == "accept" and answered["tool"] == "book"


@pytest.mark.browser
async def test_a_key_typed_on_the_servers_page_is_never_in_the_app(tmp_path: Path) -> None:
    key = f"weather-{uuid.uuid4().hex}"
    log = io.StringIO()
    async with running(tmp_path, audit=AuditLog(log)) as base, chromium() as browser:
        page = await browser.new_page()
        await start_run(page, base, "connect_weather")
        review = await page.locator("fieldset").first.inner_text()
        # The verdict, and where the link really goes, before anything opens.
        assert "127.0.0.1" in await page.locator(".host").inner_text()
        assert await page.locator(".verdict").inner_text() == "warn"
        await screenshot(page, "langgraph-review-link")
        async with page.context.expect_page() as opened:
            await page.get_by_role("link", name="Open").click()
        server_page = await opened.value
        await server_page.get_by_label("WEATHER_API_KEY", exact=True).fill(key)
        async with server_page.expect_navigation():
            await server_page.get_by_role("button", name="Save", exact=True).click()
        assert "Saved" in await server_page.locator("h1").inner_text()
        await page.get_by_label("I have finished there").check()
        await send(page)
        transcript = await page.locator("#transcript").inner_text()
        pages = await page.content()
    assert f"Connected ({len(key)} characters)." in transcript
    assert "Your weather service key" in review
    # The key went to the server's page only: not the app's pages, record or saved runs.
    stored = sqlite3.connect(tmp_path / "runs.sqlite").execute("select * from writes").fetchall()
    assert key not in pages and key not in log.getvalue() and key not in repr(stored)
    (event,) = audit_events(log)
    assert event["mode"] == "url" and event["outcome"] == "accept"


@pytest.mark.browser
async def test_a_paused_run_is_answered_after_the_app_restarts(tmp_path: Path) -> None:
    async with chromium() as browser:
        page = await browser.new_page()
        async with running(tmp_path) as base:
            run = (await start_run(page, base, "book")).removeprefix(base)
        # Another app (and another server process) on the same database.
        async with running(tmp_path) as base:
            await page.goto(base + run)
            assert await page.locator("h1").inner_text() == "The agent needs your answer"
            await page.get_by_label("Guest").fill("Grace")
            await page.get_by_label("Arrival").fill("2026-12-24")
            await send(page)
            transcript = await page.locator("#transcript").inner_text()
    assert "Booked 1 night(s) from 2026-12-24 for Grace." in transcript


@pytest.mark.browser
async def test_a_blocked_link_is_shown_blocked_and_cannot_be_accepted(tmp_path: Path) -> None:
    # Said not to run here, the server's http://127.0.0.1 page is blocked.
    async with running(tmp_path, local=False) as base, chromium() as browser:
        page = await browser.new_page()
        run = await start_run(page, base, "connect_weather")
        assert await page.locator(".blocked").count() == 1
        assert await page.get_by_role("link", name="Open").count() == 0
        assert await page.get_by_label("I have finished there").count() == 0
        interrupt = await page.locator("input[name=interrupt]").input_value()
        key = (await page.locator("fieldset").first.get_attribute("id") or "").removeprefix("q-")
        async with httpx2.AsyncClient(base_url=base, headers={"Origin": base}) as http:
            # The person's page offers no accept; one sent anyway is refused, and kept open.
            forged = {"interrupt": interrupt, f"{key}:action": "accept"}
            refused = await http.post(run.removeprefix(base) + "/answers", data=forged)
            assert refused.status_code == 400 and "blocked" in refused.text
            declined = {"interrupt": interrupt, f"{key}:action": "decline"}
            done = await http.post(run.removeprefix(base) + "/answers", data=declined)
            assert done.status_code == 303
            shown = await http.get(run.removeprefix(base))
    assert "Not connected (Declined())." in shown.text


async def test_what_the_app_refuses(tmp_path: Path) -> None:
    async with running(tmp_path) as base, httpx2.AsyncClient(base_url=base) as http:
        own = {"Origin": base}
        started = await http.post("/runs", data={"request": "cancel"}, headers=own)
        assert started.status_code == 303
        run = started.headers["location"]
        snapshot = await http.get(run)
        interrupt = snapshot.text.split('name="interrupt" value="')[1].split('"')[0]
        key = snapshot.text.split('<fieldset id="q-')[1].split('"')[0]
        answer = {"interrupt": interrupt, f"{key}:action": "accept", f"{key}.confirm": "on"}
        # Another site's form: browsers send its Origin, or none from an opaque one.
        for origin in ("http://evil.example", "null"):
            forged = await http.post(run + "/answers", data=answer, headers={"Origin": origin})
            assert forged.status_code == 403
        # A name this app is not served under (DNS rebinding).
        rebound = await http.get(run, headers={"Host": "evil.example"})
        assert rebound.status_code == 400
        assert (await http.get("/runs/no-such-run")).status_code == 404
        # Sent twice at once (a double click): the run resumes once.
        statuses: list[int] = []

        async def post() -> None:
            sent = await http.post(run + "/answers", data=answer, headers=own)
            statuses.append(sent.status_code)

        async with anyio.create_task_group() as both:
            both.start_soon(post)
            both.start_soon(post)
        assert sorted(statuses) == [303, 409]
        # The same answers later (a replay): nothing is resumed again.
        again = await http.post(run + "/answers", data=answer, headers=own)
        assert again.status_code == 409
        done = await http.get(run)
    assert "cancel: Cancelled." in done.text
