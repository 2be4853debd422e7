"""The web renderer in Simplified Chinese, in a real Chromium: every state the page shows is
in the browser's language (``Accept-Language``) or the host's (``WebRenderer(language=...)``),
with ``<html lang>``, axe-clean, photographed (``renderer-zh-*.png``, docs/languages.md).
Under the pseudo-locale no plain English word is left on any of those states but the server's
own words.

The expected Chinese comes from the catalog and is checked to be Chinese first, so an
untranslated string fails here instead of matching itself.
"""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from playwright.async_api import expect

from mcp_elicit.client import Accept, Decision, UrlPrompt
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.web import WebRenderer
from mcp_elicit.client.web.words import _PAGE_WORDS, _script_words, forget_page_html
from mcp_elicit.forms import Problem
from mcp_elicit.i18n import _, language
from mcp_elicit.urls import check_url
from tests import i18n_support
from tests.browser_support import screenshot
from tests.client.web_support import (
    FORM,
    browser_context,
    current_heading,
    hosting,
    no_serious_violations,
    open_page,
    recording_links,
)
from tests.peer_servers.every_field_server import EVERYTHING, LINK, SERVER_NAME

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

_CJK = re.compile(r"[\u4e00-\u9fff]")
CHINESE_BROWSER = {"locale": "zh-CN"}


def zh(msgid: str, /, **fields: object) -> str:
    with language("zh-Hans"):
        text = _(msgid).format(**fields)
    assert _CJK.search(text), f"not translated: {msgid!r}"
    return text


def zh_message_for(name: str, typed: str) -> str:
    with language("zh-Hans"):
        problem = FORM.coerce(name, typed)
        assert isinstance(problem, Problem), problem
        return _("Error: {message}").format(message=clean(problem.message, newlines=False))


def english_left(shown: str) -> list[str]:
    """The page's own English words (its script's and index.html's, the parts outside their
    {fields}) still on it: each should have been replaced by its translation."""
    left = []
    for msgid in {*_script_words(), *_PAGE_WORDS}:
        for part in re.split(r"\{\w+\}", msgid):
            part = part.strip(" :.,;()…")
            if re.search(r"[A-Za-z]{2}", part) and re.search(rf"\b{re.escape(part)}\b", shown):
                left.append(part)
    return sorted(left)


async def in_chinese(page: Any) -> None:
    assert await page.evaluate("document.documentElement.lang") == "zh-Hans"
    assert _CJK.search(await page.title())
    assert english_left(await visible_text(page)) == []
    await no_serious_violations(page)


async def fields_checked(page: Any) -> None:
    """Wait until the server has checked the first four fields, now right: their messages go
    then and the fields below move up, so a click aimed before that lands beside its box."""
    for n in range(4):
        await expect(page.locator(f"#f{n}-error")).to_be_hidden()


async def test_every_state_in_chinese_from_the_browsers_language() -> None:
    async with hosting("2026-07-28") as host, browser_context(**CHINESE_BROWSER) as context:
        call = host.call("book_everything")
        page = await open_page(context, host)
        await expect(await current_heading(page)).to_have_text(EVERYTHING)  # the server's words
        await expect(page.locator(".asker")).to_have_text(zh("{server} asks:", server=SERVER_NAME))
        await expect(page.get_by_role("button", name=zh("Review answers"))).to_be_visible()
        await in_chinese(page)
        await screenshot(page, "renderer-zh-form")

        # Validation: the form model's messages, in Chinese, from the server side of the page.
        await page.get_by_role("button", name=zh("Review answers")).click()
        name = page.get_by_label("Full name")
        await expect(page.locator("#f0-error")).to_have_text(
            zh("Error: {message}", message=zh("{label} is required", label="Full name"))
        )
        await name.fill("A")
        await expect(page.locator("#f0-error")).to_have_text(zh_message_for("name", "A"))
        await page.get_by_label("Arrival date").fill("2026-13-01")
        await expect(page.locator("#f3-error")).to_have_text(
            zh_message_for("arrival", "2026-13-01")
        )
        await in_chinese(page)
        await screenshot(page, "renderer-zh-validation")

        await name.fill("Ada Lovelace")
        await page.get_by_label("Email").fill("ada@example.com")
        await page.get_by_label("Country").select_option(label="Portugal")
        await page.get_by_label("Arrival date").fill("2026-05-01")
        await fields_checked(page)
        await page.get_by_label("Parking").check()
        await page.get_by_label("Nights").fill("3")
        await page.get_by_role("button", name=zh("Review answers")).click()
        await expect(page.locator("#review-heading")).to_have_text(zh("Review your answers"))
        lines = page.locator(".review dl")
        # The date the person's way; what the server receives stays 2026-05-01.
        await expect(lines).to_contain_text("2026年5月1日")
        await in_chinese(page)
        await screenshot(page, "renderer-zh-review")
        await page.get_by_role("button", name=zh("Submit"), exact=True).click()
        assert '"2026-05-01"' in await call.result()
        await expect(await current_heading(page)).to_have_text(zh("Nothing to answer right now"))
        await expect(page.locator("#said")).to_have_text(zh("Submitted."))
        await in_chinese(page)
        await screenshot(page, "renderer-zh-empty")


async def test_the_queue_link_consent_and_waiting_in_chinese() -> None:
    verdict = check_url(LINK)
    async with hosting() as host, browser_context(**CHINESE_BROWSER) as context:
        link = host.call("open_link")
        quick = host.call("quick", {"n": 1})
        page = await open_page(context, host)
        await expect(page.locator("#queue-heading")).to_have_text(zh("{n} more waiting", n=1))
        await in_chinese(page)
        await screenshot(page, "renderer-zh-queue")
        if await page.locator("article.link").count() == 0:  # the form came first: answer it
            await page.get_by_label("Your answer").fill("1")
            await page.get_by_role("button", name=zh("Review answers")).click()
            await page.get_by_role("button", name=zh("Submit"), exact=True).click()
        await expect(page.locator(".asker")).to_have_text(
            zh("{server} asks you to open a link:", server=SERVER_NAME)
        )
        with language("zh-Hans"):
            warnings = [
                zh("Warning: {message}", message=r.message) for r in check_url(LINK).reasons
            ]
        assert len(warnings) == len(verdict.reasons)
        await expect(page.locator(".warnings li")).to_have_text(warnings)
        await expect(page.locator(".link-facts dt").first).to_have_text(zh("Domain"))
        await in_chinese(page)
        await screenshot(page, "renderer-zh-url-consent")
        async with context.expect_page():
            await page.get_by_role("button", name=zh("Open link anyway")).click()
        assert await link.result() == "accept"
        if not quick.done.is_set():
            await page.get_by_label("Your answer").fill("1")
            await page.get_by_role("button", name=zh("Review answers")).click()
            await page.get_by_role("button", name=zh("Submit"), exact=True).click()
        await quick.result()

        waiting = host.call("needs_link")
        await expect(page.get_by_role("button", name=zh("Open link"))).to_be_visible()
        async with context.expect_page():
            await page.get_by_role("button", name=zh("Open link")).click()
        await expect(await current_heading(page)).to_have_text(
            zh("Waiting for you to finish on the page")
        )
        await in_chinese(page)
        await screenshot(page, "renderer-zh-waiting")
        await page.get_by_role("button", name=zh("I'm done")).click()
        assert await waiting.result() == "linked"


async def test_a_notice_is_in_chinese() -> None:
    async with hosting() as host, browser_context(**CHINESE_BROWSER) as context:
        page = await open_page(context, host)
        await current_heading(page)
        assert await host.call("blocked_link").result() == "cancel"
        with language("zh-Hans"):
            said = _("Error from {server}: {text}").format(server=SERVER_NAME, text="")
        assert _CJK.search(said)
        await expect(page.locator("#notices li")).to_contain_text(said.strip())
        await in_chinese(page)
        await screenshot(page, "renderer-zh-notice")


async def test_a_sign_in_consent_and_its_wait_in_chinese() -> None:
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
        browser_context(**CHINESE_BROWSER) as context,
        recording_links(context),
        anyio.create_task_group() as tasks,
    ):
        answers: list[Decision] = []

        async def ask() -> None:
            answers.append(await renderer.ask_url(prompt))

        tasks.start_soon(ask)
        page = await context.new_page()
        await page.goto(renderer.url)
        await expect(await current_heading(page)).to_have_text(prompt.message)
        await expect(page.locator(".asker")).to_have_text(
            zh("{server} asks you to sign in:", server="hotel.example")
        )
        await expect(page.locator(".sign-in-note")).to_have_text(
            zh(
                "This is the server's own sign-in (MCP authorization), not a question from a "
                "tool. The link opens its authorization server's sign-in page; your browser then "
                "comes back to mcp-elicit on this machine (127.0.0.1). Check the domain is who "
                "you expect to sign in with."
            )
        )
        await in_chinese(page)
        await screenshot(page, "renderer-zh-sign-in-consent")
        async with context.expect_page():
            await page.get_by_role("button", name=zh("Open link")).click()
        with anyio.fail_after(10):
            while not answers:
                await anyio.sleep(0.05)
        assert answers == [Accept()]

        back = anyio.Event()
        waited: list[Decision] = []

        async def wait() -> None:
            waited.append(await renderer.wait_for_completion(prompt, back))

        tasks.start_soon(wait)
        await expect(await current_heading(page)).to_have_text(zh("Waiting for you to sign in"))
        await in_chinese(page)
        await screenshot(page, "renderer-zh-sign-in-waiting")
        back.set()
        with anyio.fail_after(10):
            while not waited:
                await anyio.sleep(0.05)


async def test_the_hosts_setting_wins_over_an_english_browser_and_the_end_is_in_chinese() -> None:
    async with browser_context(locale="en-US") as context:
        async with hosting(language="zh-CN") as host:
            assert host.renderer.language == "zh-Hans"
            page = await open_page(context, host)
            await expect(await current_heading(page)).to_have_text(
                zh("Nothing to answer right now")
            )
            await in_chinese(page)
        await expect(await current_heading(page)).to_have_text(zh("This session has ended"))
        await expect(page).to_have_title(zh("Session ended — mcp-elicit"))
        await in_chinese(page)
        await screenshot(page, "renderer-zh-ended")


def test_a_host_setting_with_no_catalog_is_refused_naming_the_languages() -> None:
    with pytest.raises(ValueError, match=r"'fr'.*en, zh-Hans"):
        WebRenderer(language="fr")


async def visible_text(page: Any) -> str:
    return str(
        await page.evaluate(
            """() => [document.title, document.body.innerText,
                ...[...document.querySelectorAll('[placeholder],[aria-label],input[value]')]
                  .map((n) => [n.getAttribute('placeholder'), n.getAttribute('aria-label'),
                               n.type === 'text' ? '' : n.value].join(' '))].join('\\n')"""
        )
    )


async def test_nothing_escapes_the_catalogs_on_the_page() -> None:
    """The browser asks for the pseudo-locale (``Accept-Language: en-XA``): every word the page
    shows on each state is from a catalog, but for the server's words and the names of things."""
    i18n_support.install()
    forget_page_html()
    verdict = check_url(LINK)
    assert verdict.display_host is not None
    # What the server and the test wrote, and the names of things: not the page's own words.
    # (Never an empty string: escaped() would then split every word and find none.)
    ours = [
        EVERYTHING,
        SERVER_NAME,
        LINK,
        "mcp-elicit",
        *(f.label for f in FORM),
        *(c.label for f in FORM for c in f.choices),
        *(c.value for f in FORM for c in f.choices),  # a choice's value, as the review shows it
        *(f.help for f in FORM if f.help),
        "Ada Lovelace",
        "ada@example.com",
        "Esc",
        "MB",
        "KB",
        "punycode",
        # The link prompt: the server's message, the tool that needs it, the host's forms.
        "Sign in first.",
        "needs_link",
        verdict.display_host.unicode,
        verdict.display_host.ascii,
        verdict.registrable_domain or LINK,
        "xn--pypal-4ve.com",
        "pаypal",  # the label a warning quotes (its "а" is Cyrillic)
        "accounts.paypal.com",  # how the host can be read
        "CYRILLIC SMALL LETTER A",  # a Unicode character's name, an identifier
        "'a'",
        "Question 1: a quick one.",
    ]

    async def nothing_escapes(state: str) -> None:
        assert (state, i18n_support.escaped(await visible_text(page), ours)) == (state, [])

    try:
        async with (
            hosting() as host,
            browser_context(locale=i18n_support.PSEUDO) as context,
        ):
            call = host.call("book_everything")
            page = await open_page(context, host)
            await current_heading(page)
            assert await page.evaluate("document.documentElement.lang") == i18n_support.PSEUDO
            await nothing_escapes("form")
            review = page.get_by_role("button", name=i18n_support.pseudo("Review answers"))
            await review.click()
            await page.get_by_label("Full name").fill("A")
            await page.get_by_label("Arrival date").fill("2026-13-01")
            await expect(page.locator("#f3-error")).to_be_visible()
            await expect(page.locator(".summary")).to_be_visible()
            await nothing_escapes("validation")

            await page.get_by_label("Full name").fill("Ada Lovelace")
            await page.get_by_label("Email").fill("ada@example.com")
            await page.get_by_label("Country").select_option(label="Portugal")
            await page.get_by_label("Arrival date").fill("2026-05-01")
            await fields_checked(page)
            await page.get_by_label("Parking").check()
            await page.get_by_label("Call me at").fill("2026-05-01T10:00:00Z")
            await review.click()
            await expect(page.locator("#review-heading")).to_be_visible()
            await nothing_escapes("review")
            await page.get_by_role("button", name=i18n_support.pseudo("Submit"), exact=True).click()
            assert await call.result()
            await expect(await current_heading(page)).to_have_text(
                i18n_support.pseudo("Nothing to answer right now")
            )
            await nothing_escapes("empty")

            waiting = host.call("needs_link")
            await expect(page.locator("article.link .warnings li")).to_have_count(
                len(verdict.reasons)
            )
            await nothing_escapes("url consent")
            async with context.expect_page():
                await page.get_by_role(
                    "button", name=i18n_support.pseudo("Open link anyway")
                ).click()
            await expect(page.locator("article.waiting")).to_be_visible()
            quick = host.call("quick", {"n": 1})
            await expect(page.locator("#queue")).to_be_visible()
            await nothing_escapes("waiting, with one more in the queue")
            await page.get_by_role("button", name=i18n_support.pseudo("I'm done")).click()
            assert await waiting.result() == "linked"
            await page.get_by_label("Your answer").fill("1")
            await review.click()
            await page.get_by_role("button", name=i18n_support.pseudo("Submit"), exact=True).click()
            await quick.result()
    finally:
        forget_page_html()
