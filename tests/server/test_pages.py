"""The hosted pages: a person enters a secret for a URL-mode flow, and only the person who
started the flow can; forged, cross-site and oversized posts change nothing; the secret
appears nowhere but in the vault, sealed."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Mount

from mcp_elicit.flows import Flows, FlowStatus
from mcp_elicit.server import Elicitation
from mcp_elicit.server.identity import LOCAL_USER, Identity, LocalIdentity
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.pages import (
    PAGES_PREFIX,
    SECRET_PURPOSE,
    flow_path,
    hosted_pages,
    page_hosts,
)
from mcp_elicit.server.pages.body import MAX_BODY_BYTES
from mcp_elicit.server.pages.csrf import COOKIE_NAME, Csrf
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import MemoryStore, SQLiteStore, Store
from tests.identities import TEST_USER_HEADER, HeaderIdentity
from tests.server_support import serve_on_loopback

pytestmark = pytest.mark.anyio

SENTINEL = "sk-SENTINEL-7c41d9e2b8a0-never-show"
SERVER = "Acme Weather"
ORIGIN = "http://pages.test"
ALICE = {TEST_USER_HEADER: "alice"}
BOB = {TEST_USER_HEADER: "bob"}
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
}
REFUSED = "This link was not made for you"
FORGED = "This form could not be accepted"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.then = 0.0  # seconds to move on by once the next reading has been taken

    def __call__(self) -> float:
        now, self.now, self.then = self.now, self.now + self.then, 0.0
        return now


@dataclass
class Site:
    """The pages mounted as a server mounts them, with a client that records every response
    so that each test's teardown can check the security headers on all of them."""

    flows: Flows
    vault: Vault
    store: Store
    csrf: Csrf
    clock: Clock
    client: httpx2.AsyncClient
    responses: list[httpx2.Response]

    async def start(self, user: str = "alice", **details: Any) -> str:
        details = {"name": "weather-api", "message": "To fetch forecasts for you.", **details}
        flow = await self.flows.start(user=user, purpose=SECRET_PURPOSE, details=details)
        return flow.id

    async def status_of(self, flow_id: str) -> FlowStatus:
        flow = await self.flows.get(flow_id)
        assert flow is not None
        return flow.status

    async def form_token(self, flow_id: str, headers: dict[str, str] | None = None) -> str:
        page = await self.client.get(flow_path(flow_id), headers=headers)
        assert page.status_code == 200, page.text
        return token_in(page.text)

    async def post(
        self, flow_id: str, fields: dict[str, str], headers: dict[str, str] | None = None
    ) -> httpx2.Response:
        return await self.client.post(flow_path(flow_id), data=fields, headers=headers)


def token_in(page: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    assert match, page
    return match.group(1)


class Tags(HTMLParser):
    """Every start tag with its attributes, to check the page's structure."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            a
            for t, a in self.tags
            if t == tag and all(a.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]


def make_site(
    store: Store, identity: Identity, *, base_url: str = ORIGIN, raise_errors: bool = True
) -> Site:
    key = DeploymentKey.generate()
    clock = Clock()
    flows = Flows(store, clock=clock)
    vault = Vault(store, key.derive("vault"))
    csrf_key = key.derive("csrf")
    pages = hosted_pages(
        flows=flows,
        vault=vault,
        identity=identity,
        csrf_key=csrf_key,
        server_name=SERVER,
        allowed_hosts=page_hosts(public_url=base_url, loopback_port=None),
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=pages)])
    responses: list[httpx2.Response] = []

    async def record(response: httpx2.Response) -> None:
        await response.aread()
        responses.append(response)

    client = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app, raise_app_exceptions=raise_errors),
        base_url=base_url,
        event_hooks={"response": [record]},
    )
    return Site(flows, vault, store, Csrf(csrf_key), clock, client, responses)


def assert_security_headers(response: httpx2.Response) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, (response.request.url, name)


@pytest.fixture
async def opened_sites() -> AsyncIterator[list[Site]]:
    sites: list[Site] = []
    yield sites
    for site in sites:
        await site.client.aclose()
        # Every response of every test, whatever its status, carries the security headers.
        assert site.responses
        for response in site.responses:
            assert_security_headers(response)


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    opened: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "p.db")
    yield opened
    await opened.aclose()


@pytest.fixture
def site_for(opened_sites: list[Site], store: Store) -> Callable[..., Site]:
    def make(identity: Identity | None = None, **options: Any) -> Site:
        site = make_site(store, identity or HeaderIdentity(), **options)
        opened_sites.append(site)
        return site

    return make


@pytest.fixture
def site(site_for: Callable[..., Site]) -> Site:
    return site_for()


# -- the happy path --------------------------------------------------------------------------


async def test_secret_reaches_the_vault_and_completes_the_flow(site: Site) -> None:
    flow_id = await site.start()
    page = await site.client.get(flow_path(flow_id), headers=ALICE)
    assert page.status_code == 200
    assert await site.status_of(flow_id) is FlowStatus.OPENED
    assert SERVER in page.text and "To fetch forecasts for you." in page.text

    answer = await site.post(
        flow_id, {"csrf": token_in(page.text), "action": "submit", "value": "k-123"}, ALICE
    )
    # POST/redirect/GET: reloading the result never re-posts the secret.
    assert answer.status_code == 303
    assert answer.headers["location"] == f"{flow_path(flow_id)}/status"
    assert await site.status_of(flow_id) is FlowStatus.COMPLETED
    stored = await site.vault.get("alice", "weather-api")
    assert stored is not None and stored.get_secret_value() == "k-123"

    done = await site.client.get(answer.headers["location"], headers=ALICE)
    assert done.status_code == 200
    assert "Done" in done.text and "close this tab" in done.text
    # The form is gone: a finished flow shows where it stands instead.
    again = await site.client.get(flow_path(flow_id), headers=ALICE)
    assert again.status_code == 200 and "Done" in again.text and "<form" not in again.text


async def test_the_page_is_plain_accessible_html(site: Site) -> None:
    flow_id = await site.start(label="Weather API key")
    page = await site.client.get(flow_path(flow_id), headers=ALICE)
    tags = Tags(page.text)
    assert tags.find("html")[0]["lang"] == "en"
    assert len(tags.find("main")) == 1 and len(tags.find("h1")) == 1
    (field,) = tags.find("input", type="password")
    assert field["autocomplete"] == "off" and "required" in field
    assert tags.find("label", for_=str(field["id"])), "the input has a label"
    assert "Weather API key" in page.text
    submit = tags.find("button", value="submit")
    decline = tags.find("button", value="decline")
    assert submit and decline
    # Decline posts a form of its own, so a typed value is not sent with it.
    forms = re.findall(r"<form.*?</form>", page.text, re.S)
    assert len(forms) == 2 and 'type="password"' not in forms[1]
    assert all(a["action"] == flow_path(flow_id) for a in tags.find("form"))
    # No script, no inline style, no asset from elsewhere.
    assert "<script" not in page.text and "style=" not in page.text and "<style" not in page.text
    (sheet,) = tags.find("link", rel="stylesheet")
    assert sheet["href"] == f"{PAGES_PREFIX}/static/pages.css"
    css = await site.client.get(str(sheet["href"]))
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert ":focus-visible" in css.text and "prefers-color-scheme: dark" in css.text
    (icon,) = tags.find("link", rel="icon")
    svg = await site.client.get(str(icon["href"]))
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    assert (await site.client.get(f"{PAGES_PREFIX}/static/nothing.css")).status_code == 404
    # The server's name heads the page; the field's help is linked to it.
    assert tags.find("header") and SERVER in page.text
    assert field["aria-describedby"] == "secret-help" and tags.find("p", id="secret-help")
    # A same-origin referrer policy for the page itself, so that a browser's form post
    # carries the real Origin (``no-referrer`` makes it "null", which csrf.py refuses).
    (referrer,) = tags.find("meta", name="referrer")
    assert referrer["content"] == "same-origin"


async def test_everything_from_the_flow_is_escaped(site: Site) -> None:
    flow_id = await site.start(
        message='<script>alert(1)</script> & "quotes"', label="<b>key</b>", client="<i>app</i>"
    )
    page = await site.client.get(flow_path(flow_id), headers=ALICE)
    assert "<script>" not in page.text and "<b>" not in page.text and "<i>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;" in page.text
    assert "&lt;i&gt;app&lt;/i&gt; does not see it" in page.text


async def test_the_page_names_the_app_to_go_back_to(site: Site) -> None:
    """A flow's ``client`` detail, when it has one, is the app the person came from."""
    flow_id = await site.start(label="Weather API key", client="Claude")
    token = await site.form_token(flow_id, ALICE)
    answer = await site.post(flow_id, {"csrf": token, "action": "submit", "value": "v"}, ALICE)
    done = await site.client.get(answer.headers["location"], headers=ALICE)
    assert "<h1>Saved</h1>" in done.text
    assert f"{SERVER} has your Weather API key now" in done.text
    assert "go back to Claude." in done.text
    assert "<title>Saved \N{EN DASH} Acme Weather</title>" in done.text


async def test_csrf_cookie_attributes(site_for: Callable[..., Site]) -> None:
    # On https a __Host- cookie (Secure, Path=/, no Domain): no sibling domain and no
    # plain-http answer can plant one (issue 30, finding 6). On http, the pages' path.
    for base_url, name, path, secure in (
        (ORIGIN, COOKIE_NAME, "/elicit", False),
        ("https://pages.test", f"__Host-{COOKIE_NAME}", "/", True),
    ):
        site = site_for(base_url=base_url)
        flow_id = await site.start()
        page = await site.client.get(flow_path(flow_id), headers=ALICE)
        cookie = page.headers["set-cookie"]
        assert cookie.startswith(f"{name}=")
        attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
        assert {"httponly", f"path={path}", "samesite=strict"} <= attributes
        assert ("secure" in attributes) is secure
        assert not any(a.startswith("domain") for a in attributes)
        # The form posts back with it: the token checks against the __Host- cookie.
        answer = await site.post(flow_id, {"csrf": token_in(page.text), "action": "decline"}, ALICE)
        assert answer.status_code == 303


async def test_a_second_tab_keeps_the_first_tabs_token_valid(site: Site) -> None:
    first = await site.start()
    second = await site.start(name="other-api")
    token = await site.form_token(first, ALICE)
    page = await site.client.get(flow_path(second), headers=ALICE)
    assert "set-cookie" not in page.headers  # the cookie already there is kept
    answer = await site.post(first, {"csrf": token, "action": "submit", "value": "v"}, ALICE)
    assert answer.status_code == 303


async def test_local_identity_serves_its_one_user(site_for: Callable[..., Site]) -> None:
    site = site_for(LocalIdentity())
    flow_id = await site.start(user="local")
    token = await site.form_token(flow_id)
    answer = await site.post(flow_id, {"csrf": token, "action": "submit", "value": "v"})
    assert answer.status_code == 303
    assert await site.vault.get("local", "weather-api") is not None


# -- the same-user rule ----------------------------------------------------------------------


async def test_another_users_browser_is_refused(site: Site) -> None:
    flow_id = await site.start(user="alice")
    page = await site.client.get(flow_path(flow_id), headers=BOB)
    assert page.status_code == 403 and REFUSED in page.text
    # Nothing about alice's request leaks: not its name, message, or status.
    assert "weather-api" not in page.text and "forecasts" not in page.text
    assert "<form" not in page.text

    # Even with a token that is valid for this flow and bob's cookie, bob's POST is refused.
    await site.start(user="bob")  # bob's own page gives him a cookie
    bobs_flow = await site.start(user="bob")
    await site.form_token(bobs_flow, BOB)
    cookie = site.client.cookies[COOKIE_NAME]
    forged_for_flow = site.csrf.token(cookie, flow_id)
    answer = await site.post(
        flow_id, {"csrf": forged_for_flow, "action": "submit", "value": "v"}, BOB
    )
    assert answer.status_code == 403 and REFUSED in answer.text
    decline = await site.post(flow_id, {"csrf": forged_for_flow, "action": "decline"}, BOB)
    assert decline.status_code == 403
    status = await site.client.get(f"{flow_path(flow_id)}/status", headers=BOB)
    assert status.status_code == 403 and REFUSED in status.text

    assert await site.status_of(flow_id) is FlowStatus.PENDING
    assert await site.vault.get("alice", "weather-api") is None
    assert await site.vault.get("bob", "weather-api") is None


async def test_a_browser_that_is_not_signed_in_is_refused(site: Site) -> None:
    flow_id = await site.start()
    page = await site.client.get(flow_path(flow_id))
    assert page.status_code == 403 and REFUSED in page.text
    other_user = await site.client.get(flow_path(flow_id), headers=BOB)
    # The same page either way: the refusal says nothing about why.
    assert page.text == other_user.text
    status = await site.client.get(f"{flow_path(flow_id)}/status")
    assert status.status_code == 403

    token = await site.form_token(flow_id, ALICE)
    answer = await site.post(flow_id, {"csrf": token, "action": "submit", "value": "v"})
    assert answer.status_code == 403
    assert await site.status_of(flow_id) is FlowStatus.OPENED
    assert await site.vault.get("alice", "weather-api") is None


async def test_a_browser_that_is_not_signed_in_is_sent_to_sign_in(
    site_for: Callable[..., Site],
) -> None:
    site = site_for(HeaderIdentity(login="https://login.example/start"))
    flow_id = await site.start()
    page = await site.client.get(flow_path(flow_id))
    assert page.status_code == 303 and page.headers["location"] == "https://login.example/start"
    assert await site.status_of(flow_id) is FlowStatus.PENDING
    # Signed in as someone else: refused, with the way to sign in with another account.
    other = await site.client.get(flow_path(flow_id), headers=BOB)
    assert other.status_code == 403 and REFUSED in other.text
    assert len(Tags(other.text).find("a", href="https://login.example/start")) == 1
    assert "Sign in with another account" in other.text
    assert "weather-api" not in other.text


# -- who opens a flow ------------------------------------------------------------------------
#
# ``opened`` says the person reached the page. HEAD, a browser's prefetch, a link-preview bot
# (a chat app fetching a pasted link) and a browser that is not the flow's user all get an
# answer without moving the flow: only its user's own visit does.


async def test_only_the_owners_own_visit_opens_the_flow(site: Site) -> None:
    flow_id = await site.start()
    head = await site.client.head(flow_path(flow_id), headers=ALICE)
    assert head.status_code == 200 and head.content == b""
    assert await site.status_of(flow_id) is FlowStatus.PENDING
    for headers in ({}, BOB, {**BOB, "User-Agent": "Mozilla/5.0 Firefox/130.0"}):
        refused = await site.client.get(flow_path(flow_id), headers=headers)
        assert refused.status_code == 403
        assert (await site.client.head(flow_path(flow_id), headers=headers)).status_code == 403
    assert await site.status_of(flow_id) is FlowStatus.PENDING
    for prefetch in ({"Sec-Purpose": "prefetch"}, {"Purpose": "prefetch"}):
        early = await site.client.get(flow_path(flow_id), headers={**ALICE, **prefetch})
        assert early.status_code == 200 and "<form" in early.text
    assert await site.status_of(flow_id) is FlowStatus.PENDING
    page = await site.client.get(flow_path(flow_id), headers=ALICE)
    assert page.status_code == 200
    assert await site.status_of(flow_id) is FlowStatus.OPENED


PREVIEW_BOTS = [
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Twitterbot/1.0",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "WhatsApp/2.23.20.0 A",
    "TelegramBot (like TwitterBot)",
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5",
]


@pytest.mark.parametrize("agent", PREVIEW_BOTS, ids=lambda a: a.split("/")[0].split()[-1])
async def test_a_link_preview_bot_gets_the_page_without_opening_the_flow(
    site_for: Callable[..., Site], agent: str
) -> None:
    """With ``LocalIdentity`` every browser that reaches the page is the user, so a chat app
    fetching the pasted link for its preview would count as the person opening it."""
    site = site_for(LocalIdentity())
    flow_id = await site.start(user="local")
    preview = await site.client.get(flow_path(flow_id), headers={"User-Agent": agent})
    assert preview.status_code == 200
    assert await site.status_of(flow_id) is FlowStatus.PENDING
    person = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36"}
    page = await site.client.get(flow_path(flow_id), headers=person)
    assert page.status_code == 200
    assert await site.status_of(flow_id) is FlowStatus.OPENED


# -- forgery ---------------------------------------------------------------------------------


async def test_forged_token_is_refused(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    for bad in (forged, "", "ünïcode"):
        answer = await site.post(flow_id, {"csrf": bad, "action": "submit", "value": "v"}, ALICE)
        assert answer.status_code == 403 and FORGED in answer.text
        # The way back is the address that was posted to; nothing about the flow is shown.
        assert Tags(answer.text).find("a", href=flow_path(flow_id))
        assert "weather-api" not in answer.text and "forecasts" not in answer.text
    missing = await site.post(flow_id, {"action": "decline"}, ALICE)
    assert missing.status_code == 403
    assert await site.status_of(flow_id) is FlowStatus.OPENED
    assert await site.vault.get("alice", "weather-api") is None


async def test_a_token_is_bound_to_its_flow(site: Site) -> None:
    first = await site.start()
    second = await site.start(name="other-api")
    token = await site.form_token(first, ALICE)
    answer = await site.post(second, {"csrf": token, "action": "decline"}, ALICE)
    assert answer.status_code == 403 and FORGED in answer.text
    assert await site.status_of(second) is FlowStatus.PENDING


async def test_missing_cookie_is_refused(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    site.client.cookies.clear()
    answer = await site.post(flow_id, {"csrf": token, "action": "submit", "value": "v"}, ALICE)
    assert answer.status_code == 403 and FORGED in answer.text
    assert await site.status_of(flow_id) is FlowStatus.OPENED
    assert await site.vault.get("alice", "weather-api") is None


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "https://pages.test"},  # another scheme is another origin
        {"Origin": "http://pages.test:8080"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
async def test_cross_site_posts_are_refused(site: Site, headers: dict[str, str]) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    fields = {"csrf": token, "action": "submit", "value": "v"}
    answer = await site.post(flow_id, fields, {**ALICE, **headers})
    assert answer.status_code == 403 and FORGED in answer.text
    assert await site.status_of(flow_id) is FlowStatus.OPENED
    assert await site.vault.get("alice", "weather-api") is None


async def test_same_origin_headers_are_accepted(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    headers = {**ALICE, "Origin": "HTTP://pages.test:80", "Sec-Fetch-Site": "same-origin"}
    answer = await site.post(flow_id, {"csrf": token, "action": "decline"}, headers)
    assert answer.status_code == 303


# -- decline, mistakes, finished and unknown flows -------------------------------------------


async def test_decline(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    answer = await site.post(flow_id, {"csrf": token, "action": "decline"}, ALICE)
    assert answer.status_code == 303
    assert await site.status_of(flow_id) is FlowStatus.DECLINED
    assert await site.vault.get("alice", "weather-api") is None
    page = await site.client.get(answer.headers["location"], headers=ALICE)
    assert page.status_code == 200 and "Declined" in page.text
    # A later submit (say, from a stale tab) changes nothing.
    late = await site.post(flow_id, {"csrf": token, "action": "submit", "value": "v"}, ALICE)
    assert late.status_code == 200 and "Declined" in late.text
    assert await site.vault.get("alice", "weather-api") is None


class RaceAfterRead:
    """A store that lets the page read a flow as live, then runs ``change`` (another tab's
    decline, the clock passing the expiry) before the page takes its next step: the moment
    between the page's check and its write, where a race lands."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._after_read: dict[str, Callable[[], Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def after_next_read(self, flow_id: str, change: Callable[[], Any]) -> None:
        self._after_read[flow_id] = change

    async def get_flow(self, flow_id: str) -> Any:
        flow = await self._store.get_flow(flow_id)
        change = self._after_read.pop(flow_id, None)
        if change is not None:
            await change()
        return flow


@pytest.mark.parametrize("race", ["declined-in-another-tab", "expired"])
async def test_a_save_that_loses_a_race_stores_nothing(
    store: Store, opened_sites: list[Site], race: str
) -> None:
    """Save is read as live, then the flow is declined from another tab (or expires) before
    it completes: the page says nothing was saved, and nothing was. Storing the value and
    completing the flow are one step of the store (``complete_flow``)."""
    racing = RaceAfterRead(store)
    site = make_site(racing, HeaderIdentity())  # type: ignore[arg-type]
    opened_sites.append(site)
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)

    async def decline_in_another_tab() -> None:
        await site.flows.decline(flow_id, user="alice")

    async def expire() -> None:
        site.clock.then = 3600  # the page's check still sees it live; what follows does not

    racing.after_next_read(flow_id, decline_in_another_tab if race != "expired" else expire)
    fields = {"csrf": token, "action": "submit", "value": SENTINEL}
    answer = await site.post(flow_id, fields, ALICE)
    if race == "expired":
        assert answer.status_code == 410 and "Nothing was saved" in answer.text
        assert await site.status_of(flow_id) is FlowStatus.EXPIRED
    else:
        assert answer.status_code == 200 and "Declined" in answer.text
        assert await site.status_of(flow_id) is FlowStatus.DECLINED
    assert await site.vault.get("alice", "weather-api") is None
    assert await store.get_secret("alice", "weather-api", server="") is None


async def test_empty_value_shows_the_form_again_without_echo(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    for empty in ("", "   "):
        answer = await site.post(
            flow_id, {"csrf": token, "action": "submit", "value": empty}, ALICE
        )
        assert answer.status_code == 422
        assert "<title>Error: " in answer.text  # said first, as the page loads
        tags = Tags(answer.text)
        (field,) = tags.find("input", type="password")
        assert "value" not in field and field["aria-invalid"] == "true"
        assert tags.find("p", role="alert")
    assert await site.status_of(flow_id) is FlowStatus.OPENED
    # The re-shown form works.
    answer = await site.post(flow_id, {"csrf": token, "action": "submit", "value": "v"}, ALICE)
    assert answer.status_code == 303


async def test_a_bad_action_or_a_repeated_field_is_refused(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    unknown = await site.post(flow_id, {"csrf": token, "action": "steal"}, ALICE)
    assert unknown.status_code == 400
    repeated = await site.client.post(
        flow_path(flow_id),
        content=f"csrf={token}&action=submit&value=a&value=b",
        headers={**ALICE, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert repeated.status_code == 400
    multipart = await site.client.post(
        flow_path(flow_id), files={"value": ("v", b"v")}, data={"csrf": token}, headers=ALICE
    )
    assert multipart.status_code == 415
    assert await site.status_of(flow_id) is FlowStatus.OPENED


async def test_expired_flow(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    site.clock.now += 3600
    page = await site.client.get(flow_path(flow_id), headers=ALICE)
    assert page.status_code == 410 and "expired" in page.text and "<form" not in page.text
    status = await site.client.get(f"{flow_path(flow_id)}/status", headers=ALICE)
    assert status.status_code == 410
    late = await site.post(flow_id, {"csrf": token, "action": "submit", "value": "v"}, ALICE)
    assert late.status_code == 410
    assert await site.status_of(flow_id) is FlowStatus.EXPIRED
    assert await site.vault.get("alice", "weather-api") is None


async def test_status_page_while_waiting(site: Site) -> None:
    flow_id = await site.start()
    status = await site.client.get(f"{flow_path(flow_id)}/status", headers=ALICE)
    assert status.status_code == 200 and "Waiting" in status.text
    assert Tags(status.text).find("a", href=flow_path(flow_id))
    assert await site.status_of(flow_id) is FlowStatus.PENDING  # looking is not opening


async def test_unknown_flow(site: Site) -> None:
    for path in (flow_path("no-such-flow"), f"{flow_path('no-such-flow')}/status"):
        page = await site.client.get(path, headers=ALICE)
        assert page.status_code == 404 and "Nothing here" in page.text
    other = await site.start()
    await site.form_token(other, ALICE)
    token = site.csrf.token(site.client.cookies[COOKIE_NAME], "no-such-flow")
    answer = await site.post("no-such-flow", {"csrf": token, "action": "decline"}, ALICE)
    assert answer.status_code == 404
    long_id = await site.client.get(flow_path("x" * 500), headers=ALICE)
    assert long_id.status_code == 404


async def test_a_flow_of_another_purpose_has_no_secret_page(site: Site) -> None:
    flow = await site.flows.start(user="alice", purpose="oauth", details={"provider": "x"})
    page = await site.client.get(flow_path(flow.id), headers=ALICE)
    assert page.status_code == 404
    assert await site.status_of(flow.id) is FlowStatus.PENDING
    status = await site.client.get(f"{flow_path(flow.id)}/status", headers=ALICE)
    assert status.status_code == 200


# -- limits and errors -----------------------------------------------------------------------


async def test_body_limit(site: Site) -> None:
    flow_id = await site.start()
    token = await site.form_token(flow_id, ALICE)
    big = "v" * (MAX_BODY_BYTES + 1)
    declared = await site.post(flow_id, {"csrf": token, "action": "submit", "value": big}, ALICE)
    assert declared.status_code == 413

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it streams
        yield f"csrf={token}&action=submit&value=".encode()
        for _ in range(MAX_BODY_BYTES // 1024 + 1):
            yield b"v" * 1024

    streamed = await site.client.post(
        flow_path(flow_id),
        content=chunks(),
        headers={**ALICE, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert streamed.status_code == 413
    assert await site.status_of(flow_id) is FlowStatus.OPENED
    assert await site.vault.get("alice", "weather-api") is None


async def test_router_errors_are_pages_with_headers(site: Site) -> None:
    missing = await site.client.get(f"{PAGES_PREFIX}/nowhere")
    assert missing.status_code == 404 and Tags(missing.text).find("main")
    assert "Nothing here" in missing.text
    wrong = await site.client.delete(flow_path("x"))
    assert wrong.status_code == 405 and Tags(wrong.text).find("main")


class BrokenIdentity(HeaderIdentity):
    async def user_of_browser(self, request: Request) -> str | None:
        raise RuntimeError("identity provider down")


async def test_a_server_error_is_a_page_with_headers(site_for: Callable[..., Site]) -> None:
    site = site_for(BrokenIdentity(), raise_errors=False)
    flow_id = await site.start()
    page = await site.client.get(flow_path(flow_id))
    assert page.status_code == 500 and "Something went wrong" in page.text
    assert "identity provider down" not in page.text


# -- the secret goes nowhere but the vault ---------------------------------------------------


async def test_sentinel_never_leaves_the_vault(
    tmp_path: Path, opened_sites: list[Site], caplog: pytest.LogCaptureFixture
) -> None:
    for name in [None, *logging.root.manager.loggerDict]:
        caplog.set_level(logging.DEBUG, logger=name)
    store = SQLiteStore(tmp_path / "sentinel.db")
    try:
        site = make_site(store, HeaderIdentity())
        opened_sites.append(site)
        flow_id = await site.start()
        token = await site.form_token(flow_id, ALICE)
        form = "application/x-www-form-urlencoded"

        # Every way the value can be refused first: forged, cross-site, another user,
        # oversized, damaged, repeated; and with a decline.
        await site.post(flow_id, {"csrf": "x", "action": "submit", "value": SENTINEL}, ALICE)
        await site.post(
            flow_id,
            {"csrf": token, "action": "submit", "value": SENTINEL},
            {**ALICE, "Origin": "https://evil.example"},
        )
        await site.post(flow_id, {"csrf": token, "action": "submit", "value": SENTINEL}, BOB)
        await site.post(flow_id, {"csrf": token, "action": "nope", "value": SENTINEL}, ALICE)
        pad = "p" * MAX_BODY_BYTES
        await site.post(flow_id, {"csrf": token, "value": SENTINEL, "pad": pad}, ALICE)
        for damaged in (
            f"csrf={token}&{SENTINEL}",
            f"csrf={token}&value={SENTINEL}&value={SENTINEL}",
            f"csrf={token}&value={SENTINEL}%ff",
            f"csrf={token}&value={SENTINEL}é",
        ):
            await site.client.post(
                flow_path(flow_id),
                content=damaged.encode(),
                headers={**ALICE, "Content-Type": form},
            )
        assert await site.status_of(flow_id) is FlowStatus.OPENED

        fields = {"csrf": token, "action": "submit", "value": SENTINEL}
        answer = await site.post(flow_id, fields, ALICE)
        assert answer.status_code == 303
        await site.client.get(answer.headers["location"], headers=ALICE)
        await site.client.get(flow_path(flow_id), headers=ALICE)
        again = await site.post(flow_id, fields, ALICE)  # a double submit
        assert again.status_code == 200

        stored = await site.vault.get("alice", "weather-api")
        assert stored is not None and stored.get_secret_value() == SENTINEL
    finally:
        await store.aclose()

    assert len(site.responses) >= 12
    for response in site.responses:
        assert SENTINEL not in response.text
        assert SENTINEL not in str(response.headers)
    assert caplog.records, "DEBUG logging was on; something should have logged"
    for record in caplog.records:
        logged = f"{record.getMessage()} {record.args!r} {record.exc_text or ''}"
        assert SENTINEL not in logged
    assert SENTINEL not in caplog.text
    files = list(tmp_path.glob("sentinel.db*"))
    assert files
    for file in files:
        assert SENTINEL.encode() not in file.read_bytes(), file.name


# -- the Host allow-list, on a real loopback server ------------------------------------------
#
# DNS rebinding: a page on evil.example makes its name resolve to 127.0.0.1, then fetches and
# posts to http://evil.example:PORT/elicit/... Its Origin then matches the Host it sends, so
# the same-origin check passes; only the Host names the wrong server.

EVIL = "evil.example"


def _plain_refusal(response: httpx2.Response) -> None:
    assert response.status_code == 400, (response.status_code, response.text[:200])
    assert response.headers["content-type"].startswith("text/plain")
    assert "does not answer to that host name" in response.text
    assert_security_headers(response)


@contextlib.asynccontextmanager
async def _loopback_pages(
    monkeypatch: pytest.MonkeyPatch, **options: Any
) -> AsyncIterator[tuple[Elicitation, int]]:
    """An Elicitation serving its pages on a loopback port, as a stdio server does."""
    monkeypatch.delenv("MCP_ELICIT_PAGES_PORT", raising=False)
    elicitation = Elicitation(
        MCPServer("hosts"), key=DeploymentKey.generate(), store="memory://", **options
    )
    async with elicitation.running(serve_pages_on_loopback=True):
        assert elicitation.public_url is not None
        port = urlsplit(elicitation.public_url).port
        assert port is not None
        with anyio.fail_after(10):  # serving starts just after the socket is bound
            while True:
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.01)
        yield elicitation, port


async def _secret_flow(elicitation: Elicitation) -> str:
    flow = await elicitation.flows.start(
        user=LOCAL_USER, purpose=SECRET_PURPOSE, details={"name": "weather-api"}
    )
    return flow.id


async def test_loopback_pages_answer_only_their_own_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with (
        _loopback_pages(monkeypatch) as (elicitation, port),
        httpx2.AsyncClient(timeout=10.0) as http,
    ):
        flow_id = await _secret_flow(elicitation)
        url = elicitation.flow_url(flow_id)
        assert url.startswith(f"http://127.0.0.1:{port}/")

        for host in (f"{EVIL}:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1", EVIL, "[::2]"):
            _plain_refusal(await http.get(url, headers={"Host": host}))
        # Refused before any page code ran: the flow was not even opened.
        flow = await elicitation.flows.get(flow_id)
        assert flow is not None and flow.status is FlowStatus.PENDING

        # HTTP/1.0 may leave Host out; that is refused too.
        stream = await anyio.connect_tcp("127.0.0.1", port)
        async with stream:
            await stream.send(f"GET {urlsplit(url).path} HTTP/1.0\r\n\r\n".encode())
            raw = b""
            with anyio.fail_after(10):
                try:
                    while True:
                        raw += await stream.receive()
                except anyio.EndOfStream:
                    pass
        assert raw.startswith(b"HTTP/1.1 400"), raw[:100]
        assert b"frame-ancestors 'none'" in raw

        for host in (
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            f"[::1]:{port}",
            f"LocalHost:{port}",
        ):
            page = await http.get(url, headers={"Host": host})
            assert page.status_code == 200 and "weather-api" in page.text, host
            assert_security_headers(page)


async def test_a_rebinding_page_cannot_post_even_with_a_valid_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Everything the CSRF checks look at is right, the token and cookie included (taken
    here from a real visit): only the Host is the attacker's. Without the Host check this
    post is accepted (303) and the attacker's value lands in the vault."""
    async with (
        _loopback_pages(monkeypatch) as (elicitation, port),
        httpx2.AsyncClient(timeout=10.0) as http,
    ):
        flow_id = await _secret_flow(elicitation)
        url = elicitation.flow_url(flow_id)
        token = token_in((await http.get(url)).text)
        attacker = f"{EVIL}:{port}"
        answer = await http.post(
            url,
            data={"csrf": token, "action": "submit", "value": "chosen-by-attacker"},
            headers={
                "Host": attacker,
                "Origin": f"http://{attacker}",
                "Sec-Fetch-Site": "same-origin",
            },
        )
        _plain_refusal(answer)
        flow = await elicitation.flows.get(flow_id)
        assert flow is not None and flow.status is FlowStatus.OPENED
        assert await elicitation.vault.get(LOCAL_USER, "weather-api") is None


def _served(app: Starlette) -> contextlib.AbstractAsyncContextManager[int]:
    return serve_on_loopback(app, lifespan="off")


async def test_mounted_pages_answer_to_the_public_url(caplog: pytest.LogCaptureFixture) -> None:
    """Behind a proxy: the pages mounted in an app on loopback, reached as ``public_url``.
    The loopback names are not allowed (no ``loopback_port``), and ``public_url`` is read
    on each request, so setting it after ``mount`` counts."""
    elicitation = Elicitation(MCPServer("hosts"), key=DeploymentKey.generate(), store="memory://")
    app = Starlette()
    elicitation.mount(app)
    async with _served(app) as port, httpx2.AsyncClient(timeout=10.0) as http:
        flow_id = await _secret_flow(elicitation)
        url = f"http://127.0.0.1:{port}{flow_path(flow_id)}"

        with caplog.at_level(logging.WARNING, logger="mcp_elicit.server.pages.hosts"):
            _plain_refusal(await http.get(url, headers={"Host": "pages.example"}))
        assert "no Host is allowed yet" in caplog.text

        elicitation.public_url = "https://pages.example"
        for host in ("pages.example", "pages.example:443", "PAGES.example"):
            page = await http.get(url, headers={"Host": host})
            assert page.status_code == 200, host
            assert_security_headers(page)
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "pages.example:8443", EVIL):
            _plain_refusal(await http.get(url, headers={"Host": host}))
    await elicitation.store.aclose()


def test_page_hosts() -> None:
    assert page_hosts(public_url=None, loopback_port=8123) == {
        "127.0.0.1:8123",
        "localhost:8123",
        "[::1]:8123",
    }
    assert page_hosts(public_url="http://[::1]:80/", loopback_port=None) == {"[::1]", "[::1]:80"}
    assert page_hosts(public_url="https://Pages.Example:8443/base", loopback_port=None) == {
        "pages.example:8443"
    }
    assert page_hosts(public_url=None, loopback_port=None) == frozenset()
    with pytest.raises(ValueError, match="public_url must be an http"):
        page_hosts(public_url="pages.example", loopback_port=None)
