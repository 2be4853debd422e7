"""Timing helpers shared by the benchmarks: calibrated loops, medians, paired ratios.

How a measurement is made (see README.md):

- every contender is a *loop*: a callable that makes ``number`` calls and returns the elapsed
  time in nanoseconds (``time.perf_counter_ns``), with the garbage collector off, as ``timeit``
  does;
- each loop is calibrated once (this also warms caches) so that one run takes about
  ``loop_ms`` milliseconds;
- the contenders of one comparison are then run side by side, ``repeats`` rounds, each round
  running every contender once (the order rotates from round to round), so that a noisy
  neighbour slows every contender alike;
- a per-call time is the MEDIAN over the rounds; a ratio is the median over the rounds of the
  per-round ratio (paired), not a ratio of two unrelated numbers.
"""

from __future__ import annotations

import gc
import statistics
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_REPEATS = 7
DEFAULT_LOOP_MS = 75.0
# A timing whose runs differ by more than this (max - min, over the median) is marked NOISY.
NOISY_SPREAD = 0.25

Loop = Callable[[int], int]


@dataclass(frozen=True)
class Contender:
    """One thing to time: ``loop(number)`` makes ``number`` calls and returns elapsed ns."""

    label: str
    loop: Loop


@dataclass(frozen=True)
class Timing:
    """The per-call times of one contender, one sample per round."""

    label: str
    number: int  # calls per round
    samples: tuple[float, ...]  # ns per call, one per round

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        """(max - min) / median: how noisy the rounds were (0.05 = 5 %)."""
        return (max(self.samples) - min(self.samples)) / self.median

    def line(self) -> str:
        noisy = "  NOISY" if self.spread > NOISY_SPREAD else ""
        return (
            f"  {self.label:<56} {fmt_ns(self.median):>10}/call"
            f"  spread {self.spread * 100:5.1f}%  ({self.number:,} calls x "
            f"{len(self.samples)} runs){noisy}"
        )


@dataclass(frozen=True)
class Result:
    """A ratio ``anchor / ours`` (how many times faster ours is) and its target, if any."""

    benchmark: str
    claim: str
    ours: Timing
    anchor: Timing
    ratio: float
    target: float | None = None  # None: reported for information, no target
    note: str = ""

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.ratio >= self.target

    @property
    def status(self) -> str:
        met = self.met
        return "info" if met is None else ("OK" if met else "MISSED")

    def describe(self) -> str:
        """The ratio in words (a result that is not a speed says it its own way)."""
        return describe_ratio(self.ratio)

    def line(self) -> str:
        target = "no target" if self.target is None else f"target >= {fmt_ratio(self.target)}"
        text = f"{self.claim}: {self.describe()} ({target}) {self.status}"
        return f"{text}; {self.note}" if self.note else text


def statement(label: str, stmt: str, namespace: dict[str, Any]) -> Contender:
    """A contender timing ``stmt`` with ``timeit`` (the statement is inlined in the loop, so
    the only overhead is the loop itself, the same for every contender)."""
    timer = timeit.Timer(stmt, globals=namespace, timer=time.perf_counter_ns)
    return Contender(label, timer.timeit)


def each_fresh(label: str, prepare: Callable[[], Any], call: Callable[[Any], object]) -> Contender:
    """A contender timing ``call(x)`` where every call gets a new ``x = prepare()``; the
    preparation is made before the clock starts and is not timed."""

    def loop(number: int) -> int:
        inputs = [prepare() for _ in range(number)]
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter_ns()
            for item in inputs:
                call(item)
            return time.perf_counter_ns() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    return Contender(label, loop)


def calibrate(loop: Loop, loop_ms: float = DEFAULT_LOOP_MS) -> int:
    """How many calls make one run of ``loop`` last about ``loop_ms`` (``autorange``-style:
    grow the count until a run takes a fifth of the target, then scale)."""
    target_ns = loop_ms * 1e6
    number = 1
    while True:
        elapsed = max(loop(number), 1)
        if elapsed >= target_ns / 5:
            return max(1, round(number * target_ns / elapsed))
        number = max(number * 2, int(number * (target_ns / 5) / elapsed * 1.2))


def side_by_side(
    contenders: Sequence[Contender],
    repeats: int = DEFAULT_REPEATS,
    loop_ms: float = DEFAULT_LOOP_MS,
    *,
    same_number: bool = False,
) -> dict[str, Timing]:
    """Time every contender ``repeats`` times, interleaved; keyed by label. ``same_number``:
    every contender makes as many calls per run as the one calibrated to make the most (for
    contenders expected to take about as long per call, so that each round's pair is alike:
    on loaded cores two calibrations can differ several times over, and a run of one call
    then faces a run of four)."""
    numbers = {c.label: calibrate(c.loop, loop_ms) for c in contenders}
    if same_number:
        most = max(numbers.values())
        numbers = dict.fromkeys(numbers, most)
    samples: dict[str, list[float]] = {c.label: [] for c in contenders}
    for round_ in range(repeats):
        shift = round_ % len(contenders)
        for contender in [*contenders[shift:], *contenders[:shift]]:
            number = numbers[contender.label]
            samples[contender.label].append(contender.loop(number) / number)
    return {c.label: Timing(c.label, numbers[c.label], tuple(samples[c.label])) for c in contenders}


def paired_ratio(anchor: Timing, ours: Timing) -> float:
    """Median over the rounds of anchor/ours: > 1 means ours is faster."""
    return statistics.median(a / o for a, o in zip(anchor.samples, ours.samples, strict=True))


def fmt_ns(ns: float) -> str:
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.2f} us"
    return f"{ns / 1_000_000:.2f} ms"


def fmt_ratio(ratio: float) -> str:
    if ratio >= 100:
        return f"{ratio:.0f}x"
    if ratio >= 10:
        return f"{ratio:.1f}x"
    return f"{ratio:.2f}x"


def describe_ratio(ratio: float) -> str:
    """``1234x faster`` or ``0.80x, i.e. 1.25x slower``."""
    if ratio >= 1:
        return f"{fmt_ratio(ratio)} faster"
    return f"{fmt_ratio(ratio)}, i.e. {fmt_ratio(1 / ratio)} slower"


@dataclass
class Report:
    """What one benchmark prints as it goes, and the results it hands to ``run.py``."""

    title: str
    results: list[Result] = field(default_factory=list)

    def header(self) -> None:
        print(f"\n== {self.title} ==", flush=True)

    def timings(self, timings: dict[str, Timing]) -> None:
        for timing in timings.values():
            print(timing.line())
        print(flush=True)

    def add(self, result: Result) -> None:
        self.results.append(result)
        print(f"  {result.line()}", flush=True)
