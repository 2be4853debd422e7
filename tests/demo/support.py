"""The demo as a person runs it: ``mcp-elicit demo`` in a tmux pane, the link its browser was
handed, and the steps every revision shares (tests/demo/test_*.py; the ``demo`` fixture is in
conftest.py)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.client_support import redirect_target
from tests.fake_browser import FakeBrowser
from tests.tmux_pane import Pane

MCP_ELICIT = [sys.executable, "-m", "mcp_elicit"]


class Demo:
    def __init__(self, tmp_path: Path) -> None:
        self.state = tmp_path / "state"
        self.browser = FakeBrowser(tmp_path)
        self.opened = self.browser.opened
        self.opener = self.browser.script
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
        # The browser is given a redirect file only the person can read, never the link.
        (given,) = self.browser.wait(timeout=timeout)
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
