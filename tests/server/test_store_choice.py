"""Which store a server keeps its flows and secrets in: ``store=``, else ``MCP_ELICIT_STORE``,
else SQLite in the state directory (docs/deploy.md, "Choosing the store"); said once in the
log, without a password. A newcomer's three instances silently kept a SQLite file each when
the variable was ignored."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from mcp_elicit.server import Elicitation
from mcp_elicit.stores import MemoryStore, SQLiteStore

pytestmark = pytest.mark.anyio

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


async def test_the_variable_chooses_the_store_when_none_is_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MCP_ELICIT_STORE", "memory://")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert isinstance(Elicitation().store, MemoryStore)
    given = Elicitation(store=f"sqlite:///{tmp_path / 'given.db'}")
    assert isinstance(given.store, SQLiteStore)  # store= wins
    await given.store.aclose()
    monkeypatch.setenv("MCP_ELICIT_STORE", "")  # empty: as if unset
    default = Elicitation()
    assert isinstance(default.store, SQLiteStore)
    await default.store.aclose()


async def test_the_variable_refuses_a_bad_url_by_its_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ELICIT_STORE", "mysql://db/flows")
    with pytest.raises(Exception, match="unknown store scheme 'mysql'"):
        Elicitation().store  # noqa: B018


@pytest.mark.services
async def test_the_store_in_use_is_logged_without_its_password(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    host = REDIS_URL.split("://", 1)[1]
    monkeypatch.setenv("MCP_ELICIT_STORE", f"redis://:hunter2@{host}?prefix=choice-test:")
    caplog.set_level(logging.INFO, logger="mcp_elicit.server.runtime")
    elicitation = Elicitation()
    store = elicitation.store
    said = [r.getMessage() for r in caplog.records if "flows and secrets" in r.getMessage()]
    assert len(said) == 1 and "redis://" in said[0] and "***" in said[0], said
    assert "hunter2" not in caplog.text
    await store.aclose()
