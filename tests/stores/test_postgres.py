"""The PostgreSQL engine: the whole store contract on a real PostgreSQL (``DATABASE_URL``, by
default the machine's own on 127.0.0.1), each test in a schema of its own; then what only
PostgreSQL has to show: the schema and its version, atomicity under concurrent callers, the
finish feed, errors that name what is wrong."""

from __future__ import annotations

import builtins
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_elicit.stores import FinishFeed, SealedSecret, StoreError, TooManyFlows, open_store
from mcp_elicit.stores.postgres import SCHEMA_VERSION, PostgresStore
from tests import markers
from tests.peers import missing
from tests.store_contract import NOW, StoreContract, flow, store_fixture

pytestmark = [pytest.mark.anyio, pytest.mark.services]

DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


async def drop(schema: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(DATABASE_URL.split("?")[0])
    try:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await connection.close()


@asynccontextmanager
async def postgres_store(
    tmp_path: Path | None = None, *, schema: str | None = None
) -> AsyncIterator[PostgresStore]:
    """An empty store in a schema of its own, dropped afterwards."""
    markers.require("services")
    schema = schema or f"t_{uuid.uuid4().hex}"
    store = open_store(f"{DATABASE_URL}?schema={schema}")
    assert isinstance(store, PostgresStore)
    try:
        await store.get_flow("ping")
    except StoreError as error:
        await store.aclose()
        missing(f"PostgreSQL at {DATABASE_URL} ({error}); start it: see README")
    try:
        yield store
    finally:
        await store.aclose()
        await drop(schema)


store = store_fixture({"postgresql": postgres_store})


class TestPostgresContract(StoreContract):
    """The contract, unchanged, on PostgreSQL."""


# -- what only PostgreSQL has to show ---------------------------------------------------------


async def test_two_schemas_are_two_stores_and_one_schema_is_shared() -> None:
    async with postgres_store() as one, postgres_store() as other:
        await one.create_flow(flow())
        assert await other.get_flow("flow-1") is None
        again = open_store(f"{DATABASE_URL}?schema={one.schema}")  # another instance
        try:
            assert await again.get_flow("flow-1") == await one.get_flow("flow-1")
        finally:
            await again.aclose()


async def test_a_newer_schema_is_refused_and_an_older_one_migrated() -> None:
    import asyncpg

    async with postgres_store() as store:
        await store.get_flow("x")  # created
        connection = await asyncpg.connect(DATABASE_URL)
        try:
            await connection.execute(
                f'UPDATE "{store.schema}".schema_version SET version = $1', SCHEMA_VERSION + 1
            )
        finally:
            await connection.close()
        newer = open_store(f"{DATABASE_URL}?schema={store.schema}")
        try:
            with pytest.raises(StoreError, match="newer than this mcp-elicit knows"):
                await newer.get_flow("x")
        finally:
            await newer.aclose()


async def test_twenty_creates_at_once_with_a_limit_of_five_store_five() -> None:
    async with postgres_store() as store:
        refused: list[int] = []

        async def create(n: int) -> None:
            try:
                await store.create_flow(flow(f"f{n}"), limit=5)
            except TooManyFlows:
                refused.append(n)

        async with anyio.create_task_group() as tasks:
            for n in range(20):
                tasks.start_soon(create, n)
        stored = [n for n in range(20) if await store.get_flow(f"f{n}") is not None]
        assert len(stored) == 5 and len(refused) == 15


async def test_ten_completions_at_once_exactly_one_wins() -> None:
    async with postgres_store() as store:
        await store.create_flow(flow())
        won: list[int] = []

        async def complete(n: int) -> None:
            secret = SealedSecret("user-1", "api_key", f"v{n}".encode(), NOW, "")
            done = await store.complete_flow(
                "flow-1", now=NOW + 1, result=b"r%d" % n, secret=secret
            )
            if done is not None:
                won.append(n)

        async with anyio.create_task_group() as tasks:
            for n in range(10):
                tasks.start_soon(complete, n)
        [winner] = won
        assert await store.flow_result("flow-1") == b"r%d" % winner
        kept = await store.get_secret("user-1", "api_key", server="")
        assert kept is not None and kept.sealed == f"v{winner}".encode()


async def test_the_finish_feed_carries_ids_to_every_listener() -> None:
    async with postgres_store() as one:
        assert isinstance(one, FinishFeed)
        other = open_store(f"{DATABASE_URL}?schema={one.schema}")
        assert isinstance(other, PostgresStore)
        heard: list[str] = []
        try:
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:

                    async def listen() -> None:
                        async for flow_id in other.finished_flows():
                            heard.append(flow_id)
                            return

                    tasks.start_soon(listen)
                    while not heard:
                        await one.announce_finished("flow-9")
                        await anyio.sleep(0.05)
        finally:
            await other.aclose()
        assert heard == ["flow-9"]


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://", "not a PostgreSQL URL"),
        ("postgresql://h:notaport/db", "not a PostgreSQL URL"),
        ("postgresql://h/db?schma=a", "unknown PostgreSQL store option 'schma'"),
        ("postgresql://h/db?schema=Robert';drop", "schema must be lower-case"),
    ],
)
def test_a_bad_url_names_what_is_wrong(url: str, said: str) -> None:
    with pytest.raises(StoreError, match=said):
        open_store(url)


def test_the_password_is_never_shown() -> None:
    store = open_store("postgresql://app:hunter2@127.0.0.1/db")
    assert "hunter2" not in store.url and "hunter2" not in repr(store)


def test_without_asyncpg_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_asyncpg(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "asyncpg" or name.startswith("asyncpg."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_asyncpg)
    with pytest.raises(StoreError, match=r"pip install 'mcp-elicit\[postgres\]'"):
        open_store("postgresql://127.0.0.1/db")


async def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    store = open_store("postgresql://app:hunter2@127.0.0.1:1/db")
    try:
        with pytest.raises(StoreError, match=r"PostgreSQL at postgresql://app:\*\*\*@") as raised:
            await store.get_flow("x")
        assert "hunter2" not in str(raised.value)
    finally:
        await store.aclose()
    with pytest.raises(StoreError, match="closed"):
        await store.get_flow("x")
