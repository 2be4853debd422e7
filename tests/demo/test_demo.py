"""``mcp-elicit demo`` as a person runs it: the real command in tmux, the demo server as its
child process on a SQLite store, and a person's browser (an HTTP client) on the server's page.

Every revision the demo offers is played through: the booking form (a bad date, then a
good one, defaults), the extras, the confirmation before a cancellation, and the API key
entered on the hosted page; then the ``mcp>`` prompt. The key is a fresh sentinel, searched
for afterwards on the screen and in the store's files.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest

from tests.client.test_opening import redirect_target
from tests.peer_servers.secret_server import browser
from tests.tmux_pane import Pane

pytestmark = [pytest.mark.tmux, pytest.mark.slow]

MCP_ELICIT = [sys.executable, "-m", "mcp_elicit"]


class Demo:
    def __init__(self, tmp_path: Path) -> None:
        self.state = tmp_path / "state"
        self.opened = tmp_path / "opened.txt"
        self.opener = tmp_path / "browser.sh"
        self.opener.write_text(f'#!/bin/sh\necho "$1" >> {shlex.quote(str(self.opened))}\n')
        self.opener.chmod(0o755)
        self.panes: list[Pane] = []
        self.taken: list[str] = []

    def start(self, protocol: str, *options: str, env: dict[str, str] | None = None) -> Pane:
        env = {
            "BROWSER": str(self.opener),
            "PATH": os.environ.get("PATH", ""),
            "TERM": "xterm",
            "XDG_STATE_HOME": str(self.state),
            # English unless a test says otherwise, whatever the locale of the machine.
            "LC_ALL": "",
            "LC_MESSAGES": "",
            "LANG": "C.UTF-8",
            **(env or {}),
        }
        pane = Pane([*MCP_ELICIT, "demo", "--protocol", protocol, *options], env)
        self.panes.append(pane)
        return pane

    def link(self, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while not self.opened.exists():
            assert time.monotonic() < deadline, "no link was opened"
            time.sleep(0.1)
        # The browser is given a redirect file only the person can read, never the link.
        (given,) = self.opened.read_text().split()
        return redirect_target(Path(given.removeprefix("file://")))

    def take_link(self, timeout: float = 20.0) -> str:
        """The link opened, once; the next call waits for the next one."""
        url = self.link(timeout)
        self.opened.unlink()
        self.taken.append(url)
        return url

    def ports_seen(self) -> set[int]:
        """The loopback ports of every link taken, and of the redirect URIs in them."""
        ports: set[int] = set()
        for url in self.taken:
            for part in [url, *parse_qs(urlsplit(url).query).get("redirect_uri", [])]:
                if (port := urlsplit(part).port) is not None:
                    ports.add(port)
        return ports

    def store_bytes(self) -> bytes:
        folder = self.state / "mcp-elicit"
        return b"".join(p.read_bytes() for p in folder.glob("demo.db*"))


def book_a_room(pane: Pane, *, extras: bool, steps: int = 5) -> None:
    pane.wait_for(f"── Step 1 of {steps}: a form (book_room) ──", timeout=Pane.STARTUP)
    pane.wait_for("Press Enter to call book_room")
    pane.keys("Enter")
    screen = pane.wait_for("Answer this request? [a]nswer/[d]ecline/[c]ancel")
    assert "Hotel MCP asks:" in screen
    pane.keys("Enter")
    pane.wait_for("Field 1 of 5: Guest name (text, required, 2–40 characters)")
    pane.type("Ada Lovelace")
    pane.wait_for("Field 2 of 5: Arrival date (date, YYYY-MM-DD, required)")
    pane.type("2026-13-01")
    pane.wait_for("Error: must be a real calendar date written YYYY-MM-DD")
    pane.keys(*["BSpace"] * 10)
    pane.type("2026-12-01")
    pane.wait_for("Field 3 of 5: Nights")
    pane.type("3")
    screen = pane.wait_for("Field 4 of 5: Room")
    pane.type("2")
    pane.wait_for("Field 5 of 5: Breakfast included (yes/no, optional, default no)")
    pane.keys("Enter")  # the falsy default
    screen = pane.wait_for("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel")
    assert "4. Room: Sea view (sea)" in screen and "5. Breakfast included: no" in screen
    pane.type("s")
    if extras:
        pane.wait_for("Any extras? Parking is €15 a night")
        pane.wait_for("Answer this request?", count=2)
        pane.keys("Enter")
        pane.wait_for("Field 1 of 1: Extras (choose several")
        pane.type("1,2")
        pane.wait_for("[s]ubmit / [e]dit a field", count=2)
        pane.type("s")


def cancel_it(pane: Pane, *, asked_before: int) -> None:
    pane.wait_for("Press Enter to call cancel_booking")
    pane.keys("Enter")
    pane.wait_for("Cancel booking B-1042: Ada Lovelace, sea view")
    pane.wait_for("Answer this request?", count=asked_before + 1)
    pane.keys("Enter")
    pane.wait_for("Confirm")
    pane.type("y")
    pane.wait_for("[s]ubmit / [e]dit a field", count=asked_before + 1)
    pane.type("s")
    pane.wait_for("Cancelled B-1042.")


def fingerprint(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:12]


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
