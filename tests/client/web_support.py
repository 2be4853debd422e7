"""The web renderer's host and the person's browser (tests/client/test_web_browser.py,
tests/client/test_web_languages.py, tests/client/test_web_attachments.py): a real MCP server with
every field kind in process, ``ElicitingClient`` + ``WebRenderer`` in front of it, and a fresh
headless Chromium whose script errors and refused resources fail the test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
from playwright.async_api import expect

from mcp_elicit.client import ElicitationHandler, ElicitingClient
from mcp_elicit.client.web import WebRenderer
from mcp_elicit.forms import Form, schema_of
from tests.browser_support import chromium, serious_violations
from tests.peer_servers.every_field_server import LINK, EveryFieldServer, Everything, build

VIEWPORT = {"width": 1000, "height": 900}
FORM = Form.from_schema(schema_of(Everything))


@dataclass
class Call:
    tool: str
    done: anyio.Event = field(default_factory=anyio.Event)
    text: str | None = None

    async def result(self, timeout: float = 15.0) -> str:
        with anyio.fail_after(timeout):
            await self.done.wait()
        assert self.text is not None
        return self.text


@dataclass
class Host:
    made: EveryFieldServer
    renderer: WebRenderer
    client: ElicitingClient
    tasks: anyio.abc.TaskGroup
    opened: list[str]

    def call(self, tool: str, arguments: dict[str, Any] | None = None) -> Call:
        call = Call(tool)

        async def run() -> None:
            result = await self.client.call_tool(tool, arguments or {})
            call.text = "\n".join(getattr(c, "text", "") for c in result.content)
            call.done.set()

        self.tasks.start_soon(run)
        return call


@asynccontextmanager
async def hosting(
    protocol: str = "2025-11-25", *, closed_after: float = 5.0, language: str | None = None
) -> AsyncIterator[Host]:
    made = build()
    opened: list[str] = []
    async with WebRenderer(
        opener=opened.append, announce=None, closed_after=closed_after, language=language
    ) as renderer:
        # The page opens links itself, from the person's click: the handler, given an opener
        # that records into the same list, must not call it (WebRenderer.opens_links).
        handler = ElicitationHandler(renderer, opener=opened.append)
        async with (
            ElicitingClient(made.server, handler, protocol=protocol) as client,
            anyio.create_task_group() as tasks,
        ):
            yield Host(made, renderer, client, tasks, opened)
            tasks.cancel_scope.cancel()


@asynccontextmanager
async def browser_context(*, csp: bool = False, **options: Any) -> AsyncIterator[Any]:
    """A fresh browser. axe-core goes in as an inline script, which the page's own policy
    (rightly) refuses, so by default the policy is bypassed; ``csp=True`` enforces it, for
    the tests that show the page works under it."""
    async with chromium() as browser:
        options = {"viewport": VIEWPORT, **options}
        context = await browser.new_context(bypass_csp=not csp, **options)
        # A script error or a refused resource would leave a page that only looks right.
        errors: list[str] = []
        context.on("weberror", lambda error: errors.append(str(error.error)))
        context.on(
            "console",
            lambda message: (
                errors.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )
        try:
            yield context
        finally:
            await context.close()
        assert errors == []


async def open_page(context: Any, host: Host) -> Any:
    page = await context.new_page()
    await page.goto(host.renderer.url)
    return page


async def no_serious_violations(page: Any) -> None:
    assert await serious_violations(page) == []


async def current_heading(page: Any) -> Any:
    heading = page.locator("#prompt-heading")
    await expect(heading).to_be_visible()
    return heading


@asynccontextmanager
async def recording_links(context: Any) -> AsyncIterator[list[str]]:
    """Every request the browser makes; the link's site is played by a stub (no network)."""
    seen: list[str] = []

    async def route(r: Any) -> None:
        url = r.request.url
        seen.append(url)
        if urlsplit(url).hostname == "127.0.0.1":
            await r.continue_()
        elif url == LINK:
            await r.fulfill(
                content_type="text/html", body="<!doctype html><title>Sign in</title><p>stub"
            )
        else:
            await r.abort()

    await context.route("**/*", route)
    yield seen
