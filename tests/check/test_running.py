"""A check run ends, whatever the peer does: a ``tools/list`` that never stops paginating is
cut off after :data:`~mcp_elicit.check.probe.MAX_PAGES` pages, and the whole run ends at its
deadline (``--timeout``) with exit 1, naming the check that was running."""

from __future__ import annotations

import sys
import time

import pytest

from mcp_elicit.cli import main

SLACK = 10.0
"""Seconds past the deadline a run may take to end: closing what it opened (a stdio server is
given 2 s to leave) on a busy machine."""
DEADLINE = "the run's deadline was reached ({timeout} s, --timeout) while this check was running"


def timed(argv: list[str]) -> tuple[int, float]:
    started = time.monotonic()
    status = main(argv)
    return status, time.monotonic() - started


@pytest.mark.slow
def test_a_list_that_never_ends_is_cut_off(
    rule_breakers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", "server", "--timeout", "30", "--protocol", "2025-11-25"]
    status, took = timed([*argv, f"{rule_breakers}endless/mcp"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert took < 30, f"{took:.1f} s: the pages were not cut off, the deadline ended the run"
    said = "could not list tools: EndlessList: tools/list still paginating after 100 pages"
    assert f"✗ server-url-request-shape [2025-11-25] failed: {said}" in out
    assert "deadline" not in out


@pytest.mark.slow
@pytest.mark.parametrize("over", ["http", "stdio"])
def test_a_server_that_never_answers_ends_the_run_at_its_deadline(
    rule_breakers: str, over: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = (
        [f"{rule_breakers}silent/mcp"]
        if over == "http"
        else ["--", sys.executable, "-c", "import time; time.sleep(600)"]
    )
    status, took = timed(["check", "server", "--timeout", "2", *target])
    out = capsys.readouterr().out
    assert status == 1, out
    assert took < 2 + SLACK, f"{took:.1f} s"
    assert "✗ server-url-request-shape [url-draft] failed: " + DEADLINE.format(timeout=2) in out
    assert "check(s) not run" in out
    assert out.rstrip().endswith("Passed: 0/1, 1 failed")


@pytest.mark.slow
def test_a_client_that_never_calls_ends_the_run_at_its_deadline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = [sys.executable, "-c", "import time; time.sleep(600)"]
    status, took = timed(["check", "client", "--timeout", "2", "--", *client])
    out = capsys.readouterr().out
    assert status == 1, out
    assert took < 2 + SLACK, f"{took:.1f} s"
    assert "✗ client-answers-declared-modes [-] failed: " + DEADLINE.format(timeout=2) in out
