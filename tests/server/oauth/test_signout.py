"""Signing out ends the session, not only the cookie (issue 30, finding 5: a session cookie
copied before sign-out still opened the user's flows for 8 hours).

Alice signs in at a real ``oidc-provider`` (over HTTP, no browser) on one of two instances
that share a store and a key, as behind a load balancer; someone copies her session cookie;
she signs out. The copy, replayed on either instance, is sent to sign in again and sees
nothing of her flow. On every engine: memory and SQLite (one store object, one file), Redis
and PostgreSQL (real servers, ``services``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest

from mcp_elicit.server.oauth.signin import SESSION_COOKIE
from mcp_elicit.stores import MemoryStore, Store
from tests.ports import free_port
from tests.server.instances_support import shared_store
from tests.server.oauth.signin_support import Pages, copy_of_cookies, oidc_site, pages_of

pytestmark = [pytest.mark.anyio, pytest.mark.node]


@asynccontextmanager
async def two_instances_store(engine: str, tmp_path: Path) -> AsyncIterator[list[Store | str]]:
    """What two instances are given to share one store on ``engine``."""
    if engine == "memory":
        shared = MemoryStore()
        yield [shared, shared]
    elif engine == "sqlite":
        url = f"sqlite:///{tmp_path}/pages.db"
        yield [url, url]
    else:
        async with shared_store(engine) as url:
            yield [url, url]


async def replay(pages: Pages, session: str, path: str) -> httpx2.Response:
    """A request of another browser carrying only the copied session cookie."""
    async with httpx2.AsyncClient(
        transport=pages.transport, base_url=pages.site.origin, follow_redirects=False, timeout=10
    ) as other:
        other.cookies.set(SESSION_COOKIE, session)
        return await other.get(path)


def assert_sent_to_sign_in(response: httpx2.Response) -> None:
    assert response.status_code == 303, (response.status_code, response.text[:300])
    assert response.headers["location"].startswith("/elicit/signin?")
    assert "API_KEY" not in response.text and "Your key" not in response.text


@pytest.mark.parametrize(
    "engine",
    [
        "memory",
        "sqlite",
        pytest.param("redis", marks=pytest.mark.services),
        pytest.param("postgresql", marks=pytest.mark.services),
    ],
)
async def test_a_cookie_copied_before_sign_out_opens_nothing_on_any_instance(
    engine: str, tmp_path: Path
) -> None:
    origin = f"http://127.0.0.1:{free_port()}"
    with oidc_site(origin) as site:
        async with (
            two_instances_store(engine, tmp_path) as stores,
            pages_of(site, stores) as (one, two),
        ):
            flow = await one.elicitation.flows.start(
                user=site.user("alice"),
                purpose="secret",
                details={"name": "API_KEY", "message": "Your key"},
            )
            path = one.flow_path(flow)
            await one.sign_in(path, "alice")
            copied = copy_of_cookies(one.client)[SESSION_COOKIE]
            # Before sign-out the copy is as good as hers, on both instances (shared key).
            for instance in (one, two):
                assert (await replay(instance, copied, path)).status_code == 200

            done = await one.sign_out()
            assert "no longer signed in" in done.text

            for instance in (one, two):
                assert_sent_to_sign_in(await replay(instance, copied, path))
                status = await replay(instance, copied, f"{path}/status")
                assert_sent_to_sign_in(status)
            # Her own browser too, and she can sign in again: a new session, not ended.
            assert_sent_to_sign_in(await one.client.get(path))
            await one.sign_in(path, "alice")
            assert (await one.client.get(path)).status_code == 200
            assert (await two.client.get(path)).status_code == 303  # two has no cookie of hers
            fresh = copy_of_cookies(one.client)[SESSION_COOKIE]
            assert (await replay(two, fresh, path)).status_code == 200


async def test_switching_account_ends_the_session_it_replaces() -> None:
    origin = f"http://127.0.0.1:{free_port()}"
    with oidc_site(origin) as site:
        async with pages_of(site, [MemoryStore()]) as (one,):
            flow = await one.elicitation.flows.start(
                user=site.user("alice"), purpose="secret", details={"name": "API_KEY"}
            )
            path = one.flow_path(flow)
            await one.sign_in(path, "bob")
            bobs = copy_of_cookies(one.client)[SESSION_COOKIE]
            assert (await replay(one, bobs, path)).status_code == 403  # not his flow
            # The same browser signs in as alice ("Sign in with another account").
            again = await one.client.get("/elicit/signin", params={"next": path, "prompt": "login"})
            assert again.status_code == 303
            answer = await one.provider_answer(again.headers["location"], "alice")
            assert (await one.deliver(answer)).status_code == 303
            assert (await one.client.get(path)).status_code == 200
            assert_sent_to_sign_in(await replay(one, bobs, path))
