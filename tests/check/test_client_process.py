"""``mcp-elicit check client`` against clients that misbehave as processes: one that crashes
has the end of its output in the report; one that hangs, and the child it started, are both
ended after the timeout (and when the run is stopped); hostile output is bounded and cleaned."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from mcp_elicit.check import Status, check_client
from mcp_elicit.check.client_checks import run_client_check
from mcp_elicit.check.report import OUTPUT_CHARS, Outcome
from tests.check.support import unsafe

CHECK = "client-answers-declared-modes"

CRASHING = """
import sys
print("connecting to", sys.argv[-1], flush=True)
print("about to read the config", file=sys.stderr, flush=True)
raise RuntimeError("no config file: /etc/client.toml")
"""

# The client starts a child that ignores SIGTERM (so that SIGKILL is needed), writes both
# PIDs, and never finishes.
HANGING = """
import os, signal, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"])
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(f"{os.getpid()} {child.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
print("waiting for nothing", flush=True)
time.sleep(300)
"""

HOSTILE = """
import sys
out = sys.stdout.buffer
out.write(b"x" * 3_000_000 + b"\\n")
out.write(b"\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m red \\xe2\\x80\\xae txt.exe\\r\\n")
out.flush()
sys.exit(3)
"""


def alive(pid: int) -> bool:
    """Running, or stopped: anything but gone or a zombie (ended, not yet reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def pids_of(path: Path) -> list[int]:
    with anyio.fail_after(30):
        while not path.exists():
            await anyio.sleep(0.05)
    return [int(pid) for pid in path.read_text().split()]


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_crashed_client_has_the_end_of_its_output_in_the_report() -> None:
    report = await check_client([sys.executable, "-c", CRASHING], ids=[CHECK])
    [outcome] = report.outcomes
    assert outcome.status is Status.FAILED
    assert "(the client exited 1: RuntimeError: no config file: /etc/client.toml)" in outcome.seen
    text = report.text()
    assert "    | connecting to http://127.0.0.1:" in text, text
    assert "    | about to read the config" in text
    assert "    | RuntimeError: no config file: /etc/client.toml" in text
    assert (
        "Traceback (most recent call last):"
        in json.loads(report.json_text())["checks"][0]["output"]
    )


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_hanging_client_and_its_child_are_ended_after_the_timeout(
    tmp_path: Path,
) -> None:
    written = tmp_path / "pids"
    started = anyio.current_time()
    outcome = await run_client_check(
        [sys.executable, "-c", HANGING, str(written)], CHECK, timeout=2
    )
    took = anyio.current_time() - started
    client, child = await pids_of(written)
    assert not alive(client) and not alive(child), (client, child)
    assert outcome.status is Status.FAILED
    assert "the client did not finish within 2 s, and was ended" in outcome.seen
    assert "waiting for nothing" in outcome.output
    assert took < 20  # the timeout, the grace before SIGKILL, no more


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_stopped_run_ends_the_client_and_its_child(tmp_path: Path) -> None:
    """The run's deadline (--timeout) cancels the check: its processes end all the same."""
    written = tmp_path / "pids"
    with anyio.move_on_after(3):
        await run_client_check([sys.executable, "-c", HANGING, str(written)], CHECK)
    client, child = await pids_of(written)
    assert not alive(client) and not alive(child), (client, child)


@pytest.mark.anyio
@pytest.mark.slow
async def test_hostile_output_is_bounded_and_cleaned() -> None:
    report = await check_client([sys.executable, "-c", HOSTILE], ids=[CHECK])
    [outcome] = report.outcomes
    assert outcome.status is Status.FAILED
    assert len(outcome.output) <= OUTPUT_CHARS
    said = "\\u{001b}]0;pwned\\u{0007}\\u{001b}[2J\ufffd31m red \\u{202e} txt.exe"
    assert outcome.output.endswith(said), outcome.output[-200:]
    for text in (report.text(), report.json_text()):
        assert unsafe(text) == [], text[-500:]
    assert len(report.text()) < 10_000  # 20 lines of at most 300 characters, and the rest


def test_an_outcome_without_output_reports_as_before() -> None:
    outcome = Outcome(CHECK, "2025-11-25", Status.PASSED, "answered")
    assert "output" not in outcome.as_json()
    assert outcome.lines() == [outcome.line()]
