"""``mcp-elicit connect`` as a person uses it: the real process in tmux, keys in, screen out."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client_support import redirect_target
from tests.fake_browser import FakeBrowser
from tests.peers import missing
from tests.tmux_pane import Pane

pytestmark = [pytest.mark.tmux, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, str(ROOT / "examples" / "booking_server.py")]
NOISY = [sys.executable, str(ROOT / "tests" / "peer_servers" / "noisy_server.py")]
MCP_ELICIT = [sys.executable, "-m", "mcp_elicit"]


@pytest.fixture
def connect(tmp_path: Path) -> Iterator[object]:
    if shutil.which("tmux") is None:
        missing("tmux")
    browser = FakeBrowser(tmp_path)
    opener, opened = browser.script, browser.opened
    broken = tmp_path / "no-browser.sh"  # a browser that cannot start
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    panes: list[Pane] = []

    state = tmp_path / "state"  # the servers' logs go here

    def start(*options: str, server: list[str] = SERVER, browser: Path = opener) -> Pane:
        env = {
            "BROWSER": str(browser),
            "PATH": os.environ.get("PATH", ""),
            "TERM": "xterm",
            "XDG_STATE_HOME": str(state),
        }
        command = [*MCP_ELICIT, "connect", *options, "--", *server]
        pane = Pane(command, env)
        panes.append(pane)
        pane.wait_for("mcp>", timeout=Pane.STARTUP)
        return pane

    start.opened = opened  # type: ignore[attr-defined]
    start.browser = browser  # type: ignore[attr-defined]
    start.broken = broken  # type: ignore[attr-defined]
    start.logs = state / "mcp-elicit" / "servers"  # type: ignore[attr-defined]
    yield start
    for pane in panes:
        pane.close()


def test_fill_a_form_with_an_error_fix_it_review_and_submit(
    connect: object, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    pane = connect("--protocol", "2025-11-25", "--audit", str(audit))  # type: ignore[operator]
    pane.type("tools")
    pane.wait_for("book_table — Book a table")
    pane.type("call book_table")
    screen = pane.wait_for("Answer this request? [a]nswer/[d]ecline/[c]ancel")
    assert "booking-demo asks:" in screen and "Book a table at Chez MCP?" in screen
    pane.keys("Enter")
    pane.wait_for("Field 1 of 3: Your name (text, required, 1–40 characters)")
    pane.type("Ada")
    pane.wait_for("Field 2 of 3: Guests (integer, optional, 1–8, default 2)")
    pane.type("12")  # out of bounds: refused as typed, with the form model's message
    pane.wait_for("Error: must be 8 or less (it is 12)")
    pane.keys("BSpace", "BSpace")
    pane.type("3")
    pane.wait_for("Field 3 of 3: Seating")
    pane.type("2")
    screen = pane.wait_for("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel")
    assert "Review your answers:" in screen and "2. Guests: 3" in screen
    pane.type("e 2")
    pane.wait_for("Current answer: 3")
    pane.keys("BSpace")
    pane.type("4")
    pane.wait_for("2. Guests: 4")
    pane.type("s")
    screen = pane.wait_for("Booked a table for 4 (terrace) under Ada.")
    assert "Submitted." in screen
    entry = json.loads(audit.read_text().splitlines()[-1])
    assert entry["outcome"] == "accept" and entry["fields"] == ["name", "guests", "seating"]
    assert "Ada" not in audit.read_text()  # values are redacted in the audit log


def test_escape_cancels_and_decline_declines(connect: object) -> None:
    pane = connect("--protocol", "2026-07-28")  # type: ignore[operator]
    pane.type("call book_table")
    pane.wait_for("Answer this request?")
    pane.keys("Enter")
    pane.wait_for("Field 1 of 3")
    pane.keys("Escape")
    pane.wait_for("No booking (cancel).")
    pane.type("call book_table")
    pane.wait_for("Answer this request?", count=2)
    pane.type("d")
    pane.wait_for("No booking (decline).")


def test_declining_a_url_consent_opens_nothing(connect: object) -> None:
    pane = connect("--protocol", "2025-11-25")  # type: ignore[operator]
    pane.type("call link_account")
    screen = pane.wait_for("Open this link in your browser? [y]es/[n]o (decline)/Esc cancel")
    assert "booking-demo asks you to open a link:" in screen
    assert "URL: https://accounts.example.com/link?session=demo" in screen
    assert "Domain: example.com" in screen
    pane.type("n")
    pane.wait_for("Link decline.")
    time.sleep(0.5)
    assert not connect.opened.exists()  # type: ignore[attr-defined]

    pane.type("call link_account")
    pane.wait_for("Open this link in your browser?", count=2)
    pane.type("y")
    pane.wait_for("Link accept.")
    # The browser was given a file only this user can read, which leads to the link: the
    # link itself is on no command line.
    (given,) = connect.browser.wait(timeout=10)  # type: ignore[attr-defined]
    assert given.startswith("file://") and "session=demo" not in given
    target = redirect_target(Path(given.removeprefix("file://")))
    assert target == "https://accounts.example.com/link?session=demo"


def test_a_link_the_browser_did_not_open_is_shown_to_copy_and_waits_for_the_person(
    connect: object,
) -> None:
    link = "https://accounts.example.com/link?session=demo"
    pane = connect("--protocol", "2025-11-25", browser=connect.broken)  # type: ignore[attr-defined,operator]
    pane.type("call link_account")
    pane.wait_for("Open this link in your browser?")
    pane.type("y")
    screen = pane.wait_for("Press Enter once you have opened it yourself, Esc to cancel")
    assert "Error: the link did not open: no browser could be started from here." in screen
    assert f"  {link}" in screen
    assert "Link accept." not in screen  # not before the person says
    pane.keys("Escape")
    pane.wait_for("Link cancel.")

    pane.type("call link_account")
    pane.wait_for("Open this link in your browser?", count=2)
    pane.type("y")
    pane.wait_for("Press Enter once you have opened it yourself", count=2)
    pane.keys("Enter")
    pane.wait_for("Going on.")
    pane.wait_for("Link accept.")


def test_on_2026_07_28_the_retry_after_a_link_is_shown_waiting(connect: object) -> None:
    pane = connect("--protocol", "2026-07-28")  # type: ignore[operator]
    pane.type("call sync_files")
    pane.wait_for("Open this link in your browser?")
    pane.type("y")
    screen = pane.wait_for("Files synced.")
    assert "Waiting for booking-demo: it goes on once you finish on the page" in " ".join(
        screen.split()
    )
    assert "booking-demo confirmed." in screen


def test_a_lookalike_link_is_shown_with_its_warnings(connect: object) -> None:
    pane = connect()  # type: ignore[operator]
    pane.type('call open_link {"url": "https://xn--80ak6aa92e.com/login"}')
    screen = pane.wait_for("Open this link in your browser?")
    assert "(punycode: xn--80ak6aa92e.com)" in screen
    (domain,) = [line for line in screen.splitlines() if line.strip().startswith("Domain:")]
    assert domain.strip().endswith("(punycode: xn--80ak6aa92e.com)")  # the look-alike unmasked
    assert "can be read as apple.com" in screen
    pane.keys("Escape")
    pane.wait_for("Link cancel.")


def test_the_servers_stderr_stays_off_the_screen_until_it_stops(connect: object) -> None:
    pane = connect(server=NOISY)  # type: ignore[operator]
    log = connect.logs / "noisy_server.log"  # type: ignore[attr-defined]
    pane.type('call greet {"name": "Ada"}')
    screen = pane.wait_for("Hello, Ada.")
    assert f"mcp-elicit: server log: {log}" in screen  # named once, as the session starts
    pane.type("call ask")
    pane.wait_for("Answer this request?")
    pane.keys("Enter")
    pane.wait_for("Field 1 of 1: Your name")
    pane.type("Bo")
    pane.wait_for("[s]ubmit / [e]dit a field")
    pane.type("s")
    screen = pane.wait_for("Hello, Bo.")
    assert "noisy:" not in screen  # its log lines did not land in the middle of the form
    assert screen.count("server log:") == 1
    text = log.read_text()
    assert "noisy: greeting Ada" in text and "noisy: asking for a name" in text

    pane.type("call die")
    screen = pane.wait_for("[exited 1]")
    assert f"Error: die: the server stopped; see its log: {log}" in screen
    assert "noisy:" not in screen and "Traceback" not in screen
    assert "noisy: dying" in log.read_text()


def test_call_at_a_terminal_with_stdout_to_a_file_asks_on_the_screen(tmp_path: Path) -> None:
    """`call ... --json > result.json` at a terminal: the questions show on the screen (they
    go to stderr), and the file holds the result alone."""
    if shutil.which("tmux") is None:
        missing("tmux")
    result = tmp_path / "result.json"
    quickstart = ROOT / "examples" / "server_quickstart.py"
    line = shlex.join(
        [*MCP_ELICIT, "call", "cancel", "--json", "--", sys.executable, str(quickstart)]
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "TERM": "xterm",
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    pane = Pane(["sh", "-c", f"{line} > {shlex.quote(str(result))}"], env)
    try:
        pane.wait_for("Answer this request? [a]nswer/[d]ecline/[c]ancel", timeout=Pane.STARTUP)
        pane.keys("Enter")
        pane.wait_for("Confirm [y/n]")
        pane.type("y")
        pane.wait_for("[s]ubmit / [e]dit a field")
        pane.type("s")
        pane.wait_for("[exited 0]")
    finally:
        pane.close()
    answer = json.loads(result.read_text())  # nothing but the result: it parses
    assert answer["content"][0]["text"] == "Cancelled."
