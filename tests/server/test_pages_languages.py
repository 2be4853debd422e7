"""The hosted pages in the person's language.

Each request is answered in the first language of its ``Accept-Language`` that has a catalog,
else in the pages' language (``Elicitation(language=...)``, ``hosted_pages(language=...)``, else
the process's); English, which nearly every browser asks for, counts as the pages' language
(``pages/languages.py`` says why). Every page says which (``<html lang>``,
``Content-Language``) and that it depends on ``Accept-Language`` (``Vary``), and two requests
answered at the same time keep their own.

Over HTTP (httpx on the ASGI app, as ``test_pages.py``): the headers and the ``lang`` of every
kind of response, the server's default, the setting's validation, two requests at once, and
the pseudo-locale on the pages a browser rarely reaches (refused bodies, the server error, the
Host refusal, sign-in and connect pages).

In a real Chromium on a real server process (as ``test_pages_browser.py``, with the helpers
of ``pages_support.py``): every state in Chinese for a browser whose locale is ``zh-CN``,
axe-clean, with screenshots ``pages-zh-<state>``; the sign-in and connect pages in Chinese; an
English browser on a server whose pages are set to ``zh-Hans``; a Chinese and an English
browser at the same time; and every state under the pseudo-locale ``en-XA``
(``tests/i18n_support.py``), where any plain English word left on the page is a string that
escaped the catalogs.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Mount

from mcp_elicit.flows import Flows, FlowStatus
from mcp_elicit.i18n import _, language
from mcp_elicit.server import Elicitation
from mcp_elicit.server.identity import Identity
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.links import OAUTH_PURPOSE
from mcp_elicit.server.oauth import OAuthProvider, OidcIdentity
from mcp_elicit.server.pages import (
    PAGES_PREFIX,
    SECRET_PURPOSE,
    flow_path,
    hosted_pages,
    page_hosts,
)
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import MemoryStore, SQLiteStore
from tests import i18n_support
from tests.browser_support import chromium
from tests.i18n_support import PSEUDO, escaped
from tests.identities import TEST_USER_HEADER, HeaderIdentity
from tests.peer_servers import secret_server, secret_server_i18n
from tests.peer_servers.secret_server import (
    MESSAGE,
    SECRET_NAME,
    HttpServer,
    fingerprint_of,
    flow_id_of,
    start_http,
    user_of_token,
)
from tests.server.pages_support import (
    SERVER_NAME,
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
from tests.server_support import serve_on_loopback

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

pytestmark = pytest.mark.anyio

ORIGIN = "http://pages.test"
SERVER = "Acme Weather"
NAME = "weather-api"
WHY = "To fetch forecasts for you."
ALICE = {TEST_USER_HEADER: "alice"}
BOB = {TEST_USER_HEADER: "bob"}
ZH = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}
XA = {"Accept-Language": PSEUDO}
LANG = re.compile(r'<html lang="([^"]*)">')
FORM_TYPE = "application/x-www-form-urlencoded"
HOST_REFUSED = (
    "Bad request: this server does not answer to that host name. Open the link exactly as the "
    "app gave it."
)


def lang_of(page: str) -> str:
    found = LANG.search(page)
    assert found is not None, page[:200]
    return found.group(1)


def varies_by_language(response: httpx2.Response) -> bool:
    vary = response.headers.get("vary", "")
    return "accept-language" in [v.strip().lower() for v in vary.split(",")]


class Shown(HTMLParser):
    """What a person is shown of a page: its text (the title's included), and the words in
    attributes a browser shows or reads out (placeholders, labels, tooltips, alt texts,
    the labels of input buttons). Not hidden fields, not a ``<button>``'s ``value`` (the
    action's code, sent with the form, never shown)."""

    SHOWN_ATTRIBUTES = ("placeholder", "aria-label", "title", "alt")

    def __init__(self, page: str) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.parts += [found[a] or "" for a in self.SHOWN_ATTRIBUTES if a in found]
        if tag == "input" and found.get("type") in ("submit", "button", "reset"):
            self.parts.append(found.get("value") or "")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join(self.parts)


def words(tag: str, message: str) -> str:
    """``message`` as the pages show it in ``tag``."""
    with language(tag):
        return _(message)


# -- over HTTP ------------------------------------------------------------------------------


@dataclass
class Site:
    flows: Flows
    client: httpx2.AsyncClient

    async def start(self, user: str = "alice", **details: Any) -> str:
        details = {"name": NAME, "message": WHY, **details}
        flow = await self.flows.start(user=user, purpose=SECRET_PURPOSE, details=details)
        return flow.id


@asynccontextmanager
async def site(
    identity: Identity | None = None, *, raise_errors: bool = True, **options: Any
) -> AsyncIterator[Site]:
    """The pages mounted as a server mounts them (``options`` go to ``hosted_pages``)."""
    store = MemoryStore()
    key = DeploymentKey.generate()
    flows = Flows(store)
    pages = hosted_pages(
        flows=flows,
        vault=Vault(store, key.derive("vault")),
        identity=identity or HeaderIdentity(),
        csrf_key=key.derive("csrf"),
        server_name=SERVER,
        allowed_hosts=page_hosts(public_url=ORIGIN, loopback_port=None),
        **options,
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=pages)])
    transport = httpx2.ASGITransport(app=app, raise_app_exceptions=raise_errors)
    async with httpx2.AsyncClient(transport=transport, base_url=ORIGIN) as client:
        yield Site(flows, client)
    await store.aclose()


EXPECTED = {
    # The heading of the form, and of the refusal, in each language.
    "en": ("Enter your weather-api", "This link was not made for you"),
    "zh-Hans": ("输入你的 weather-api", "此链接不是为你生成的"),
}


@pytest.mark.parametrize(
    ("asked", "tag"),
    [
        (ZH, "zh-Hans"),
        ({"Accept-Language": "zh"}, "zh-Hans"),
        (EN, "en"),
        ({}, "en"),
        # Traditional Chinese has no catalog (yet), nor French: the pages' language.
        ({"Accept-Language": "fr-FR, zh-TW;q=0.9"}, "en"),
        # By quality, not order: Chinese is preferred here.
        ({"Accept-Language": "en;q=0.5, zh-CN"}, "zh-Hans"),
    ],
)
async def test_every_response_says_its_language_and_that_it_varies(
    asked: dict[str, str], tag: str
) -> None:
    async with site() as s:
        flow_id = await s.start()
        path = flow_path(flow_id)
        responses = {
            "entry": await s.client.get(path, headers={**ALICE, **asked}),
            "status": await s.client.get(f"{path}/status", headers={**ALICE, **asked}),
            "refused": await s.client.get(path, headers={**BOB, **asked}),
            "not found": await s.client.get(flow_path("no-such-flow"), headers={**ALICE, **asked}),
            "wrong method": await s.client.put(path, headers={**ALICE, **asked}),
            "not a form": await s.client.post(
                path, content=b"x", headers={**ALICE, **asked, "content-type": "text/plain"}
            ),
        }
        for name, response in responses.items():
            assert lang_of(response.text) == tag, name
            assert response.headers["content-language"] == tag, name
            assert varies_by_language(response), name
        entry, refusal = EXPECTED[tag]
        assert f"<h1>{entry}</h1>" in responses["entry"].text
        assert f"<h1>{refusal}</h1>" in responses["refused"].text
        assert responses["wrong method"].status_code == 405

        # The Host refusal is plain text, in the same language.
        host = await s.client.get(path, headers={**asked, "host": "evil.test"})
        assert host.status_code == 400 and host.headers["content-type"].startswith("text/plain")
        assert host.headers["content-language"] == tag and varies_by_language(host)
        assert host.text == words(tag, HOST_REFUSED) + "\n"

        # The stylesheet has no words: Vary, but no Content-Language.
        css = await s.client.get(f"{PAGES_PREFIX}/static/pages.css", headers=asked)
        assert css.status_code == 200 and varies_by_language(css)
        assert "content-language" not in css.headers


async def test_the_host_refusal_is_translated() -> None:
    async with site() as s:
        refused = await s.client.get(flow_path("x"), headers={**ZH, "host": "evil.test"})
    assert refused.text == "请求无效：此服务器不响应该主机名。请按应用提供的原样打开链接。\n"


async def test_the_pages_language_is_for_browsers_that_ask_for_none_there_is() -> None:
    """``language="zh-CN"`` (matched to ``zh-Hans``): a browser that asks for nothing, or only
    for languages with no catalog, gets Chinese; one that asks for a language with a catalog
    gets that, English included: the person's browser wins over the server's default."""
    i18n_support.install()
    async with site(language="zh-CN") as s:
        path = flow_path(await s.start())
        page = await s.client.get(path, headers={**ALICE, **EN})
        assert lang_of(page.text) == "en" and page.headers["content-language"] == "en"
        for asked in ({}, {"Accept-Language": "fr"}, {"Accept-Language": "*"}, ZH):
            page = await s.client.get(path, headers={**ALICE, **asked})
            assert lang_of(page.text) == "zh-Hans", asked
            assert page.headers["content-language"] == "zh-Hans"
            assert "<h1>输入你的 weather-api</h1>" in page.text
        page = await s.client.get(path, headers={**ALICE, **XA})
        assert lang_of(page.text) == PSEUDO


async def test_without_a_setting_the_pages_follow_the_process_language_when_asked() -> None:
    """``language=None``: the language in effect when the request comes (the process's,
    ``set_default_language``), read each time, not when the pages were built."""
    async with site() as s:
        path = flow_path(await s.start())
        page = await s.client.get(path, headers={**ALICE, **EN})
        assert lang_of(page.text) == "en"
        with language("zh-Hans"):
            page = await s.client.get(path, headers=ALICE)
            assert lang_of(page.text) == "zh-Hans" and "保存" in page.text
            page = await s.client.get(path, headers={**ALICE, **EN})
            assert lang_of(page.text) == "en"  # the browser's choice comes first
        page = await s.client.get(path, headers=ALICE)
        assert lang_of(page.text) == "en"


async def test_elicitation_sets_the_pages_language_in_code() -> None:
    elicitation = Elicitation(
        MCPServer(SERVER),
        key=DeploymentKey.generate(),
        store="memory://",
        identity=HeaderIdentity(),
        language="zh-Hans",
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=elicitation.pages_app(loopback_port=8124))])
    flow = await elicitation.flows.start(
        user="alice", purpose=SECRET_PURPOSE, details={"name": NAME, "message": WHY}
    )
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8124") as client:
        page = await client.get(flow_path(flow.id), headers=ALICE)
    await elicitation.store.aclose()
    assert page.status_code == 200 and lang_of(page.text) == "zh-Hans"
    assert page.headers["content-language"] == "zh-Hans"


@pytest.mark.parametrize("tag", ["fr", "zh-TW", "", "not a tag"])
async def test_a_language_without_a_catalog_is_refused_naming_those_there_are(tag: str) -> None:
    with pytest.raises(ValueError, match="no catalog") as raised:
        async with site(language=tag):
            pass
    message = str(raised.value)
    assert repr(tag) in message and "en, " in message and "zh-Hans" in message
    with pytest.raises(ValueError, match="zh-Hans"):
        Elicitation(key=DeploymentKey.generate(), store="memory://", language=tag)


class Meeting(HeaderIdentity):
    """Holds each browser's request until ``count`` of them have come: their pages are then
    made at the same time, interleaved on one event loop."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.here = 0
        self.all_here = anyio.Event()

    async def user_of_browser(self, request: Request) -> str | None:
        self.here += 1
        if self.here >= self.count:
            self.all_here.set()
        await self.all_here.wait()
        await anyio.sleep(0)
        return await super().user_of_browser(request)


async def test_requests_at_the_same_time_keep_their_own_language() -> None:
    asked = [ZH, EN] * 4
    identity = Meeting(len(asked))
    async with site(identity) as s:
        path = flow_path(await s.start())
        pages: list[tuple[str, str]] = []

        async def fetch(headers: dict[str, str]) -> None:
            page = await s.client.get(path, headers={**ALICE, **headers})
            pages.append((headers["Accept-Language"], page.text))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                for headers in asked:
                    tasks.start_soon(fetch, headers)
    assert len(pages) == len(asked)
    for accept, page in pages:
        tag = "zh-Hans" if accept.startswith("zh") else "en"
        assert lang_of(page) == tag
        assert f"<h1>{EXPECTED[tag][0]}</h1>" in page


# -- the pseudo-locale on the rarer pages ---------------------------------------------------


class Failing(HeaderIdentity):
    async def user_of_browser(self, request: Request) -> str | None:
        raise RuntimeError("the identity service is down")


def assert_all_translated(name: str, response: httpx2.Response, allowed: Sequence[str]) -> None:
    if response.headers.get("content-type", "").startswith("text/html"):
        assert lang_of(response.text) == PSEUDO, name
        text = Shown(response.text).text
    else:
        text = response.text
    assert response.headers["content-language"] == PSEUDO, name
    assert escaped(text, allowed=allowed) == [], (name, text)


async def test_no_word_of_the_refusals_escapes_the_catalogs() -> None:
    i18n_support.install()
    allowed = [SERVER, NAME, WHY]
    async with site() as s:
        flow_id = await s.start()
        path = flow_path(flow_id)
        got = await s.client.get(path, headers={**ALICE, **XA})
        token = re.search(r'name="csrf" value="([^"]+)"', got.text)
        assert token is not None
        form = {"csrf": token.group(1)}
        seen = {
            "empty answer": await s.client.post(
                path, data={**form, "action": "submit", "value": " "}, headers={**ALICE, **XA}
            ),
            "unknown action": await s.client.post(
                path, data={**form, "action": "x"}, headers={**ALICE, **XA}
            ),
            "too large": await s.client.post(
                path, data={**form, "value": "k" * 20_000}, headers={**ALICE, **XA}
            ),
            "not a form": await s.client.post(
                path, content=b"x", headers={**ALICE, **XA, "content-type": "text/plain"}
            ),
            "damaged": await s.client.post(
                path, content=b"a=1&a=2", headers={**ALICE, **XA, "content-type": FORM_TYPE}
            ),
            "forged": await s.client.post(path, data={"action": "x"}, headers={**ALICE, **XA}),
            "wrong method": await s.client.put(path, headers={**ALICE, **XA}),
            "host": await s.client.get(path, headers={**XA, "host": "evil.test"}),
        }
        assert [r.status_code for r in seen.values()] == [422, 400, 413, 415, 400, 403, 405, 400]
        await s.flows.decline(flow_id, user="alice")
        seen["declined"] = await s.client.get(f"{path}/status", headers={**ALICE, **XA})
        # A flow of another purpose: its status page names nothing it waits for.
        other = await s.flows.start(user="alice", purpose="custom", details={})
        seen["waiting, no label"] = await s.client.get(
            f"{flow_path(other.id)}/status", headers={**ALICE, **XA}
        )
    for name, response in seen.items():
        assert_all_translated(name, response, allowed)
    async with site(Failing(), raise_errors=False) as s:
        broken = await s.client.get(flow_path("x"), headers=XA)
    assert broken.status_code == 500
    assert_all_translated("server error", broken, allowed)


async def test_no_word_of_the_sign_in_pages_escapes_the_catalogs() -> None:
    """``OidcIdentity``'s own pages: sign out, signed out, a sign-out from elsewhere, a
    callback that is not this browser's, a provider that does not answer."""
    i18n_support.install()
    # Nothing listens on port 9: the provider's metadata cannot be fetched.
    identity = OidcIdentity("http://127.0.0.1:9", "pages")
    async with site(identity) as s:
        signout = await s.client.get(
            f"{PAGES_PREFIX}/signout", params={"next": "/elicit/flows/x"}, headers=XA
        )
        token = re.search(r'name="csrf" value="([^"]+)"', signout.text)
        assert token is not None
        seen = {
            "sign out": signout,
            "signed out": await s.client.post(
                f"{PAGES_PREFIX}/signout",
                data={"csrf": token.group(1), "next": "/elicit/flows/x"},
                headers=XA,
            ),
            "not signed out": await s.client.post(
                f"{PAGES_PREFIX}/signout", data={"csrf": "forged"}, headers=XA
            ),
            "not this browser's": await s.client.get(
                f"{PAGES_PREFIX}/signin/callback", params={"state": "x"}, headers=XA
            ),
            "unavailable": await s.client.get(f"{PAGES_PREFIX}/signin", headers=XA),
        }
    assert [r.status_code for r in seen.values()] == [200, 200, 403, 400, 502]
    for name, response in seen.items():
        assert_all_translated(name, response, [SERVER])


async def test_no_word_of_the_connect_pages_escapes_the_catalogs() -> None:
    """Downstream OAuth's pages: a link preview, a provider this server no longer has, one
    whose metadata does not come, a callback that does not open, a provider's error."""
    i18n_support.install()
    files = OAuthProvider(
        "files",
        "files-client",
        title="Example Files",
        authorization_endpoint="https://files.example/authorize",
        token_endpoint="https://files.example/token",
    )
    down = OAuthProvider("down", "down-client", issuer="http://127.0.0.1:9", title="Down Drive")
    elicitation = Elicitation(
        MCPServer(SERVER),
        key=DeploymentKey.generate(),
        store="memory://",
        identity=HeaderIdentity(),
        providers=[files, down],
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=elicitation.pages_app(loopback_port=8125))])

    async def oauth_flow(provider: str, title: str) -> str:
        details = {"provider": provider, "title": title, "scopes": ["read"]}
        flow = await elicitation.flows.start(user="alice", purpose=OAUTH_PURPOSE, details=details)
        return flow_path(flow.id)

    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8125") as client:
        preview = {**ALICE, **XA, "User-Agent": "Slackbot-LinkExpanding 1.0"}
        connect = await oauth_flow("files", "Example Files")
        seen = {
            "preview": await client.get(connect, headers=preview),
            "gone": await client.get(await oauth_flow("gone", "Gone"), headers={**ALICE, **XA}),
            "unavailable": await client.get(
                await oauth_flow("down", "Down Drive"), headers={**ALICE, **XA}
            ),
            "bad state": await client.get(
                f"{PAGES_PREFIX}/oauth/callback/files",
                params={"state": "x"},
                headers={**ALICE, **XA},
            ),
        }
        sent = await client.get(connect, headers={**ALICE, **XA})
        assert sent.status_code == 303
        state = parse_qs(urlsplit(sent.headers["location"]).query)["state"][0]
        seen["provider's error"] = await client.get(
            f"{PAGES_PREFIX}/oauth/callback/files",
            params={"state": state, "error": "server_error"},
            headers={**ALICE, **XA},
        )
        seen["finished"] = await client.get(connect, headers={**ALICE, **XA})
    await elicitation.store.aclose()
    assert [r.status_code for r in seen.values()] == [200, 404, 502, 400, 502, 200]
    for name, response in seen.items():
        assert_all_translated(name, response, [SERVER, "Example Files", "Down Drive"])


# -- in a real browser ----------------------------------------------------------------------
#
# The server is secret_server.py through secret_server_i18n.py: the same server, with the
# pseudo-locale installed, and its pages' language from SECRET_SERVER_LANGUAGE when set.

ZH_LOCALE = "zh-CN"
# Each state's heading in Chinese (written out: a missing translation must fail here).
ZH_TITLES = {
    "secret-entry": f"输入你的 {SECRET_NAME}",
    "entry-error": f"输入你的 {SECRET_NAME}",
    "saved": "已保存",
    "declined": "已拒绝",
    "expired": "此请求已过期",
    "refused": "此链接不是为你生成的",
    "status-pending": "等待你的回应",
    "not-found": "此处没有内容",
    "csrf": "无法接受此表单",
}


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "flows.db"


def start_server(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch, language: str | None
) -> HttpServer:
    monkeypatch.setattr(secret_server, "SCRIPT", secret_server_i18n.SCRIPT)
    if language is None:
        monkeypatch.delenv(secret_server_i18n.LANGUAGE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(secret_server_i18n.LANGUAGE_VARIABLE, language)
    return start_http(
        store=f"sqlite:///{store_path}", key=secrets.token_urlsafe(32), logs=tmp_path / "logs"
    )


@pytest.fixture
def server(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HttpServer]:
    """The pages' language not set: the process's, English."""
    running = start_server(tmp_path, store_path, monkeypatch, None)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def zh_server(
    tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HttpServer]:
    """``Elicitation(language="zh-Hans")``."""
    running = start_server(tmp_path, store_path, monkeypatch, "zh-Hans")
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as opened:
        yield opened


async def lang_attribute(page: Page) -> str | None:
    found: str | None = await page.locator("html").get_attribute("lang")
    return found


async def shown_text(page: Page) -> str:
    """Everything the person is shown or read of the page as it is now (see :class:`Shown`):
    the title, the visible text, and the attributes a browser shows or reads out."""
    found: str = await page.evaluate(
        """() => {
          const parts = [document.title, document.body.innerText];
          for (const el of document.querySelectorAll('[placeholder],[aria-label],[title],[alt]'))
            for (const name of ['placeholder', 'aria-label', 'title', 'alt'])
              if (el.hasAttribute(name)) parts.push(el.getAttribute(name));
          for (const el of document.querySelectorAll(
              'input[type=submit],input[type=button],input[type=reset]'))
            parts.push(el.value);
          return parts.join('\\n');
        }"""
    )
    return found


Look = Callable[["Page", str], Awaitable[None]]


async def in_chinese(page: Page, state: str) -> None:
    assert await lang_attribute(page) == "zh-Hans", state
    await check_state(page, f"pages-zh-{state}", title=ZH_TITLES[state])


async def in_pseudo(page: Page, state: str) -> None:
    assert await lang_attribute(page) == PSEUDO, state
    text = await shown_text(page)
    assert escaped(text, allowed=[SERVER_NAME, SECRET_NAME, MESSAGE]) == [], (state, text)


async def every_state(
    server: HttpServer, browser: Browser, store_path: Path, locale: str, look: Look
) -> None:
    """Every state of the pages, each shown to ``look``, for people whose browsers' locale
    is ``locale``: entering the secret (a blank answer refused, then Saved), Declined, a
    request that expired, another user's link refused, the owner's waiting page, an unknown
    flow, a forged form. A user of their own for each, as none has a key stored yet."""
    tag = "zh-Hans" if locale == ZH_LOCALE else locale
    save, decline = words(tag, "Save"), words(tag, "Decline")
    sentinel = f"sk-{secrets.token_hex(8)}"

    async def enters(params: types.ElicitRequestURLParams) -> None:
        async with person(browser, "erin", locale=locale) as page:
            await open_page(page, params.url, 200)
            await look(page, "secret-entry")
            await page.get_by_label(SECRET_NAME, exact=True).fill("   ")
            await submit(page, save, 422)
            await look(page, "entry-error")
            await page.get_by_label(SECRET_NAME, exact=True).fill(sentinel)
            await submit(page, save, 200)
            await look(page, "saved")

    text = await call_with_person(server, "erin", enters)
    assert text.endswith(f"(sha256 {fingerprint_of(sentinel)}…)"), text

    async def declines(params: types.ElicitRequestURLParams) -> None:
        async with person(browser, "frank", locale=locale) as page:
            await open_page(page, params.url, 200)
            await submit(page, decline, 200)
            await look(page, "declined")

    assert await call_with_person(server, "frank", declines) == "declined"

    async def too_late(params: types.ElicitRequestURLParams) -> None:
        async with person(browser, "gina", locale=locale) as page:
            await open_page(page, params.url, 200)
            await page.get_by_label(SECRET_NAME, exact=True).fill("sk-too-late")
            store = SQLiteStore(store_path)
            try:
                later = Flows(store, clock=lambda: time.time() + 3600)
                expired = await later.get(flow_id_of(params.url))
                assert expired is not None and expired.status is FlowStatus.EXPIRED
            finally:
                await store.aclose()
            await submit(page, save, 410)
            await look(page, "expired")

    assert await call_with_person(server, "gina", too_late) == "cancelled: expired"

    url = await link_for(server, "alice")
    async with person(browser, "bob", locale=locale) as page:
        await open_page(page, url, 403)
        await look(page, "refused")
    async with person(browser, "alice", locale=locale) as page:
        await open_page(page, url + "/status", 200)
        await look(page, "status-pending")
        await open_page(page, url.rsplit("/", 1)[0] + "/" + "N0-such-flow-id-" * 2, 404)
        await look(page, "not-found")

    url = await link_for(server, "dave")
    async with person(browser, "dave", locale=locale) as page:
        await open_page(page, url, 200)
        await page.evaluate(
            "() => { document.querySelector('#entry input[name=csrf]').value = 'forged'; }"
        )
        await page.get_by_label(SECRET_NAME, exact=True).fill("sk-forged-attempt")
        await submit(page, save, 403)
        await look(page, "csrf")
    assert await connect_later(server, "dave") is None


@pytest.mark.browser
@pytest.mark.slow
async def test_every_state_in_chinese(
    server: HttpServer, browser: Browser, store_path: Path
) -> None:
    """A browser whose locale is zh-CN (``Accept-Language: zh-CN``) on a server whose pages
    are not set to a language: every state in Chinese, ``<html lang="zh-Hans">``, no serious
    axe finding at either width in either scheme, a screenshot ``pages-zh-<state>`` each."""
    with anyio.fail_after(TIMEOUT * 3):
        await every_state(server, browser, store_path, ZH_LOCALE, in_chinese)


@pytest.mark.browser
@pytest.mark.slow
async def test_no_word_escapes_the_catalogs_in_any_state(
    server: HttpServer, browser: Browser, store_path: Path
) -> None:
    """The pseudo-locale (``Accept-Language: en-XA``): every word the person is shown in every
    state, title, labels and buttons included, is the catalog's, or the server's own (its
    name, the secret's name, its message)."""
    i18n_support.install()  # here too: the button names are looked up in this process
    with anyio.fail_after(TIMEOUT * 3):
        await every_state(server, browser, store_path, PSEUDO, in_pseudo)


@pytest.mark.browser
@pytest.mark.slow
async def test_a_browser_asking_for_no_language_there_is_gets_the_one_the_server_set(
    zh_server: HttpServer, browser: Browser
) -> None:
    """``Elicitation(language="zh-Hans")``: a browser that asks for French (no catalog) gets
    the pages in Chinese."""
    with anyio.fail_after(TIMEOUT):
        url = await link_for(zh_server, "alice")
        async with person(browser, "alice", locale="fr-FR") as page:
            response = await page.goto(url)
            assert response is not None and response.status == 200
            assert await page.evaluate("() => navigator.language") == "fr-FR"
            assert response.headers["content-language"] == "zh-Hans"
            assert await lang_attribute(page) == "zh-Hans"
            assert await heading(page) == ZH_TITLES["secret-entry"]
            assert await page.get_by_role("button", name="保存", exact=True).count() == 1


@pytest.mark.browser
@pytest.mark.slow
async def test_a_chinese_and_an_english_browser_at_the_same_time(
    server: HttpServer, browser: Browser
) -> None:
    """Two people's browsers load the same kind of page at the same moment, several times
    over: each page is in its own browser's language, nothing leaks between requests."""
    with anyio.fail_after(TIMEOUT):
        url = await link_for(server, "alice")
        async with (
            person(browser, "alice", locale=ZH_LOCALE) as chinese,
            person(browser, "alice", locale="en-US") as english,
        ):
            pages = [("zh-Hans", chinese), ("en", english)]
            for tag, first in list(pages):
                pages += [(tag, await first.context.new_page()) for _ in range(3)]
            for _round in range(3):
                async with anyio.create_task_group() as tasks:
                    for _tag, page in pages:
                        tasks.start_soon(page.goto, url + "/status")
                for tag, page in pages:
                    assert await lang_attribute(page) == tag
                    title = ZH_TITLES["status-pending"] if tag == "zh-Hans" else "Waiting for you"
                    assert await heading(page) == title


# -- the sign-in and connect pages, in a browser --------------------------------------------


@asynccontextmanager
async def served(app: Starlette, port: int) -> AsyncIterator[str]:
    async with serve_on_loopback(app, port=port):
        yield f"http://127.0.0.1:{port}"


@pytest.mark.browser
@pytest.mark.slow
async def test_the_sign_in_and_connect_pages_in_chinese(browser: Browser) -> None:
    """``OidcIdentity``'s sign-out and signed-out pages and a sign-in that did not complete;
    downstream OAuth's link preview and a provider's error: in Chinese, axe-clean, with
    screenshots."""
    port = secret_server.free_port()
    elicitation = Elicitation(
        MCPServer(SERVER_NAME),
        key=DeploymentKey.generate(),
        store="memory://",
        # Nothing listens on port 9: no sign-in can start (none is needed for these pages).
        identity=OidcIdentity("http://127.0.0.1:9", "pages"),
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=elicitation.pages_app(loopback_port=port))])
    with anyio.fail_after(TIMEOUT):
        async with served(app, port) as origin, person(browser, None, locale=ZH_LOCALE) as page:
            await open_page(page, f"{origin}/elicit/signout?next=/elicit/flows/x", 200)
            await zh_state(page, "pages-zh-signout", "退出登录")
            await submit(page, "退出并重新登录", 200)
            await zh_state(page, "pages-zh-signed-out", "已退出登录")
            await open_page(page, f"{origin}/elicit/signin/callback?state=x", 400)
            await zh_state(page, "pages-zh-signin-failed", "登录未完成")
    await elicitation.store.aclose()

    port = secret_server.free_port()
    files = OAuthProvider(
        "files",
        "files-client",
        title="Example Files",
        authorization_endpoint="https://files.example/authorize",
        token_endpoint="https://files.example/token",
    )
    elicitation = Elicitation(
        MCPServer(SERVER_NAME),
        key=DeploymentKey.generate(),
        store="memory://",
        identity=HeaderIdentity(),
        providers=[files],
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=elicitation.pages_app(loopback_port=port))])
    flow = await elicitation.flows.start(
        user=user_of_token("alice"),  # as the browsers of person() claim to be
        purpose=OAUTH_PURPOSE,
        details={"provider": "files", "title": "Example Files", "scopes": ["read"]},
    )
    alice = {TEST_USER_HEADER: user_of_token("alice")}
    with anyio.fail_after(TIMEOUT):
        async with served(app, port) as origin:
            url = f"{origin}/elicit/flows/{flow.id}"
            # A chat app's preview of the link: the page says where it goes, nothing moves.
            async with person(
                browser, "alice", locale=ZH_LOCALE, user_agent="Slackbot-LinkExpanding 1.0"
            ) as page:
                await open_page(page, url, 200)
                await zh_state(page, "pages-zh-connect-preview", "连接 Example Files")
            async with httpx2.AsyncClient() as client:
                sent = await client.get(url, headers=alice)
            state = parse_qs(urlsplit(sent.headers["location"]).query)["state"][0]
            async with person(browser, "alice", locale=ZH_LOCALE) as page:
                callback = f"{origin}/elicit/oauth/callback/files?state={state}&error=server_error"
                await open_page(page, callback, 502)
                await zh_state(page, "pages-zh-connect-failed", "Example Files 未连接")
    await elicitation.store.aclose()


async def zh_state(page: Page, name: str, title: str) -> None:
    assert await lang_attribute(page) == "zh-Hans", name
    await check_state(page, name, title=title)
