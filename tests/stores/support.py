"""PostgreSQL as the tests see it from outside a store: a plain connection to look at (or tamper
with) what a store made, and dropping a test's schema afterwards (tests/stores/test_postgres.py,
tests/server/instances_support.py)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from tests import markers
from tests.peers import missing

DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


@asynccontextmanager
async def admin(url: str = DATABASE_URL) -> AsyncIterator[Any]:
    """A plain asyncpg connection, to look at (or tamper with) what a store made."""
    markers.require("services")
    import asyncpg

    try:
        connection = await asyncpg.connect(url.split("?")[0])
    except (OSError, asyncpg.PostgresError) as error:
        missing(f"PostgreSQL at {url} ({error}); start it: see README")
    try:
        yield connection
    finally:
        await connection.close()


async def drop(schema: str) -> None:
    async with admin() as connection:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
