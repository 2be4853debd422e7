"""Strands Agents as the host, through ``mcp-elicit gateway --ask web``: every strands-agents
release pins ``mcp<2.2`` and mcp-elicit needs ``mcp>=2.3``, so Strands runs in an environment
of its own (``peers/strands/.venv``, `make strands`), and our handler can never be its
``MCPClient(elicitation_callback=...)``. What a Strands user can do is start the gateway as
the MCP server (tests/peer_servers/strands_host.py: a real ``Agent`` whose model is scripted,
no LLM and no network, its tools from ``strands.tools.mcp.MCPClient`` over stdio, no
elicitation declared), and the gateway asks the person on its own page, here in Chromium.

What is checked, one host and one gateway in front of the README quick start's server (a
real process, every byte between it and the gateway recorded with ``tee``): the form answered
on the gateway's page reaching the tool result the agent sees; the secret typed on the
server's own page, never in the agent's conversation nor between gateway and server; a
decline and a cancel reaching the tool; the upstream seeing what it sees from a capable
client. Then "open this link first" (-32042) from the tests' secret server on 2025-11-25,
answered on the gateway's page and the server's before the agent sees anything; a blocked
link, never offered nor opened (the audit says why); and the same server without the
gateway: Strands' own ``MCPClient``, no callback, gets a tool error.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters
from playwright.async_api import expect

from mcp_elicit.gateway import Gateway
from tests.browser_support import chromium
from tests.integrations.fastmcp_support import KEY, STAY, recorded, recorded_command
from tests.paths import EXAMPLES, PEER_SERVERS
from tests.peers import strands_python
from tests.server_support import Person, connect, text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
HOST = PEER_SERVERS / "strands_host.py"
GATEWAY = [sys.executable, "-m", "mcp_elicit", "gateway"]
QUICK_START = str(EXAMPLES / "server_quickstart.py")
SECRET_SERVER = str(PEER_SERVERS / "secret_server.py")  # connect_later: -32042 on 2025-11-25
# asking_support's open_bad_page (a link with credentials in it: blocked), served over stdio.
ASKING_SERVER = [
    sys.executable,
    "-c",
    "from tests.gateway.asking_support import asking_server; asking_server().run()",
]


def environment(tmp_path: Path) -> dict[str, str]:
    """The host's environment (the gateway's and the server's too: each passes it on): the
    page is opened by the test (BROWSER writes down what it was asked to open), no AWS."""
    opened = tmp_path / "browser-asked.txt"
    no_browser = tmp_path / "no-browser.sh"
    no_browser.write_text(f'#!/bin/sh\necho "$@" >> {opened}\nexit 0\n')
    no_browser.chmod(0o755)
    return {
        "BROWSER": str(no_browser),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "MCP_ELICIT_KEY": KEY,
        "HOME": str(tmp_path),
    }


class Host:
    """``strands_host.py TOOLS -- COMMAND`` run by the Strands environment's Python; its stdout
    (JSON lines) and stderr read as they come."""

    def __init__(self, tools: list[str], command: list[str], tmp_path: Path) -> None:
        self.process = subprocess.Popen(
            [str(strands_python()), str(HOST), *tools, "--", *command],
            cwd=tmp_path,
            env=environment(tmp_path),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self.out), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, self.err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line)

    async def page_address(self, timeout: float = 60.0) -> str:
        """The gateway's page, from the line it says on the host's stderr."""
        with anyio.fail_after(timeout):
            while True:
                for line in list(self.err):
                    found = re.search(r"answered on (http://127\.0\.0\.1:\d+/\S+)", line)
                    if found:
                        return found.group(1)
                assert self.process.poll() is None, "".join(self.err)
                await anyio.sleep(0.05)

    async def results(self, timeout: float = 60.0) -> list[dict[str, Any]]:
        """Once the host has exited (0): what it printed, a JSON object a line."""
        code = await anyio.to_thread.run_sync(lambda: self.process.wait(timeout))
        for reader in self._readers:
            reader.join(5)
        assert code == 0, "".join(self.err)
        return [json.loads(line) for line in self.out if line.strip()]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def hosts() -> Iterator[list[Host]]:
    started: list[Host] = []
    yield started
    for host in started:
        host.stop()


def upstream_view(record: Path) -> list[tuple[str, Any]]:
    """What the upstream learned of its client (test_openai_agents.py's view): the
    capabilities declared, the calls (``requestState`` aside), the answers; each once."""
    lines = b"".join(recorded(record, "sent")).decode().splitlines()
    seen: dict[str, tuple[str, Any]] = {}
    for message in (json.loads(line) for line in lines if line.strip()):
        method = message.get("method")
        if method == "initialize":
            item: tuple[str, Any] = ("declared", message["params"]["capabilities"])
        elif method == "tools/call":
            item = ("call", {k: v for k, v in message["params"].items() if k != "requestState"})
        elif "result" in message:
            item = ("answer", message["result"])
        else:
            continue
        seen[json.dumps(item, sort_keys=True)] = item
    return [seen[key] for key in sorted(seen)]


@pytest.mark.browser
async def test_the_gateways_person_answers_for_a_strands_agent(
    tmp_path: Path, hosts: list[Host]
) -> None:
    record = tmp_path / "strands"
    record.mkdir()
    command, args = recorded_command(QUICK_START, record)
    audit = tmp_path / "audit.jsonl"
    host = Host(
        ["book", "connect_weather", "book", "book"],
        [*GATEWAY, "--ask", "web", "--audit", str(audit), "--", command, *args],
        tmp_path,
    )
    hosts.append(host)
    key = f"weather-{uuid.uuid4().hex}"
    async with chromium() as browser:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(await host.page_address())
        heading = page.locator("#prompt-heading")
        # The form, answered.
        await expect(heading).to_have_text("Who is staying, and when?", timeout=30_000)
        await page.get_by_label("Guest").fill(STAY["guest"])
        await page.get_by_label("Arrival").fill(STAY["arrival"])
        await page.get_by_label("Nights").fill(str(STAY["nights"]))
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit").click()
        # The link to the server's own page: consent on the gateway's page, then the key typed
        # there, in the tab the click opened.
        await expect(heading).to_have_text("Your weather service key", timeout=30_000)
        opening = page.get_by_role("button", name=re.compile("^Open link"))
        async with context.expect_page() as opened:
            await opening.click()
        secret_page = await opened.value
        # The tab opens blank, cut off from the gateway's page, then goes to the link.
        await secret_page.wait_for_url(re.compile(r"^http://127\.0\.0\.1:\d+/"))
        link = secret_page.url  # the server's page, as the server gave it
        await secret_page.get_by_label("WEATHER_API_KEY", exact=True).fill(key)
        async with secret_page.expect_navigation():
            await secret_page.get_by_role("button", name="Save", exact=True).click()
        assert "Saved" in await secret_page.locator("h1").inner_text()
        # The same form again, declined; and once more (once the declined one is gone),
        # cancelled.
        await expect(heading).to_have_text("Who is staying, and when?", timeout=30_000)
        declined = await heading.element_handle()
        await page.get_by_role("button", name="Decline").click()
        await declined.wait_for_element_state("hidden", timeout=30_000)
        await expect(heading).to_have_text("Who is staying, and when?", timeout=30_000)
        await page.get_by_role("button", name=re.compile("^Cancel")).click()
        *calls, conversation, connections = await host.results()
    assert calls == [
        {
            "tool": "book",
            "status": "success",
            "said": "tool said: Booked 2 night(s) from 2026-12-01 for Ada.",
        },
        {
            "tool": "connect_weather",
            "status": "success",
            "said": f"tool said: Connected ({len(key)} characters).",
        },
        {"tool": "book", "status": "success", "said": "tool said: Nothing booked (Declined())."},
        {
            "tool": "book",
            "status": "success",
            "said": "tool said: Nothing booked (Cancelled(reason=None)).",
        },
    ]
    assert connections == {"connections": []}  # no model endpoint, no network
    events = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(e["mode"], e["outcome"]) for e in events] == [
        ("form", "accept"),
        ("url", "accept"),
        ("form", "decline"),
        ("form", "cancel"),
    ]
    # The key went from the browser to the server: not through the agent, nor the gateway.
    assert key not in json.dumps(conversation) + audit.read_text()
    upstream = b"".join(recorded(record, "sent") + recorded(record, "received")).decode()
    assert key not in upstream
    assert link in upstream

    # The upstream cannot tell: a host that declares elicitation and answers itself, through
    # a gateway without --ask, shows it the same capabilities and the same booking.
    capable = tmp_path / "capable"
    capable.mkdir()
    command, args = recorded_command(QUICK_START, capable)
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"), MCP_ELICIT_KEY=KEY)
    their_person = Person([{"action": "accept", "content": STAY}])
    async with (
        Gateway(StdioServerParameters(command=command, args=args, env=env)) as gateway,
        connect(gateway.server, "2025-11-25", their_person) as capable_host,
    ):
        assert "Booked 2 night(s)" in text(await capable_host.call_tool("book", {}))
    seen = upstream_view(record)
    theirs = upstream_view(capable)
    assert [i for i in seen if i[0] == "declared"] == [i for i in theirs if i[0] == "declared"]
    assert '"elicitation": {"form": {}, "url": {}}' in json.dumps(seen)
    assert all(item in seen for item in theirs), (theirs, seen)


@pytest.mark.browser
async def test_open_this_link_first_is_answered_on_the_gateways_page(
    tmp_path: Path, hosts: list[Host]
) -> None:
    # A 2025-11-25 upstream (the tests' secret server) raises -32042 ("open this link first")
    # from connect_later: the person consents on the gateway's page, types the key on the
    # server's, and the agent gets the tool's result after the gateway's one retry.
    record = tmp_path / "upstream"
    record.mkdir()
    store = f"sqlite:///{tmp_path / 'flows.db'}"
    command, args = recorded_command(SECRET_SERVER, record, "--store", store)
    audit = tmp_path / "audit.jsonl"
    gateway = [*GATEWAY, "--ask", "web", "--upstream-protocol", "2025-11-25"]
    host = Host(
        ["connect_later"], [*gateway, "--audit", str(audit), "--", command, *args], tmp_path
    )
    hosts.append(host)
    key = f"service-{uuid.uuid4().hex}"
    async with chromium() as browser:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(await host.page_address())
        heading = page.locator("#prompt-heading")
        await expect(heading).to_have_text(re.compile("^Your Service API key"), timeout=30_000)
        async with context.expect_page() as opened:
            await page.get_by_role("button", name=re.compile("^Open link")).click()
        secret_page = await opened.value
        await secret_page.wait_for_url(re.compile(r"^http://127\.0\.0\.1:\d+/"))
        await secret_page.get_by_label("SERVICE_API_KEY", exact=True).fill(key)
        # Not waiting for the page that says "Saved": the call it completes is the host's
        # last, so the host, its gateway and the server (with its page) may be gone by then.
        save = secret_page.get_by_role("button", name="Save", exact=True)
        await save.click(no_wait_after=True)
        call, conversation, connections = await host.results()
    assert call["tool"] == "connect_later" and call["status"] == "success"
    assert call["said"].startswith(f"tool said: ok: key ending in {key[-4:]} (sha256 ")
    assert connections == {"connections": []}
    [event] = [json.loads(line) for line in audit.read_text().splitlines()]
    assert (event["required_by"], event["outcome"]) == ("connect_later", "accept")
    assert event["completed_by"] == "server"
    # The upstream did answer -32042 first, then the tool's result to the one retry.
    received = b"".join(recorded(record, "received")).decode().splitlines()
    answers = [json.loads(line) for line in received if line.strip()]
    assert [a["error"]["code"] for a in answers if "error" in a] == [-32042]
    sent = b"".join(recorded(record, "sent")).decode().splitlines()
    calls = [json.loads(line) for line in sent if '"tools/call"' in line]
    assert [c["params"]["name"] for c in calls] == ["connect_later", "connect_later"]
    # Neither the error nor the key reached the agent; the key never passed the gateway.
    said = json.dumps(conversation)
    assert "-32042" not in said and "open a link first" not in said
    assert key not in said + "".join(host.err) + audit.read_text()
    assert key not in "".join(received + sent)


async def test_a_blocked_link_is_never_offered_nor_opened(
    tmp_path: Path, hosts: list[Host]
) -> None:
    audit = tmp_path / "audit.jsonl"
    command = [*GATEWAY, "--ask", "web", "--audit", str(audit), "--", *ASKING_SERVER]
    host = Host(["open_bad_page"], command, tmp_path)
    hosts.append(host)
    [call, _, connections] = await host.results()
    assert call == {
        "tool": "open_bad_page",
        "status": "success",
        "said": "tool said: Cancelled(reason='url-blocked')",
    }
    assert connections == {"connections": []}
    [event] = [json.loads(line) for line in audit.read_text().splitlines()]
    assert (event["outcome"], event["why"], event["url_verdict"]) == (
        "cancel",
        "url-blocked",
        "block",
    )
    assert "hunter2" not in json.dumps(event)  # the link's credentials are not written down
    # Nor told: the gateway's notice goes to its stderr, which the agent keeps in its logs.
    assert "Blocked a link" in "".join(host.err) and "hunter2" not in "".join(host.err)
    # Nothing was opened: the system browser was never asked (not even for the gateway's page:
    # there was nothing to answer on it), and a link opens only from a click on that page.
    assert not (tmp_path / "browser-asked.txt").exists()


async def test_without_the_gateway_strands_gets_a_tool_error(
    tmp_path: Path, hosts: list[Host]
) -> None:
    # Strands' own MCPClient, no elicitation_callback: the quick start's tools that ask fail.
    host = Host(["book", "connect_weather"], [sys.executable, QUICK_START], tmp_path)
    hosts.append(host)
    book, weather, _, connections = await host.results()
    assert book == {
        "tool": "book",
        "status": "error",
        "said": "tool said: Tool execution failed: This tool asks the user a question: "
        "declare the elicitation form capability",
    }
    assert weather == {
        "tool": "connect_weather",
        "status": "error",
        "said": "tool said: Tool execution failed: This tool sends the user to a web page: "
        "declare elicitation URL mode",
    }
    assert connections == {"connections": []}


def test_the_docs_strands_lines_are_strands_own() -> None:
    # docs/frameworks.md's Strands block (```py: not run in our environment) in Strands': its
    # imports resolve, and the MCPClient is built as written (up to `with hotel:`, which would
    # start the gateway).
    page = (ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")
    section = page.split("## Strands Agents", 1)[1]
    [block] = re.findall(r"```py\n(.*?)```", section, re.DOTALL)
    setup, _ = block.split("with hotel:", 1)
    check = f"{setup}\nassert type(hotel).__name__ == 'MCPClient'\nprint('built')\n"
    done = subprocess.run(
        [str(strands_python()), "-c", check], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "built"
