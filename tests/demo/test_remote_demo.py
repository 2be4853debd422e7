"""``mcp-elicit demo --remote`` as a person runs it: the real command in tmux; two real OpenID
providers and Hotel MCP over Streamable HTTP as its processes; the person's browser a real
Chromium. The host signs in as alice (consent screen, Hotel accounts, the loopback redirect),
books, enters a key on the hosted page (behind sign-in now), and connects her calendar at
Example Calendar: her events come back, read with her token there.
"""

from __future__ import annotations

import socket
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest

from mcp_elicit.demo import remote
from mcp_elicit.demo.hotel_server import KEY_NAME
from tests.browser_support import chromium
from tests.demo.support import Demo, book_a_room, cancel_it, fingerprint
from tests.oidc_support import consent, sign_in
from tests.tmux_pane import Pane

pytestmark = [pytest.mark.tmux, pytest.mark.node, pytest.mark.browser, pytest.mark.slow]


async def walk(url: str, *, key: str | None = None) -> tuple[str, str]:
    """Alice in a browser of her own: open ``url`` and answer every page on the way (sign in
    as alice, Allow, the key's field when ``key``); where she ended, and what it said."""
    async with chromium() as browser:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(url)
        for _ in range(12):
            if await page.get_by_label("Account").count():
                await sign_in(page, "alice")
            elif await page.get_by_role("button", name="Allow").count():
                await consent(page)
            elif key is not None and await page.get_by_label(KEY_NAME, exact=True).count():
                await page.get_by_label(KEY_NAME, exact=True).fill(key)
                async with page.expect_navigation():
                    await page.get_by_role("button", name="Save").click()
                key = None
            else:
                break
        return str(page.url), await page.inner_text("body")


def visit(url: str, **options: Any) -> tuple[str, str]:
    return anyio.run(lambda: walk(url, **options))


def test_the_remote_demo_signs_alice_in_and_connects_her_calendar(demo: Demo) -> None:
    pane = demo.start("2026-07-28", "--remote")
    screen = pane.wait_for("asks you to sign in:", timeout=Pane.STARTUP)
    assert "This is the server's own sign-in (MCP authorization)" in screen
    pane.wait_for("Open this link in your browser?")
    assert not demo.opened.exists()  # nothing opens before consent
    pane.type("y")
    link = demo.take_link()
    assert "/auth?" in link and "code_challenge_method=S256" in link
    landed, said = visit(link)
    assert urlsplit(landed).hostname == "127.0.0.1" and urlsplit(landed).path == "/callback"
    assert "You are signed in" in said
    screen = pane.wait_for("Protocol 2026-07-28; you are signed in at http://127.0.0.1:")
    assert "Signed in to 127.0.0.1:" in screen

    book_a_room(pane, extras=True, steps=6)
    pane.wait_for("Total €455.")
    cancel_it(pane, asked_before=2)
    pane.wait_for("Press Enter to call forget_weather_key")
    pane.keys("Enter")
    pane.wait_for("Press Enter to call connect_weather")
    pane.keys("Enter")
    pane.wait_for("asks you to open a link:")
    pane.type("y")
    key = f"demo-key-{uuid.uuid4().hex}"
    landed, said = visit(demo.take_link(), key=key)  # her browser signs in to the pages first
    pane.wait_for(f"Connected the weather service with key {fingerprint(key)}…")
    pane.wait_for("Press Enter to call forecast")
    pane.keys("Enter")
    pane.wait_for(f"it would use key {fingerprint(key)}…")

    screen = pane.wait_for("── Step 6 of 6: connect your calendar (upcoming_events) ──")
    pane.wait_for("Press Enter to call upcoming_events")
    pane.keys("Enter")
    screen = pane.wait_for("Connect your calendar at Example Calendar")
    pane.wait_for("Open this link in your browser?", count=3)
    pane.type("y")
    connect = demo.take_link()
    assert "/elicit/flows/" in connect
    landed, said = visit(connect)
    assert "/elicit/oauth/callback" in landed or "/elicit/flows/" in landed, (landed, said)
    screen = pane.wait_for("Upcoming events of alice:", timeout=60)
    assert "Check in at Hotel MCP" in screen and "Dentist" not in screen  # hers, not bob's
    pane.wait_for("Your turn: 'tools' lists Hotel MCP's tools")
    pane.type("quit")
    pane.wait_for("[exited 0]")
    # Every process the demo started has stopped: nothing answers on its ports.
    for port in demo.ports_seen():
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0, port


def test_without_the_peers_the_remote_demo_says_what_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remote, "NODE", tmp_path / "no-node")

    async def start() -> None:
        async with remote.remote_world(tmp_path):
            raise AssertionError("it started")

    with pytest.raises(remote.RemoteUnavailable, match="run 'make peers'"):
        anyio.run(start)


def test_the_local_demo_is_unchanged_by_the_remote_one() -> None:
    from mcp_elicit.demo.showcase import STEPS

    assert [s.tool for s in remote.REMOTE_STEPS[: len(STEPS)]] == [s.tool for s in STEPS]
    assert remote.REMOTE_STEPS[-1].tool == "upcoming_events"
    assert "upcoming_events" not in {s.tool for s in STEPS}
