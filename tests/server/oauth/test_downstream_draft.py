"""Downstream OAuth on the URL-mode draft: -32604 with the connect link, ``elicitation/track``
until alice has connected Example Files, then the call again.

Our ``ElicitingClient`` does not propose the draft (2025-06-18 with ``elicitation.url``), so
the draft is spoken here by hand, as JSON-RPC over Streamable HTTP, against the same world as
``test_downstream.py``: two real providers, the server process, alice in Chromium.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pytest

from mcp_elicit.protocol.codes import ELICITATION_TRACK
from tests.browser_support import chromium
from tests.server.oauth.world import FILES_CALLBACK, Person, World, world
from tests.server.wire_support import DRAFT, DraftSession

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.node, pytest.mark.slow]

ALICE_FILES = "files of alice: alice-notes.txt, alice-budget.ods"
TIMEOUT = 150.0


def text_of(response: dict[str, Any]) -> str:
    assert "result" in response, response
    block = response["result"]["content"][0]
    assert block["type"] == "text"
    return str(block["text"])


def http_for(token: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30.0, read=120.0)
    )


async def open_session(w: World, http: httpx2.AsyncClient) -> DraftSession:
    session = DraftSession(http, w.mcp_url)
    started = await session.start()
    assert started["result"]["protocolVersion"] == DRAFT
    return session


async def test_the_draft_gets_minus_32604_then_track_ends_when_alice_has_connected(
    tmp_path: Any,
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start(url_draft=True)
            alice_token = await w.mcp_token(browser, "alice")
            bob_token = await w.mcp_token(browser, "bob")
            async with http_for(alice_token) as http, http_for(bob_token) as bob_http:
                alice = await open_session(w, http)
                bob = await open_session(w, bob_http)
                # 1. The tool that must not block answers -32604 with the connect link.
                refused = await alice.request(
                    "tools/call", {"name": "list_files_later", "arguments": {}}
                )
                error = refused["error"]
                assert error["code"] == -32604, error
                [asked] = error["data"]["elicitations"]
                assert asked["mode"] == "url"
                assert asked["url"].startswith(f"{w.origin}/elicit/flows/")
                ident = asked["elicitationId"]

                # 2. Tracking an id nobody made, or alice's from bob's session: an error, and
                #    alice's flow is untouched.
                for session, tracked in ((alice, "no-such-elicitation"), (bob, ident)):
                    wrong = await session.request(
                        ELICITATION_TRACK,
                        {"_meta": {"progressToken": "t0"}, "elicitationId": tracked},
                    )
                    assert "error" in wrong, wrong
                    assert wrong["error"]["code"] == -32602
                    assert "elicitation" in wrong["error"]["message"].lower()

                # 3. Alice tracks it while she connects in her browser: track returns when
                #    the callback completed the flow.
                context = await browser.new_context()
                person = Person(w, context, "alice")
                tracked_result: dict[str, Any] = {}

                async def track() -> None:
                    tracked_result.update(
                        await alice.request(
                            ELICITATION_TRACK,
                            {"_meta": {"progressToken": "t1"}, "elicitationId": ident},
                        )
                    )

                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(track)
                    await anyio.sleep(0.5)
                    assert tracked_result == {}  # still waiting for her
                    page = await person.go(asked["url"])
                    await page.close()
                assert "result" in tracked_result, tracked_result
                assert any(p.startswith(f"{w.origin}{FILES_CALLBACK}?") for p in person.pages)
                progress = [
                    m for m in alice.received if m.get("method") == "notifications/progress"
                ]
                assert all(m["params"]["progressToken"] == "t1" for m in progress)

                # 4. The call again: her files, read with her Example Files token.
                again = await alice.request(
                    "tools/call", {"name": "list_files_later", "arguments": {}}
                )
                assert text_of(again) == ALICE_FILES
                # Bob has connected nothing: his call is refused with his own link.
                his = await bob.request("tools/call", {"name": "list_files_later", "arguments": {}})
                assert his["error"]["code"] == -32604
                assert his["error"]["data"]["elicitations"][0]["elicitationId"] != ident
                await context.close()


async def test_the_blocking_tool_pushes_a_url_request_on_the_draft_and_returns_her_files(
    tmp_path: Any,
) -> None:
    """``authorize()`` on the draft: ``elicitation/create`` in URL mode (its
    ``elicitationId``), accepted; the call goes on once she has connected."""
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as w, chromium() as browser:
            w.start(url_draft=True)
            token = await w.mcp_token(browser, "alice")
            context = await browser.new_context()
            person = Person(w, context, "alice")
            asked: list[dict[str, Any]] = []
            async with http_for(token) as http, anyio.create_task_group() as tasks:
                alice = await open_session(w, http)

                async def answer(request: dict[str, Any]) -> dict[str, Any]:
                    assert request["method"] == "elicitation/create"
                    asked.append(request["params"])

                    async def go() -> None:
                        page = await person.go(request["params"]["url"])
                        await page.close()

                    tasks.start_soon(go)  # she opens it after saying yes
                    return {"action": "accept"}

                alice.on_request = answer
                done = await alice.request("tools/call", {"name": "list_files", "arguments": {}})
                assert text_of(done) == ALICE_FILES
            [params] = asked
            assert params["mode"] == "url" and params["elicitationId"]
            assert params["url"].startswith(f"{w.origin}/elicit/flows/")
            assert any(p.startswith(f"{w.origin}{FILES_CALLBACK}?") for p in person.pages)
            await context.close()
