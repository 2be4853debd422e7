"""``mcp-elicit gateway --ask terminal|web`` as a host really runs it: the host is the plain
Python SDK declaring no elicitation (tests/peer_servers/plain_stdio_host.py), which starts the
gateway over stdio the SDK's way: in a session of its own, with no controlling terminal, its
stdin and stdout the host's pipes, the host's stderr passed on. The gateway's person answers
the server's form on the terminal the host runs in (tmux: the gateway finds it through
stderr, /dev/tty being out of reach), or on the gateway's page in Chromium; the tool's result
reaches the host."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from playwright.async_api import expect

from tests.browser_support import chromium
from tests.peers import missing
from tests.tmux_pane import Pane

ROOT = Path(__file__).resolve().parents[2]
HOST = [sys.executable, str(ROOT / "tests" / "peer_servers" / "plain_stdio_host.py")]
SERVER = [sys.executable, str(ROOT / "examples" / "booking_server.py")]
GATEWAY = [sys.executable, "-m", "mcp_elicit", "gateway"]
BOOKED = "host got: Booked a table for 3 (terrace) under Ada."


def host_command(ask: str) -> list[str]:
    """The host calling ``book_table`` through ``gateway --ask ask`` (2025-11-25 downstream)."""
    return [*HOST, "book_table", "--", *GATEWAY, "--ask", ask, "--", *SERVER]


@pytest.fixture
def environment(tmp_path: Path) -> dict[str, str]:
    no_browser = tmp_path / "no-browser.sh"  # the page is opened by the test, not the system
    no_browser.write_text("#!/bin/sh\nexit 0\n")
    no_browser.chmod(0o755)
    return {
        "BROWSER": str(no_browser),
        "PATH": os.environ.get("PATH", ""),
        "TERM": "xterm",
        "XDG_STATE_HOME": str(tmp_path / "state"),  # the upstream's log goes here
    }


@pytest.mark.tmux
@pytest.mark.slow
def test_ask_terminal_the_person_answers_on_the_hosts_terminal(
    environment: dict[str, str],
) -> None:
    if shutil.which("tmux") is None:
        missing("tmux")
    pane = Pane(host_command("terminal"), environment)
    try:
        screen = pane.wait_for("Answer this request?", timeout=Pane.STARTUP)
        assert "booking-demo asks:" in screen and "Book a table at Chez MCP?" in screen
        pane.keys("Enter")
        pane.wait_for("Field 1 of 3: Your name")
        pane.type("Ada")
        pane.wait_for("Field 2 of 3: Guests")
        pane.type("3")
        pane.wait_for("Field 3 of 3: Seating")
        pane.type("2")
        screen = pane.wait_for("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel")
        assert '1. Your name: "Ada"' in screen and "3. Seating: terrace" in screen
        pane.type("s")
        screen = pane.wait_for("[exited 0]")
        assert "Submitted." in screen and BOOKED in screen
        assert "Traceback" not in screen
    finally:
        pane.close()


@pytest.mark.anyio
@pytest.mark.browser
@pytest.mark.slow
async def test_ask_web_the_person_answers_on_the_gateways_page(
    environment: dict[str, str],
) -> None:
    host = subprocess.Popen(
        host_command("web"),
        cwd=ROOT,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        url = await anyio.to_thread.run_sync(_page_address, host)
        async with chromium() as browser:
            page = await browser.new_page()
            await page.goto(url)
            await expect(page.locator("#prompt-heading")).to_be_visible(timeout=20_000)
            await expect(page.get_by_text("Book a table at Chez MCP?")).to_be_visible()
            await page.get_by_label("Your name").fill("Ada")
            await page.get_by_label("Guests").fill("3")
            await page.get_by_label("terrace").check()
            await page.get_by_role("button", name="Review answers").click()
            await page.get_by_role("button", name="Submit").click()
            await expect(page.locator("#said")).to_have_text("Submitted.")
        out, err = await anyio.to_thread.run_sync(lambda: host.communicate(timeout=30))
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    assert host.returncode == 0, err
    assert out.strip() == BOOKED


def _page_address(host: subprocess.Popen[str]) -> str:
    """The page's address, from the line the gateway says on the host's stderr."""
    assert host.stderr is not None
    seen = []
    for line in host.stderr:
        seen.append(line)
        found = re.search(r"answer on (http://127\.0\.0\.1:\d+/\S+)", line)
        if found:
            return found.group(1)
    raise AssertionError("the gateway never said where its page is:\n" + "".join(seen))
