"""Downstream OAuth end to end: a tool gets alice's token at Example Files through URL mode.

Real parts only: two ``oidc-provider`` instances (Hotel accounts, the MCP authorization server
where browsers sign in; Example Files, a third party with a resource server that accepts only
its own tokens), the MCP server as a process of its own (``examples/oauth_server.py``),
our client with alice's access token (signed in by our client itself in the main test), and
alice (or bob) in a real Chromium. See ``world.py``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from joserfc.jws import extract_compact
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import ElicitingClient
from mcp_elicit.client.sign_in import SignIn
from mcp_elicit.client.token_file import TokenFile
from tests.browser_support import chromium
from tests.oidc_support import consent, wait_until_expired
from tests.peer_servers.secret_server import Wire
from tests.server.oauth.world import (
    FILES_AUDIENCE,
    FILES_CALLBACK,
    Person,
    World,
    client_for,
    handler_for,
    world,
)

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.node, pytest.mark.slow]

ALICE_FILES = "files of alice: alice-notes.txt, alice-budget.ods"
TIMEOUT = 150.0


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def claims_of(token: str) -> dict[str, Any]:
    """A JWT's claims, unverified (to say whose token reached Example Files)."""
    return dict(json.loads(extract_compact(token.encode()).payload))


async def call_as(
    w: World,
    person: Person,
    token: str,
    tool: str,
    protocol: str,
    wire: Wire,
    *,
    allow: bool = True,
) -> str:
    handler = handler_for(person, audit=w.tmp / "audit.jsonl")
    async with (
        client_for(w, token, handler, protocol, wire) as client,
        anyio.create_task_group() as tasks,
    ):
        tasks.start_soon(lambda: person.follow_links(allow=allow))
        result = await client.call_tool(tool, {})
        tasks.cancel_scope.cancel()
    return text_of(result)


def stored_tokens(w: World) -> list[str]:
    """Every token Example Files received (its resource server records them)."""
    return [header.removeprefix("Bearer ") for header in w.files.received]


async def signed_in(w: World, context: Any, folder: Path) -> str:
    """Alice's host signs in to the server as mcp-elicit's client does (the SDK's OAuth
    client: discovery from the 401, dynamic registration, PKCE, the loopback redirect), her
    browser going through Hotel accounts; the access token it keeps."""
    host = Person(w, context, "alice")
    sign_in = SignIn(ask=False, opener=host.opener, directory=folder)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(host.follow_links)
        async with ElicitingClient(w.mcp_url, handler_for(host), sign_in=sign_in) as client:
            assert "list_files" in {tool.name for tool in await client.list_tools()}
        tasks.cancel_scope.cancel()
    assert host.opened and host.opened[0].startswith(f"{w.mcp_as.issuer}/auth?")
    tokens = await TokenFile(w.mcp_url, folder).get_tokens()
    assert tokens is not None
    await context.close()
    return tokens.access_token


# -- the whole flow, on each way a tool can ask ---------------------------------------------------


@pytest.mark.parametrize(
    ("protocol", "tool"),
    [
        ("2025-11-25", "list_files"),  # a pushed URL request, then the completion notice
        ("2026-07-28", "list_files"),  # InputRequiredResult, the retry held until done
        ("2025-11-25", "list_files_later"),  # -32042, then the call again
    ],
)
async def test_alice_connects_example_files_and_her_tool_reads_her_files(
    tmp_path: Path, protocol: str, tool: str
) -> None:
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start()
            mcp_token = await signed_in(w, await browser.new_context(), tmp_path / "sign-in")
            context = await browser.new_context()
            alice = Person(w, context, "alice")
            assert await call_as(w, alice, mcp_token, tool, protocol, wire) == ALICE_FILES
            # She went through the server's own connect page, signed in there first (this
            # browser had no session), then Example Files' sign-in and consent.
            assert len(alice.opened) == 1 and alice.opened[0].startswith(
                f"{w.origin}/elicit/flows/"
            )
            landed = alice.pages
            assert any(p.startswith(f"{w.mcp_as.issuer}/") for p in landed)
            assert any(p.startswith(f"{w.files_as.issuer}/") for p in landed)
            assert any(p.startswith(f"{w.origin}{FILES_CALLBACK}?") for p in landed)

            # Again: the stored token is used, nobody is asked.
            assert await call_as(w, alice, mcp_token, tool, protocol, wire) == ALICE_FILES
            assert len(alice.opened) == 1

            # Example Files saw only its own tokens, made for alice; never the MCP token.
            received = stored_tokens(w)
            assert received and mcp_token not in received
            assert all(claims_of(t)["iss"] == w.files_as.issuer for t in received)
            assert all(claims_of(t)["sub"] == "alice" for t in received)
            assert all(claims_of(t)["aud"] == FILES_AUDIENCE for t in received)
            # The third party's tokens (the access tokens Example Files saw, and the refresh
            # token, read from the vault with the deployment key) are nowhere the client or
            # an operator could read them: not in the MCP traffic, the server's log (DEBUG),
            # the client's audit log (not even redacted), or the store's files.
            entry = await w.vault_entry("alice")
            assert entry["refresh_token"] and entry["access_token"] in received
            places = {
                "MCP traffic": wire.data(),
                "server log": w.server_output(),
                "audit log": (w.tmp / "audit.jsonl").read_bytes(),
                "store": w.store_bytes(),
            }
            for token in [*received, entry["refresh_token"]]:
                for where, data in places.items():
                    assert data, where
                    assert token.encode() not in data, f"a token appears in the {where}"
            await context.close()


async def where_it_stands(page: Any) -> tuple[str, str]:
    """The status page's heading, and all its words as the person sees them."""
    main = page.locator("main")
    return await main.locator("h1").inner_text(), " ".join((await main.inner_text()).split())


async def test_after_connecting_example_files_every_page_says_connected(tmp_path: Path) -> None:
    """Issue 31: after the provider's consent the page said "Saved / Done. hotel has your
    Example Files now", as if something had been typed. What alice sees where the callback
    sends her, on reloading it, and on opening the link again: "Connected"."""
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start()
            token = await w.mcp_token(browser, "alice")
            alice = Person(w, await browser.new_context(), "alice")
            landed: list[Any] = []

            async def follow() -> None:  # as Person.follow_links, keeping the page open
                async for url in alice.links:
                    landed.append(await alice.go(url))

            async with (
                client_for(w, token, handler_for(alice), "2026-07-28", wire) as client,
                anyio.create_task_group() as tasks,
            ):
                tasks.start_soon(follow)
                assert text_of(await client.call_tool("list_files", {})) == ALICE_FILES
                # The tool is done once the callback has stored the token, which may be
                # before her browser has finished loading the page it is sent to.
                while not landed:
                    await anyio.sleep(0.1)
                tasks.cancel_scope.cancel()
            [page] = landed
            assert any(p.startswith(f"{w.origin}{FILES_CALLBACK}?") for p in alice.pages)
            await page.wait_for_url(f"{w.origin}/elicit/flows/*/status")
            connected = (
                "Connected",
                "\N{CHECK MARK} Connected Done. hotel can use your Example Files account now. "
                "You can close this tab and go back to the app you were using.",
            )
            assert await where_it_stands(page) == connected
            await page.reload()
            assert await where_it_stands(page) == connected
            await page.goto(alice.opened[0])  # the link from the app, opened again
            assert await where_it_stands(page) == connected
            assert "Saved" not in await page.title()
            await alice.context.close()


# -- the attacks ---------------------------------------------------------------------------------


async def flow_link(w: World, mcp_token: str) -> str:
    """A live connect link of alice's, from -32042 (the SDK's own client: nothing opens it)."""

    async def never(context: Any, params: Any) -> types.ElicitResult:
        raise AssertionError("nothing is asked: the tool raises -32042")

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {mcp_token}"}, timeout=30)
    transport = streamable_http_client(w.mcp_url, http_client=http)
    # The SDK's client on 2025-11-25, declaring URL mode, leaves -32042 to its caller.
    async with http, Client(transport, elicitation_callback=never, mode="legacy") as sdk:
        with pytest.raises(MCPError) as raised:
            await sdk.call_tool("list_files_later", {})
    assert raised.value.code == -32042
    data = raised.value.data
    assert isinstance(data, dict)
    url = data["elicitations"][0]["url"]
    assert isinstance(url, str)
    return url


async def test_bobs_browser_cannot_use_alices_link_and_nothing_is_stored(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start()
            alice_token = await w.mcp_token(browser, "alice")
            link = await flow_link(w, alice_token)
            bob = Person(w, await browser.new_context(), "bob")
            page = await bob.go(link)
            # Bob signed in at the pages (a signed-out browser is sent to sign in), and is
            # then refused: the link was made for another account.
            assert page.url == link
            assert "This link was not made for you" in await page.inner_text("main")
            assert await page.get_by_role("link", name="Sign in with another account").count()
            assert not any(p.startswith(w.files_as.issuer) for p in bob.pages)
            # A changed flow id finds nothing, whoever asks.
            changed = link[:-4] + ("AAAA" if not link.endswith("AAAA") else "BBBB")
            response = await page.goto(changed)
            assert response is not None and response.status == 404
            assert w.files.received == []

            # Alice's own browser, signed out, is sent to sign in and lands on the flow,
            # then goes on to Example Files.
            alice = Person(w, await browser.new_context(), "alice")
            page = await alice.go(link)
            assert "/elicit/flows/" in page.url or "/status" in page.url
            assert any(p.startswith(w.files_as.issuer) for p in alice.pages)


async def test_a_replayed_changed_or_foreign_state_stores_nothing(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start()
            alice_token = await w.mcp_token(browser, "alice")
            bob_token = await w.mcp_token(browser, "bob")
            link = await flow_link(w, alice_token)
            alice = Person(w, await browser.new_context(), "alice")
            page = await alice.go(link)
            callbacks = [p for p in alice.pages if p.startswith(f"{w.origin}{FILES_CALLBACK}?")]
            assert len(callbacks) == 1
            callback = callbacks[0]
            before = w.store_bytes()

            # Replayed in alice's own browser: the flow is done; nothing more happens.
            response = await page.goto(callback)
            assert response is not None and response.status == 200
            assert FILES_CALLBACK in page.url
            assert (
                "connected" in (await page.inner_text("main")).lower()
                or "done" in (await page.inner_text("main")).lower()
            )

            # A state changed by one character does not open.
            changed = callback.replace("state=", "state=x", 1)
            response = await page.goto(changed)
            assert response is not None and response.status == 400

            # Bob's browser with alice's state (a foreign state): refused.
            bob_link = await flow_link(w, bob_token)
            bob = Person(w, await browser.new_context(), "bob")
            await bob.go(bob_link, stop_at=lambda url: url.startswith(w.files_as.issuer))
            bob_page = await bob.context.new_page()
            response = await bob_page.goto(callback)
            assert response is not None and response.status == 403
            # Only alice's own connection was stored, once.
            assert len(w.files.received) == 0
            assert w.store_bytes().count(b"oauth:example-files") == before.count(
                b"oauth:example-files"
            )


async def test_denying_consent_is_a_decline(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start()
            token = await w.mcp_token(browser, "alice")
            alice = Person(w, await browser.new_context(), "alice")
            out = await call_as(w, alice, token, "list_files", "2025-11-25", Wire(), allow=False)
            assert out == "not connected: declined"
            assert w.files.received == []


async def test_a_callback_after_the_flow_expired_is_refused(tmp_path: Path) -> None:
    # Long enough for a browser on a busy machine to reach the consent page before the flow
    # expires (4 s was not, in a parallel run: the page then said "expired" already), then
    # waited out to the end.
    flow_ttl = 20
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path, flow_ttl=flow_ttl) as w, chromium() as browser:
            w.start()
            token = await w.mcp_token(browser, "alice")
            link = await flow_link(w, token)
            expired = time.monotonic() + flow_ttl + 1  # the flow was made before this line
            alice = Person(w, await browser.new_context(), "alice")
            # At Example Files' consent page when the flow expires.
            page = await alice.at_consent(link)
            assert page.url.startswith(w.files_as.issuer), "the flow expired before consent"
            await anyio.sleep(max(0.0, expired - time.monotonic()))
            await consent(page)
            assert f"{w.origin}/elicit/" in page.url
            assert "expired" in (await page.inner_text("main")).lower()
            assert w.files.received == []


async def test_an_expired_token_is_refreshed_and_forget_revokes_it(tmp_path: Path) -> None:
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path, files_ttl=8) as w, chromium() as browser:
            w.start()
            token = await w.mcp_token(browser, "alice")
            alice = Person(w, await browser.new_context(), "alice")
            assert await call_as(w, alice, token, "list_files", "2025-11-25", wire) == ALICE_FILES
            first = stored_tokens(w)[-1]
            await wait_until_expired(first)
            # Expired: refreshed on the next call without asking alice.
            assert await call_as(w, alice, token, "list_files", "2026-07-28", wire) == ALICE_FILES
            second = stored_tokens(w)[-1]
            assert second != first and len(alice.opened) == 1

            # Forget: revoked at Example Files (its refresh token no longer works), and the
            # next call asks again.
            assert await call_as(w, alice, token, "disconnect", "2025-11-25", wire) == "forgotten"
            assert "/token/revocation" in w.files_as.stderr()
            assert await call_as(w, alice, token, "list_files", "2025-11-25", wire) == ALICE_FILES
            assert len(alice.opened) == 2


async def test_the_server_killed_between_redirect_and_callback_loses_nothing(
    tmp_path: Path,
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            first = w.start("first")
            token = await w.mcp_token(browser, "alice")
            link = await flow_link(w, token)
            alice = Person(w, await browser.new_context(), "alice")
            page = await alice.at_consent(link)
            first.kill()  # SIGKILL while alice is at Example Files
            w.start("second")
            await consent(page)
            assert f"{w.origin}/elicit/flows/" in page.url  # the status page
            # The call again: the flow the dead process started was completed on the new one.
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
            transport = streamable_http_client(w.mcp_url, http_client=http)
            async with http, Client(transport, mode="legacy") as sdk:
                result = await sdk.call_tool("list_files_later", {})
            assert text_of(result) == ALICE_FILES


async def test_a_provider_error_is_a_tool_error_naming_the_provider(tmp_path: Path) -> None:
    # The server's client secret at Example Files is wrong: the provider refuses to exchange
    # the code. Nothing is stored, the page says so, and the tool's error names both.
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start(files_secret="not-the-secret")
            token = await w.mcp_token(browser, "alice")
            alice = Person(w, await browser.new_context(), "alice")
            handler = handler_for(alice)
            async with (
                client_for(w, token, handler, "2025-11-25", Wire()) as client,
                anyio.create_task_group() as tasks,
            ):
                tasks.start_soon(alice.follow_links)
                result = await client.call_tool("list_files", {})
                tasks.cancel_scope.cancel()
            assert result.is_error
            assert "Example Files did not authorize this server: invalid_client" in text_of(result)
            assert w.files.received == []
