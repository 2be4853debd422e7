"""``make bench``: run every ``bench/bench_*.py`` module and print a summary table.

Each module exposes ``run(repeats, *, loop_ms) -> list[Result]`` and prints its own details as
it goes. This is a report: the exit status is 0 even when a target is MISSED (it says so), and
1 only when a benchmark could not run at all.

    .venv/bin/python bench/run.py [--repeats 7] [--loop-ms 75] [--only validate]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import platform
import sys
import time
import traceback
from pathlib import Path

from _timing import DEFAULT_LOOP_MS, DEFAULT_REPEATS, Result, fmt_ns, fmt_ratio

BENCH_DIR = Path(__file__).resolve().parent
# Printed with each report; the last three are the frameworks benchmarks 14 to 16 measure under.
PACKAGES = (
    "mcp-elicit",
    "mcp",
    "pydantic",
    "pydantic-core",
    "jsonschema",
    "fastjsonschema",
    "fastmcp",
    "pydantic-ai-slim",
    "google-adk",
)


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _modules(only: str | None) -> list[str]:
    names = sorted(path.stem for path in BENCH_DIR.glob("bench_*.py"))
    return [name for name in names if only is None or only in name]


def _summary(results: list[Result]) -> None:
    rows = [
        (
            r.claim,
            fmt_ns(r.ours.median),
            fmt_ns(r.anchor.median),
            r.describe(),
            "-" if r.target is None else f">= {fmt_ratio(r.target)}",
            r.status,
        )
        for r in results
    ]
    head = ("comparison (ours vs anchor)", "ours/call", "anchor/call", "ratio", "target", "")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    rule = "-" * (sum(widths) + 2 * (len(widths) - 1))
    print("\n== Summary (medians; ratio = anchor time / our time, paired per run) ==")
    print("  ".join(cell.ljust(w) for cell, w in zip(head, widths, strict=True)).rstrip())
    print(rule)
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print(rule)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS, help="runs per timing")
    parser.add_argument("--loop-ms", type=float, default=DEFAULT_LOOP_MS, help="ms per run")
    parser.add_argument("--only", help="run only the modules whose name contains this")
    args = parser.parse_args(argv)

    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; " + ", ".join(f"{name} {_version(name)}" for name in PACKAGES)
    )
    print(
        f"Each per-call time is the median of {args.repeats} runs of ~{args.loop_ms:g} ms; "
        "contenders run interleaved in the same process."
    )

    started = time.perf_counter()
    results: list[Result] = []
    failed: list[str] = []
    for name in _modules(args.only):
        try:
            module = importlib.import_module(name)
            results.extend(module.run(args.repeats, loop_ms=args.loop_ms))
        except Exception:
            traceback.print_exc()
            failed.append(name)
            print(f"ERROR: {name} did not run", flush=True)

    _summary(results)
    missed = [r for r in results if r.met is False]
    for result in missed:
        print(f"MISSED: {result.line()}")
    for name in failed:
        print(f"ERROR: {name} did not run (see the traceback above)")
    met = sum(1 for r in results if r.met)
    targets = sum(1 for r in results if r.target is not None)
    verdict = "all targets met" if not missed else f"{len(missed)} target(s) MISSED"
    print(f"{met}/{targets} targets met: {verdict}; {time.perf_counter() - started:.1f} s total")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
