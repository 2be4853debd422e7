"""``OidcIdentity``: browsers sign in to the hosted pages at a real OpenID provider.

The pages are served on a loopback port with a secret flow of alice's; a real
``oidc-provider`` signs people in; HTTP-level checks use httpx2, the sign-in itself a real
Chromium. Each attack on the sign-in is here: a callback whose ``state`` is not this browser's,
a tampered session cookie, an open redirect through ``next``, a sign-out posted from
elsewhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit.server import Elicitation
from mcp_elicit.server.links import OAUTH_PURPOSE
from mcp_elicit.server.oauth import OAuthProvider, OidcIdentity
from mcp_elicit.server.oauth.signin import SESSION_COOKIE, SIGNIN_COOKIE, user_id
from mcp_elicit.stores import FlowRecord
from tests.browser_support import chromium
from tests.oidc_support import Provider, sign_in_and_consent
from tests.peer_servers.secret_server import free_port
from tests.server.oauth.signin_support import CLIENT, oidc_site
from tests.server_support import serve_on_loopback

pytestmark = [pytest.mark.anyio, pytest.mark.node, pytest.mark.browser]


@dataclass
class Site:
    origin: str
    provider: Provider
    elicitation: Elicitation
    flow: FlowRecord

    @property
    def flow_url(self) -> str:
        return f"{self.origin}/elicit/flows/{self.flow.id}"


@contextlib.asynccontextmanager
async def site() -> AsyncIterator[Site]:
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    with oidc_site(origin) as oidc:
        provider = oidc.provider
        elicitation = Elicitation(
            key=oidc.key,
            store="memory://",
            identity=OidcIdentity(provider.issuer, CLIENT, oidc.secret),
            public_url=origin,
            # A third party (the same provider will do: only the link to it is looked at).
            providers=[OAuthProvider("files", "files-client", "x", issuer=provider.issuer)],
        )
        app = Starlette(routes=[Mount("/elicit", app=elicitation.pages_app(loopback_port=port))])
        flow = await elicitation.flows.start(
            user=user_id(provider.issuer, "alice"),
            purpose="secret",
            details={"name": "API_KEY", "message": "Your key"},
        )
        async with serve_on_loopback(app, port=port):
            yield Site(origin, provider, elicitation, flow)


def http() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(follow_redirects=False, timeout=10)


async def test_a_signed_out_browser_is_sent_to_sign_in_with_pkce() -> None:
    async with site() as s, http() as client:
        first = await client.get(s.flow_url)
        assert first.status_code == 303
        signin = first.headers["location"]
        assert signin.startswith("/elicit/signin?")
        assert parse_qs(urlsplit(signin).query)["next"] == [f"/elicit/flows/{s.flow.id}"]

        start = await client.get(s.origin + signin)
        assert start.status_code == 303
        to = urlsplit(start.headers["location"])
        assert f"{to.scheme}://{to.netloc}" == s.provider.issuer
        asked = parse_qs(to.query)
        assert asked["code_challenge_method"] == ["S256"] and asked["code_challenge"]
        assert asked["client_id"] == [CLIENT] and asked["response_type"] == ["code"]
        assert "openid" in asked["scope"][0].split() and asked["nonce"] and asked["state"]
        cookie = start.headers["set-cookie"]
        assert cookie.startswith(f"{SIGNIN_COOKIE}=")
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/elicit" in cookie
        # What the cookie holds (state, nonce, PKCE verifier) is sealed, not readable.
        assert asked["state"][0] not in cookie and asked["nonce"][0] not in cookie


async def test_a_callback_whose_state_is_not_this_browsers_signs_nobody_in() -> None:
    async with site() as s, http() as client:
        start = await client.get(f"{s.origin}/elicit/signin?next=/elicit/")
        state = parse_qs(urlsplit(start.headers["location"]).query)["state"][0]
        for query in [f"state={state}x&code=abc", "state=&code=abc"]:
            back = await client.get(f"{s.origin}/elicit/signin/callback?{query}")
            assert back.status_code == 400
            assert SESSION_COOKIE not in back.headers.get("set-cookie", "")
        # Another browser (no sign-in cookie) with this browser's state: the same.
        async with http() as other:
            back = await other.get(f"{s.origin}/elicit/signin/callback?state={state}&code=abc")
        assert back.status_code == 400
        # The right state with a code the provider never issued: no session either.
        back = await client.get(f"{s.origin}/elicit/signin/callback?state={state}&code=forged")
        assert back.status_code == 400
        assert SESSION_COOKIE not in back.headers.get("set-cookie", "")


@pytest.mark.parametrize(
    "wanted",
    [
        "https://evil.example/",
        "//evil.example/x",
        "/\\evil.example",
        "/not-the-pages/x",
        "javascript:alert(1)",
        "elicit/flows/x",
        "/elicit/../../evil",
        "/elicit/%2e%2e/evil",
    ],
)
async def test_next_never_leaves_the_pages(wanted: str) -> None:
    async with site() as s, http() as client:
        start = await client.get(f"{s.origin}/elicit/signin", params={"next": wanted})
        assert start.status_code == 303
        # The sealed sign-in cookie keeps the path it will go back to; reading it back
        # through the identity shows the fallback, never the wanted place.
        identity = s.elicitation.runtime.identity
        assert isinstance(identity, OidcIdentity)
        sealed = start.cookies.get(SIGNIN_COOKIE)
        kept = identity._signin.open(sealed) if identity._signin is not None else None
        assert kept is not None and kept["next"] == "/elicit/"


async def test_alice_signs_in_in_chromium_and_her_session_is_sealed_and_scoped() -> None:
    async with site() as s, chromium() as browser:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(s.flow_url)
        await sign_in_and_consent(page, "alice")
        # Back on the page she wanted: the secret form of her own flow.
        assert page.url == s.flow_url
        assert await page.get_by_role("button", name="Save").count()
        cookies = {c["name"]: c for c in await context.cookies(s.flow_url)}
        session = cookies[SESSION_COOKIE]
        assert session["httpOnly"] and session["sameSite"] == "Lax" and session["path"] == "/elicit"
        assert not session["secure"]  # http on loopback; Secure on https
        assert "alice" not in session["value"]
        assert SIGNIN_COOKIE not in cookies  # used up

        # A tampered session is no session: sent to sign in again.
        value = session["value"]
        tampered = value[:-3] + ("AAA" if not value.endswith("AAA") else "BBB")
        await context.add_cookies([{**session, "value": tampered}])
        async with http() as client:
            client.cookies.set(SESSION_COOKIE, tampered)
            response = await client.get(s.flow_url)
        assert response.status_code == 303 and "/elicit/signin" in response.headers["location"]

        await context.close()


async def test_bob_signed_in_is_refused_and_may_switch_account() -> None:
    async with site() as s, chromium() as browser:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(s.flow_url)
        await sign_in_and_consent(page, "bob")
        assert "This link was not made for you" in await page.inner_text("main")
        switch = page.get_by_role("link", name="Sign in with another account")
        href = await switch.get_attribute("href")
        assert href is not None and "prompt=login" in href
        flow = await s.elicitation.flows.get(s.flow.id)
        assert flow is not None and flow.status.value == "pending"  # bob opened nothing
        # Switching: the provider asks who signs in (prompt=login), alice does, and lands
        # on her flow.
        await switch.click()
        await page.wait_for_load_state()
        await sign_in_and_consent(page, "alice")
        assert page.url == s.flow_url
        await context.close()


async def test_sign_out_is_a_form_post_no_other_site_can_send() -> None:
    async with site() as s, chromium() as browser:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(s.flow_url)
        await sign_in_and_consent(page, "alice")
        session = {c["name"]: c["value"] for c in await context.cookies(s.flow_url)}[SESSION_COOKIE]

        # Posted without the page's token (another site's form): refused, still signed in.
        async with http() as client:
            client.cookies.set(SESSION_COOKIE, session)
            forged = await client.post(
                f"{s.origin}/elicit/signout",
                data={"next": "/elicit/"},
                headers={"Origin": "https://evil.example"},
            )
        assert forged.status_code == 403
        assert "set-cookie" not in forged.headers

        # From the page itself: signed out, then on to sign in again as someone.
        await page.goto(f"{s.origin}/elicit/signout?next=/elicit/flows/{s.flow.id}")
        async with page.expect_navigation():
            await page.get_by_role("button", name="Sign out and sign in again").click()
        assert "no longer signed in" in await page.inner_text("main")
        names = {c["name"] for c in await context.cookies(s.flow_url)}
        assert SESSION_COOKIE not in names
        async with page.expect_navigation():
            await page.get_by_role("link", name="Sign in again").click()
        assert page.url.startswith(s.provider.issuer)
        assert "prompt=login" in page.url or await page.get_by_label("Account").count()
        await context.close()


async def test_a_preview_of_a_connect_link_sends_nobody_anywhere() -> None:
    async with site() as s, chromium() as browser:
        connect = await s.elicitation.flows.start(
            user=user_id(s.provider.issuer, "alice"),
            purpose=OAUTH_PURPOSE,
            details={"provider": "files", "title": "Files", "scopes": ["files:read"]},
        )
        url = f"{s.origin}/elicit/flows/{connect.id}"
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(s.flow_url)
        await sign_in_and_consent(page, "alice")
        session = {c["name"]: c["value"] for c in await context.cookies(s.flow_url)}
        async with http() as client:
            client.cookies.set(SESSION_COOKIE, session[SESSION_COOKIE])
            # A chat app's preview, a prefetch, a HEAD: a page, no redirect, nothing opened.
            for headers, method in [
                ({"User-Agent": "Slackbot-LinkExpanding 1.0"}, "GET"),
                ({"Sec-Purpose": "prefetch"}, "GET"),
                ({}, "HEAD"),
            ]:
                looked = await client.request(method, url, headers=headers)
                assert looked.status_code == 200, (headers, method)
            flow = await s.elicitation.flows.get(connect.id)
            assert flow is not None and flow.status.value == "pending"
            # Alice herself: on to the provider, with PKCE and a sealed state.
            went = await client.get(url)
            assert went.status_code == 303
            to = parse_qs(urlsplit(went.headers["location"]).query)
            assert to["client_id"] == ["files-client"] and to["code_challenge_method"] == ["S256"]
            assert connect.id not in to["state"][0] and "alice" not in to["state"][0]
            flow = await s.elicitation.flows.get(connect.id)
            assert flow is not None and flow.status.value == "opened"
        await context.close()
