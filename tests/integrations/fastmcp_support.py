"""Real servers for fastmcp's ``Client`` to start over stdio, a person at their hosted pages,
and what the host recorded: shared by the tests of :mod:`mcp_elicit.integrations.fastmcp`.

- :func:`quick_start` — ``examples/server_quickstart.py`` (the README's quick start: a form,
  a confirmation, a secret on the server's own page); with ``record``, every byte between
  the client and the server goes through ``tee`` into files, to search for the secret.
- :func:`secret_server` — ``tests/peer_servers/secret_server.py``, whose ``connect_later``
  raises "open this link first" (-32042 on 2025-11-25) until the key is stored.
- :class:`Opener` — the handler's opener: it keeps each link, for the person to open.
- :func:`type_on_page` — a person in Chromium, typing a value on a hosted page.
- :class:`PatientRenderer` — scripted answers, giving the server time to say a link's page
  is finished.
- :func:`handler_for` — our handler on a renderer, its opener and an audit log in memory.
- :func:`the_booking_was_asked_and_recorded` — what every framework's form test checks of the
  person's screen and the audit log.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import anyio
from fastmcp.client.transports import StdioTransport

from mcp_elicit.client import AuditLog, ElicitationHandler, FormPrompt, ScriptedRenderer
from tests import markers
from tests.browser_support import chromium
from tests.client_support import RecordingRenderer
from tests.paths import EXAMPLES, PEER_SERVERS

STAY = {"guest": "Ada", "arrival": "2026-12-01", "nights": 2}  # the quick start's booking
KEY = "a" * 64  # hex: the deployment key every server process of one test shares


def _env(state: Path) -> dict[str, str]:
    return dict(os.environ, XDG_STATE_HOME=str(state), MCP_ELICIT_KEY=KEY, PYTHONUNBUFFERED="1")


def quick_start(tmp_path: Path, *, record: Path | None = None) -> StdioTransport:
    """The README quick start's server over stdio (its pages on ``http://127.0.0.1``)."""
    markers.require("slow")
    script = str(EXAMPLES / "server_quickstart.py")
    if record is None:
        command, args = sys.executable, [script]
    else:
        command, args = recorded_command(script, record)
    return StdioTransport(
        command, args, env=_env(tmp_path / "state"), cwd=str(tmp_path), keep_alive=False
    )


def secret_server(tmp_path: Path) -> StdioTransport:
    """The secret server over stdio, on a SQLite store of the test's own."""
    markers.require("slow")
    store = f"sqlite:///{tmp_path / 'flows.db'}"
    script = str(PEER_SERVERS / "secret_server.py")
    return StdioTransport(
        sys.executable,
        [script, "--store", store],
        env=_env(tmp_path / "state"),
        cwd=str(tmp_path),
        keep_alive=False,
    )


class Opener:
    """The handler's ``opener``: keeps every link it is given (a person opens them)."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, url: str) -> bool:
        self.urls.append(url)
        return True

    async def next_url(self, timeout: float = 30.0) -> str:
        """The first link opened, once there is one."""
        with anyio.fail_after(timeout):
            while not self.urls:
                await anyio.sleep(0.02)
        return self.urls[0]


async def type_on_page(url: str, label: str, value: str) -> None:
    """A person in Chromium: open ``url``, type ``value`` into the field ``label``, save."""
    async with chromium() as browser:
        page = await browser.new_page()
        await page.goto(url)
        await page.get_by_label(label, exact=True).fill(value)
        async with page.expect_navigation():
            await page.get_by_role("button", name="Save", exact=True).click()
        assert "Saved" in await page.locator("h1").inner_text()


class PatientRenderer(RecordingRenderer):
    """:class:`RecordingRenderer` whose accept of a link waits up to 30 s for the server to
    say the page is finished (a browser takes longer to start than the scripted 2 s)."""

    def __post_init__(self) -> None:
        self._script = ScriptedRenderer(self.answers, completion_wait=30.0)


def audit_events(log: io.StringIO) -> list[dict[str, Any]]:
    """The audit log's entries, in order."""
    return [json.loads(line) for line in log.getvalue().splitlines()]


def the_booking_was_asked_and_recorded(renderer: RecordingRenderer, log: io.StringIO) -> None:
    """The quick start's form (``book``) was shown once, from the ``hotel`` server, and the
    audit log has one accepted entry with its fields and none of the answers."""
    (prompt,) = renderer.prompts
    assert isinstance(prompt, FormPrompt) and prompt.server == "hotel"
    (event,) = audit_events(log)
    assert event["mode"] == "form" and event["outcome"] == "accept"
    assert event["fields"] == ["guest", "arrival", "nights"]
    assert STAY["guest"] not in log.getvalue()  # answers are redacted


def text_of(result: Any) -> str:
    """The text blocks of a tool result, joined."""
    return " ".join(getattr(block, "text", "") for block in result.content)


def handler_for(
    renderer: Any, opener: Opener | None = None, **options: Any
) -> tuple[ElicitationHandler, io.StringIO]:
    """Our handler on ``renderer``, links to ``opener`` (a new :class:`Opener` by default),
    and the audit log it writes (read it with :func:`audit_events`)."""
    log = io.StringIO()
    handler = ElicitationHandler(
        renderer, opener=opener if opener is not None else Opener(), audit=AuditLog(log), **options
    )
    return handler, log


def recorded_command(script: str, record: Path, *args: str) -> tuple[str, list[str]]:
    """``script`` (given ``args``) run by Python with every byte to and from it copied by
    ``tee`` into ``record/sent.<pid>`` and ``record/received.<pid>``: a pair of files per
    process, as a gateway may start the server several times (a session each), and two
    ``tee`` writing one file would mix their lines."""
    folder = shlex.quote(str(record))
    run = shlex.join([sys.executable, script, *args])
    pipeline = f"tee {folder}/sent.$$ | {run} | tee {folder}/received.$$"
    return "/bin/sh", ["-c", pipeline]


def recorded(record: Path, direction: str) -> list[bytes]:
    """What each process :func:`recorded_command` started was sent (``"sent"``) or answered
    (``"received"``): one file's bytes each."""
    return [path.read_bytes() for path in sorted(record.glob(f"{direction}.*"))]
