"""The PostgreSQL engine: the whole store contract on a real PostgreSQL (``DATABASE_URL``, by
default the machine's own on 127.0.0.1), each test in a schema of its own; then what only
PostgreSQL has to show: the schema and its version, atomicity under concurrent callers, the
finish feed, errors that name what is wrong."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from mcp_elicit.stores import StoreError, open_store
from mcp_elicit.stores.postgres import SCHEMA_VERSION, PostgresStore
from tests import markers
from tests.peers import missing
from tests.store_contract import FeedContract, StoreContract, flow, store_fixture

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


class TestPostgresContract(StoreContract, FeedContract):
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


async def test_a_schema_newer_than_the_code_is_refused() -> None:
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
