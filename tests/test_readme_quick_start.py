"""The README's quick start, run exactly as written: its server saved as ``server.py``,
``mcp-elicit connect -- python server.py`` in a terminal (tmux), every tool called, and the
secret typed on the server's own page in a real Chromium.

The server runs on its defaults (stdio, pages on ``http://127.0.0.1``): the host started it,
so its loopback links are offered, with the warning, without any flag.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from pathlib import Path

import anyio
import pytest

from tests.browser_support import chromium
from tests.fake_browser import FakeBrowser
from tests.paths import ROOT, VENV_BIN
from tests.peers import missing
from tests.tmux_pane import Pane

pytestmark = [pytest.mark.tmux, pytest.mark.browser, pytest.mark.slow]


def quick_start_server() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start: a server that asks", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "the README's server quick start has no python block"
    return found.group(1)


def test_the_readme_quick_start_completes_every_tool(tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        missing("tmux")
    (tmp_path / "server.py").write_text(quick_start_server())
    assert "mcp-elicit connect -- python server.py" in (ROOT / "README.md").read_text()
    browser = FakeBrowser(tmp_path)
    opened, opener = browser.opened, browser.script
    env = {
        "BROWSER": str(opener),
        "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}",
        "TERM": "xterm",
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    pane = Pane(["mcp-elicit", "connect", "--", "python", "server.py"], env, cwd=tmp_path)
    try:
        pane.wait_for("mcp>", timeout=Pane.STARTUP)

        pane.type("call book")
        pane.wait_for("Answer this request? [a]nswer/[d]ecline/[c]ancel")
        pane.keys("Enter")
        pane.wait_for("Field 1 of 3: Guest")
        pane.type("Ada")
        pane.wait_for("Field 2 of 3: Arrival")
        pane.type("2026-12-01")
        pane.wait_for("Field 3 of 3: Nights")
        pane.type("2")
        pane.wait_for("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel")
        pane.type("s")
        pane.wait_for("Booked 2 night(s) from 2026-12-01 for Ada.")

        pane.type("call cancel")
        pane.wait_for("Answer this request?", count=2)
        pane.keys("Enter")
        pane.wait_for("Cancel? This cannot be undone.")
        pane.type("y")
        pane.wait_for("[s]ubmit / [e]dit a field", count=2)
        pane.type("s")
        pane.wait_for("Cancelled.")

        pane.type("call connect_weather")
        screen = pane.wait_for("Open this link in your browser? [y]es/[n]o (decline)/Esc cancel")
        assert "URL: http://127.0.0.1:" in screen
        assert "allowed for local development" in " ".join(screen.split())  # the warning
        assert not opened.exists()  # nothing opens before consent
        pane.type("y")
        (url,) = browser.wait()
        key = f"weather-{uuid.uuid4().hex}"

        async def person() -> None:
            async with chromium() as browser:
                page = await browser.new_page()
                await page.goto(url)
                await page.get_by_label("WEATHER_API_KEY", exact=True).fill(key)
                async with page.expect_navigation():
                    await page.get_by_role("button", name="Save", exact=True).click()
                assert "Saved" in await page.locator("h1").inner_text()

        anyio.run(person)
        screen = pane.wait_for(f"Connected ({len(key)} characters).")
        assert key not in screen
        pane.type("quit")
        pane.wait_for("[exited 0]")
    finally:
        pane.close()
