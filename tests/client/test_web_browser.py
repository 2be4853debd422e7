"""The web renderer, with a real browser as the person: headless Chromium (Debian's) through
Playwright, a real MCP server (``tests/peer_servers/every_field_server.py``, in process) and
``ElicitingClient`` + ``ElicitationHandler(WebRenderer(...))`` between them.

Every test asserts on what the server's tool received, not on what the page claims. axe-core
runs on every state the page shows; the screenshots (``renderer-*.png``) land where
``tests/browser_support.py`` says (``make screenshots``: ``docs/images``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
import httpx2
import pytest
from playwright.async_api import expect

from mcp_elicit.client import Accept, Decision, ElicitationHandler, ElicitingClient, UrlPrompt
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.web import WebRenderer
from mcp_elicit.forms import Problem
from mcp_elicit.server import Accepted, Cancelled, Declined
from mcp_elicit.urls import check_url
from tests.browser_support import screenshot
from tests.client.held_support import LINK as HELD_LINK
from tests.client.held_support import HeldServer
from tests.client.web_support import (
    FORM,
    browser_context,
    current_heading,
    hosting,
    no_serious_violations,
    open_page,
    recording_links,
)
from tests.client_support import redirect_target
from tests.fake_browser import FakeBrowser
from tests.peer_servers.every_field_server import (
    BLOCKED,
    EVERYTHING,
    LINK,
    SERVER_NAME,
    TERMS,
    Country,
    Extra,
    Room,
)
from tests.peers import missing
from tests.tmux_pane import Pane

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


def message_for(name: str, typed: str) -> str:
    """What the terminal shows under the line for ``typed`` in field ``name``."""
    problem = FORM.coerce(name, typed)
    assert isinstance(problem, Problem), problem
    return f"Error: {clean(problem.message, newlines=False)}"


# -- the host, the server and the person ------------------------------------------------------


# -- a form with every kind of field ------------------------------------------------------------


async def test_every_field_kind_checked_live_reviewed_and_received_by_the_server() -> None:
    async with hosting("2026-07-28") as host, browser_context() as context:
        call = host.call("book_everything")
        page = await open_page(context, host)
        await expect(await current_heading(page)).to_have_text(EVERYTHING)
        assert host.opened == [host.renderer.url]
        await expect(page.locator(".asker .server")).to_have_text(SERVER_NAME)

        # Defaults are filled in, falsy ones too; required fields are marked.
        assert await page.get_by_label("Nights").input_value() == "1"
        assert await page.get_by_label("Budget per night").input_value() == "0"
        assert await page.get_by_label("Note for the desk").input_value() == ""
        assert not await page.get_by_label("Breakfast included").is_checked()
        assert await page.get_by_label("Standard room").is_checked()
        for label in ("Full name", "Email", "Arrival date"):
            await expect(page.locator("label", has_text=label)).to_contain_text("required")
        for legend in ("Country", "Extras"):
            await expect(page.locator(".field", has_text=legend).first).to_contain_text("required")
        await expect(page.locator("label", has_text="Website")).not_to_contain_text("required")
        # Bounds and help are shown with the field.
        await expect(page.locator("#f7-hint")).to_have_text("integer, 1\N{EN DASH}14, default 1")
        await expect(page.locator("#f0-help")).to_have_text("As on your passport")
        # Single choice: radio buttons for a few titled options, a list box for many.
        assert await page.locator("input[type=radio]").count() == 3
        await expect(page.locator("select#f2 option")).to_have_count(8)  # "Choose one…" + 7
        await no_serious_violations(page)
        await screenshot(page, "renderer-form")

        # Review with the required fields empty: every message, focus on the first.
        await page.get_by_role("button", name="Review answers").click()
        name = page.get_by_label("Full name")
        await expect(name).to_be_focused()
        await expect(name).to_have_attribute("aria-invalid", "true")
        await expect(page.locator("#f0-error")).to_have_text("Error: Full name is required")
        await expect(page.locator("#f4-error")).to_be_visible()  # extras: pick at least one

        # Live, before any submit: the form model's own message, as at the terminal.
        await name.fill("A")
        await expect(page.locator("#f0-error")).to_have_text(message_for("name", "A"))
        arrival = page.get_by_label("Arrival date")
        await arrival.fill("2026-13-01")
        await expect(page.locator("#f3-error")).to_have_text(message_for("arrival", "2026-13-01"))
        await page.get_by_label("Nights").fill("30")
        await expect(page.locator("#f7-error")).to_have_text(message_for("nights", "30"))
        await no_serious_violations(page)
        await screenshot(page, "renderer-validation")

        # Fixed, every kind filled in.
        await name.fill("Ada Lovelace")
        await expect(page.locator("#f0-error")).to_be_hidden()
        await expect(name).not_to_have_attribute("aria-invalid", "true")
        await page.get_by_label("Email").fill("ada@example.com")
        await page.get_by_label("Country").select_option(label="Portugal")
        await arrival.fill("2026-05-01")
        # Each fix clears its message a moment later and the fields below move up: wait for
        # it, or a click aimed before the move lands beside the box.
        await expect(page.locator("#f3-error")).to_be_hidden()
        for extra in ("Parking", "Late checkout", "Baby crib"):
            await page.get_by_label(extra).check()
        await expect(page.locator("#f4-error")).to_be_visible()  # three is one too many
        await page.get_by_label("Baby crib").uncheck()
        await expect(page.locator("#f4-error")).to_be_hidden()
        await page.get_by_label("Website").fill("https://ada.example.org/")
        await page.get_by_label("Call me at").fill("2026-05-01T18:30:00+01:00")
        await page.get_by_label("Nights").fill("3")
        await page.get_by_label("Budget per night").fill("120.5")
        await expect(page.locator("#f7-error")).to_be_hidden()
        await page.get_by_label("Breakfast included").check()
        await page.get_by_label("Sea view").check()
        await page.get_by_label("Note for the desk").fill("Quiet room, please")
        await expect(page.locator(".error:visible")).to_have_count(0)

        await page.get_by_role("button", name="Review answers").click()
        review = page.locator("#review-heading")
        await expect(review).to_be_focused()
        lines = page.locator(".review dl")
        # Text as typed, dates included: no JSON quotes on the page.
        arrival_answer = lines.locator("dt", has_text="Arrival date").locator(
            "xpath=following-sibling::dd[1]"
        )
        await expect(arrival_answer).to_have_text("2026-05-01")
        await expect(lines).to_contain_text("Ada Lovelace")
        await expect(lines).not_to_contain_text('"')
        await expect(lines).to_contain_text("Parking (parking), Late checkout (late)")
        await expect(lines).to_contain_text("Sea view (sea)")
        await expect(page.get_by_label("Full name")).to_be_hidden()
        await no_serious_violations(page)
        await screenshot(page, "renderer-review")

        # Edit goes back with every value kept; then submit.
        await page.get_by_role("button", name="Edit answers").click()
        await expect(name).to_have_value("Ada Lovelace")
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit").click()
        received = json.loads(await call.result())
        await expect(await current_heading(page)).to_have_text("Nothing to answer right now")
        await expect(page.locator("#said")).to_have_text("Submitted.")
        await no_serious_violations(page)
        await screenshot(page, "renderer-empty")

    assert received == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "country": "pt",
        "arrival": "2026-05-01",
        "extras": ["parking", "late"],
        "website": "https://ada.example.org/",
        "call_at": "2026-05-01T18:30:00+01:00",
        "nights": 3,
        "budget": 120.5,
        "breakfast": True,
        "room": "sea",
        "note": "Quiet room, please",
    }
    (answer,) = host.made.outcomes
    assert isinstance(answer, Accepted)
    stay = answer.value
    assert stay.country is Country.PT and stay.room is Room.SEA_VIEW
    assert stay.extras == [Extra.PARKING, Extra.LATE]
    assert stay.arrival == date(2026, 5, 1)
    assert stay.call_at == datetime(2026, 5, 1, 18, 30, tzinfo=timezone(timedelta(hours=1)))


@pytest.mark.parametrize(
    ("look", "options"),
    [
        ("dark", {"color_scheme": "dark"}),
        ("phone", {"viewport": {"width": 390, "height": 844}, "is_mobile": True}),
    ],
)
async def test_the_form_reads_in_dark_mode_and_on_a_phone(look: str, options: Any) -> None:
    async with hosting() as host, browser_context(**options) as context:
        call = host.call("book_everything")
        page = await open_page(context, host)
        await expect(await current_heading(page)).to_have_text(EVERYTHING)
        await page.get_by_role("button", name="Review answers").click()
        await expect(page.get_by_label("Full name")).to_be_focused()
        # Nothing sticks out sideways: the page scrolls down only.
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= await page.evaluate("window.innerWidth")
        await no_serious_violations(page)
        await screenshot(page, f"renderer-validation-{look}")
        await page.get_by_role("button", name="Cancel").click()
        assert await call.result() == "cancelled"


async def test_untouched_defaults_are_sent_as_they_were_shown() -> None:
    async with hosting() as host, browser_context() as context:
        call = host.call("quick", {"n": 7})
        page = await open_page(context, host)
        await current_heading(page)
        await page.get_by_label("Your answer").fill("defaults")
        await page.get_by_label("Your answer").press("Enter")  # Enter in a box: to review
        await expect(page.locator(".review dl")).to_contain_text("Medium (m)")
        await page.get_by_role("button", name="Submit").click()
        assert await call.result() == "7:defaults:False:m"


async def test_an_optional_yes_no_left_alone_is_no_answer_and_unticked_is_no() -> None:
    """As at the terminal: the person never said no, so nothing is sent (issue 31). And what
    was said of the first answer ("Submitted.") is gone when the next question comes."""
    async with hosting() as host, browser_context() as context:
        call = host.call("newsletter")
        page = await open_page(context, host)
        await current_heading(page)
        await page.get_by_label("Your name").fill("Ada")
        await page.get_by_role("button", name="Review answers").click()
        answer = page.locator(".review dl dt", has_text="Send me the newsletter").locator(
            "xpath=following-sibling::dd[1]"
        )
        await expect(answer).to_have_text("(no answer)")
        await page.get_by_role("button", name="Submit").click()
        assert json.loads(await call.result()) == {"name": "Ada", "newsletter": None}

        call = host.call("newsletter")
        await expect(await current_heading(page)).to_have_text("Stay in touch?")
        await expect(page.locator("#said")).to_have_text("")  # no "Submitted." under it
        await page.get_by_label("Your name").fill("Ada")
        box = page.get_by_label("Send me the newsletter")
        await box.check()
        await box.uncheck()  # touched, and left at no: that is an answer
        await page.get_by_role("button", name="Review answers").click()
        await expect(answer).to_have_text("no")
        await page.get_by_role("button", name="Submit").click()
        assert json.loads(await call.result()) == {"name": "Ada", "newsletter": False}


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(("button", "outcome"), [("Decline", Declined), ("Cancel", Cancelled)])
async def test_decline_and_cancel_are_distinct_answers(
    protocol: str, button: str, outcome: type
) -> None:
    async with hosting(protocol) as host, browser_context() as context:
        call = host.call("quick", {"n": 1})
        page = await open_page(context, host)
        await current_heading(page)
        await page.get_by_role("button", name=button).click()
        word = "declined" if outcome is Declined else "cancelled"
        assert await call.result() == f"1:{word}"
        await expect(page.locator("#said")).to_have_text(f"{word.capitalize()}.")
    assert isinstance(host.made.outcomes[0], outcome)


async def test_keyboard_only_tab_space_enter_escape() -> None:
    async with hosting() as host, browser_context(csp=True) as context:
        first = host.call("quick", {"n": 1})
        page = await open_page(context, host)
        keys = page.keyboard
        await expect(await current_heading(page)).to_be_focused()
        await keys.press("Tab")
        await expect(page.get_by_label("Your answer")).to_be_focused()
        await keys.type("typed, never clicked")
        await keys.press("Tab")
        urgent = page.get_by_label("Urgent")
        await expect(urgent).to_be_focused()
        await keys.press("Space")
        await expect(urgent).to_be_checked()
        await keys.press("Tab")
        await expect(page.get_by_label("Medium")).to_be_focused()  # the group's checked one
        await keys.press("Tab")
        review = page.get_by_role("button", name="Review answers")
        await expect(review).to_be_focused()
        # The focus ring is visible, not just present.
        outline = await review.evaluate("b => getComputedStyle(b).outlineStyle")
        assert outline == "solid"
        await keys.press("Enter")
        await expect(page.locator("#review-heading")).to_be_focused()
        await keys.press("Tab")
        await expect(page.get_by_role("button", name="Submit")).to_be_focused()
        await keys.press("Enter")
        assert await first.result() == "1:typed, never clicked:True:m"

        # Escape cancels, and the button says so.
        second = host.call("quick", {"n": 2})
        await expect(await current_heading(page)).to_have_text("Question 2: a quick one.")
        cancel = page.get_by_role("button", name="Cancel")
        await expect(cancel).to_have_attribute("aria-keyshortcuts", "Escape")
        await expect(cancel).to_contain_text("Esc")
        await keys.press("Escape")
        assert await second.result() == "2:cancelled"


async def test_findings_about_the_request_are_shown_with_the_form_and_links_stay_text() -> None:
    async with hosting() as host, browser_context() as context:
        call = host.call("terms")
        page = await open_page(context, host)
        await expect(await current_heading(page)).to_have_text(TERMS)
        await expect(page.locator(".findings li")).to_contain_text(
            "Warning: the message contains a URL (https://example.com/terms)"
        )
        assert await page.locator("a[href*='example.com']").count() == 0
        await no_serious_violations(page)
        await page.get_by_role("button", name="Decline").click()
        assert await call.result() == "not accepted"


async def test_a_question_the_server_gives_up_on_leaves_the_page() -> None:
    async with hosting() as host, browser_context() as context:
        # The page is open before the question comes: opening a page can take longer than
        # the server's patience on a busy machine, and the question would be gone unseen.
        page = await open_page(context, host)
        call = host.call("impatient")
        await expect(await current_heading(page)).to_have_text("Quick, before I give up!")
        assert await call.result() == "gave up"
        await expect(await current_heading(page)).to_have_text("Nothing to answer right now")
        await expect(page.locator("#said")).to_contain_text("no longer waiting")


# -- several at once ------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_pending_questions_are_queued_visibly_and_all_answered(protocol: str) -> None:
    async with hosting(protocol) as host, browser_context() as context:
        calls = {n: host.call("quick", {"n": n}) for n in (1, 2, 3)}
        page = await open_page(context, host)
        await expect(page.locator("#queue-heading")).to_have_text("2 more waiting")
        queued = page.locator("#queue-list li")
        await expect(queued).to_have_count(2)
        heading = await current_heading(page)
        shown = {(await heading.inner_text()).split(":")[0]}
        shown |= {(await item.inner_text()).split(": ")[1] for item in await queued.all()}
        assert shown == {"Question 1", "Question 2", "Question 3"}
        await expect(queued.first).to_contain_text(f"{SERVER_NAME} — a form")
        await no_serious_violations(page)
        await screenshot(page, "renderer-queue")

        for left in (1, 0, -1):
            text = await (await current_heading(page)).inner_text()
            n = int(text.removeprefix("Question ").split(":")[0])
            await page.get_by_label("Your answer").fill(f"answer {n}")
            await page.get_by_role("button", name="Review answers").click()
            await page.get_by_role("button", name="Submit").click()
            assert await calls[n].result() == f"{n}:answer {n}:False:m"
            if left > 0:
                await expect(page.locator("#queue-heading")).to_have_text(f"{left} more waiting")
            else:
                await expect(page.locator("#queue")).to_be_hidden()
    assert all(isinstance(a, Accepted) for a in host.made.outcomes)
    assert len(host.made.outcomes) == 3


# -- closing the page ---------------------------------------------------------------------------


async def test_closing_the_page_cancels_what_it_showed_and_the_next_question_reopens_it() -> None:
    async with hosting(closed_after=1.0) as host, browser_context() as context:
        call = host.call("quick", {"n": 1})
        page = await open_page(context, host)
        await current_heading(page)
        await page.close()
        assert await call.result(timeout=10) == "1:cancelled"
        assert isinstance(host.made.outcomes[0], Cancelled)
        assert host.opened == [host.renderer.url]

        again = host.call("quick", {"n": 2})
        with anyio.fail_after(5):
            while len(host.opened) < 2:
                await anyio.sleep(0.05)
        page = await open_page(context, host)
        await expect(await current_heading(page)).to_have_text("Question 2: a quick one.")
        await page.get_by_role("button", name="Decline").click()
        assert await again.result() == "2:declined"


# -- links (URL mode) ---------------------------------------------------------------------------


async def test_link_consent_shows_url_domain_and_warnings_and_opens_only_on_click() -> None:
    verdict = check_url(LINK)
    assert verdict.reasons  # the look-alike host has warnings to show
    async with (
        hosting() as host,
        browser_context() as context,
        recording_links(context) as seen,
    ):
        headers: dict[str, dict[str, str]] = {}
        context.on("request", lambda r: headers.setdefault(r.url, dict(r.headers)))
        call = host.call("open_link")
        page = await open_page(context, host)
        await expect(await current_heading(page)).to_have_text("Sign in to connect your calendar.")
        await expect(page.locator(".asker")).to_contain_text(
            f"{SERVER_NAME} asks you to open a link"
        )
        await expect(page.locator("code.url")).to_have_text(LINK)
        domain = page.locator("strong.domain")
        # The look-alike is shown with what it really is, in the very place one looks.
        await expect(domain).to_have_text(
            f"{verdict.registrable_domain} (punycode: xn--pypal-4ve.com)"
        )
        warnings = page.locator(".warnings li")
        await expect(warnings).to_have_text([f"Warning: {r.message}" for r in verdict.reasons])
        await no_serious_violations(page)
        await screenshot(page, "renderer-url-consent")
        assert LINK not in seen  # nothing fetched it before consent

        # With warnings, opening is not the suggested choice.
        open_link = page.get_by_role("button", name="Open link anyway")
        await expect(open_link).not_to_have_class("primary")
        async with context.expect_page() as opening:
            await open_link.click()
        opened = await opening.value
        await opened.wait_for_url(LINK)
        assert await opened.evaluate("window.opener") is None  # cut off from the page
        assert await call.result() == "accept"
        assert seen.count(LINK) == 1
        # The site is not told where the person came from: the page's address has the token.
        assert headers[LINK].get("referer") is None
        # The handler opened nothing itself: one tab, from the click.
        assert host.opened == [host.renderer.url]


@pytest.mark.parametrize("finished_by", ["person", "server"])
async def test_a_required_link_waits_until_done_then_the_call_is_retried(
    finished_by: str,
) -> None:
    async with (
        hosting() as host,
        browser_context() as context,
        recording_links(context),
    ):
        call = host.call("needs_link")
        page = await open_page(context, host)
        await current_heading(page)
        await expect(page.locator(".link-facts")).to_contain_text("needs_link")  # needed by
        async with context.expect_page():
            await page.get_by_role("button", name="Open link").click()
        await expect(await current_heading(page)).to_have_text(
            "Waiting for you to finish on the page"
        )
        await expect(page.get_by_role("button", name="I'm done")).to_be_visible()
        await no_serious_violations(page)
        await screenshot(page, "renderer-waiting")
        if finished_by == "person":
            await page.get_by_role("button", name="I'm done").click()
        else:
            assert await host.call("complete_link").result() == "completed"
        assert await call.result() == "linked"
        await expect(await current_heading(page)).to_have_text("Nothing to answer right now")


@pytest.mark.parametrize("then", ["I opened it myself", "Cancel"])
async def test_a_link_the_browser_would_not_open_is_shown_to_copy_and_not_yet_answered(
    then: str,
) -> None:
    async with (
        hosting() as host,
        browser_context() as context,
        recording_links(context) as seen,
    ):
        # A pop-up blocker: the browser refuses the new tab.
        await context.add_init_script("window.open = () => null;")
        call = host.call("open_link")
        page = await open_page(context, host)
        await current_heading(page)
        await page.get_by_role("button", name="Open link anyway").click()
        refused = page.locator(".not-opened")
        await expect(refused).to_be_visible()
        await expect(refused.locator(".error")).to_contain_text(
            "Your browser did not open the link"
        )
        copy = page.get_by_label("Copy the link and open it yourself:")
        await expect(copy).to_have_value(LINK)
        await expect(page.get_by_role("button", name="Open link anyway")).to_be_hidden()
        await no_serious_violations(page)
        await anyio.sleep(0.5)
        assert not call.done.is_set()  # nothing was answered: not accept
        assert LINK not in seen
        await page.get_by_role("button", name=then).click()
        assert await call.result() == ("accept" if then == "I opened it myself" else "cancel")
        assert host.opened == [host.renderer.url]  # the handler's opener was never called


async def test_the_redirect_file_leads_a_real_browser_to_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp_elicit.client.opening import remove_redirect, write_redirect

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    async with hosting() as host, browser_context(csp=True) as context:
        path = write_redirect(host.renderer.url, linger=None)
        try:
            page = await context.new_page()
            await page.goto(path.as_uri())
            await page.wait_for_url(host.renderer.url)
            await expect(await current_heading(page)).to_have_text("Nothing to answer right now")
        finally:
            remove_redirect(path)


async def test_the_page_shows_the_retry_the_server_holds_and_done_asks_again() -> None:
    held = HeldServer(hold=30.0)
    async with WebRenderer(opener=None, announce=None) as renderer:
        handler = ElicitationHandler(renderer, opener=None)
        async with (
            ElicitingClient(held.server, handler, protocol="2026-07-28") as client,
            browser_context() as context,
            anyio.create_task_group() as tasks,
        ):
            await context.route(
                "**/*",
                lambda r: (
                    r.continue_() if urlsplit(r.request.url).hostname == "127.0.0.1" else r.abort()
                ),
            )
            results: list[str] = []

            async def call() -> None:
                result = await client.call_tool("connect", {})
                results.append(" ".join(getattr(c, "text", "") for c in result.content))

            tasks.start_soon(call)
            page = await context.new_page()
            await page.goto(renderer.url)
            await expect(await current_heading(page)).to_have_text(
                "Sign in to connect your account."
            )
            async with context.expect_page():
                await page.get_by_role("button", name="Open link").click()
            await expect(await current_heading(page)).to_have_text(
                "Waiting for you to finish on the page"
            )
            await expect(page.locator(".prompt.waiting .explain")).to_contain_text(
                "goes on once you have finished there"
            )
            await expect(page.locator(".prompt.waiting code.url")).to_have_text(HELD_LINK)
            await held.when_holding()
            await no_serious_violations(page)
            await page.get_by_role("button", name="I'm done").click()
            await held.when_holding(retries=2)  # asked again at once, held again
            await expect(page.get_by_role("button", name="I'm done")).to_be_visible()
            held.page_done.set()
            await expect(await current_heading(page)).to_have_text("Nothing to answer right now")
            with anyio.fail_after(10):
                while not results:
                    await anyio.sleep(0.05)
    assert results == ["connected"]
    assert held.retries == ["accept", "accept"]


async def test_a_notice_appears_in_the_live_region() -> None:
    async with hosting() as host, browser_context() as context:
        page = await open_page(context, host)
        await current_heading(page)
        call = host.call("blocked_link")
        assert await call.result() == "cancel"
        notice = page.locator("#notices li")
        await expect(notice).to_contain_text(f"Error from {SERVER_NAME}: Blocked a link")
        await expect(page.locator("#notices")).to_have_attribute("aria-live", "polite")
        assert BLOCKED not in await page.content()  # a blocked link is never shown
        await no_serious_violations(page)
        await screenshot(page, "renderer-notice")


async def test_the_page_says_when_the_session_has_ended() -> None:
    async with browser_context() as context:
        async with hosting() as host:
            page = await open_page(context, host)
            await expect(await current_heading(page)).to_have_text("Nothing to answer right now")
        await expect(await current_heading(page)).to_have_text("This session has ended")
        await expect(page).to_have_title("Session ended — mcp-elicit")
        await no_serious_violations(page)


# -- no network, no strangers -----------------------------------------------------------------


async def test_the_page_works_with_every_request_off_loopback_blocked() -> None:
    requests: list[str] = []
    async with hosting() as host, browser_context(csp=True) as context:

        async def loopback_only(route: Any) -> None:
            if urlsplit(route.request.url).hostname == "127.0.0.1":
                await route.continue_()
            else:
                await route.abort()

        await context.route("**/*", loopback_only)
        context.on("request", lambda request: requests.append(request.url))
        call = host.call("book_everything")
        page = await open_page(context, host)
        await expect(await current_heading(page)).to_have_text(EVERYTHING)
        # The stylesheet and the script came from the renderer itself.
        background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(243, 245, 248)"
        await page.get_by_label("Full name").fill("A")
        await expect(page.locator("#f0-error")).to_have_text(message_for("name", "A"))
        await page.get_by_role("button", name="Cancel").click()
        assert await call.result() == "cancelled"
    assert requests
    assert {urlsplit(url).hostname for url in requests} == {"127.0.0.1"}


async def test_without_the_token_or_from_another_host_nothing_is_told() -> None:
    async with hosting() as host:
        call = host.call("quick", {"n": 1})
        url = urlsplit(host.renderer.url)
        assert url.hostname == "127.0.0.1"
        origin = f"http://{url.netloc}"
        token = url.path.strip("/")
        assert len(token) >= 43  # 32 random bytes, base64
        async with httpx2.AsyncClient(timeout=10) as http:
            with anyio.fail_after(10):
                while "Question 1" not in (await http.get(f"{host.renderer.url}api/state")).text:
                    await anyio.sleep(0.05)
            refused = [
                await http.get(f"{origin}/"),
                await http.get(f"{origin}/api/state"),
                await http.get(f"{origin}/{token[:-1]}x/api/state"),
                await http.get(f"{origin}/static/renderer.js"),
                await http.post(f"{origin}/api/answer", json={"id": "p1", "action": "cancel"}),
            ]
            for response in refused:
                assert response.status_code == 404
                assert "Question" not in response.text
            rebound = await http.get(
                f"{host.renderer.url}api/state", headers={"Host": f"evil.example:{url.port}"}
            )
            assert rebound.status_code == 403 and "Question" not in rebound.text
            answer = f"{host.renderer.url}api/answer"
            cancel = json.dumps({"id": "p1", "action": "cancel"})
            as_form = await http.post(
                answer, content=cancel, headers={"Content-Type": "text/plain"}
            )
            assert as_form.status_code == 415
            cross = await http.post(
                answer,
                content=cancel,
                headers={"Content-Type": "application/json", "Origin": "http://evil.example"},
            )
            assert cross.status_code == 403
            assert not call.done.is_set()  # none of those reached the question

            page = await http.get(host.renderer.url)
            for response in (page, refused[0], rebound):
                csp = response.headers["Content-Security-Policy"]
                assert "script-src 'self'" in csp and "unsafe-inline" not in csp
                assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
                assert response.headers["X-Frame-Options"] == "DENY"
                assert response.headers["Referrer-Policy"] == "no-referrer"
                assert response.headers["Cache-Control"] == "no-store"
            assert '<script src="static/renderer.js"' in page.text
            assert "<script>" not in page.text and "style=" not in page.text

            accepted = await http.post(
                answer,
                content=cancel,
                headers={"Origin": origin, "Content-Type": "application/json"},
            )
            assert accepted.status_code == 200
        assert await call.result() == "1:cancelled"


# -- the command line: connect --ui web, demo --ui web ------------------------------------------


@dataclass
class Terminal:
    """``mcp-elicit`` in a tmux pane, its browser a script that writes down what it opens."""

    tmp_path: Path
    panes: list[Pane] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.browser = FakeBrowser(self.tmp_path)

    def start(self, *words: str) -> Pane:
        env = {
            "BROWSER": str(self.browser.script),
            "PATH": os.environ.get("PATH", ""),
            "TERM": "xterm",
            "XDG_STATE_HOME": str(self.tmp_path / "state"),
        }
        pane = Pane([sys.executable, "-m", "mcp_elicit", *words], env)
        self.panes.append(pane)
        return pane

    async def page_url(self, timeout: float = 20.0) -> str:
        """The page's address, read from the redirect file the browser was given: its
        command line holds only that file's name, never the token."""
        (given,) = await self.browser.wait_async(timeout=timeout)
        assert given.startswith("file://"), given
        url = redirect_target(Path(given.removeprefix("file://")))
        assert urlsplit(url).path.strip("/") not in given  # the token is not in the argument
        return url


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        missing("tmux")
    running = Terminal(tmp_path)
    yield running
    for pane in running.panes:
        pane.close()


async def shows(pane: Pane, text: str, **options: Any) -> str:
    return await anyio.to_thread.run_sync(lambda: pane.wait_for(text, **options))


async def review_and_submit(page: Any) -> None:
    await page.get_by_role("button", name="Review answers").click()
    await page.get_by_role("button", name="Submit").click()


@pytest.mark.tmux  # the command runs in a tmux pane
@pytest.mark.slow
async def test_connect_ui_web_answers_in_the_browser(terminal: Terminal) -> None:
    booking = [
        sys.executable,
        str(Path(__file__).parent.parent.parent / "examples" / "booking_server.py"),
    ]
    pane = terminal.start("connect", "--ui", "web", "--", *booking)
    await shows(pane, "mcp>", timeout=Pane.STARTUP)
    pane.type("call book_table")
    url = await terminal.page_url()
    screen = await shows(pane, f"booking-demo asks something: answer on {url}")
    assert urlsplit(url).hostname == "127.0.0.1"
    async with browser_context(csp=True) as context:
        page = await context.new_page()
        await page.goto(url)
        await expect(await current_heading(page)).to_have_text("Book a table at Chez MCP?")
        await page.get_by_label("Your name").fill("Ada")
        await page.get_by_label("Guests").fill("12")
        await expect(page.locator("#f1-error")).to_have_text("Error: must be 8 or less (it is 12)")
        await page.get_by_label("Guests").fill("3")
        await page.get_by_label("terrace").check()
        await review_and_submit(page)
        await shows(pane, "Booked a table for 3 (terrace) under Ada.")
    pane.type("quit")
    await shows(pane, "[exited 0]")
    assert "Traceback" not in screen


@pytest.mark.tmux  # the command runs in a tmux pane
@pytest.mark.slow
async def test_demo_ui_web_books_confirms_and_opens_the_servers_own_page(
    terminal: Terminal,
) -> None:
    pane = terminal.start("demo", "--ui", "web", "--protocol", "2025-11-25")
    await shows(pane, "with a page in your browser for its questions", timeout=Pane.STARTUP)
    await shows(pane, "Press Enter to call book_room")
    pane.keys("Enter")
    url = await terminal.page_url()
    key = f"demo-key-{uuid.uuid4().hex}"
    async with browser_context() as context:
        page = await context.new_page()
        await page.goto(url)
        await expect(await current_heading(page)).to_contain_text("Book a room at Hotel MCP")
        await page.get_by_label("Guest name").fill("Ada Lovelace")
        await page.get_by_label("Arrival date").fill("2026-13-01")
        await expect(page.locator("#f1-error")).to_contain_text("must be a real calendar date")
        await page.get_by_label("Arrival date").fill("2026-12-01")
        await expect(page.locator("#f1-error")).to_be_hidden()  # the fields below move up
        await page.get_by_label("Nights").fill("3")
        await page.get_by_label("Sea view").check()
        await no_serious_violations(page)
        await screenshot(page, "renderer-demo")
        await review_and_submit(page)
        await expect(await current_heading(page)).to_contain_text("Any extras?")
        await page.get_by_label("Parking", exact=True).check()
        await page.get_by_label("Late checkout", exact=True).check()
        await review_and_submit(page)
        await shows(pane, "Total €455.")

        await shows(pane, "Press Enter to call cancel_booking")
        pane.keys("Enter")
        await expect(await current_heading(page)).to_contain_text("Cancel booking B-1042")
        await page.get_by_role("checkbox").check()
        await review_and_submit(page)
        await shows(pane, "Cancelled B-1042.")

        await shows(pane, "Press Enter to call forget_weather_key")
        pane.keys("Enter")
        await shows(pane, "Press Enter to call connect_weather")
        pane.keys("Enter")
        await expect(page.locator(".asker")).to_contain_text("Hotel MCP asks you to open a link")
        link = await page.locator("code.url").inner_text()
        assert link.startswith("http://127.0.0.1:") and "/elicit/flows/" in link
        async with context.expect_page() as opening:
            await page.get_by_role("button", name="Open link").click()
        hotel = await opening.value
        await hotel.wait_for_url(link)  # the server's own page, opened from the person's click
        await hotel.locator("input[type=password]").fill(key)
        await hotel.locator("input[type=password]").press("Enter")  # Enter means Save
        await shows(pane, "Connected the weather service with key sha256:")
    await shows(pane, "Press Enter to call forecast")
    pane.keys("C-d")
    await shows(pane, "[exited 0]")
    assert key not in pane.screen()
    assert len(terminal.browser.links()) == 1  # one page, opened once


async def test_a_sign_in_is_shown_as_the_servers_own_sign_in_not_a_tools_question() -> None:
    url = "https://accounts.example.com/auth?client_id=mcp-elicit"
    prompt = UrlPrompt(
        server="hotel.example",
        message="hotel.example requires you to sign in before it can be used.",
        url=url,
        verdict=check_url(url),
        sign_in=True,
    )
    async with (
        WebRenderer(opener=None, announce=None) as renderer,
        browser_context() as context,
        recording_links(context) as seen,
        anyio.create_task_group() as tasks,
    ):
        answers: list[Decision] = []

        async def ask() -> None:
            answers.append(await renderer.ask_url(prompt))

        tasks.start_soon(ask)
        page = await context.new_page()
        await page.goto(renderer.url)
        await expect(await current_heading(page)).to_have_text(prompt.message)
        await expect(page.locator(".asker")).to_contain_text("hotel.example asks you to sign in")
        await expect(page.locator(".sign-in-note")).to_contain_text(
            "the server's own sign-in (MCP authorization), not a question from a tool"
        )
        await expect(page.locator("strong.domain")).to_have_text("example.com")
        await no_serious_violations(page)
        await screenshot(page, "renderer-sign-in-consent")
        assert url not in seen
        async with context.expect_page():
            await page.get_by_role("button", name="Open link").click()
        with anyio.fail_after(10):
            while not answers:
                await anyio.sleep(0.05)
        assert answers == [Accept()]

        back = anyio.Event()
        waited: list[Decision] = []

        async def wait() -> None:
            waited.append(await renderer.wait_for_completion(prompt, back))

        tasks.start_soon(wait)
        await expect(await current_heading(page)).to_have_text("Waiting for you to sign in")
        await expect(page.get_by_role("button", name="I'm done")).to_have_count(0)
        await no_serious_violations(page)
        back.set()
        with anyio.fail_after(10):
            while not waited:
                await anyio.sleep(0.05)
