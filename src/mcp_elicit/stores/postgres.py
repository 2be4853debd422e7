"""The PostgreSQL engine (``postgresql://user@host:port/db?schema=...&table_prefix=...``), for
several server instances sharing flows and secrets; with a
:class:`~mcp_elicit.stores.FinishFeed` through LISTEN/NOTIFY.

The driver is asyncpg, chosen by measuring (``bench/bench_postgres_drivers.py``: the store's
statements sent by raw asyncpg and raw psycopg 3, async, each through its own pool of 10;
PostgreSQL 15 on loopback, 2 cores, medians of 7 runs; ratio = psycopg time / asyncpg time,
paired per run)::

    pooled statement                    asyncpg   psycopg 3   ratio, run 1 / run 2
    insert a flow                       241 us    256 us      1.06 / 1.04  (noise)
    create with a limit (transaction)   440 us    446 us      1.02 / 1.02  (noise)
    compare-and-set UPDATE RETURNING    257 us    331 us      1.30 / 1.24
    select by id                         97 us     97 us      1.06 / 1.13
    upsert a secret                     207 us    237 us      1.11 / 1.09
    10 lookups at once, per lookup       48 us     61 us      1.30 / 1.31
    geometric mean                                            1.137 / 1.133

(asyncpg 0.32, psycopg 3.3.9 with psycopg_pool 3.3.3; without psycopg_pool, on a bare queue
of connections: 1.183. On one connection each, no pool: asyncpg 1.10 to 1.40x faster on the
single statements, the limited create 0.99 to 1.36 across three runs.) asyncpg is never
slower, and clearly faster on the compare-and-set, the upsert and lookups at once: beyond the
±5 % that is noise on these cores, so asyncpg on speed (it would have been asyncpg for its
simpler async API had it been a tie). What mattered besides: asyncpg's pool resets each
connection on release by default, a round trip per operation; this store keeps no session
state to reset (its advisory locks end with their transaction, LISTEN has a connection of its
own, and asyncpg still rolls back a transaction left open), so its pool does not reset.

Where it keeps things: a PostgreSQL schema, ``mcp_elicit`` unless ``?schema=`` names another,
and table names starting with ``?table_prefix=`` (default none), so that an operator can keep
it apart or run several deployments in one database. Both are checked against a strict pattern
(lower-case letters, digits, ``_``) and double-quoted in every statement. In it:

- ``flows``: one row per flow, keyed by ``id``; ``server``, ``owner`` (the flow's user),
  ``purpose``, ``status`` (checked to be one of :class:`FlowStatus`); times as ``double
  precision``, so a float comes back exactly; ``details`` as JSON *text*, encoded as the SQLite
  engine does (NaN and Infinity refused): ``jsonb`` cannot hold ``\\u0000``, which JSON can,
  and would reorder keys; ``result``, the sealed bytes a completed flow kept, as ``bytea``.
  Partial indexes for what the contract asks often: an owner's live flows (the limit's count),
  live flows by expiry (``expire_flows``), finished flows by their last change
  (``purge_flows``). Their predicates are written as literals in the statements too, so that
  the planner can use them under a generic plan.
- ``secrets``: sealed bytes (``bytea``) and their time, keyed by (server, owner, name).
- ``ended_sessions``: the ids of browser sessions that were signed out, with the time until
  which they are kept (when they would have expired anyway), indexed by that time: every
  ``end_session`` first forgets those past.
- ``tasks``: one row per task record, keyed by ``id``: the index fields as columns
  (``terminal`` a boolean) and the sealed ``payload`` as ``bytea``. Partial indexes for the
  sweeper (live tasks by ``lease_until`` and by ``expires_at``: ``stale_tasks``) and the purge
  (terminal tasks by ``expires_at``), and the owner's tasks by ``(created_at, id)`` (the
  limit's count, ``tasks_of``'s pages).
- ``schema_version``: one row, the version of the tables. The first use of a store reads it
  (without a lock, and needing no right to create anything when it is current); when the tables
  are missing or older, it creates or migrates them in ONE transaction under an advisory lock of
  the schema, so that several instances starting at once agree (the others wait, then find it
  done). A version newer than this code is refused, never downgraded.

Atomicity, per method:

- ``create_flow(limit=)``: a transaction takes a transaction-scoped advisory lock of the owner
  (a hash of schema, prefix, server and user), then inserts only if the owner's live flows
  number fewer than ``limit`` (``INSERT ... SELECT ... WHERE (SELECT count(*) ...) < limit``).
  The count is a statement after the lock, so under READ COMMITTED it sees every flow committed
  by the holders before. Without a limit: one ``INSERT``. A taken id is the primary key's.
- ``set_flow_status``: one ``UPDATE ... WHERE id AND status = ANY(expected) AND expires_at >
  now RETURNING ...``; a racing UPDATE waits for the row and re-checks the condition, so one
  wins.
- ``complete_flow``: ONE statement (a single transaction): the compare-and-set ``UPDATE`` in a
  ``WITH``, and the secret's upsert selecting from it, so the secret is written only when the
  flow did complete, and a failure of either writes neither.
- ``expire_flows``, ``purge_flows``, ``put_secret`` (``ON CONFLICT DO UPDATE``),
  ``delete_secret``: one statement each.

- ``create_task(limit=)``: as ``create_flow``, under an advisory lock of the owner's tasks;
  ``replace_task``: one ``UPDATE ... WHERE id AND version = expected`` (a racing UPDATE
  waits for the row, then finds the version moved: one wins).

The task feed is NOTIFY on the finish feed's channel name followed by ``_tasks``.

Connections: one pool per store (up to :data:`POOL_SIZE`), opened on first use; ``aclose``
closes it. A connection the server dropped (a restart) is replaced when the pool hands it out
next, so after PostgreSQL comes back the next call works. Every driver or server failure is a
:class:`StoreError` naming the URL without its password.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast
from urllib.parse import urlsplit, urlunsplit

import anyio

from mcp_elicit.stores.contract import (
    FlowExists,
    StoreError,
    TaskExists,
    TooManyFlows,
    TooManyTasks,
)
from mcp_elicit.stores.credentials import read_server_url, without_password
from mcp_elicit.stores.memory import check_session_id, check_task_id
from mcp_elicit.stores.records import (
    LIVE,
    FlowRecord,
    FlowStatus,
    SealedSecret,
    TaskRecord,
    is_flow_id,
)

if TYPE_CHECKING:
    import asyncpg

SCHEMA_VERSION: Final = 4
DEFAULT_SCHEMA: Final = "mcp_elicit"
POOL_SIZE: Final = 10
"""Connections one store keeps at most."""
CONNECT_TIMEOUT_S: Final = 10.0
CLOSE_TIMEOUT_S: Final = 10.0
"""How long ``aclose`` waits for operations in flight before it cuts their connections."""
NEEDS_DRIVER: Final = (
    "the PostgreSQL store needs asyncpg, which is not installed: pip install 'mcp-elicit[postgres]'"
)

_OPTIONS: Final = frozenset({"schema", "table_prefix"})
# PostgreSQL names are at most 63 bytes: the schema's and the prefix's bounds leave room for
# the longest name made from them (the feed's channel is hashed when it would not fit).
_SCHEMA_NAME: Final = re.compile(r"[a-z_][a-z0-9_]{0,40}")
_TABLE_PREFIX: Final = re.compile(r"[a-z_][a-z0-9_]{0,19}")
_SCHEMA_RULE: Final = (
    "lower-case letters, digits and _, not starting with a digit or pg_, at most 41"
)
_PREFIX_RULE: Final = (
    "lower-case letters, digits and _, not starting with a digit or pg_, at most 20 (or empty)"
)
_MAX_NAME: Final = 63

_COLUMNS: Final = "id, server, owner, purpose, status, created_at, updated_at, expires_at, details"
_LIVE_SQL: Final = "('pending', 'opened')"
_FINISHED_SQL: Final = "('completed', 'declined', 'expired')"
_ANY_STATUS_SQL: Final = "('pending', 'opened', 'completed', 'declined', 'expired')"
assert {s.value for s in LIVE} == {"pending", "opened"}, "_LIVE_SQL names them"
assert {s.value for s in FlowStatus if s.finished} == {"completed", "declined", "expired"}
assert len(FlowStatus) == 5, "_ANY_STATUS_SQL names them all"

# Each migration, by the version it leads to: statements run in order in the one migrating
# transaction. {flows}, {secrets} are the qualified tables, {p} the table prefix.
_MIGRATIONS: Final[Mapping[int, tuple[str, ...]]] = {
    1: (
        """CREATE TABLE {flows} (
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
        )""",
        f"""CREATE INDEX "{{p}}flows_live_by_owner" ON {{flows}} (server, owner, expires_at)
            WHERE status IN {_LIVE_SQL}""",
        f"""CREATE INDEX "{{p}}flows_live_by_expiry" ON {{flows}} (expires_at)
            WHERE status IN {_LIVE_SQL}""",
        f"""CREATE INDEX "{{p}}flows_finished_by_change" ON {{flows}} (updated_at)
            WHERE status IN {_FINISHED_SQL}""",
        """CREATE TABLE {secrets} (
            server text NOT NULL,
            owner text NOT NULL,
            name text NOT NULL,
            sealed bytea NOT NULL,
            created_at double precision NOT NULL,
            PRIMARY KEY (server, owner, name)
        )""",
    ),
    # A row this code could not read back is refused when written, not found when read.
    2: (
        f"""ALTER TABLE {{flows}} ADD CONSTRAINT "{{p}}flows_status_known"
            CHECK (status IN {_ANY_STATUS_SQL})""",
    ),
    # Ended browser sessions (signed out), kept until they would have expired anyway.
    3: (
        """CREATE TABLE {ended_sessions} (
            id text PRIMARY KEY,
            until double precision NOT NULL
        )""",
        """CREATE INDEX "{p}ended_sessions_until" ON {ended_sessions} (until)""",
    ),
    # Tasks: the index fields, and the rest sealed by the tasks layer.
    4: (
        """CREATE TABLE {tasks} (
            id text PRIMARY KEY,
            server text NOT NULL,
            owner text NOT NULL,
            version bigint NOT NULL,
            status text NOT NULL,
            terminal boolean NOT NULL,
            created_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            lease_until double precision NOT NULL,
            payload bytea NOT NULL
        )""",
        """CREATE INDEX "{p}tasks_by_owner" ON {tasks} (server, owner, created_at, id)""",
        """CREATE INDEX "{p}tasks_live_by_lease" ON {tasks} (lease_until) WHERE NOT terminal""",
        """CREATE INDEX "{p}tasks_live_by_expiry" ON {tasks} (expires_at) WHERE NOT terminal""",
        """CREATE INDEX "{p}tasks_done_by_expiry" ON {tasks} (expires_at) WHERE terminal""",
    ),
}
assert sorted(_MIGRATIONS) == list(range(1, SCHEMA_VERSION + 1))


@dataclass(frozen=True, slots=True)
class Statements:
    """The store's SQL on one schema and prefix (``$n`` parameters, asyncpg's spelling)."""

    insert_flow: str
    insert_flow_limited: str
    lock: str
    get_flow: str
    set_status: str
    complete: str
    complete_with_secret: str
    flow_result: str
    expire: str
    purge: str
    put_secret: str
    get_secret: str
    delete_secret: str
    end_session: str
    forget_ended_sessions: str
    session_ended: str

    @classmethod
    def on(cls, flows: str, secrets: str, ended: str) -> Statements:
        upsert = (
            f"INSERT INTO {secrets} (server, owner, name, sealed, created_at)"
            " {source} ON CONFLICT (server, owner, name)"
            " DO UPDATE SET sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at"
        )
        complete = (
            f"UPDATE {flows} SET status = 'completed', updated_at = $2, result = $3"
            f" WHERE id = $1 AND status IN {_LIVE_SQL} AND expires_at > $2 RETURNING {_COLUMNS}"
        )
        return cls(
            insert_flow=(
                f"INSERT INTO {flows} ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
            ),
            # Typed: in INSERT ... SELECT a bare parameter would be text.
            insert_flow_limited=(
                f"INSERT INTO {flows} ({_COLUMNS}) SELECT $1::text, $2::text, $3::text,"
                " $4::text, $5::text, $6::float8, $7::float8, $8::float8, $9::text"
                f" WHERE (SELECT count(*) FROM {flows} WHERE server = $2 AND owner = $3"
                f" AND status IN {_LIVE_SQL} AND expires_at > $6) < $10::bigint"
            ),
            lock="SELECT pg_advisory_xact_lock($1::bigint)",
            get_flow=f"SELECT {_COLUMNS} FROM {flows} WHERE id = $1",
            set_status=(
                f"UPDATE {flows} SET status = $2, updated_at = $3 WHERE id = $1"
                f" AND status = ANY($4::text[]) AND expires_at > $3 RETURNING {_COLUMNS}"
            ),
            complete=complete,
            complete_with_secret=(
                f"WITH done AS ({complete}),"
                f" kept AS ({upsert.format(source='SELECT $4, $5, $6, $7, $8 FROM done')})"
                f" SELECT {_COLUMNS} FROM done"
            ),
            flow_result=f"SELECT result FROM {flows} WHERE id = $1",
            expire=(
                f"UPDATE {flows} SET status = 'expired', updated_at = $1"
                f" WHERE status IN {_LIVE_SQL} AND expires_at <= $1"
            ),
            purge=f"DELETE FROM {flows} WHERE status IN {_FINISHED_SQL} AND updated_at < $1",
            put_secret=upsert.format(source="VALUES ($1, $2, $3, $4, $5)"),
            get_secret=(
                f"SELECT sealed, created_at FROM {secrets}"
                " WHERE server = $1 AND owner = $2 AND name = $3"
            ),
            delete_secret=f"DELETE FROM {secrets} WHERE server = $1 AND owner = $2 AND name = $3",
            end_session=(
                f"INSERT INTO {ended} AS e (id, until) VALUES ($1, $2)"
                " ON CONFLICT (id) DO UPDATE SET until = GREATEST(e.until, EXCLUDED.until)"
            ),
            forget_ended_sessions=f"DELETE FROM {ended} WHERE until <= $1",
            session_ended=f"SELECT EXISTS (SELECT 1 FROM {ended} WHERE id = $1 AND until > $2)",
        )


_TASK_COLUMNS: Final = (
    "id, server, owner, version, status, terminal, created_at, expires_at, lease_until, payload"
)


@dataclass(frozen=True, slots=True)
class TaskStatements:
    """The tasks' SQL on one table."""

    insert: str
    insert_limited: str
    get: str
    replace: str
    tasks_of: str
    tasks_of_after: str
    stale: str
    purge: str

    @classmethod
    def on(cls, tasks: str) -> TaskStatements:
        # ON CONFLICT DO NOTHING: a taken id inserts no row, and create_task looks to tell it
        # from a reached limit (ids are random: nobody races to take one on purpose).
        values = "$1::text, $2::text, $3::text, $4::bigint, $5::text, $6::boolean, $7::float8,"
        values += " $8::float8, $9::float8, $10::bytea"
        return cls(
            insert=f"INSERT INTO {tasks} ({_TASK_COLUMNS}) VALUES ({values})"
            " ON CONFLICT (id) DO NOTHING",
            insert_limited=f"INSERT INTO {tasks} ({_TASK_COLUMNS}) SELECT {values}"
            f" WHERE (SELECT count(*) FROM {tasks} WHERE server = $2 AND owner = $3)"
            " < $11::bigint ON CONFLICT (id) DO NOTHING",
            get=f"SELECT {_TASK_COLUMNS} FROM {tasks} WHERE id = $1",
            replace=f"UPDATE {tasks} SET version = $2, status = $3, terminal = $4,"
            " expires_at = $5, lease_until = $6, payload = $7 WHERE id = $1 AND version = $8",
            tasks_of=f"SELECT {_TASK_COLUMNS} FROM {tasks} WHERE server = $1 AND owner = $2"
            " ORDER BY created_at, id LIMIT $3",
            # A cursor that is not this owner's task matches nothing (an empty subquery).
            tasks_of_after=f"SELECT {_TASK_COLUMNS} FROM {tasks} WHERE server = $1"
            f" AND owner = $2 AND (created_at, id) > (SELECT created_at, id FROM {tasks}"
            " WHERE id = $3 AND server = $1 AND owner = $2) ORDER BY created_at, id LIMIT $4",
            # Two halves, each on its partial index (an OR would not use them both).
            stale=f"SELECT id FROM {tasks} WHERE NOT terminal AND lease_until < $1"
            f" UNION SELECT id FROM {tasks} WHERE NOT terminal AND expires_at <= $1",
            purge=f"DELETE FROM {tasks} WHERE terminal AND expires_at < $1",
        )


def _task(row: Any) -> TaskRecord:
    return TaskRecord(
        id=row[0],
        server=row[1],
        user=row[2],
        version=int(row[3]),
        status=row[4],
        terminal=bool(row[5]),
        created_at=row[6],
        expires_at=row[7],
        lease_until=row[8],
        payload=bytes(row[9]),
    )


# One encoder, built once, with the SQLite engine's rules: compact, ASCII (a lone surrogate
# survives as an escape), no NaN or Infinity.
_encode: Final = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
_STATUS: Final = {status.value: status for status in FlowStatus}


def _driver() -> Any:
    """The asyncpg module, or the :class:`StoreError` that says how to install it."""
    try:
        import asyncpg
    except ImportError:
        raise StoreError(NEEDS_DRIVER) from None
    return asyncpg


def _checked(option: str, value: str, pattern: re.Pattern[str], rule: str) -> str:
    if not pattern.fullmatch(value) or value.startswith("pg_"):
        raise StoreError(f"bad PostgreSQL store option {option}={value!r}: {rule}")
    return value


def _lock_key(*parts: str) -> int:
    """A signed 64-bit advisory lock key for ``parts``."""
    text = "\0".join(("mcp-elicit", *parts)).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big", signed=True)


def _finite(*times: float) -> None:
    for value in times:
        if not math.isfinite(value):
            raise StoreError(f"times must be finite numbers, not {value!r}")


def _count(tag: str) -> int:
    """The row count of a command tag (``UPDATE 3``, ``INSERT 0 1``)."""
    return int(tag.rsplit(" ", 1)[-1])


def _record(row: Any) -> FlowRecord:
    return FlowRecord(
        id=row[0],
        server=row[1],
        user=row[2],
        purpose=row[3],
        status=_STATUS[row[4]],
        created_at=row[5],
        updated_at=row[6],
        expires_at=row[7],
        details=json.loads(row[8]),
    )


async def _no_reset(connection: Any) -> None:
    """No ``RESET ALL`` and friends on release: nothing here leaves session state (see the
    module docstring), and the reset is a round trip per operation."""


class PostgresStore:
    """Flows and sealed secrets in PostgreSQL; see the module docstring for the schema.

    A store object belongs to the event loop that first uses it (its pool does); any number
    of store objects and processes may share one schema."""

    _errors: tuple[type[BaseException], ...] = ()
    _unique: type[BaseException] = FlowExists  # asyncpg's UniqueViolationError once loaded

    def __init__(
        self,
        dsn: str,
        *,
        url: str,
        schema: str = DEFAULT_SCHEMA,
        table_prefix: str = "",
    ) -> None:
        # Checked here, whoever builds the store: both go into SQL (quoted, too).
        _checked("schema", schema, _SCHEMA_NAME, _SCHEMA_RULE)
        if table_prefix:
            _checked("table_prefix", table_prefix, _TABLE_PREFIX, _PREFIX_RULE)
        self._dsn = dsn
        self._password = urlsplit(dsn).password
        self.url = url
        self.schema = schema
        self.table_prefix = table_prefix
        self._s = f'"{schema}"'
        self._tables = {
            name: f'{self._s}."{table_prefix}{name}"'
            for name in ("flows", "secrets", "ended_sessions", "tasks", "schema_version")
        }
        self._task_sql = TaskStatements.on(self._tables["tasks"])
        self._sql = Statements.on(
            self._tables["flows"], self._tables["secrets"], self._tables["ended_sessions"]
        )
        channel = f"{schema}_{table_prefix}finished"
        if len(channel) > _MAX_NAME:
            channel = f"mcp_elicit_{_lock_key(schema, table_prefix) & (2**63 - 1):x}_finished"
        self.channel = channel
        tasks_channel = f"{channel}_tasks"
        if len(tasks_channel) > _MAX_NAME:
            tasks_channel = f"mcp_elicit_{_lock_key(schema, table_prefix) & (2**63 - 1):x}_tasks"
        self.tasks_channel = tasks_channel
        self._pool: asyncpg.Pool | None = None
        self._opening = anyio.Lock()
        self._closed = False

    @classmethod
    def from_url(cls, url: str) -> PostgresStore:
        """Open ``postgresql://[user[:password]@]host[:port]/database[?schema=NAME]
        [&table_prefix=PREFIX]`` (or ``postgres://``). Connects, and creates or migrates the
        tables, on first use. Raises :class:`StoreError` for a bad URL, an unknown or bad
        option (named), or when asyncpg is not installed (``pip install
        'mcp-elicit[postgres]'``)."""
        parts, options = read_server_url(
            url,
            engine="PostgreSQL",
            schemes=("postgresql", "postgres"),
            form="postgresql://host/database",
            options=_OPTIONS,
        )
        dsn = urlunsplit(parts._replace(scheme="postgresql", query=""))
        store = cls(
            dsn,
            url=without_password(url),
            schema=options.get("schema", DEFAULT_SCHEMA),
            table_prefix=options.get("table_prefix", ""),
        )
        _driver()  # say now, not at first use, that it is missing
        return store

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r})"

    # -- the contract -----------------------------------------------------------------------

    async def create_flow(self, flow: FlowRecord, *, limit: int | None = None) -> None:
        if not is_flow_id(flow.id):
            raise StoreError(f"not a flow id: {flow.id!r} (letters, digits, '-' and '_')")
        _finite(flow.created_at, flow.updated_at, flow.expires_at)
        try:
            details = _encode(flow.details)
        except (TypeError, ValueError) as error:
            raise StoreError(f"flow details must be JSON: {error}") from error
        if not details.startswith("{"):
            raise StoreError("flow details must be a JSON object")
        args = (
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
        pool = self._pool or await self._ready()
        try:
            if limit is None:
                await pool.execute(self._sql.insert_flow, *args)
                return
            async with pool.acquire() as connection, connection.transaction():
                await connection.execute(self._sql.lock, self._owner_lock(flow.server, flow.user))
                tag = await connection.execute(self._sql.insert_flow_limited, *args, limit)
        except self._unique:
            raise FlowExists(f"flow {flow.id!r} already exists") from None
        except self._errors as error:
            raise self._failed(error) from error
        if _count(tag) == 0:
            raise TooManyFlows(limit)

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        if not is_flow_id(flow_id):
            return None  # never stored (create_flow); a NUL would be an error of the server's
        pool = self._pool or await self._ready()
        try:
            row = await pool.fetchrow(self._sql.get_flow, flow_id)
        except self._errors as error:
            raise self._failed(error) from error
        return None if row is None else _record(row)

    async def set_flow_status(
        self,
        flow_id: str,
        status: FlowStatus,
        *,
        expected: Collection[FlowStatus],
        now: float,
    ) -> FlowRecord | None:
        _finite(now)
        if not is_flow_id(flow_id):
            return None
        wanted = [FlowStatus(s).value for s in expected]
        pool = self._pool or await self._ready()
        try:
            row = await pool.fetchrow(
                self._sql.set_status, flow_id, FlowStatus(status).value, now, wanted
            )
        except self._errors as error:
            raise self._failed(error) from error
        return None if row is None else _record(row)

    async def complete_flow(
        self,
        flow_id: str,
        *,
        now: float,
        result: bytes | None = None,
        secret: SealedSecret | None = None,
    ) -> FlowRecord | None:
        _finite(now)
        if not is_flow_id(flow_id):
            return None
        kept = None if result is None else bytes(result)
        pool = self._pool or await self._ready()
        try:
            if secret is None:
                row = await pool.fetchrow(self._sql.complete, flow_id, now, kept)
            else:
                _finite(secret.created_at)
                row = await pool.fetchrow(
                    self._sql.complete_with_secret,
                    flow_id,
                    now,
                    kept,
                    secret.server,
                    secret.user,
                    secret.name,
                    bytes(secret.sealed),
                    secret.created_at,
                )
        except self._errors as error:
            raise self._failed(error) from error
        return None if row is None else _record(row)

    async def flow_result(self, flow_id: str) -> bytes | None:
        if not is_flow_id(flow_id):
            return None
        pool = self._pool or await self._ready()
        try:
            value = await pool.fetchval(self._sql.flow_result, flow_id)
        except self._errors as error:
            raise self._failed(error) from error
        return None if value is None else bytes(value)

    async def expire_flows(self, now: float) -> int:
        _finite(now)
        return _count(await self._execute(self._sql.expire, now))

    async def purge_flows(self, before: float) -> int:
        _finite(before)
        return _count(await self._execute(self._sql.purge, before))

    async def put_secret(self, secret: SealedSecret) -> None:
        _finite(secret.created_at)
        await self._execute(
            self._sql.put_secret,
            secret.server,
            secret.user,
            secret.name,
            bytes(secret.sealed),
            secret.created_at,
        )

    async def get_secret(self, user: str, name: str, *, server: str) -> SealedSecret | None:
        pool = self._pool or await self._ready()
        try:
            row = await pool.fetchrow(self._sql.get_secret, server, user, name)
        except self._errors as error:
            raise self._failed(error) from error
        if row is None:
            return None
        return SealedSecret(user, name, bytes(row[0]), row[1], server)

    async def delete_secret(self, user: str, name: str, *, server: str) -> bool:
        return _count(await self._execute(self._sql.delete_secret, server, user, name)) > 0

    async def end_session(self, session_id: str, *, until: float, now: float) -> None:
        check_session_id(session_id)
        _finite(until, now)
        await self._execute(self._sql.forget_ended_sessions, now)
        if until > now:
            await self._execute(self._sql.end_session, session_id, until)

    async def session_ended(self, session_id: str, *, now: float) -> bool:
        check_session_id(session_id)
        _finite(now)
        pool = self._pool or await self._ready()
        try:
            return bool(await pool.fetchval(self._sql.session_ended, session_id, now))
        except self._errors as error:
            raise self._failed(error) from error

    # -- tasks ------------------------------------------------------------------------------

    async def create_task(self, task: TaskRecord, *, limit: int | None = None) -> None:
        check_task_id(task.id)
        _finite(task.created_at, task.expires_at, task.lease_until)
        args = (
            task.id,
            task.server,
            task.user,
            int(task.version),
            task.status,
            bool(task.terminal),
            task.created_at,
            task.expires_at,
            task.lease_until,
            bytes(task.payload),
        )
        pool = self._pool or await self._ready()
        try:
            if limit is None:
                tag = await pool.execute(self._task_sql.insert, *args)
            else:
                async with pool.acquire() as connection, connection.transaction():
                    lock = _lock_key(
                        "tasks", self.schema, self.table_prefix, task.server, task.user
                    )
                    await connection.execute(self._sql.lock, lock)
                    tag = await connection.execute(self._task_sql.insert_limited, *args, limit)
            if _count(tag) == 1:
                return
            taken = await pool.fetchval(self._task_sql.get, task.id)
        except self._errors as error:
            raise self._failed(error) from error
        if taken is not None:
            raise TaskExists(f"task {task.id!r} already exists")
        assert limit is not None  # without one, only a taken id inserts nothing
        raise TooManyTasks(limit)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        if not is_flow_id(task_id):
            return None
        pool = self._pool or await self._ready()
        try:
            row = await pool.fetchrow(self._task_sql.get, task_id)
        except self._errors as error:
            raise self._failed(error) from error
        return None if row is None else _task(row)

    async def replace_task(self, task: TaskRecord, *, expected_version: int) -> bool:
        if not is_flow_id(task.id):
            return False
        _finite(task.expires_at, task.lease_until)
        tag = await self._execute(
            self._task_sql.replace,
            task.id,
            int(task.version),
            task.status,
            bool(task.terminal),
            task.expires_at,
            task.lease_until,
            bytes(task.payload),
            int(expected_version),
        )
        return _count(tag) == 1

    async def tasks_of(
        self, server: str, user: str, *, after: str | None = None, limit: int = 100
    ) -> list[TaskRecord]:
        if after is not None and not is_flow_id(after):
            return []
        pool = self._pool or await self._ready()
        try:
            if after is None:
                rows = await pool.fetch(self._task_sql.tasks_of, server, user, max(limit, 0))
            else:
                rows = await pool.fetch(
                    self._task_sql.tasks_of_after, server, user, after, max(limit, 0)
                )
        except self._errors as error:
            raise self._failed(error) from error
        return [_task(row) for row in rows]

    async def stale_tasks(self, now: float) -> list[str]:
        _finite(now)
        pool = self._pool or await self._ready()
        try:
            rows = await pool.fetch(self._task_sql.stale, now)
        except self._errors as error:
            raise self._failed(error) from error
        return [row[0] for row in rows]

    async def purge_tasks(self, before: float) -> int:
        _finite(before)
        return _count(await self._execute(self._task_sql.purge, before))

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is None:
            return
        try:
            with anyio.move_on_after(CLOSE_TIMEOUT_S):
                await pool.close()  # waits for the operations in flight
                return
        except BaseException:
            pool.terminate()
            raise
        pool.terminate()

    # -- FinishFeed -------------------------------------------------------------------------

    async def announce_finished(self, flow_id: str) -> None:
        await self._execute("SELECT pg_notify($1, $2)", self.channel, flow_id)

    def finished_flows(self, listening: Callable[[], None] | None = None) -> AsyncIterator[str]:
        """One connection of its own, LISTENing; a lost connection ends it with
        :class:`StoreError`."""
        return self._listen(self.channel, listening)

    # -- TaskFeed ---------------------------------------------------------------------------

    async def announce_task(self, task_id: str) -> None:
        await self._execute("SELECT pg_notify($1, $2)", self.tasks_channel, task_id)

    def task_changes(self, listening: Callable[[], None] | None = None) -> AsyncIterator[str]:
        """As :meth:`finished_flows`, on the tasks' channel."""
        return self._listen(self.tasks_channel, listening)

    async def _listen(
        self, channel: str, listening: Callable[[], None] | None
    ) -> AsyncIterator[str]:
        await self._ready()
        asyncpg = _driver()
        send, receive = anyio.create_memory_object_stream[str | BaseException](1000)

        def heard(_connection: Any, _pid: int, _channel: str, payload: str) -> None:
            send.send_nowait(payload)

        def lost(_connection: Any) -> None:
            send.send_nowait(StoreError(f"PostgreSQL at {self.url}: the connection was lost"))

        try:
            connection = await asyncpg.connect(self._dsn, timeout=CONNECT_TIMEOUT_S)
        except self._errors as error:
            raise self._failed(error) from error
        try:
            connection.add_termination_listener(lost)
            await connection.add_listener(channel, heard)  # LISTEN has returned
            if listening is not None:
                listening()
            async for item in receive:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            with anyio.CancelScope(shield=True):
                if not connection.is_closed():
                    await connection.close()

    # -- connections and the schema -----------------------------------------------------------

    def _owner_lock(self, server: str, user: str) -> int:
        """The advisory lock key of one owner's flows, in this schema and prefix."""
        return _lock_key("owner", self.schema, self.table_prefix, server, user)

    def _failed(self, error: BaseException) -> StoreError:
        text = f"{type(error).__name__}: {error}"
        if self._password:
            text = text.replace(self._password, "***")
        return StoreError(f"PostgreSQL at {self.url}: {text}")

    async def _execute(self, query: str, *args: Any) -> str:
        pool = self._pool or await self._ready()
        try:
            return cast(str, await pool.execute(query, *args))
        except self._errors as error:
            raise self._failed(error) from error

    async def _ready(self) -> asyncpg.Pool:
        """The pool, opened (and the tables made current) on first use."""
        if self._closed:
            raise StoreError(f"store {self.url} is closed")
        if self._pool is not None:
            return self._pool
        async with self._opening:
            if self._pool is None:
                self._pool = await self._open()
            if self._closed:  # aclose ran while this was opening
                pool, self._pool = self._pool, None
                pool.terminate()
                raise StoreError(f"store {self.url} is closed")
        return self._pool

    async def _open(self) -> asyncpg.Pool:
        asyncpg = _driver()
        self._errors = (
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
            OSError,
            TimeoutError,
            ValueError,  # asyncpg's DataError, and text it cannot encode
        )
        self._unique = asyncpg.UniqueViolationError
        try:
            pool = await asyncpg.create_pool(
                self._dsn,
                min_size=1,
                max_size=POOL_SIZE,
                timeout=CONNECT_TIMEOUT_S,
                reset=_no_reset,
            )
        except self._errors as error:
            raise self._failed(error) from error
        try:
            async with pool.acquire() as connection:
                await self._migrate(connection)
        except BaseException as error:
            pool.terminate()
            if isinstance(error, self._errors) and not isinstance(error, StoreError):
                raise self._failed(error) from error
            raise
        return pool

    async def _version(self, connection: Any) -> int | None:
        """The tables' version; ``None`` when there is no ``schema_version`` table."""
        table = self._tables["schema_version"]
        if not await connection.fetchval("SELECT to_regclass($1::text) IS NOT NULL", table):
            return None
        version = await connection.fetchval(f"SELECT max(version) FROM {table}")
        return 0 if version is None else int(version)

    def _refuse_newer(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the tables in schema {self.schema!r} at {self.url} are version {version}, "
                f"newer than this mcp-elicit knows ({SCHEMA_VERSION}): upgrade mcp-elicit"
            )

    async def _migrate(self, connection: Any) -> None:
        """Create or migrate the tables: see the module docstring."""
        version = await self._version(connection)
        if version == SCHEMA_VERSION:
            return  # the common case: read only, no lock, no right to create needed
        if version is not None:
            self._refuse_newer(version)
        async with connection.transaction():
            # One store at a time creates or migrates this schema; the others wait, then find
            # it done.
            await connection.execute(self._sql.lock, _lock_key("schema", self.schema))
            exists = await connection.fetchval(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", self.schema
            )
            if not exists:
                await connection.execute(f"CREATE SCHEMA {self._s}")
            version = await self._version(connection)
            table = self._tables["schema_version"]
            if version is None:
                await connection.execute(f"CREATE TABLE {table} (version integer NOT NULL)")
                await connection.execute(f"INSERT INTO {table} VALUES (0)")
                version = 0
            self._refuse_newer(version)
            names = {**self._tables, "p": self.table_prefix}
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[target]:
                    await connection.execute(statement.format(**names))
                await connection.execute(f"UPDATE {table} SET version = $1", target)
