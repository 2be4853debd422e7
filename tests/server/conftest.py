"""Fixtures of the server tests that several modules share."""

from __future__ import annotations

import pytest

ENGINES = ("redis", "postgresql")
"""The store engines several server instances share (tests/server/test_instances.py,
tests/server/test_load_balancer.py)."""


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The shared store's engine: each test runs once per engine."""
    return str(request.param)
