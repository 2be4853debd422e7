"""Run every fuzz target for a bounded time and summarise: ``make fuzz`` (``FUZZ_SECONDS=60``).

    .venv/bin/python fuzz/run.py --seconds 60 [--targets url_check,schema_check]

Each target runs in its own process, one after the other (libFuzzer, through atheris), from
its seeds in ``fuzz/corpus/<target>/`` and the corpus earlier runs grew in
``fuzz/.work/<target>/corpus/`` (kept between runs, never committed). The targets keep going
after a finding and report each distinct one once; libFuzzer's own findings (a slow input, too
much memory) end the target's run. Each target's full output is in ``fuzz/.work/<target>/log``,
the inputs of its findings in ``fuzz/.work/<target>/findings/``.

Exit status: 0 when nothing was found, 1 when something was, 2 when a target could not run.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ("schema_check", "form_validate", "url_check", "protocol_parse", "pages_read_form")
# Ended by libFuzzer itself: the target process stops there.
_LIBFUZZER_FINDINGS = {
    "ERROR: libFuzzer: timeout": "timeout (one input ran too long)",
    "ERROR: libFuzzer: out-of-memory": "out of memory",
    "ERROR: libFuzzer: deadly signal": "deadly signal",
    "=== Uncaught Python exception: ===": "uncaught exception (in the harness)",
}
_STAT = re.compile(r"^stat::(\w+):\s+(\d+)", re.MULTILINE)
_PROGRESS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+).*?exec/s: (\d+)", re.MULTILINE)
_FINDING = re.compile(r"^FUZZ-FINDING (\S+) #\d+ (.*) input=(\S+)$", re.MULTILINE)
_ARTIFACT = re.compile(r"Test unit written to (\S+)")


@dataclass
class Outcome:
    target: str
    seconds: float = 0.0
    executions: int = 0
    exec_per_second: int = 0
    coverage: int = 0
    new_units: int = 0
    findings: list[tuple[str, str]] = field(default_factory=list)  # (what, input file)
    error: str | None = None


def run_target(target: str, seconds: int, work: Path, extra: list[str]) -> Outcome:
    place = work / target
    corpus = place / "corpus"
    findings = place / "findings"
    corpus.mkdir(parents=True, exist_ok=True)
    findings.mkdir(parents=True, exist_ok=True)
    seeds = HERE / "corpus" / target
    command = [
        sys.executable,
        str(HERE / f"{target}.py"),
        f"-max_total_time={seconds}",
        "-timeout=10",
        "-rss_limit_mb=2048",
        "-max_len=8192",
        "-print_final_stats=1",
        f"-artifact_prefix={findings}/",
    ]
    dictionary = HERE / "dicts" / f"{target}.dict"
    if dictionary.exists():
        command.append(f"-dict={dictionary}")
    command += [*extra, str(corpus), str(seeds)]
    env = dict(os.environ, FUZZ_KEEP_GOING="1", FUZZ_ARTIFACTS=str(findings))
    log = place / "log"
    started = time.monotonic()
    outcome = Outcome(target)
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        assert process.stdout is not None
        for line in process.stdout:
            out.write(line)
            if line.startswith("FUZZ-FINDING") or any(key in line for key in _LIBFUZZER_FINDINGS):
                print(f"  {line.rstrip()}", flush=True)
        code = process.wait(timeout=seconds + 120)
    outcome.seconds = time.monotonic() - started
    text = log.read_text(errors="replace")
    stats = {name: int(value) for name, value in _STAT.findall(text)}
    progress = _PROGRESS.findall(text)
    if progress:
        runs, coverage, rate = progress[-1]
        outcome.executions, outcome.coverage = int(runs), int(coverage)
        outcome.exec_per_second = int(rate)
    outcome.executions = stats.get("number_of_executed_units", outcome.executions)
    outcome.exec_per_second = stats.get("average_exec_per_sec", outcome.exec_per_second)
    outcome.new_units = stats.get("new_units_added", 0)
    for _name, signature, path in _FINDING.findall(text):
        outcome.findings.append((signature, path))
    for key, what in _LIBFUZZER_FINDINGS.items():
        if key in text:
            artifact = _ARTIFACT.search(text)
            outcome.findings.append((what, artifact.group(1) if artifact else "?"))
    if code != 0 and not outcome.findings:
        outcome.error = f"exited with status {code}; see {log}"
    return outcome


def table(outcomes: list[Outcome]) -> str:
    head = ("target", "seconds", "executions", "exec/s", "coverage", "new units", "findings")
    rows = [
        (
            o.target,
            f"{o.seconds:.0f}",
            f"{o.executions:,}",
            f"{o.exec_per_second:,}",
            str(o.coverage),
            str(o.new_units),
            "error" if o.error else str(len(o.findings)),
        )
        for o in outcomes
    ]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([line(head), line(tuple("-" * w for w in widths)), *map(line, rows)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds",
        type=int,
        default=int(os.environ.get("FUZZ_SECONDS", "60")),
        help="how long to fuzz each target (default: $FUZZ_SECONDS or 60)",
    )
    parser.add_argument(
        "--targets", default=",".join(TARGETS), help=f"comma-separated, of: {', '.join(TARGETS)}"
    )
    parser.add_argument("--work", type=Path, default=HERE / ".work", help="corpus and logs")
    parser.add_argument(
        "libfuzzer", nargs="*", help="more libFuzzer options, after --, e.g. -- -seed=1"
    )
    args = parser.parse_args()
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}: choose from {', '.join(TARGETS)}")
    if args.seconds < 1:
        parser.error("--seconds must be 1 or more")
    outcomes = []
    for target in targets:
        print(f"fuzzing {target} for {args.seconds} s ...", flush=True)
        outcomes.append(run_target(target, args.seconds, args.work, args.libfuzzer))
    print()
    print(table(outcomes))
    found = [(o.target, what, path) for o in outcomes for what, path in o.findings]
    if found:
        print("\nfindings (reproduce with: .venv/bin/python fuzz/<target>.py <input>):")
        for target, what, path in found:
            print(f"  {target}: {what}\n    input: {path}")
    for o in outcomes:
        if o.error:
            print(f"\n{o.target}: {o.error}", file=sys.stderr)
    if any(o.error for o in outcomes):
        return 2
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
