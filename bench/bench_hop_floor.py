"""Benchmark 21: the gateway against the floor of one extra hop (issue 32).

Measured from outside, all paths side by side in ONE run: the official SDK's client
(``mcp.Client`` + a callback that answers at once, kept warm) calls the official SDK's server
(``_hop_server.py``: the numbered server of benchmarks 3 and 13, plus a tool that asks nothing)
through each of these paths, in the SAME era on both sides of every hop:

- **direct**: the client connected to the server itself (the anchor, 1.00);
- **gateway**: ``mcp-elicit gateway --upstream-protocol <the client's era>``;
- **fastmcp**: fastmcp's ``create_proxy`` with its defaults (``_fastmcp_proxy.py``);
- **relay**: the floor of one extra hop (``_raw_relay.py``): on stdio a process copying lines
  both ways, on HTTP a TCP byte relay on a loopback port; neither understands MCP.

Four columns: a **form call** (``ask(7)``: a ``tools/call`` whose tool asks one form question;
pushed as ``elicitation/create`` on 2025-11-25, an ``InputRequiredResult`` and a retry on
2026-07-28) and a **plain call** (``plain(7)``: asks nothing), each on **stdio** (the client
starts the path's process, which starts the server) and on **Streamable HTTP** (each a process
on a loopback port). Both eras, each with its own direct anchor.

For one era and transport the eight contenders (four paths x two calls) run interleaved in one
``side_by_side``; each contender's first call must return the right text before anything is
timed, and a contender whose first call does not (fastmcp's stdio form call on 2025-11-25:
its stdio front has no back-channel for ``elicitation/create``) is printed as
``fails: <what the call returned>`` instead of a ratio. A ratio is path/direct: the median of
the per-round paired ratios, with their p25-p75 beside it.

Also: the CPU (user + system, ``/proc/<pid>/stat``) each hop's own process spent per call while
its calls were being timed (the gateway's is the figure issue 32 asks for; the relay's and
fastmcp's for scale), and the gateway's memory per held 2025-era call (benchmark 13's
measurement, ``bench_gateway.memory_result``).

Targets (issue 32), per era and column: gateway/direct <= 1.25, and the gateway ahead of
fastmcp's proxy (fastmcp/gateway > 1, paired; a fastmcp that fails is behind).
"""

from __future__ import annotations

import contextlib
import functools
import os
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp
from _adapters import bare_sdk_callback, round_trips
from _hop_server import command as server_command
from _hop_server import plain_reply
from _hop_server import stdio_params as server_stdio
from _servers import http_server, reply_for
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Loop,
    Report,
    Result,
    Timing,
    paired_ratio,
    side_by_side,
)
from anyio.from_thread import BlockingPortal, start_blocking_portal
from bench_client_roundtrip import ROUNDS_SCALE, RUN_SCALE
from bench_gateway import _pid_listening, gateway_http, gateway_stdio, memory_result
from mcp.client.stdio import StdioServerParameters

TITLE = "Benchmark 21: the gateway against the floor of one extra hop"
MAX_SLOWDOWN = 1.25  # gateway/direct
TARGET = 1 / MAX_SLOWDOWN  # direct/gateway, the convention of Result
BENCH = Path(__file__).resolve().parent
ERAS = (("2025-11-25", "legacy"), ("2026-07-28", "auto"))
TRANSPORTS = ("stdio", "http")
N = 7
# (the column's call, the tool, what it returns for N)
CALLS = (("form", "ask", f"{N}:{reply_for(N)}"), ("plain", "plain", plain_reply(N)))
PATHS = ("direct", "gateway", "fastmcp", "relay")
HOPS = PATHS[1:]  # the paths with a process of their own between client and server
PATH_NAMES = {
    "direct": "direct",
    "gateway": "mcp-elicit gateway",
    "fastmcp": "fastmcp create_proxy",
    "relay": "raw relay",
}
# How each hop's process is found, to read its CPU: on stdio it is our child with this in its
# command line (the client starts it; one of each at a time); on HTTP, what listens on its port.
STDIO_MARKS = {
    "gateway": "mcp_elicit\0gateway",
    "fastmcp": "_fastmcp_proxy.py",
    "relay": "_raw_relay.py",
}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def column(call: str, transport: str) -> str:
    return f"{call} call, {'HTTP' if transport == 'http' else transport}"


COLUMNS = [column(call, transport) for call, _, _ in CALLS for transport in TRANSPORTS]


def _script(name: str, *args: str) -> list[str]:
    return [sys.executable, str(BENCH / name), *args]


def _stdio(argv: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime (fields 14, 15)


def _child_running(mark: str) -> int:
    """Our one child process whose command line contains ``mark``."""
    me = str(os.getpid())
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                parent = stat.read().rsplit(")", 1)[1].split()[1]
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                argv = cmdline.read().decode(errors="replace")
            if parent == me and mark in argv:
                found.append(int(pid))
    if len(found) != 1:
        raise RuntimeError(f"expected one child process running {mark!r}, found {found}")
    return found[0]


def _port_of(url: str) -> str:
    return url.rsplit(":", 1)[1].split("/")[0]


@dataclass
class CpuMeter:
    """The CPU a process spends inside the timed loops wrapped by :meth:`wrap`, per call."""

    pid: int
    seconds: float = 0.0
    calls: int = 0

    def wrap(self, loop: Loop) -> Loop:
        def metered(number: int) -> int:
            before = _cpu_seconds(self.pid)
            elapsed = loop(number)
            self.seconds += _cpu_seconds(self.pid) - before
            self.calls += number
            return elapsed

        return metered

    def per_call(self) -> str:
        if not self.calls:
            return "-"
        return f"{self.seconds / self.calls * 1e3:.2f} ms"


@dataclass
class Column:
    """One era's one column: each path's timing or why it failed, and the hops' CPU."""

    timings: dict[str, Timing] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    cpu: dict[str, CpuMeter] = field(default_factory=dict)

    def ratios(self, path: str, anchor: str = "direct") -> list[float]:
        """Per round, ``path``'s time over ``anchor``'s (paired)."""
        ours, base = self.timings[path], self.timings[anchor]
        return [o / b for o, b in zip(ours.samples, base.samples, strict=True)]

    def cell(self, path: str) -> str:
        if path in self.failures:
            return f"fails: {self.failures[path]}"
        if path == "direct":
            return "1.00"
        q1, median, q3 = statistics.quantiles(self.ratios(path), n=4)
        return f"{median:.2f} ({q1:.2f}-{q3:.2f})"

    def slowdown(self, path: str) -> float:
        """``path``/direct: the median of the paired ratios (what the table prints)."""
        return statistics.median(self.ratios(path))


class FailedAnchorResult(Result):
    """The gateway ahead of fastmcp where fastmcp's call failed: met, the failure said instead
    of a ratio (its anchor time is ``nan``: there is none)."""

    def describe(self) -> str:
        return "fastmcp fails"


@contextlib.contextmanager
def _http_hops(url: str, era: str) -> Iterator[dict[str, str]]:
    """Every path's URL over HTTP, in front of the server at ``url``."""
    with contextlib.ExitStack() as stack:
        yield {
            "direct": url,
            "gateway": stack.enter_context(gateway_http(url, era)),
            "fastmcp": stack.enter_context(http_server(command=_script("_fastmcp_proxy.py", url))),
            "relay": stack.enter_context(
                http_server(command=_script("_raw_relay.py", "--to", _port_of(url)))
            ),
        }


def _stdio_hops(era: str) -> dict[str, StdioServerParameters]:
    """Every path as a stdio command line that ends at the server."""
    server = server_stdio()
    argv = [server.command, *server.args]
    return {
        "direct": server,
        "gateway": gateway_stdio(era, server),
        "fastmcp": _stdio(_script("_fastmcp_proxy.py", *argv)),
        "relay": _stdio(_script("_raw_relay.py", "--", *argv)),
    }


def _pid_of(path: str, target: Any) -> int:
    if isinstance(target, str):
        return _pid_listening(_port_of(target))
    return _child_running(STDIO_MARKS[path])


def measure(
    portal: BlockingPortal,
    era: str,
    mode: str,
    transport: str,
    targets: dict[str, Any],
    repeats: int,
    loop_ms: float,
) -> dict[str, Column]:
    """One era on one transport: both calls through every path, interleaved."""
    columns = {column(call, transport): Column() for call, _, _ in CALLS}
    contenders: list[Contender] = []
    labels: dict[str, tuple[str, str]] = {}  # contender label -> (column, path)
    with contextlib.ExitStack() as stack:
        for path in PATHS:
            client = stack.enter_context(
                portal.wrap_async_context_manager(
                    mcp.Client(targets[path], mode=mode, elicitation_callback=bare_sdk_callback)
                )
            )
            if client.protocol_version != era:
                raise AssertionError(f"{path}: asked for {era}, got {client.protocol_version}")
            pid = None if path == "direct" else _pid_of(path, targets[path])
            for call, tool, expected in CALLS:
                name = column(call, transport)
                once = functools.partial(client.call_tool, tool, {"n": N})
                # Run first, untimed: a path that cannot make this call says so with what it
                # returned (fastmcp is expected to fail one column; any other failure is a
                # broken benchmark or a bug of ours, and stops the benchmark).
                returned = _text_of(portal.call(once))
                if returned != expected and path == "fastmcp":
                    columns[name].failures[path] = returned
                    print(f"  {PATH_NAMES[path]} ({era}, {name}) fails: {returned}", flush=True)
                    continue
                loop = round_trips(portal, once, _text_of, expected)  # checks it again
                if pid is not None:
                    meter = columns[name].cpu[path] = CpuMeter(pid)
                    loop = meter.wrap(loop)
                label = f"{PATH_NAMES[path]} ({era}, {name})"
                labels[label] = (name, path)
                contenders.append(Contender(label, loop))
        timings = side_by_side(contenders, repeats * ROUNDS_SCALE, loop_ms * RUN_SCALE)
    for label, timing in timings.items():
        name, path = labels[label]
        columns[name].timings[path] = timing
    return columns


def _text_of(result: Any) -> str:
    return str(result.content[0].text) if result.content else f"(no content: {result!r})"


def _results(report: Report, era: str, columns: dict[str, Column]) -> None:
    for name in COLUMNS:
        col = columns[name]
        direct, gateway = col.timings["direct"], col.timings["gateway"]
        ratio = 1 / col.slowdown("gateway")  # direct/gateway, the convention of Result
        report.add(
            Result(
                TITLE,
                f"gateway vs direct, {era} both sides, {name}",
                gateway,
                direct,
                ratio,
                TARGET,
                note=f"gateway/direct = {col.cell('gateway')} (target <= {MAX_SLOWDOWN:.2f})",
            )
        )
        claim = f"gateway vs fastmcp's proxy, {era}, {name}"
        if "fastmcp" in col.failures:
            failed = Timing("fastmcp (fails)", 0, (float("nan"),))
            report.add(
                FailedAnchorResult(
                    TITLE,
                    claim,
                    gateway,
                    failed,
                    float("inf"),
                    1.0,
                    note=f"fastmcp fails: {col.failures['fastmcp']}",
                )
            )
            continue
        fastmcp = col.timings["fastmcp"]
        ahead = paired_ratio(fastmcp, gateway)
        report.add(
            Result(
                TITLE,
                claim,
                gateway,
                fastmcp,
                ahead,
                1.0,
                note=f"fastmcp/gateway = {ahead:.2f} (target > 1: the gateway ahead)",
            )
        )


def _table(measured: dict[str, dict[str, Column]]) -> None:
    """The issue's table: every path's ratio to direct (median, p25-p75), per era."""
    head = ["path", *COLUMNS]
    rows: list[list[str]] = []
    for era, columns in measured.items():
        for path in PATHS:
            where = f"{era} both sides" if path == "gateway" else era
            rows.append(
                [f"{PATH_NAMES[path]} ({where})"] + [columns[name].cell(path) for name in COLUMNS]
            )
        for path in HOPS:
            rows.append(
                [f"  {PATH_NAMES[path]} CPU per call ({era})"]
                + [
                    columns[name].cpu[path].per_call() if path in columns[name].cpu else "-"
                    for name in COLUMNS
                ]
            )
        rows.append(
            [f"  gateway <= {MAX_SLOWDOWN:.2f}x direct and ahead of fastmcp ({era})"]
            + [_verdict(columns[name]) for name in COLUMNS]
        )
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    print("\n  ratios: path/direct, median of paired rounds (p25-p75)")
    for row in [head, ["-" * w for w in widths], *rows]:
        print("  | " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    print(flush=True)


def _verdict(col: Column) -> str:
    gateway = col.slowdown("gateway")
    ahead = (
        "fastmcp" in col.failures
        or paired_ratio(col.timings["fastmcp"], col.timings["gateway"]) > 1
    )
    return "OK" if gateway <= MAX_SLOWDOWN and ahead else "MISSED"


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    started = time.monotonic()
    measured: dict[str, dict[str, Column]] = {era: {} for era, _ in ERAS}
    with start_blocking_portal() as portal, http_server(command=server_command()) as url:
        for era, mode in ERAS:
            for transport in TRANSPORTS:
                with contextlib.ExitStack() as stack:
                    targets: dict[str, Any] = (
                        _stdio_hops(era)
                        if transport == "stdio"
                        else stack.enter_context(_http_hops(url, era))
                    )
                    columns = measure(portal, era, mode, transport, targets, repeats, loop_ms)
                measured[era].update(columns)
                for col in columns.values():
                    report.timings(col.timings)
    for era, _ in ERAS:
        _results(report, era, measured[era])
    _table(measured)
    try:
        memory_result(report, TITLE)
    except Exception as failed:
        # Benchmark 13's measurement (200 held calls at once) can fail on a loaded machine
        # (its warm-up's calls closed under it); the ratios measured above are not lost for it.
        print(f"  ERROR: memory per held 2025-era call not measured: {failed!r}", flush=True)
    print(f"  ({time.monotonic() - started:.0f} s)")
    return report.results


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    run()
