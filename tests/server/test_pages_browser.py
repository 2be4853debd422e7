"""The hosted pages in a real headless Chromium, on a real server process.

``tests/peer_servers/secret_server.py --auth`` runs with its hosted pages on a SQLite store;
the official SDK client calls its tools (``connect_service`` waits for a secret on the page,
``connect_later`` answers -32042 with the link), and the person is Chromium, driven by
Playwright: they read the page, type, click or press keys, and see where things stand. Who
the browser is comes from the test identity's ``X-Test-User`` header, sent by the browser
context, so one test can play two people.

Every page and state is checked with axe-core (no serious or critical violation) at a desktop
and a phone width, in the light and the dark scheme, and must not scroll sideways on the
phone. The main states are photographed (``tests/browser_support.screenshot``; ``make
screenshots`` writes them to ``docs/images`` for ``docs/browser.md``).

axe-core is injected as a script tag, which the pages' own Content-Security-Policy forbids,
so the browser contexts that run it bypass the CSP; one test
(``test_the_pages_need_nothing_their_csp_forbids``) keeps it and checks that nothing is
refused and the stylesheet applies.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import mcp_types as types
import pytest

from mcp_elicit.flows import Flows, FlowStatus
from mcp_elicit.stores import SQLiteStore
from tests.browser_support import chromium, screenshot
from tests.peer_servers.secret_server import (
    MESSAGE,
    SECRET_NAME,
    HttpServer,
    Wire,
    assert_nowhere,
    fingerprint_of,
    flow_id_of,
    start_http,
    store_bytes,
)
from tests.server.pages_support import (
    DESKTOP,
    PHONE,
    TIMEOUT,
    call_with_person,
    check_state,
    connect_later,
    heading,
    link_for,
    open_page,
    person,
    submit,
)

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.slow]


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "flows.db"


@pytest.fixture
def server(tmp_path: Path, store_path: Path) -> Iterator[HttpServer]:
    running = start_http(
        store=f"sqlite:///{store_path}", key=secrets.token_urlsafe(32), logs=tmp_path / "logs"
    )
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as opened:
        yield opened


# -- the person -----------------------------------------------------------------------------


async def focus_ring(page: Page) -> tuple[str, str, str]:
    """What has focus, and its outline: the focus must be visible."""
    found: list[str] = await page.evaluate(
        """() => { const el = document.activeElement, s = getComputedStyle(el);
                   return [el.id || el.textContent.trim(), s.outlineStyle, s.outlineWidth]; }"""
    )
    return found[0], found[1], found[2]


async def flow_status(store_path: Path, flow_id: str) -> FlowStatus:
    """The flow as the server's store holds it, read by another instance of the flows API."""
    store = SQLiteStore(store_path)
    try:
        flow = await Flows(store).get(flow_id)
    finally:
        await store.aclose()
    assert flow is not None
    return flow.status


# -- entering the secret --------------------------------------------------------------------


async def test_a_person_saves_a_secret_and_the_tool_receives_it(
    server: HttpServer, browser: Browser, sentinel: str, store_path: Path
) -> None:
    """With the mouse: the form, a blank answer refused on the page, the key, Saved; the
    blocking ``secret()`` in the tool returns it (2025-11-25)."""
    pages: list[str] = []

    async def enters(params: types.ElicitRequestURLParams) -> None:
        async with person(browser, "alice") as page:
            await open_page(page, params.url, 200)
            await check_state(page, "pages-secret-entry", title=f"Enter your {SECRET_NAME}")
            assert MESSAGE in await page.locator(".why").inner_text()
            field = page.get_by_label(SECRET_NAME, exact=True)
            assert await field.get_attribute("type") == "password"
            assert await field.get_attribute("autocomplete") == "off"
            help_text = await page.locator("#secret-help").inner_text()
            assert await field.get_attribute("aria-describedby") == "secret-help"
            assert "does not see it" in help_text
            await page.set_viewport_size(PHONE)
            await screenshot(page, "pages-secret-entry-phone")
            await page.set_viewport_size(DESKTOP)
            await page.emulate_media(color_scheme="dark")
            await screenshot(page, "pages-secret-entry-dark")
            await page.emulate_media(color_scheme="light")

            # Spaces get past the browser's own `required` check; the server refuses them
            # and shows the form again, the field empty, the error announced and linked.
            await field.fill("   ")
            pages.append(await submit(page, "Save", 422))
            alert = page.get_by_role("alert")
            assert "Enter a value" in await alert.inner_text()
            field = page.get_by_label(SECRET_NAME, exact=True)
            assert await field.get_attribute("aria-invalid") == "true"
            assert "secret-error" in (await field.get_attribute("aria-describedby") or "")
            assert await field.input_value() == ""
            assert (await focus_ring(page))[0] == "secret"  # back on the field
            await check_state(page, "pages-entry-error", title=f"Enter your {SECRET_NAME}")

            await field.fill(sentinel)
            pages.append(await submit(page, "Save", 200))
            assert page.url == params.url + "/status"
            await check_state(page, "pages-saved", title="Saved")
            assert "close this tab" in await page.locator("main").inner_text()
            assert await page.locator("form").count() == 0

    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        text = await call_with_person(server, "alice", enters, wire=wire)
    assert text.endswith(f"(sha256 {fingerprint_of(sentinel)}…)"), text
    assert sentinel not in text
    assert pages
    server.stop()
    # The real browser's posts leave the key nowhere either: not in the server's log (a GET
    # with the value in its query string would be), not in MCP traffic, not in the store.
    assert_nowhere(
        sentinel,
        wire=wire.data(),
        server_output=server.output(),
        store=store_bytes(store_path),
        page="".join(pages).encode(),
    )


async def test_keyboard_only(server: HttpServer, browser: Browser, sentinel: str) -> None:
    """Tab to the field, type, Enter: Saved, and the tool has the key (2026-07-28, whose
    retry the server holds while the person is on the page). Focus is visible on every
    stop, and Enter in the field means Save, not Decline."""

    async def types_it(params: types.ElicitRequestURLParams) -> None:
        async with person(browser, "alice") as page:
            await open_page(page, params.url, 200)
            await page.keyboard.press("Tab")
            assert await focus_ring(page) == ("secret", "solid", "3px")
            await page.keyboard.type(sentinel)
            await page.keyboard.press("Tab")
            assert await focus_ring(page) == ("Save", "solid", "3px")
            await page.keyboard.press("Tab")
            assert await focus_ring(page) == ("Decline", "solid", "3px")
            await page.keyboard.press("Shift+Tab")
            await page.keyboard.press("Shift+Tab")
            assert (await focus_ring(page))[0] == "secret"
            async with page.expect_navigation() as navigation:
                await page.keyboard.press("Enter")
            assert (await navigation.value).status == 200
            assert await heading(page) == "Saved"

    with anyio.fail_after(TIMEOUT):
        text = await call_with_person(server, "alice", types_it, mode="auto")
    assert text.endswith(f"(sha256 {fingerprint_of(sentinel)}…)"), text


async def test_decline_on_the_page_and_the_tool_hears_declined(
    server: HttpServer, browser: Browser
) -> None:
    """Something typed, then Decline: the value is not even sent, the page says Declined,
    the tool hears ``Declined``."""
    posted: list[str] = []

    async def declines(params: types.ElicitRequestURLParams) -> None:
        async with person(browser, "alice") as page:
            page.on(
                "request",
                lambda request: (
                    posted.append(request.post_data or "") if request.method == "POST" else None
                ),
            )
            await open_page(page, params.url, 200)
            await page.get_by_label(SECRET_NAME, exact=True).fill("typed-then-declined")
            await submit(page, "Decline", 200)
            await check_state(page, "pages-declined", title="Declined")
            assert "received nothing" in await page.locator("main").inner_text()

    with anyio.fail_after(TIMEOUT):
        text = await call_with_person(server, "alice", declines)
    assert text == "declined"
    assert len(posted) == 1 and "action=decline" in posted[0]
    assert "typed-then-declined" not in posted[0] and "value=" not in posted[0]


# -- who may see it -------------------------------------------------------------------------


async def test_another_users_browser_is_refused_and_nothing_is_stored(
    server: HttpServer, browser: Browser, store_path: Path
) -> None:
    """Bob opens Alice's link: the refused state, nothing about her request, no form; a
    browser signed in as nobody sees the same. Alice's own status page says it is still
    waiting; an unknown flow is "Nothing here". Nothing was stored for either of them."""
    with anyio.fail_after(TIMEOUT):
        url = await link_for(server, "alice")
        flow_id = flow_id_of(url)
        async with person(browser, "bob") as page:
            shown = await open_page(page, url, 403)
            await check_state(page, "pages-refused", title="This link was not made for you")
            assert MESSAGE not in shown and SECRET_NAME not in shown and flow_id not in shown
            assert await page.locator("form, input").count() == 0
            await open_page(page, url + "/status", 403)
            assert await heading(page) == "This link was not made for you"
        async with person(browser, None) as page:
            assert await open_page(page, url, 403) == shown  # the same words for nobody
            await check_state(page, None, title="This link was not made for you")

        async with person(browser, "alice") as page:
            await open_page(page, url + "/status", 200)
            await check_state(page, "pages-status-pending", title="Waiting for you")
            assert SECRET_NAME in await page.locator("main").inner_text()
            # "Answer it" leads to the form; "Check again" reloads this page.
            async with page.expect_navigation():
                await page.get_by_role("link", name="Answer it").click()
            assert page.url == url and await heading(page) == f"Enter your {SECRET_NAME}"
            missing = url.rsplit("/", 1)[0] + "/" + "N0-such-flow-id-" * 2
            await open_page(page, missing, 404)
            await check_state(page, "pages-not-found", title="Nothing here")

        assert await flow_status(store_path, flow_id) is FlowStatus.OPENED  # Alice opened it
        assert await connect_later(server, "alice") is None
        assert await connect_later(server, "bob") is None


async def test_an_expired_flow_shows_the_expired_state(
    server: HttpServer, browser: Browser, store_path: Path
) -> None:
    """The flow expires while the form is open (moved past its time through the flows API,
    on the same store, as another instance would see it): Save shows the expired state
    (410), nothing is stored, and the waiting tool hears that the flow expired."""

    async def too_late(params: types.ElicitRequestURLParams) -> None:
        flow_id = flow_id_of(params.url)
        async with person(browser, "alice") as page:
            await open_page(page, params.url, 200)
            await page.get_by_label(SECRET_NAME, exact=True).fill("sk-too-late")
            store = SQLiteStore(store_path)
            try:
                later = Flows(store, clock=lambda: time.time() + 3600)
                expired = await later.get(flow_id)  # reading applies (and stores) expiry
                assert expired is not None and expired.status is FlowStatus.EXPIRED
            finally:
                await store.aclose()
            await submit(page, "Save", 410)
            await check_state(page, "pages-expired", title="This request has expired")
            assert "new link" in await page.locator("main").inner_text()
            await open_page(page, params.url, 410)  # the link itself, opened again
            assert await page.locator("form").count() == 0

    with anyio.fail_after(TIMEOUT):
        text = await call_with_person(server, "alice", too_late)
    assert text == "cancelled: expired"
    assert await connect_later(server, "alice") is None


# -- forgery --------------------------------------------------------------------------------


async def test_a_forged_or_missing_csrf_token_is_refused(
    server: HttpServer, browser: Browser, sentinel: str, store_path: Path
) -> None:
    """The page's own form, its CSRF field changed (then removed) before Save: refused with
    the error state (403), nothing stored; "Open the form again" leads back to a form that
    works. (Also the one other refusal a person can cause: a paste too large, 413.)"""
    with anyio.fail_after(TIMEOUT):
        url = await link_for(server, "alice")
        async with person(browser, "alice") as page:
            # A paste far larger than any key: refused (413) before it is even parsed.
            await open_page(page, url, 200)
            await page.get_by_label(SECRET_NAME, exact=True).fill("k" * 20_000)
            await submit(page, "Save", 413)
            await check_state(page, None, title="Too much data")
            async with page.expect_navigation():
                await page.go_back()

            await page.evaluate(
                "() => { document.querySelector('#entry input[name=csrf]').value = 'forged'; }"
            )
            await page.get_by_label(SECRET_NAME, exact=True).fill("sk-forged-attempt")
            await submit(page, "Save", 403)
            await check_state(page, "pages-csrf", title="This form could not be accepted")
            assert "Nothing was saved" in await page.locator("main").inner_text()

            async with page.expect_navigation():
                await page.get_by_role("link", name="Open the form again").click()
            assert page.url == url
            await page.evaluate("() => document.querySelector('#entry input[name=csrf]').remove()")
            await page.get_by_label(SECRET_NAME, exact=True).fill("sk-forged-attempt")
            await submit(page, "Save", 403)
            assert await heading(page) == "This form could not be accepted"
            assert await flow_status(store_path, flow_id_of(url)) is FlowStatus.OPENED
            assert await connect_later(server, "alice") is None

            async with page.expect_navigation():
                await page.get_by_role("link", name="Open the form again").click()
            await page.get_by_label(SECRET_NAME, exact=True).fill(sentinel)
            await submit(page, "Save", 200)
            assert await heading(page) == "Saved"
        answer = await connect_later(server, "alice")
    assert answer is not None and answer.endswith(f"(sha256 {fingerprint_of(sentinel)}…)")


# -- the Content-Security-Policy, kept ------------------------------------------------------


async def test_the_pages_need_nothing_their_csp_forbids(
    server: HttpServer, browser: Browser, sentinel: str
) -> None:
    """Without bypassing the CSP: the browser refuses nothing (no console complaint), the
    packaged stylesheet applies, and the form works end to end."""
    complaints: list[str] = []

    async def enters(params: types.ElicitRequestURLParams) -> None:
        async with person(browser, "alice", bypass_csp=False) as page:
            page.on("console", lambda message: complaints.append(message.text))
            page.on("pageerror", lambda error: complaints.append(str(error)))
            await open_page(page, params.url, 200)
            css = await page.evaluate(
                "() => getComputedStyle(document.querySelector('main')).borderTopWidth"
            )
            assert css == "5px", "the stylesheet did not apply"
            await page.get_by_label(SECRET_NAME, exact=True).fill(sentinel)
            await submit(page, "Save", 200)
            assert await heading(page) == "Saved"

    with anyio.fail_after(TIMEOUT):
        text = await call_with_person(server, "alice", enters)
    assert text.endswith(f"(sha256 {fingerprint_of(sentinel)}…)")
    assert complaints == []
