"""Login CSRF by planted cookies (issue 30, finding 6): an attacker who can set cookies for the
pages' host (a sibling domain with ``Domain=``, or an answer to a plain-http request) made a
victim's browser finish the attacker's sign-in, or carry the attacker's session: the victim,
signed in as the attacker without knowing it, types a secret into the attacker's flow.

Mallory (``bob`` at the provider) gets what she would plant from her own browser: a sign-in
cookie with its state, the provider's answer for her (code and state), and a session. A
browser takes from a sibling domain only cookies whose names do not start with ``__Host-``
(or ``__Secure-`` from plain http), so what she can plant is her cookies under their names
without that prefix. On https the pages' cookies are ``__Host-`` ones and the pages read
nothing else; on plain http, where no prefix helps, the sign-in must carry the binding of the
browser that started it, and a name sent twice (hers beside the victim's own) is refused.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx2
import pytest

from mcp_elicit.server.oauth.signin import SESSION_COOKIE, SIGNIN_COOKIE
from mcp_elicit.stores import FlowRecord, MemoryStore
from tests.ports import free_port
from tests.server.oauth.signin_support import (
    Pages,
    copy_of_cookies,
    oidc_site,
    pages_of,
)

pytestmark = [pytest.mark.anyio, pytest.mark.node]

# Spelt out, as docs/identity.md names them: the browser's binding cookie, and the prefix a
# browser lets only this host set, on https.
BROWSER_COOKIE = "mcp_elicit_browser"
HOST_PREFIX = "__Host-"


def plantable(cookies: dict[str, str]) -> dict[str, str]:
    """What a sibling domain can set of these cookies: their names without ``__Host-``."""
    return {name.removeprefix(HOST_PREFIX): value for name, value in cookies.items()}


def cookie_header(*planted: Mapping[str, str | None]) -> str:
    return "; ".join(
        f"{name}={value}"
        for cookies in planted
        for name, value in cookies.items()
        if value is not None
    )


async def victim_visits(pages: Pages, path: str, cookie: str) -> httpx2.Response:
    """The victim's browser at ``path``, sending exactly ``cookie``."""
    async with httpx2.AsyncClient(
        transport=pages.transport, base_url=pages.site.origin, follow_redirects=False, timeout=10
    ) as victim:
        return await victim.get(path, headers={"Cookie": cookie} if cookie else {})


async def mallorys_flow(pages: Pages) -> FlowRecord:
    """A flow of Mallory's own, whose link she sends to the victim."""
    return await pages.elicitation.flows.start(
        user=pages.site.user("bob"),
        purpose="secret",
        details={"name": "API_KEY", "message": "Your key"},
    )


def assert_not_signed_in(response: httpx2.Response) -> None:
    set_cookie = " ".join(response.headers.get_list("set-cookie"))
    assert f"{SESSION_COOKIE}=" not in set_cookie or "Max-Age=0" in set_cookie, set_cookie
    assert response.status_code in (303, 400), (response.status_code, response.text[:300])
    if response.status_code == 303:
        assert response.headers["location"].startswith("/elicit/signin?")


async def test_on_https_cookies_a_sibling_domain_plants_are_never_read() -> None:
    with oidc_site("https://pages.hotel.example") as site:
        async with pages_of(site, [MemoryStore()]) as (pages,):
            flow = await mallorys_flow(pages)
            path = pages.flow_path(flow)

            # Mallory's own browser: a sign-in under way, and the provider's answer for it.
            answer = await pages.provider_answer(await pages.start_sign_in(path), "bob")
            in_progress = plantable(copy_of_cookies(pages.client))
            assert SIGNIN_COOKIE in in_progress
            # The victim follows her link to the callback, carrying what she planted.
            parts = httpx2.URL(answer)
            callback = await victim_visits(
                pages, f"{parts.path}?{parts.query.decode()}", cookie_header(in_progress)
            )
            assert_not_signed_in(callback)

            # Her finished session, planted as it is (its name without the prefix).
            assert (await pages.deliver(answer)).status_code == 303
            session = plantable(copy_of_cookies(pages.client))
            assert SESSION_COOKIE in session
            seen = await victim_visits(pages, path, cookie_header(session))
            assert_not_signed_in(seen)
            assert "API_KEY" not in seen.text

            # Every cookie the pages set on https is a __Host- one: Secure, Path=/, no Domain.
            for cookie in pages.client.cookies.jar:
                assert cookie.name.startswith(HOST_PREFIX), cookie.name
                assert cookie.secure and cookie.path == "/" and not cookie.domain_specified


async def test_on_http_a_planted_sign_in_does_not_finish_in_another_browser() -> None:
    origin = f"http://127.0.0.1:{free_port()}"
    with oidc_site(origin) as site:
        shared = MemoryStore()
        # Two browsers (two clients) at instances sharing the store: hers and the victim's.
        async with pages_of(site, [shared, shared]) as (mallory, victim):
            flow = await mallorys_flow(mallory)
            path = mallory.flow_path(flow)
            answer = await mallory.provider_answer(await mallory.start_sign_in(path), "bob")
            hers = copy_of_cookies(mallory.client)
            parts = httpx2.URL(answer)
            callback = f"{parts.path}?{parts.query.decode()}"

            # The victim has signed in here before (or started to): her browser has its own
            # binding. Mallory plants only her sign-in cookie: it names another browser.
            await victim.start_sign_in(path)
            own = copy_of_cookies(victim.client).get(BROWSER_COOKIE)
            planted = {SIGNIN_COOKIE: hers[SIGNIN_COOKIE]}
            assert_not_signed_in(
                await victim_visits(victim, callback, cookie_header(planted, {BROWSER_COOKIE: own}))
            )
            # She plants her binding too: beside the victim's own, the name comes twice.
            both = {BROWSER_COOKIE: hers.get(BROWSER_COOKIE)}
            assert_not_signed_in(
                await victim_visits(
                    victim, callback, cookie_header(planted, both, {BROWSER_COOKIE: own})
                )
            )
            # A sign-in cookie sent twice (hers beside the victim's) is no sign-in either.
            assert_not_signed_in(
                await victim_visits(
                    victim,
                    callback,
                    cookie_header(
                        planted,
                        {SIGNIN_COOKIE: copy_of_cookies(victim.client)[SIGNIN_COOKIE]},
                        {BROWSER_COOKIE: hers.get(BROWSER_COOKIE)},
                    ),
                )
            )
            # Her own browser, which started it, finishes it: the answer was good.
            assert (await mallory.deliver(answer)).status_code == 303
