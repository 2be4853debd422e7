"""``mcp-elicit call`` and a tool the server runs as a task (2026-07-28, the extension
``io.modelcontextprotocol/tasks``): the task's id and status on stderr (stdout carries the
result alone), ``--no-tasks``, and ``--resume TASK_ID`` after the first call was killed.

Each test runs the command as a process against tests/peer_servers/task_server.py, over stdio,
or over HTTP when the server must outlive the first call."""

from __future__ import annotations

import json
import re
import secrets
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.support import environment
from tests.peer_servers import task_server
from tests.served import Served

pytestmark = pytest.mark.slow

ADA = [{"action": "accept", "content": {"name": "Ada"}}]
STARTED = re.compile(r"^mcp-elicit: task (\S+) started; .* --resume=(\S+)$", re.MULTILINE)


def mcp_elicit(*words: str) -> list[str]:
    return [sys.executable, "-m", "mcp_elicit", *words]


def answers(tmp_path: Path) -> str:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(ADA), encoding="utf-8")
    return str(path)


def over_stdio(*options: str) -> list[str]:
    return ["--", *task_server.command(*options)]


def call(tmp_path: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        mcp_elicit("call", "--protocol", "2026-07-28", *words),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**environment(tmp_path), "MCP_ELICIT_KEY": secrets.token_urlsafe(32)},
        timeout=120,
        check=False,
    )


def test_the_task_id_and_its_status_go_to_stderr_cleaned_and_the_result_to_stdout(
    tmp_path: Path,
) -> None:
    hostile = "Warming\x1b[2J\x1b]8;;https://evil.example\x07 up"
    arguments = json.dumps({"seconds": 3, "status": hostile})
    done = call(
        tmp_path,
        "slow_book",
        "--args",
        arguments,
        "--answers",
        answers(tmp_path),
        *over_stdio("--tools", "slow_book"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "booked Ada\n"
    started = STARTED.search(done.stderr)
    assert started is not None, done.stderr
    short = started.group(1)[:6]
    status = [
        line for line in done.stderr.splitlines() if line.startswith(f"mcp-elicit: task {short}…: ")
    ]
    assert any("working… " in line for line in status), done.stderr
    # The server's status, its control characters written out: never sent to the terminal.
    assert any(
        "Warming\\u{001b}[2J\\u{001b}]8;;https://evil.example\\u{0007} up" in line
        for line in status
    )
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert any("completed after" in line for line in status), done.stderr


def test_no_tasks_against_a_tool_that_runs_only_as_a_task_fails_with_the_servers_reason(
    tmp_path: Path,
) -> None:
    server = over_stdio("--tools", "only_as_task", "--required", "only_as_task")
    done = call(tmp_path, "only_as_task", "--no-tasks", *server)
    assert done.returncode == 1
    assert done.stdout == ""
    assert "only_as_task: error -32021: tool 'only_as_task' runs only as a task" in done.stderr
    assert (
        "mcp-elicit: the server runs only_as_task only as a task: call it without --no-tasks"
        in done.stderr
    )
    assert "started" not in done.stderr and "Traceback" not in done.stderr
    # Without it, the same call is a task, and gives the tool's result.
    done = call(tmp_path, "only_as_task", *server)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ran as a task\n"


def test_resuming_an_unknown_task_names_the_id(tmp_path: Path) -> None:
    # An id may begin with "-" (token_urlsafe's alphabet has it): "--resume=ID" still takes it.
    done = call(tmp_path, "book", "--resume=-no-such-task", *over_stdio("--tools", "book"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "no task '-no-such-task' to resume" in done.stderr
    assert "(code -32602)" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[Served]:
    served = task_server.served(tmp_path / "server.log", "--tools", "slow_book")
    try:
        yield served
    finally:
        served.stop()


def test_a_task_is_resumed_after_the_first_call_was_killed_mid_task(
    tmp_path: Path, http_server: Served
) -> None:
    url = http_server.url()
    first = subprocess.Popen(
        mcp_elicit(
            "call",
            "slow_book",
            "--protocol",
            "2026-07-28",
            "--args",
            json.dumps({"seconds": 6}),
            "--answers",
            answers(tmp_path),
            url,
        ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(tmp_path, unbuffered=True),
    )
    try:
        assert first.stderr is not None
        said: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not STARTED.search("".join(said)):
            line = first.stderr.readline()
            if not line:
                break
            said.append(line)
        started = STARTED.search("".join(said))
        assert started is not None, "".join(said)
        # Killed while the task works: it cannot tell the server anything, not even cancel.
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(timeout=10)
    assert first.returncode == -signal.SIGKILL
    task_id = started.group(1)
    # The hint is typed as printed: "--resume=ID" holds even for an id that begins with "-".
    assert shlex.split(started.group(2)) == [task_id]

    done = call(tmp_path, "slow_book", f"--resume={task_id}", "--answers", answers(tmp_path), url)
    assert done.returncode == 0, done.stderr + http_server.output()
    # The task's question was asked now, and answered: the tool ran once, and went on.
    assert done.stdout == "booked Ada\n"
    assert "started" not in done.stderr  # resumed, not started again
    assert f"mcp-elicit: task {task_id[:6]}…: completed after" in done.stderr
