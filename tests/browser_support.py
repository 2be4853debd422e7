"""A real headless Chromium (Debian's ``chromium``) driven by Playwright, for the tests of
everything a person sees in a browser: the hosted pages and the web renderer.

- :func:`chromium` — ``async with chromium() as browser``: a fresh browser, closed after;
- :func:`serious_violations` — axe-core (from ``peers/node_modules``) run on a page: the
  violations of impact serious or critical, each as ``"rule-id (impact): help: targets"``;
- :func:`screenshot` — a PNG of the page under :data:`SCREENSHOTS`, by name. ``make
  screenshots`` points it at ``docs/images`` (the pictures the docs show); otherwise it is a
  directory under the system's temp folder, so a test run leaves the tree as it was.

Playwright's own browser download does not work here, so the browser is the system's
(``MCP_ELICIT_CHROMIUM``, default ``/usr/bin/chromium``; ``make browser`` installs it). In CI
a missing browser or axe-core fails the test (``tests.peers.missing``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests import markers
from tests.peers import PEERS, missing

CHROMIUM = Path(os.environ.get("MCP_ELICIT_CHROMIUM", "/usr/bin/chromium"))
AXE = PEERS / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = Path(
    os.environ.get("MCP_ELICIT_SCREENSHOTS") or Path(tempfile.gettempdir()) / "mcp-elicit-shots"
)
SERIOUS = ("serious", "critical")


def chromium_path() -> Path:
    markers.require("browser")
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        missing(f"Chromium ({CHROMIUM}; make browser installs Debian's chromium)")
    return CHROMIUM


@asynccontextmanager
async def chromium(**launch: Any) -> AsyncIterator[Any]:
    """A headless Chromium; ``launch`` goes to Playwright's ``chromium.launch``."""
    path = chromium_path()
    try:
        from playwright.async_api import async_playwright
    except ImportError:  # pragma: no cover - the dev group has it
        missing("the playwright package (make setup)")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(path), headless=True, **launch
        )
        try:
            yield browser
        finally:
            await browser.close()


async def serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    if not AXE.is_file():
        missing(f"axe-core ({AXE.relative_to(PEERS.parent)}; make peers)")
    await page.add_script_tag(path=str(AXE))
    found = await page.evaluate(
        """() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(
            v => ({id: v.id, impact: v.impact, help: v.help,
                   targets: v.nodes.map(n => n.target.join(' '))})))"""
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']}: {', '.join(v['targets'])}"
        for v in found
        if v["impact"] in SERIOUS
    ]


async def screenshot(page: Any, name: str) -> Path:
    """Save ``name``.png of the whole page under :data:`SCREENSHOTS`; return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path
