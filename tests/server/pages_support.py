"""The person at the hosted pages in a real headless Chromium, and the official SDK client that
calls the tools (tests/server/test_pages_browser.py, tests/server/test_pages_languages.py).

axe-core is injected as a script tag, which the pages' own Content-Security-Policy forbids,
so :func:`person` bypasses the CSP; ``test_the_pages_need_nothing_their_csp_forbids`` keeps it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import mcp_types as types
import pytest
from mcp.client.client import ConnectMode
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from tests.browser_support import screenshot, serious_violations
from tests.identities import TEST_USER_HEADER
from tests.peer_servers.secret_server import (
    MESSAGE,
    HttpServer,
    Wire,
    sdk_client,
    text_of,
    user_of_token,
)

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page, ViewportSize


TIMEOUT = 120.0  # a whole test, browser included, on a busy two-core machine
DESKTOP: ViewportSize = {"width": 1000, "height": 600}  # screenshots grow to the whole page
PHONE: ViewportSize = {"width": 390, "height": 844}  # a common phone, CSS pixels
SERVER_NAME = "secret-server"  # the peer server's MCP name: the pages' header
Person = Callable[[types.ElicitRequestURLParams], Awaitable[None]]


@asynccontextmanager
async def person(browser: Browser, user: str | None, **options: Any) -> AsyncIterator[Page]:
    """A tab in a browser of its own (its own cookies), signed in as ``user`` (``None``: as
    nobody). It bypasses the CSP so that axe-core can be injected: see the module docstring."""
    headers = {TEST_USER_HEADER: user_of_token(user)} if user is not None else {}
    options = {"viewport": DESKTOP, "bypass_csp": True, **options}
    context = await browser.new_context(extra_http_headers=headers, **options)
    try:
        yield await context.new_page()
    finally:
        await context.close()


async def open_page(page: Page, url: str, status: int) -> str:
    """Go to ``url``; the HTML the server sent (before axe-core adds its script)."""
    response = await page.goto(url)
    assert response is not None and response.status == status, (url, response and response.status)
    sent: str = await response.text()
    return sent


async def submit(page: Page, button: str, status: int) -> str:
    """Click ``button`` and wait for the page it leads to (after any redirect); its HTML."""
    async with page.expect_navigation() as navigation:
        await page.get_by_role("button", name=button, exact=True).click()
    response = await navigation.value
    assert response is not None and response.status == status, (button, response.status)
    sent: str = await response.text()
    return sent


async def heading(page: Page) -> str:
    text: str = await page.locator("h1").inner_text()
    return text


async def check_state(page: Page, name: str | None, *, title: str) -> None:
    """The page as it is now: its heading is ``title`` and it belongs to the server; axe-core
    finds nothing serious or critical at either width in either scheme; it does not scroll
    sideways on the phone. Then a screenshot ``name`` at desktop width, light."""
    assert await heading(page) == title
    assert title in await page.title()
    assert await page.locator("header .server").inner_text() == SERVER_NAME
    assert await page.locator("main").count() == 1 and await page.locator("h1").count() == 1
    for viewport in (DESKTOP, PHONE):
        await page.set_viewport_size(viewport)
        for scheme in ("light", "dark"):
            await page.emulate_media(color_scheme=scheme)
            found = await serious_violations(page)
            assert found == [], (name or title, viewport["width"], scheme, found)
        if viewport is PHONE:
            wide = await page.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert wide <= 0, f"{title}: {wide}px of sideways scrolling on a phone"
    await page.set_viewport_size(DESKTOP)
    await page.emulate_media(color_scheme="light")
    if name is not None:
        await screenshot(page, name)


class Failures:
    """An elicitation callback's assertion must fail the test, not become an error answer
    the server sees: the callback records it and cancels, and the test raises it after."""

    def __init__(self) -> None:
        self.raised: list[BaseException] = []

    def callback(self, act: Person) -> Any:
        async def callback(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            try:
                assert isinstance(params, types.ElicitRequestURLParams), params
                assert params.message == MESSAGE
                await act(params)
            except Exception as failed:
                self.raised.append(failed)
                return types.ElicitResult(action="cancel")
            return types.ElicitResult(action="accept")

        return callback

    def check(self) -> None:
        if self.raised:
            raise self.raised[0]


async def call_with_person(
    server: HttpServer,
    user: str,
    act: Person,
    *,
    mode: ConnectMode = "legacy",
    wire: Wire | None = None,
) -> str:
    """``connect_service`` through the official SDK client as ``user``; ``act`` is what the
    person does with the link. The tool's answer."""
    failures = Failures()
    async with sdk_client(
        server, wire or Wire(), mode=mode, user=user, callback=failures.callback(act)
    ) as client:
        result = await client.call_tool("connect_service", {})
    failures.check()
    return text_of(result)


async def link_for(server: HttpServer, user: str) -> str:
    """The -32042 link ``connect_later`` answers while ``user`` has no key stored."""
    async with sdk_client(server, Wire(), mode="legacy", user=user) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("connect_later", {})
    error = raised.value.error
    assert error.code == -32042 and isinstance(error.data, dict), error
    url: str = error.data["elicitations"][0]["url"]
    return url


async def connect_later(server: HttpServer, user: str) -> str | None:
    """``connect_later``'s answer, or ``None`` when it still asks for the key (-32042)."""
    async with sdk_client(server, Wire(), mode="legacy", user=user) as client:
        try:
            return text_of(await client.call_tool("connect_later", {}))
        except MCPError as error:
            assert error.error.code == -32042, error
            return None
