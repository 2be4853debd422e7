"""The markers that say what a test needs beyond Python, and the checks that keep them honest.

- ``browser``: a real Chromium (Playwright); ``tmux``: a command in a tmux pane;
  ``node``: a Node peer (Node 22, server-everything, the conformance suite, the TypeScript
  SDK); ``services``: Redis or PostgreSQL; ``slow``: it starts a process of its own, or runs
  for seconds.
- ``make test`` runs everything; ``make test-fast`` runs the tests with none of these marks.

A marker that is missing would put a heavy test into the fast run unnoticed, so the helpers
that start such things (``chromium()``, ``Pane``, ``node22()``, any subprocess) call
:func:`require`, and the test fails at once, naming the marker it lacks.
"""

from __future__ import annotations

import pytest

HEAVY = ("browser", "tmux", "node", "services", "slow")
DESCRIPTIONS = {
    "browser": "drives a real headless Chromium through Playwright",
    "tmux": "runs a command in a tmux pane and reads its screen",
    "node": "talks to a Node peer (Node 22 from peers/)",
    "services": "needs Redis or PostgreSQL (REDIS_URL, DATABASE_URL)",
    "slow": "starts a process of its own, or takes seconds",
}

current: frozenset[str] = frozenset()
"""The markers of the test that is running (set by an autouse fixture in conftest)."""


def require(*any_of: str) -> None:
    """Fail the running test unless it carries one of ``any_of``."""
    if not current.intersection(any_of):
        names = " or ".join(f"@pytest.mark.{m}" for m in any_of)
        pytest.fail(
            f"this test needs {names}: it {DESCRIPTIONS[any_of[0]]} (see tests/markers.py)",
            pytrace=False,
        )
