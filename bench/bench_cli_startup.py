"""Benchmark 8: how long ``mcp-elicit`` takes, start to finish, for its light commands.

Each contender is a whole process, started with ``subprocess.run`` (output to /dev/null) and
timed from start to exit, wall clock:

- **ours**: the installed entry point (``.venv/bin/mcp-elicit``, what a person runs) with
  ``--version``; ``--help``; ``url check https://example.com/``; ``schema check FILE
  --revision 2025-11-25``; ``schema validate FILE ANSWER``; ``schema convert FILE --to
  2026-07-28``. FILE is the 10-field schema of benchmarks 1 and 2, ANSWER its valid answer.
  Each must give the right answer (exit status and output) once before it is timed.
- **anchors**, the same interpreter: ``python -c pass`` (Python alone); ``python -c "from
  mcp_elicit.urls import check_url"`` (the URL layer imported); the same and one
  ``check_url("https://example.com/")`` (the layer doing the command's work, for information);
  ``python -c "import mcp_elicit.forms"`` (the forms layer imported: all ``schema`` needs).

Targets: ``--version`` and ``--help`` in at most **0.15 s** (ratio: 0.15 s / ours, >= 1 is
under the limit); ``url check`` and each ``schema`` action at most **1.3x** the import of its
own layer (anchor/ours >= 0.77).

Bytecode: the processes get a ``PYTHONPYCACHEPREFIX`` in a temporary directory (and no
``PYTHONDONTWRITEBYTECODE``), so that, as in an installed package, no module is compiled
again on every run, without writing a ``__pycache__`` into the source tree. The calibration
runs write it.

Processes take tens of milliseconds, so this benchmark makes 3x the rounds (21 by default),
each of ~``loop_ms``: many short paired runs, as benchmark 3 does, for a steadier median.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _fixtures import VALID_CONTENT, plain_schema
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Loop,
    Report,
    Result,
    Timing,
    fmt_ratio,
    paired_ratio,
    side_by_side,
)

TITLE = "Benchmark 8: mcp-elicit start-up, per command (whole processes)"
LIMIT_NS = 150_000_000  # --version and --help: 0.15 s at most
TARGET_RELATIVE = 1.3  # the other commands: at most 1.3x the import of their own layer
ROUNDS_FACTOR = 3

URL = "https://example.com/"
PYTHON = "python: -c pass"
URLS_IMPORT = "python: -c 'from mcp_elicit.urls import check_url'"
URLS_CALL = "python: -c '<that>; check_url(URL)'"
FORMS_IMPORT = "python: -c 'import mcp_elicit.forms'"

# Our command lines (FILE and ANSWER: the files made for the run), and how their output starts.
COMMANDS = {
    "--version": "mcp-elicit ",
    "--help": "usage: mcp-elicit",
    f"url check {URL}": "ALLOW",
    "schema check FILE --revision 2025-11-25": "valid for 2025-11-25",
    "schema validate FILE ANSWER": "valid answer",
    "schema convert FILE --to 2026-07-28": "{",
}


def entry_point() -> list[str]:
    """``mcp-elicit`` as installed next to this interpreter, else ``python -m mcp_elicit``."""
    script = Path(sys.executable).parent / "mcp-elicit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "mcp_elicit"]


def environment(pycache: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def process(argv: Sequence[str], env: dict[str, str]) -> Loop:
    """A loop that runs ``argv`` to its end ``number`` times (the output to /dev/null)."""
    command = list(argv)

    def loop(number: int) -> int:
        start = time.perf_counter_ns()
        for _ in range(number):
            subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                check=False,
            )
        return time.perf_counter_ns() - start

    return loop


def check(label: str, argv: Sequence[str], env: dict[str, str], says: str) -> None:
    """Run ``argv`` once: it must exit 0 and its output start with ``says``."""
    done = subprocess.run(
        list(argv), capture_output=True, text=True, env=env, timeout=60, check=False
    )
    if done.returncode != 0 or not done.stdout.startswith(says):
        raise AssertionError(
            f"{label}: exit {done.returncode}, output {done.stdout[:200]!r}, "
            f"errors {done.stderr[-500:]!r} (expected exit 0 and output {says!r}...)"
        )


@dataclass(frozen=True)
class LimitResult(Result):
    """An absolute limit in ``Result``'s shape: ``ratio`` is limit / our median time
    (``>= 1`` is under the limit); the anchor is Python alone, for scale."""

    def describe(self) -> str:
        if self.ratio >= 1:
            return f"{fmt_ratio(self.ratio)} under the limit"
        return f"{fmt_ratio(1 / self.ratio)} over the limit"

    def line(self) -> str:
        ours, python = self.ours.median / 1e6, self.anchor.median / 1e6
        text = (
            f"{self.claim}: {ours:.1f} ms (Python alone {python:.1f} ms; limit "
            f"{LIMIT_NS / 1e6:.0f} ms: {self.describe()}) {self.status}"
        )
        return f"{text}; {self.note}" if self.note else text


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    command = entry_point()
    python = [sys.executable, "-c"]

    with tempfile.TemporaryDirectory(prefix="bench-cli-") as folder:
        env = environment(str(Path(folder) / "pycache"))
        schema = Path(folder) / "schema.json"
        schema.write_text(json.dumps(plain_schema()), encoding="utf-8")
        answer = Path(folder) / "answer.json"
        answer.write_text(json.dumps(VALID_CONTENT), encoding="utf-8")

        files = {"FILE": str(schema), "ANSWER": str(answer)}
        ours = {line: [*command, *(files.get(w, w) for w in line.split())] for line in COMMANDS}
        anchors = {
            PYTHON: [*python, "pass"],
            URLS_IMPORT: [*python, "from mcp_elicit.urls import check_url"],
            URLS_CALL: [*python, f"from mcp_elicit.urls import check_url; check_url({URL!r})"],
            FORMS_IMPORT: [*python, "import mcp_elicit.forms"],
        }
        for label, argv in ours.items():
            check(label, argv, env, COMMANDS[label])
        for label, argv in anchors.items():
            check(label, argv, env, "")

        print(f"  ours: {' '.join(command)} ...; bytecode cached under a temporary prefix")
        labels = {label: f"ours: mcp-elicit {label}" for label in ours}
        contenders = [Contender(labels[label], process(argv, env)) for label, argv in ours.items()]
        contenders += [Contender(label, process(argv, env)) for label, argv in anchors.items()]
        timings = side_by_side(contenders, repeats * ROUNDS_FACTOR, loop_ms)
    report.timings(timings)

    def limit(label: str) -> None:
        mine = timings[labels[label]]
        ratio = LIMIT_NS / mine.median
        report.add(LimitResult(TITLE, f"mcp-elicit {label}", mine, timings[PYTHON], ratio, 1.0))

    def relative(label: str, anchor: str, target: float | None, what: str) -> None:
        mine, theirs = timings[labels[label]], timings[anchor]
        ratio = paired_ratio(theirs, mine)
        note = (
            f"ours/anchor {1 / ratio:.2f}"
            + ("" if target is None else f" (at most {1 / target:.2f})")
            + f", i.e. +{(mine.median - theirs.median) / 1e6:.1f} ms over {what}"
        )
        report.add(
            Result(TITLE, f"mcp-elicit {label} vs {what}", mine, theirs, ratio, target, note)
        )

    def in_ms(timing: Timing) -> str:
        return f"{timing.median / 1e6:.1f} ms"

    limit("--version")
    limit("--help")
    url_check = f"url check {URL}"
    relative(url_check, URLS_IMPORT, 1 / TARGET_RELATIVE, "importing mcp_elicit.urls")
    relative(url_check, URLS_CALL, None, "importing it and one check_url")
    for label in ours:
        if label.startswith("schema "):
            relative(label, FORMS_IMPORT, 1 / TARGET_RELATIVE, "importing mcp_elicit.forms")
    print(
        f"  (Python alone: {in_ms(timings[PYTHON])}; importing mcp_elicit.urls "
        f"{in_ms(timings[URLS_IMPORT])}, and one check_url {in_ms(timings[URLS_CALL])}; "
        f"importing mcp_elicit.forms {in_ms(timings[FORMS_IMPORT])})",
        flush=True,
    )
    return report.results


if __name__ == "__main__":
    run()
