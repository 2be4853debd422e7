from __future__ import annotations

import os
import secrets
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# `HYPOTHESIS_PROFILE=thorough make pytest` digs deeper than the everyday run.
settings.register_profile(
    "default", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

DATA = Path(__file__).parent / "data"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def anyio_backend() -> str:
    # The SDK and our client run on asyncio; one backend keeps the suite's time down.
    return "asyncio"


@pytest.fixture
def sentinel() -> str:
    """A secret to search for afterwards: it must appear nowhere it should not."""
    return f"sk-SENTINEL-{uuid.uuid4().hex}"


@pytest.fixture
def key() -> str:
    """A deployment key (``MCP_ELICIT_KEY``) shared by every server process of one test."""
    return secrets.token_urlsafe(32)
