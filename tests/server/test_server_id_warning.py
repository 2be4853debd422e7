"""Issue 30, finding 17: two servers of one name started by one launcher share the default
server id, and so, on one store, each other's secrets. That stays the default (one server run
from one path is right as it is), but a server that meets a store servers share (Redis,
PostgreSQL) with no ``server_id`` says so at start-up."""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer

from mcp_elicit.server import DeploymentKey, Elicitation
from tests import markers

pytestmark = pytest.mark.anyio

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


async def started(elicitation: Elicitation, caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the server said at start-up about its id."""
    # Named, as run() names it: the default id holds the server's name.
    elicitation.install(MCPServer("weather", **elicitation.server_options()))
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.server.runtime"):
        async with elicitation.running():
            pass
    return [r.getMessage() for r in caplog.records if "server_id" in r.getMessage()]


@pytest.mark.services
async def test_a_shared_store_and_a_defaulted_id_are_said_at_start_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    markers.require("services")
    store = f"{REDIS_URL}?prefix=test-{uuid.uuid4().hex}:"
    said = await started(Elicitation(key=DeploymentKey.generate(), store=store), caplog)
    assert len(said) == 1
    assert "weather" in said[0] and "Elicitation(server_id=...)" in said[0]


@pytest.mark.services
async def test_a_server_id_given_is_not_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    markers.require("services")
    store = f"{REDIS_URL}?prefix=test-{uuid.uuid4().hex}:"
    elicitation = Elicitation(key=DeploymentKey.generate(), store=store, server_id="weather")
    assert await started(elicitation, caplog) == []


async def test_a_store_of_ones_own_is_not_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = f"sqlite:///{tmp_path / 'flows.db'}"
    assert await started(Elicitation(key=DeploymentKey.generate(), store=store), caplog) == []
