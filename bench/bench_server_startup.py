"""Benchmark 20: a server's start-up, process start to its first answered request, over HTTP.

Each contender is a whole process, ``bench/_startup_server.py --http PORT``, the README's
quick start (three tools: ``book``, ``cancel``, ``connect_weather``) on Streamable HTTP:

- **ours**: ``Elicitation()`` with its defaults (the key from ``MCP_ELICIT_KEY``, the SQLite
  store in ``$XDG_STATE_HOME``: a temporary directory here), ``MCPServer(...,
  **elicitation.server_options())``, ``elicitation.run(server, "streamable-http")``;
- **anchor**: the bare SDK ``MCPServer`` with the same tools (``--bare``), ``server.run(
  "streamable-http")``: it never imports ``mcp_elicit``.

One start-up is timed, wall clock, from just before ``subprocess.Popen`` until the server has
answered an ``initialize`` POSTed to ``/mcp`` with a result (the client retries every 5 ms
while the port refuses connections). Stopping the process is not timed. Both contenders get
the same environment, a fresh free port each start and the same bytecode cache (a temporary
``PYTHONPYCACHEPREFIX``, written by the calibration starts, as in benchmark 8).

Target: ours at most **1.5x** the bare SDK's start-up (anchor/ours >= 0.67). Start-ups take
seconds on a loaded machine, so each round is one start of each, interleaved, 2x the rounds
(14 by default, about a minute on two quiet cores).
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Loop,
    Report,
    Result,
    paired_ratio,
    side_by_side,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.ports import free_port

TITLE = "Benchmark 20: server start-up to the first answered request (HTTP)"
TARGET = 1 / 1.5  # ours at most 1.5x the bare SDK's start-up
ROUNDS_FACTOR = 2
SCRIPT = Path(__file__).resolve().parent / "_startup_server.py"
START_TIMEOUT = 120.0  # seconds: a start-up slower than this is a failure, not a timing
RETRY_S = 0.005
KEY = "11" * 32  # a fixed deployment key (hex), so no key file is made on each start

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}, "url": {}}},
            "clientInfo": {"name": "bench-startup", "version": "1"},
        },
    }
)
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
}

OURS = "ours: Elicitation() + MCPServer, run(streamable-http)"
BARE = "anchor: bare SDK MCPServer, run(streamable-http)"


def environment(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    env["XDG_STATE_HOME"] = str(folder / "state")  # the default SQLite store goes here
    env["MCP_ELICIT_KEY"] = KEY
    return env


def initialize(port: int) -> bool:
    """POST ``initialize``; True once it was answered with a result, False while the port
    refuses connections (not listening yet)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=START_TIMEOUT)
    try:
        connection.request("POST", "/mcp", body=INITIALIZE, headers=HEADERS)
        response = connection.getresponse()
        body = response.read().decode("utf-8", "replace")
    except (ConnectionRefusedError, ConnectionResetError):
        return False
    finally:
        connection.close()
    if response.status != 200 or '"result"' not in body:
        raise AssertionError(f"initialize answered {response.status}: {body[:300]!r}")
    return True


def cpu_ns(pid: int) -> int | None:
    """The CPU time (user + system) process ``pid`` has used so far, from ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return ticks * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def start_once(argv: list[str], env: dict[str, str], cpu: list[int]) -> int:
    """Start ``argv --http PORT``, wait for its answer to ``initialize``, stop it; the ns from
    just before the start to the answer. The CPU time the server used to get there is
    appended to ``cpu``."""
    port = free_port()
    start = time.perf_counter_ns()
    process = subprocess.Popen(
        [*argv, "--http", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not initialize(port):
            if process.poll() is not None:
                errors = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
                raise AssertionError(f"{argv}: exited {process.returncode}: {errors[-1500:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{argv}: not answering after {START_TIMEOUT:.0f} s")
            time.sleep(RETRY_S)
        elapsed = time.perf_counter_ns() - start
        used = cpu_ns(process.pid)
        if used is not None:
            cpu.append(used)
        return elapsed
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()


def starts(argv: list[str], env: dict[str, str], cpu: list[int]) -> Loop:
    def loop(number: int) -> int:
        return sum(start_once(argv, env, cpu) for _ in range(number))

    return loop


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as folder:
        env = environment(Path(folder))
        ours = [sys.executable, str(SCRIPT)]
        bare = [*ours, "--bare"]
        cpu: dict[str, list[int]] = {OURS: [], BARE: []}
        contenders = [
            Contender(OURS, starts(ours, env, cpu[OURS])),
            Contender(BARE, starts(bare, env, cpu[BARE])),
        ]
        # One start each per round (a start-up is far longer than loop_ms): calibration is
        # then a single start of each, which also writes the bytecode cache.
        timings = side_by_side(contenders, repeats * ROUNDS_FACTOR, loop_ms, same_number=True)
    report.timings(timings)
    mine, theirs = timings[OURS], timings[BARE]
    ratio = paired_ratio(theirs, mine)
    note = (
        f"ours/bare {1 / ratio:.2f} (at most {1 / TARGET:.2f}), i.e. "
        f"{(mine.median - theirs.median) / 1e6:+.0f} ms over the bare SDK's "
        f"{theirs.median / 1e6:.0f} ms"
    )
    report.add(Result(TITLE, "start-up, ours vs the bare SDK", mine, theirs, ratio, TARGET, note))
    if cpu[OURS] and cpu[BARE]:
        # Less sensitive to other processes on the cores than the wall clock; for information.
        ours_cpu, bare_cpu = (statistics.median(cpu[label]) / 1e6 for label in (OURS, BARE))
        print(
            f"  (CPU time to the first answer, median: ours {ours_cpu:.0f} ms, bare SDK "
            f"{bare_cpu:.0f} ms, ours/bare {ours_cpu / bare_cpu:.2f}; calibration included)",
            flush=True,
        )
    return report.results


if __name__ == "__main__":
    run()
