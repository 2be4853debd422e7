"""Hosted pages with ``OidcIdentity`` served in process, signed in to over HTTP against a real
``oidc-provider`` (its pages posted, no browser): for the sign-in attacks that need only
requests (tests/server/oauth/test_signout.py, tests/server/oauth/test_login_csrf.py).

A :class:`Pages` is one server instance's pages behind an ``httpx2`` client of its own (the
ASGI app in process, at ``origin``, which may be ``https://``: the app sees the scheme the
client uses). Several instances share a store and a deployment key, as behind a load
balancer.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit.server import DeploymentKey, Elicitation
from mcp_elicit.server.oauth import OidcIdentity
from mcp_elicit.server.oauth.signin import user_id
from mcp_elicit.stores import FlowRecord, Store
from tests.oidc_support import Provider, authorize_over_http, start_provider

CLIENT = "pages"
SERVER_ID = "hotel"


@dataclass
class OidcSite:
    """The provider, and what every instance shares: the client secret, the key, the store."""

    provider: Provider
    origin: str
    secret: str
    key: DeploymentKey
    client_id: str = CLIENT  # this server's client at the provider

    def elicitation(self, store: Store | str) -> Elicitation:
        return Elicitation(
            key=self.key,
            store=store,
            server_id=SERVER_ID,
            identity=OidcIdentity(self.provider.issuer, self.client_id, self.secret),
            public_url=self.origin,
        )

    def user(self, account: str) -> str:
        return user_id(self.provider.issuer, account)


@contextlib.contextmanager
def oidc_site(origin: str) -> Iterator[OidcSite]:
    """A provider with this server registered (``origin``'s sign-in callback)."""
    secret = secrets.token_urlsafe(16)
    config = {
        "name": "Hotel accounts",
        "clients": [
            {
                "client_id": CLIENT,
                "client_secret": secret,
                "redirect_uris": [f"{origin}/elicit/signin/callback"],
            }
        ],
    }
    with start_provider(config) as provider:
        yield OidcSite(provider, origin, secret, DeploymentKey.generate())


@dataclass
class Pages:
    """One instance's pages and a browser-like client of them (cookies kept)."""

    site: OidcSite
    elicitation: Elicitation
    client: httpx2.AsyncClient
    transport: httpx2.ASGITransport  # for another browser at the same instance

    def flow_path(self, flow: FlowRecord) -> str:
        return f"/elicit/flows/{flow.id}"

    async def start_sign_in(self, path: str) -> str:
        """Open ``path`` signed out: the authorization request the pages send the browser
        to (the sign-in cookie set on the way)."""
        first = await self.client.get(path)
        assert first.status_code == 303, (first.status_code, first.text[:300])
        signin = first.headers["location"]
        assert signin.startswith("/elicit/signin?"), signin
        start = await self.client.get(signin)
        assert start.status_code == 303, (start.status_code, start.text[:300])
        location: str = start.headers["location"]
        assert location.startswith(self.site.provider.authorization_endpoint), location
        return location

    async def provider_answer(self, authorization: str, account: str) -> str:
        """``account`` signs in at the provider: its answer (code, state), undelivered."""
        back_to = parse_qs(urlsplit(authorization).query)["redirect_uri"][0]
        return await authorize_over_http(authorization, back_to, account=account)

    async def deliver(self, answer: str) -> httpx2.Response:
        parts = urlsplit(answer)
        return await self.client.get(f"{parts.path}?{parts.query}")

    async def sign_in(self, path: str, account: str) -> None:
        """Open ``path``, sign in as ``account``, and come back to it."""
        answer = await self.provider_answer(await self.start_sign_in(path), account)
        back = await self.deliver(answer)
        assert back.status_code == 303, (back.status_code, back.text[:300])
        assert back.headers["location"] == path

    async def sign_out(self) -> httpx2.Response:
        """Press Sign out on the sign-out page (its CSRF token, this origin)."""
        page = await self.client.get("/elicit/signout", params={"next": "/elicit/"})
        assert page.status_code == 200, page.text[:300]
        match = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert match, page.text
        done = await self.client.post(
            "/elicit/signout",
            data={"csrf": match.group(1), "next": "/elicit/"},
            headers={"Origin": self.site.origin},
        )
        assert done.status_code == 200, (done.status_code, done.text[:300])
        return done


@contextlib.asynccontextmanager
async def pages_of(
    site: OidcSite, stores: Sequence[Store | str], **client: Any
) -> AsyncIterator[list[Pages]]:
    """One instance per store given (the same store object or URL for instances that share
    it), each behind a client of its own at the site's origin."""
    async with contextlib.AsyncExitStack() as stack:
        made: list[Pages] = []
        for store in stores:
            elicitation = site.elicitation(store)
            app = Starlette(routes=[Mount("/elicit", app=elicitation.pages_app())])
            transport = httpx2.ASGITransport(app=app)
            http = httpx2.AsyncClient(
                transport=transport,
                base_url=site.origin,
                follow_redirects=False,
                timeout=10,
                **client,
            )
            await stack.enter_async_context(http)
            made.append(Pages(site, elicitation, http, transport))
        try:
            yield made
        finally:
            closed: set[int] = set()
            for pages in made:
                store = pages.elicitation.store
                if id(store) not in closed:
                    closed.add(id(store))
                    await store.aclose()


def copy_of_cookies(client: httpx2.AsyncClient) -> dict[str, str]:
    """The cookies a client holds, by name (what someone copying them would take)."""
    return {cookie.name: cookie.value or "" for cookie in client.cookies.jar}
