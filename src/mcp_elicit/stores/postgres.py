"""The PostgreSQL engine (``postgresql://user@host:port/db?schema=...``), for several server
instances sharing flows and secrets; with a :class:`~mcp_elicit.stores.FinishFeed` through
LISTEN/NOTIFY.

The driver is asyncpg. Measured (``bench/bench_network_stores.py``, one connection each, the
store's own statements on a loopback server): asyncpg and psycopg 3 are equally fast (a
lookup about 63 and 65 us), so speed did not decide; asyncpg has the pool and LISTEN in one
package (psycopg needs psycopg-pool too) and returns floats exactly. What did matter: the
pool's default reset on every release costs a round trip (a lookup 154 us instead of 106 us),
and this store keeps no session state to reset (its advisory locks end with their
transaction; LISTEN has a connection of its own), so the pool does not reset.

Schema (in its own PostgreSQL schema, ``mcp_elicit`` unless ``?schema=`` says otherwise, so
that an operator can keep it apart or run several deployments in one database):

- ``flows``: one row per flow; ``details`` as JSON *text* (jsonb cannot hold ``\\u0000``
  and would reorder keys), ``result`` as ``bytea``; times as ``double precision`` (exact).
  Partial indexes for what the contract asks often: an owner's live flows, live flows by
  expiry, finished flows by their last change.
- ``secrets``: sealed bytes keyed by (server, user, name).
- ``schema_version``: one row. Created on first use and migrated forward in one transaction
  under an advisory lock, so several instances starting at once agree; a database whose
  version is newer than this code is refused, not downgraded.

Atomicity: ``create_flow(limit=)`` takes a transaction-scoped advisory lock on its owner,
then counts and inserts; every status change is one ``UPDATE ... WHERE <expected> RETURNING``;
``complete_flow`` writes the status, the result and the secret in one transaction.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Collection
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlunsplit

import anyio

from mcp_elicit.stores.contract import FlowExists, StoreError, TooManyFlows
from mcp_elicit.stores.credentials import read_server_url, without_password
from mcp_elicit.stores.memory import copy_details
from mcp_elicit.stores.records import LIVE, FlowRecord, FlowStatus, SealedSecret

if TYPE_CHECKING:
    import asyncpg

SCHEMA_VERSION: Final = 1
DEFAULT_SCHEMA: Final = "mcp_elicit"
_OPTIONS: Final = frozenset({"schema"})
_IDENTIFIER: Final = re.compile(r"[a-z_][a-z0-9_]{0,40}")
_LIVE: Final = [s.value for s in LIVE]
_FINISHED: Final = [s.value for s in FlowStatus if s.finished]
_COLUMNS: Final = "id, server, owner, purpose, status, created_at, updated_at, expires_at, details"

# Migrations, by the version they lead to; {s} is the quoted schema.
_MIGRATIONS: Final = {
    1: """
CREATE TABLE {s}.flows (
    id text PRIMARY KEY,
    server text NOT NULL,
    owner text NOT NULL,
    purpose text NOT NULL,
    status text NOT NULL,
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    expires_at double precision NOT NULL,
    details text NOT NULL,
    result bytea
);
CREATE INDEX flows_live_by_owner ON {s}.flows (server, owner, expires_at)
    WHERE status IN ('pending', 'opened');
CREATE INDEX flows_live_by_expiry ON {s}.flows (expires_at)
    WHERE status IN ('pending', 'opened');
CREATE INDEX flows_finished_by_change ON {s}.flows (updated_at)
    WHERE status IN ('completed', 'declined', 'expired');
CREATE TABLE {s}.secrets (
    server text NOT NULL,
    owner text NOT NULL,
    name text NOT NULL,
    sealed bytea NOT NULL,
    created_at double precision NOT NULL,
    PRIMARY KEY (server, owner, name)
);
""",
}


class PostgresStore:
    """Flows and sealed secrets in PostgreSQL; see the module docstring for the schema."""

    def __init__(self, dsn: str, *, url: str, schema: str = DEFAULT_SCHEMA) -> None:
        self._dsn = dsn
        self.url = url
        self.schema = schema
        self._s = f'"{schema}"'
        self._pool: asyncpg.Pool | None = None
        self._opening = anyio.Lock()
        self._closed = False

    @classmethod
    def from_url(cls, url: str) -> PostgresStore:
        """Open ``postgresql://[user[:password]@]host[:port]/database[?schema=NAME]`` (or
        ``postgres://``). Connects, and creates or migrates the schema, on first use. Raises
        :class:`StoreError` for a bad URL, an unknown option, or when asyncpg is not
        installed (``pip install 'mcp-elicit[postgres]'``)."""
        parts, options = read_server_url(
            url,
            engine="PostgreSQL",
            schemes=("postgresql", "postgres"),
            form="postgresql://host/database",
            options=_OPTIONS,
        )
        schema = options.get("schema", DEFAULT_SCHEMA)
        if not _IDENTIFIER.fullmatch(schema):
            raise StoreError(
                f"schema must be lower-case letters, digits and _ (at most 41): {schema!r}"
            )
        try:
            import asyncpg  # noqa: F401 - only to say early that it is missing
        except ImportError:
            raise StoreError(
                "the PostgreSQL store needs asyncpg: pip install 'mcp-elicit[postgres]'"
            ) from None
        dsn = urlunsplit(parts._replace(scheme="postgresql", query=""))
        return cls(dsn, url=without_password(url), schema=schema)

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r})"

    # -- the contract -----------------------------------------------------------------------

    async def create_flow(self, flow: FlowRecord, *, limit: int | None = None) -> None:
        details = json.dumps(copy_details(flow.details), allow_nan=False, separators=(",", ":"))
        import asyncpg

        pool = await self._ready()
        try:
            async with pool.acquire() as connection, connection.transaction():
                if limit is not None:
                    await connection.execute(
                        "SELECT pg_advisory_xact_lock($1)", _lock_id(flow.server, flow.user)
                    )
                    live = await connection.fetchval(
                        f"SELECT count(*) FROM {self._s}.flows WHERE server = $1 AND owner = $2"
                        " AND status = ANY($3) AND expires_at > $4",
                        flow.server,
                        flow.user,
                        _LIVE,
                        flow.created_at,
                    )
                    if live >= limit:
                        raise TooManyFlows(limit)
                await connection.execute(
                    f"INSERT INTO {self._s}.flows ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6,"
                    " $7, $8, $9)",
                    flow.id,
                    flow.server,
                    flow.user,
                    flow.purpose,
                    FlowStatus(flow.status).value,
                    flow.created_at,
                    flow.updated_at,
                    flow.expires_at,
                    details,
                )
        except asyncpg.UniqueViolationError:
            raise FlowExists(f"flow {flow.id!r} already exists") from None
        except (asyncpg.PostgresError, OSError) as error:
            raise self._failed(error) from error

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        row = await self._fetchrow(f"SELECT {_COLUMNS} FROM {self._s}.flows WHERE id = $1", flow_id)
        return _record(row) if row is not None else None

    async def set_flow_status(
        self,
        flow_id: str,
        status: FlowStatus,
        *,
        expected: Collection[FlowStatus],
        now: float,
    ) -> FlowRecord | None:
        row = await self._fetchrow(
            f"UPDATE {self._s}.flows SET status = $2, updated_at = $3 WHERE id = $1"
            f" AND status = ANY($4) AND expires_at > $3 RETURNING {_COLUMNS}",
            flow_id,
            FlowStatus(status).value,
            now,
            [FlowStatus(s).value for s in expected],
        )
        return _record(row) if row is not None else None

    async def complete_flow(
        self,
        flow_id: str,
        *,
        now: float,
        result: bytes | None = None,
        secret: SealedSecret | None = None,
    ) -> FlowRecord | None:
        import asyncpg

        pool = await self._ready()
        try:
            async with pool.acquire() as connection, connection.transaction():
                row = await connection.fetchrow(
                    f"UPDATE {self._s}.flows SET status = 'completed', updated_at = $2,"
                    " result = $3 WHERE id = $1 AND status = ANY($4) AND expires_at > $2"
                    f" RETURNING {_COLUMNS}",
                    flow_id,
                    now,
                    None if result is None else bytes(result),
                    _LIVE,
                )
                if row is None:
                    return None
                if secret is not None:
                    await self._upsert(connection, secret)
        except (asyncpg.PostgresError, OSError) as error:
            raise self._failed(error) from error
        return _record(row)

    async def flow_result(self, flow_id: str) -> bytes | None:
        row = await self._fetchrow(f"SELECT result FROM {self._s}.flows WHERE id = $1", flow_id)
        return None if row is None or row["result"] is None else bytes(row["result"])

    async def expire_flows(self, now: float) -> int:
        done = await self._execute(
            f"UPDATE {self._s}.flows SET status = 'expired', updated_at = $1"
            " WHERE status = ANY($2) AND expires_at <= $1",
            now,
            _LIVE,
        )
        return _count(done)

    async def purge_flows(self, before: float) -> int:
        done = await self._execute(
            f"DELETE FROM {self._s}.flows WHERE status = ANY($2) AND updated_at < $1",
            before,
            _FINISHED,
        )
        return _count(done)

    async def put_secret(self, secret: SealedSecret) -> None:
        import asyncpg

        pool = await self._ready()
        try:
            async with pool.acquire() as connection:
                await self._upsert(connection, secret)
        except (asyncpg.PostgresError, OSError) as error:
            raise self._failed(error) from error

    async def get_secret(self, user: str, name: str, *, server: str) -> SealedSecret | None:
        row = await self._fetchrow(
            f"SELECT sealed, created_at FROM {self._s}.secrets"
            " WHERE server = $1 AND owner = $2 AND name = $3",
            server,
            user,
            name,
        )
        if row is None:
            return None
        return SealedSecret(user, name, bytes(row["sealed"]), row["created_at"], server)

    async def delete_secret(self, user: str, name: str, *, server: str) -> bool:
        done = await self._execute(
            f"DELETE FROM {self._s}.secrets WHERE server = $1 AND owner = $2 AND name = $3",
            server,
            user,
            name,
        )
        return _count(done) > 0

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._pool is not None:
            await self._pool.close()

    # -- FinishFeed -------------------------------------------------------------------------

    @property
    def channel(self) -> str:
        return f"{self.schema}_finished"

    async def announce_finished(self, flow_id: str) -> None:
        await self._execute("SELECT pg_notify($1, $2)", self.channel, flow_id)

    async def finished_flows(self) -> AsyncIterator[str]:
        """One connection of its own, LISTENing; a lost connection ends it with
        :class:`StoreError`."""
        import asyncpg

        self._check_open()
        send, receive = anyio.create_memory_object_stream[str | BaseException](1000)

        def heard(_connection: Any, _pid: int, _channel: str, payload: str) -> None:
            send.send_nowait(payload)

        def lost(_connection: Any) -> None:
            send.send_nowait(StoreError(f"PostgreSQL at {self.url}: the connection was lost"))

        try:
            connection = await asyncpg.connect(self._dsn)
        except (asyncpg.PostgresError, OSError) as error:
            raise self._failed(error) from error
        try:
            connection.add_termination_listener(lost)
            await connection.add_listener(self.channel, heard)
            async for item in receive:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            with anyio.CancelScope(shield=True):
                if not connection.is_closed():
                    await connection.close()

    # -- connections and the schema -----------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"store {self.url} is closed")

    def _failed(self, error: BaseException) -> StoreError:
        return StoreError(f"PostgreSQL at {self.url}: {type(error).__name__}: {error}")

    async def _ready(self) -> asyncpg.Pool:
        self._check_open()
        if self._pool is not None:
            return self._pool
        import asyncpg

        async with self._opening:
            if self._pool is None:
                try:
                    pool = await asyncpg.create_pool(
                        self._dsn, min_size=1, max_size=10, reset=_no_reset
                    )
                except (asyncpg.PostgresError, OSError) as error:
                    raise self._failed(error) from error
                try:
                    async with pool.acquire() as connection:
                        await self._migrate(connection)
                except (asyncpg.PostgresError, OSError) as error:
                    await pool.close()
                    raise self._failed(error) from error
                except BaseException:
                    await pool.close()
                    raise
                self._pool = pool
        return self._pool

    async def _migrate(self, connection: asyncpg.Connection) -> None:
        async with connection.transaction():
            # One instance at a time creates or migrates; the others then find it done.
            await connection.execute("SELECT pg_advisory_xact_lock($1)", _lock_id("schema", ""))
            await connection.execute(f"CREATE SCHEMA IF NOT EXISTS {self._s}")
            await connection.execute(
                f"CREATE TABLE IF NOT EXISTS {self._s}.schema_version (version integer NOT NULL)"
            )
            version = await connection.fetchval(f"SELECT version FROM {self._s}.schema_version")
            if version is None:
                await connection.execute(f"INSERT INTO {self._s}.schema_version VALUES (0)")
                version = 0
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the schema {self.schema!r} at {self.url} is version {version}, newer than "
                    f"this mcp-elicit knows ({SCHEMA_VERSION}): upgrade mcp-elicit"
                )
            for target in range(version + 1, SCHEMA_VERSION + 1):
                await connection.execute(_MIGRATIONS[target].format(s=self._s))
                await connection.execute(
                    f"UPDATE {self._s}.schema_version SET version = $1", target
                )

    async def _upsert(self, connection: asyncpg.Connection, secret: SealedSecret) -> None:
        await connection.execute(
            f"INSERT INTO {self._s}.secrets (server, owner, name, sealed, created_at)"
            " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (server, owner, name)"
            " DO UPDATE SET sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at",
            secret.server,
            secret.user,
            secret.name,
            bytes(secret.sealed),
            secret.created_at,
        )

    async def _fetchrow(self, query: str, *args: Any) -> Any:
        import asyncpg

        pool = await self._ready()
        try:
            return await pool.fetchrow(query, *args)
        except (asyncpg.PostgresError, OSError) as error:
            raise self._failed(error) from error

    async def _execute(self, query: str, *args: Any) -> str:
        import asyncpg

        pool = await self._ready()
        try:
            return str(await pool.execute(query, *args))
        except (asyncpg.PostgresError, OSError) as error:
            raise self._failed(error) from error


async def _no_reset(connection: asyncpg.Connection) -> None:
    """No ``RESET ALL`` and friends on release: nothing here leaves session state (see the
    module docstring), and the reset is a round trip per operation."""


def _lock_id(server: str, user: str) -> int:
    """A signed 64-bit advisory lock key for an owner."""
    digest = hashlib.sha256(f"mcp-elicit\0{server}\0{user}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _count(status: str) -> int:
    """The row count of a command tag (``UPDATE 3``, ``DELETE 0``)."""
    return int(status.rsplit(" ", 1)[-1])


def _record(row: Any) -> FlowRecord:
    return FlowRecord(
        id=row["id"],
        user=row["owner"],
        purpose=row["purpose"],
        status=FlowStatus(row["status"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        expires_at=row["expires_at"],
        details=json.loads(row["details"]),
        server=row["server"],
    )
