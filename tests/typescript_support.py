"""The clients on the official TypeScript SDK (``tests/peers_ts/elicit_client.ts`` on v2, and
``task_client_v1.ts`` on v1, the released 2025-11-25 task client), run as a subprocess that
answers from a script and prints a JSON report (tests/server/test_typescript_client.py,
tests/gateway/test_peers.py, tests/server/test_tasks_ts_v1.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2

from tests.peers import typescript_peer

CSRF_FIELD = re.compile(r'<input type="hidden" name="csrf" value="([^"]+)">')


@dataclass
class Report:
    """What ``elicit_client.ts`` printed, and how it exited."""

    returncode: int
    data: dict[str, Any]
    stderr: str

    @property
    def result(self) -> dict[str, Any]:
        assert "result" in self.data, (self.data.get("error"), self.stderr[-3000:])
        return dict(self.data["result"])

    @property
    def text(self) -> str:
        return "".join(c["text"] for c in self.result["content"] if c["type"] == "text")

    @property
    def error(self) -> dict[str, Any]:
        assert "error" in self.data, self.data.get("result")
        return dict(self.data["error"])


LinkAction = Callable[[dict[str, Any]], None]


def enter_on_page(value: str) -> LinkAction:
    """Act as the person's browser: open the hosted page the link leads to, submit ``value``."""

    def enter(event: dict[str, Any]) -> None:
        url = str(event["url"])
        with httpx2.Client(timeout=30.0) as browser:
            page = browser.get(url)
            assert page.status_code == 200, page.text
            token = CSRF_FIELD.search(page.text)
            assert token is not None, page.text
            sent = browser.post(
                url, data={"csrf": token.group(1), "action": "submit", "value": value}
            )
            assert sent.status_code == 303, sent.text

    return enter


def ts_client(
    tool: str,
    target: str | list[str],
    *options: str,
    env: dict[str, str],
    on_link: LinkAction | None = None,
    timeout: float = 90.0,
    peer: list[str] | None = None,
) -> Report:
    """Run the TypeScript client: ``target`` is a URL, or a command to start over stdio.
    ``on_link`` runs (in another thread) for each link the client consents to, while the
    call goes on. ``peer`` is the argv of another client with the same arguments, report and
    ``ts-client-event`` lines (``task_client_v1.ts``); by default ``elicit_client.ts``."""
    argv = [*(peer or typescript_peer("elicit_client.ts")), *options, tool]
    argv += [target] if isinstance(target, str) else ["--", *target]
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    lines: list[str] = []
    failures: list[BaseException] = []

    def read_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if on_link is None or not line.startswith("ts-client-event "):
                continue
            event = json.loads(line.split(" ", 1)[1])
            if event.get("mode") == "url" and event.get("answer") == "accept":
                try:
                    on_link(event)
                except BaseException as error:  # reported with the test's failure
                    failures.append(error)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    killer = threading.Timer(timeout, process.kill)
    killer.start()
    try:
        assert process.stdout is not None
        stdout = process.stdout.read()
        process.wait()
        reader.join(timeout=10)
    finally:
        killer.cancel()
    stderr = "".join(lines)
    if failures:
        raise failures[0]
    assert stdout.strip(), f"the TypeScript client printed nothing (killed?):\n{stderr[-3000:]}"
    return Report(process.returncode, json.loads(stdout), stderr)
