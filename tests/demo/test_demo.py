"""``mcp-elicit demo`` as a person runs it: the real command in tmux, the demo server as its
child process on a SQLite store, and a person's browser (an HTTP client) on the server's page.

Every revision the demo offers is played through: the booking form (a bad date, then a
good one, defaults), the extras, the confirmation before a cancellation, and the API key
entered on the hosted page; then the ``mcp>`` prompt. The key is a fresh sentinel, searched
for afterwards on the screen and in the store's files.
"""

from __future__ import annotations

import subprocess
import uuid

import anyio
import pytest

from tests.demo.support import MCP_ELICIT, Demo, book_a_room, cancel_it, fingerprint
from tests.peer_servers.secret_server import browser
from tests.tmux_pane import Pane

pytestmark = [pytest.mark.tmux, pytest.mark.slow]


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_the_demo_from_booking_to_a_secret_on_the_hosted_page(demo: Demo, protocol: str) -> None:
    pane = demo.start(protocol)
    screen = pane.wait_for(
        f"Protocol {protocol}; the server keeps its flows and secrets in", timeout=Pane.STARTUP
    )
    assert "sqlite:///" in screen and "INFO" not in screen  # no server log lines on screen
    book_a_room(pane, extras=True)
    pane.wait_for(
        "Booked B-1042: Ada Lovelace, sea view, 2026-12-01 to 2026-12-04 (3 nights), "
        "no breakfast, late checkout, parking. Total €455."
    )
    cancel_it(pane, asked_before=2)

    pane.wait_for("Press Enter to call forget_weather_key")
    pane.keys("Enter")
    pane.wait_for("No key was stored.")
    pane.wait_for("Press Enter to call connect_weather")
    pane.keys("Enter")
    screen = pane.wait_for("Open this link in your browser? [y]es/[n]o (decline)/Esc cancel")
    assert "Hotel MCP asks you to open a link:" in screen
    assert "URL: http://127.0.0.1:" in screen and "/elicit/flows/" in screen
    assert not demo.opened.exists()  # nothing opens before consent
    pane.type("y")
    url = demo.link()
    assert url.startswith("http://127.0.0.1:") and url in pane.screen()
    key = f"demo-key-{uuid.uuid4().hex}"

    async def person() -> None:
        async with browser(None) as someone:
            await someone.enter(url, key)

    anyio.run(person)
    pane.wait_for(f"Connected the weather service with key {fingerprint(key)}…")
    pane.wait_for("Press Enter to call forecast")
    pane.keys("Enter")
    pane.wait_for(f"it would use key {fingerprint(key)}…")
    pane.wait_for("Your turn: 'tools' lists Hotel MCP's tools")
    pane.type('call forecast {"city": "Oslo"}')
    pane.wait_for("Oslo: 19°C")
    pane.type("quit")
    pane.wait_for("[exited 0]")

    assert key not in pane.screen()
    stored = demo.store_bytes()
    assert b"WEATHER_API_KEY" in stored or b"flows" in stored  # the store is real and in use
    assert key.encode() not in stored
    key_file = demo.state / "mcp-elicit" / "demo.key"
    assert key_file.stat().st_mode & 0o777 == 0o600


def test_the_demo_on_2025_06_18_says_what_that_revision_cannot_do(demo: Demo) -> None:
    pane = demo.start("2025-06-18")
    book_a_room(pane, extras=False)
    pane.wait_for("Total €390 (extras skipped: this protocol revision")
    cancel_it(pane, asked_before=1)
    pane.wait_for("Press Enter to call forget_weather_key")
    pane.keys("Enter")
    pane.wait_for("Press Enter to call connect_weather")
    pane.keys("Enter")
    screen = pane.wait_for("Result (error):", count=1)
    # The revision lacks URL mode: the client declared all it could.
    assert "2025-06-18, which has no URL mode" in " ".join(screen.split())
    assert "did not declare" not in screen
    assert not demo.opened.exists()
    pane.wait_for("Press Enter to call forecast")
    pane.keys("C-d")
    pane.wait_for("[exited 0]")


def test_without_a_terminal_the_demo_says_so_and_the_tour_runs() -> None:
    done = subprocess.run(
        [*MCP_ELICIT, "demo"], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2
    assert "needs a terminal" in done.stderr and "mcp-elicit demo --tour" in done.stderr
    tour = subprocess.run([*MCP_ELICIT, "demo", "--tour"], capture_output=True, text=True)
    assert tour.returncode == 0, tour.stderr
    assert "a tour of the forms core" in tour.stdout and "problems: []" in tour.stdout
