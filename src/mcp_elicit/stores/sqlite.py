"""The embedded default engine: one SQLite file, shared safely by several processes.

URLs follow SQLAlchemy's spelling: ``sqlite:///relative/path.db`` (three slashes: relative to
the working directory) and ``sqlite:////absolute/path.db`` (four: an absolute path). The file
and its parent directory are created when missing; a file created here is owner-only (0600,
and SQLite gives its ``-wal`` and ``-shm`` files the same mode), because it holds sealed
secrets and who asked what.

The file is in WAL mode with ``synchronous=NORMAL``: readers never wait for the writer, a
commit costs no fsync (a power cut may lose the last commits, never corrupt the file), and
each operation is one statement committed on its own (autocommit), except ``complete_flow``:
its two writes (the flow, the vault entry) are one ``BEGIN IMMEDIATE`` transaction, so that
a value is never stored for a flow that did not complete.

Why statements run inline on the event loop thread, not in a worker thread (and not through
aiosqlite, which hands every call to a thread of its own): an operation here is one indexed
statement on a local file, about 5 us for a lookup and under 100 us for a commit. Handing it
to a thread and back costs about 60 us per operation, measured (``bench/bench_flow_store.py``:
a lookup takes 7.5 us inline, 67 us behind ``anyio.to_thread``): a lookup would be about nine
times slower than the same statement on a bare ``sqlite3`` connection. So the inline
connection has ``busy_timeout=0``: it never waits for a lock. Only when SQLite answers "busy"
(another connection, often another process, holds the write lock) is that one operation
retried in a worker thread, on a second connection with a real busy timeout. The loop
therefore never blocks on a lock, and the common case costs what SQLite costs. What still
runs inline is SQLite's own I/O, including the occasional WAL checkpoint (the one fsync of
``synchronous=NORMAL``), which can take milliseconds on a slow disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Final, TypeVar
from urllib.parse import unquote, urlsplit

import anyio
import anyio.to_thread

from mcp_elicit.stores.contract import (
    FlowExists,
    StoreError,
    TaskExists,
    TooManyFlows,
    TooManyTasks,
)
from mcp_elicit.stores.memory import check_session_id, check_task_id
from mcp_elicit.stores.records import (
    LIVE,
    FlowRecord,
    FlowStatus,
    SealedSecret,
    TaskRecord,
    is_flow_id,
)

T = TypeVar("T")
Op = Callable[..., T]

SCHEMA_VERSION: Final = 4
# PRAGMA application_id: marks the file as ours, so a URL pointing at some other application's
# database is refused instead of getting our tables added to it. ("MCPE" in ASCII.)
APPLICATION_ID: Final = 0x4D435045
# How long the slow path waits for another connection's write lock before giving up.
BUSY_TIMEOUT_S: Final = 5.0

# Version 2 binds flows and secrets to the server (server_id) and keeps what a completed flow
# received with it (result, sealed).
_SECRETS_TABLE: Final = """CREATE TABLE IF NOT EXISTS secrets (
        server_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        sealed BLOB NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (server_id, user_id, name)
    ) WITHOUT ROWID"""
# The flow cap (create_flow's limit) counts one owner's live flows.
_LIVE_OWNER_INDEX: Final = """CREATE INDEX IF NOT EXISTS flows_live_owner
        ON flows (server_id, user_id, expires_at) WHERE status IN ('pending', 'opened')"""
# Version 3 remembers ended browser sessions (signed out) until they would have expired.
_ENDED_SESSIONS_TABLE: Final = """CREATE TABLE IF NOT EXISTS ended_sessions (
        id TEXT PRIMARY KEY NOT NULL,
        until REAL NOT NULL
    ) WITHOUT ROWID"""
_ENDED_SESSIONS_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS ended_sessions_until ON ended_sessions (until)"
)
# Version 4 keeps tasks: the index fields as columns, the rest sealed in ``payload`` (the
# tasks layer's). The partial indexes are what the sweeper asks every 5 s (stale_tasks: live
# tasks by lease end and by expiry) and what purge_tasks asks (terminal ones by expiry); the
# owner's index serves both the limit's count and tasks_of's order.
_TASKS_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS tasks (
        id TEXT PRIMARY KEY NOT NULL,
        server_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        status TEXT NOT NULL,
        terminal INTEGER NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        lease_until REAL NOT NULL,
        payload BLOB NOT NULL
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS tasks_owner ON tasks (server_id, user_id, created_at, id)",
    "CREATE INDEX IF NOT EXISTS tasks_live_lease ON tasks (lease_until) WHERE terminal = 0",
    "CREATE INDEX IF NOT EXISTS tasks_live_expiry ON tasks (expires_at) WHERE terminal = 0",
    "CREATE INDEX IF NOT EXISTS tasks_done_expiry ON tasks (expires_at) WHERE terminal = 1",
)
_STAMP: Final = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)
# Run in order inside one transaction when a file is new (user_version 0).
SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS flows (
        id TEXT PRIMARY KEY NOT NULL,
        server_id TEXT NOT NULL DEFAULT '',
        user_id TEXT NOT NULL,
        purpose TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        details TEXT NOT NULL,
        result BLOB
    ) WITHOUT ROWID""",
    # expire_flows and purge_flows look only at live, or only at finished, flows.
    """CREATE INDEX IF NOT EXISTS flows_live_expiry ON flows (expires_at)
        WHERE status IN ('pending', 'opened')""",
    """CREATE INDEX IF NOT EXISTS flows_finished_age ON flows (updated_at)
        WHERE status IN ('completed', 'declined', 'expired')""",
    _LIVE_OWNER_INDEX,
    _SECRETS_TABLE,
    _ENDED_SESSIONS_TABLE,
    _ENDED_SESSIONS_INDEX,
    *_TASKS_SCHEMA,
    *_STAMP,
)
# Version 1 to 2, in the same transaction. Flows of version 1 belong to no server ('') and so
# to none of the servers that open the file now: they expire and are purged. Its secrets were
# sealed without the server in their authenticated data, so no server can open them any more:
# they are dropped, and asked for again (docs/url-mode.md).
FROM_VERSION_1: Final = (
    "ALTER TABLE flows ADD COLUMN server_id TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE flows ADD COLUMN result BLOB",
    _LIVE_OWNER_INDEX,
    "DROP TABLE secrets",
    _SECRETS_TABLE,
    _ENDED_SESSIONS_TABLE,
    _ENDED_SESSIONS_INDEX,
    *_TASKS_SCHEMA,
    *_STAMP,
)
# Version 2 to 3 (and on to 4): nothing changes for flows and secrets.
FROM_VERSION_2: Final = (_ENDED_SESSIONS_TABLE, _ENDED_SESSIONS_INDEX, *_TASKS_SCHEMA, *_STAMP)
# Version 3 to 4: the tasks' table, nothing else.
FROM_VERSION_3: Final = (*_TASKS_SCHEMA, *_STAMP)
MIGRATIONS: Final = {0: SCHEMA, 1: FROM_VERSION_1, 2: FROM_VERSION_2, 3: FROM_VERSION_3}
# RETURNING, which makes set_flow_status one statement, came in SQLite 3.35.
MIN_SQLITE: Final = (3, 35, 0)

_COLUMNS = "id, user_id, purpose, status, created_at, updated_at, expires_at, details, server_id"
INSERT_FLOW: Final = f"INSERT INTO flows ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
# The limited insert: one statement, so that the count and the insert are atomic (a write
# statement takes the write lock before it reads). No row inserted: the limit is reached.
INSERT_FLOW_LIMITED: Final = (
    f"INSERT INTO flows ({_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? "
    "WHERE (SELECT count(*) FROM flows WHERE server_id = ? AND user_id = ? "
    "AND status IN ('pending', 'opened') AND expires_at > ?) < ?"
)
GET_FLOW: Final = f"SELECT {_COLUMNS} FROM flows WHERE id = ?"
# One compare-and-set statement per size of ``expected`` (at most five), each cached by
# sqlite3's statement cache: "UPDATE ... WHERE id = ? AND status IN (?, ...) AND expires_at > ?
# RETURNING ..." is atomic on its own, so two processes racing have exactly one winner.
SET_STATUS: Final = tuple(
    "UPDATE flows SET status = ?, updated_at = ? WHERE id = ? "
    f"AND status IN ({', '.join('?' * n)}) AND expires_at > ? RETURNING {_COLUMNS}"
    for n in range(len(FlowStatus) + 1)
)
EXPIRE_FLOWS: Final = (
    "UPDATE flows SET status = 'expired', updated_at = ? "
    "WHERE status IN ('pending', 'opened') AND expires_at <= ?"
)
COMPLETE_FLOW: Final = (
    "UPDATE flows SET status = 'completed', updated_at = ?, result = ? WHERE id = ? "
    f"AND status IN ('pending', 'opened') AND expires_at > ? RETURNING {_COLUMNS}"
)
FLOW_RESULT: Final = "SELECT result FROM flows WHERE id = ?"
PURGE_FLOWS: Final = (
    "DELETE FROM flows WHERE status IN ('completed', 'declined', 'expired') AND updated_at < ?"
)
PUT_SECRET: Final = (
    "INSERT INTO secrets (server_id, user_id, name, sealed, created_at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (server_id, user_id, name) DO UPDATE SET sealed = excluded.sealed, "
    "created_at = excluded.created_at"
)
GET_SECRET: Final = (
    "SELECT sealed, created_at FROM secrets WHERE server_id = ? AND user_id = ? AND name = ?"
)
DELETE_SECRET: Final = "DELETE FROM secrets WHERE server_id = ? AND user_id = ? AND name = ?"
END_SESSION: Final = (
    "INSERT INTO ended_sessions (id, until) VALUES (?, ?) "
    "ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)"
)
FORGET_ENDED_SESSIONS: Final = "DELETE FROM ended_sessions WHERE until <= ?"
SESSION_ENDED: Final = "SELECT 1 FROM ended_sessions WHERE id = ? AND until > ?"

_TASK_COLUMNS: Final = (
    "id, server_id, user_id, version, status, terminal, created_at, expires_at, lease_until, "
    "payload"
)
# ON CONFLICT DO NOTHING: a taken id and a reached limit both insert no row, and create_task
# then tells them apart by looking (ids are random: nobody races to take one on purpose).
INSERT_TASK: Final = (
    f"INSERT INTO tasks ({_TASK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO NOTHING"
)
# One statement, as INSERT_FLOW_LIMITED: the write lock is taken before the count is read.
INSERT_TASK_LIMITED: Final = (
    f"INSERT INTO tasks ({_TASK_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? "
    "WHERE (SELECT count(*) FROM tasks WHERE server_id = ? AND user_id = ?) < ? "
    "ON CONFLICT (id) DO NOTHING"
)
GET_TASK: Final = f"SELECT {_TASK_COLUMNS} FROM tasks WHERE id = ?"
# The compare-and-set: one conditional UPDATE, atomic on its own.
REPLACE_TASK: Final = (
    "UPDATE tasks SET version = ?, status = ?, terminal = ?, expires_at = ?, lease_until = ?, "
    "payload = ? WHERE id = ? AND version = ?"
)
TASKS_OF: Final = (
    f"SELECT {_TASK_COLUMNS} FROM tasks WHERE server_id = ? AND user_id = ? "
    "ORDER BY created_at, id LIMIT ?"
)
# After a cursor: the row values compare as (created_at, id), the order of TASKS_OF; a cursor
# that is not this owner's task matches nothing (the subquery is empty).
TASKS_OF_AFTER: Final = (
    f"SELECT {_TASK_COLUMNS} FROM tasks WHERE server_id = ? AND user_id = ? "
    "AND (created_at, id) > (SELECT created_at, id FROM tasks "
    "WHERE id = ? AND server_id = ? AND user_id = ?) ORDER BY created_at, id LIMIT ?"
)
# Two indexed halves: each uses its partial index, where an OR would scan.
STALE_TASKS: Final = (
    "SELECT id FROM tasks WHERE terminal = 0 AND lease_until < ? "
    "UNION SELECT id FROM tasks WHERE terminal = 0 AND expires_at <= ?"
)
PURGE_TASKS: Final = "DELETE FROM tasks WHERE terminal = 1 AND expires_at < ?"

assert {s.value for s in LIVE} == {"pending", "opened"}, "EXPIRE_FLOWS and SCHEMA name them"

# Stored text -> status, and status -> plain str to bind (a str subclass goes through
# sqlite3's adapter lookup on every bind).
_STATUS: Final = {status.value: status for status in FlowStatus}
_TEXT: Final = {status: status.value for status in FlowStatus}
# One encoder, built once: json.dumps with any option builds a new encoder on every call.
# No NaN or Infinity: they are not JSON, and the engines to come (PostgreSQL jsonb) refuse them.
_encode: Final = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode
_raw_decode: Final = json.JSONDecoder().raw_decode


def _decode(text: str) -> Any:
    """The details column back to a dict. ``raw_decode`` skips the two whitespace regexes of
    ``json.loads`` (about 1.5 us of a 6 us lookup): what we wrote is compact JSON."""
    try:
        return _raw_decode(text)[0]
    except ValueError:
        return json.loads(text)


def path_of(url: str) -> Path:
    """The file a ``sqlite:///...`` URL names (see the module docstring)."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "sqlite":
        raise StoreError(f"not a sqlite URL (scheme {parts.scheme!r})")
    hint = "use sqlite:///relative/path.db or sqlite:////absolute/path.db"
    if parts.netloc:
        raise StoreError(f"a sqlite URL has no host ({parts.netloc!r}): {hint}")
    if parts.query or parts.fragment:
        raise StoreError(f"a sqlite URL takes no options ('?' or '#'): {hint}")
    # urlsplit keeps the leading "/" of the path: "sqlite:///a.db" -> "/a.db" (relative),
    # "sqlite:////abs/a.db" -> "//abs/a.db" (absolute).
    raw = unquote(parts.path)
    if not raw.startswith("/") or raw in ("/", "//"):
        raise StoreError(f"a sqlite URL needs a file path: {hint}")
    name = raw[1:]
    if name == ":memory:" or name.startswith("file:"):
        raise StoreError("use memory:// for an in-process store, not an in-memory SQLite file")
    if name.endswith("/"):
        raise StoreError(f"a sqlite URL names a file, not a directory: {hint}")
    return Path(name)


def _is_busy(error: sqlite3.Error) -> bool:
    # sqlite_errorcode is the extended code (SQLITE_BUSY_SNAPSHOT, ...); its low byte is the
    # primary one. SQLITE_LOCKED is a conflict inside this process's shared cache: same cure.
    code = getattr(error, "sqlite_errorcode", None)  # None: raised by sqlite3, not SQLite
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _connect(path: Path, busy_timeout_s: float) -> sqlite3.Connection:
    # isolation_level=None: autocommit, so each statement is its own transaction and nothing
    # holds a lock between operations. check_same_thread=False: the slow path's connection is
    # used from worker threads (one at a time, under a lock).
    conn = sqlite3.connect(
        path,
        timeout=busy_timeout_s,
        isolation_level=None,
        check_same_thread=False,
        cached_statements=32,
    )
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _create_file(path: Path) -> None:
    """Create the file owner-only if it is missing (and its directory, owner-only too)."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


_IDENTITY: Final = ("application_id", "user_version")


def _prepare_patiently(conn: sqlite3.Connection, path: Path) -> None:
    """:func:`_prepare`, retried while another process holds the file. Switching to WAL can
    answer "locked" at once, without SQLite's busy handler (seen with four processes opening
    a new file together), so the busy timeout alone does not cover it."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            _prepare(conn, path)
            return
        except sqlite3.OperationalError as error:
            if not _is_busy(error) or time.monotonic() + delay > deadline:
                raise
            if conn.in_transaction:
                conn.rollback()
        time.sleep(delay)  # opening is synchronous and happens once per store
        delay = min(delay * 2, 0.1)


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    """WAL mode and the schema. Safe when several processes open a new file at once: the
    schema is created inside one IMMEDIATE transaction, the others wait for it and find it."""
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise StoreError(f"{path}: SQLite could not use WAL mode here (journal_mode={mode})")
    app_id, version = (conn.execute(f"PRAGMA {p}").fetchone()[0] for p in _IDENTITY)
    if version == SCHEMA_VERSION and app_id == APPLICATION_ID:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        app_id, version = (conn.execute(f"PRAGMA {p}").fetchone()[0] for p in _IDENTITY)
        if app_id not in (0, APPLICATION_ID):
            raise StoreError(f"{path} is another application's database (id {app_id:#x})")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} has schema version {version}, newer than this mcp-elicit knows "
                f"({SCHEMA_VERSION}): upgrade mcp-elicit"
            )
        if version < SCHEMA_VERSION:
            # A new file gets the whole schema; an older one its migration, in this same
            # transaction (a later version adds its own step to MIGRATIONS).
            for statement in MIGRATIONS[version]:
                conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _flow(row: tuple[Any, ...]) -> FlowRecord:
    # float(): SQLite hands back a whole-number REAL as an int through RETURNING.
    return FlowRecord(
        row[0],
        row[1],
        row[2],
        _STATUS[row[3]],
        float(row[4]),
        float(row[5]),
        float(row[6]),
        _decode(row[7]),
        row[8],
    )


# What the slow path runs: plain functions of a connection, the same statements as the inline
# path. Every row is fetched, which ends the statement and so its implicit transaction: nothing
# keeps a lock after an operation returns.


def _execute(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> None:
    conn.execute(sql, params)


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[Any]:
    return conn.execute(sql, params).fetchall()


def _count(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> int:
    return conn.execute(sql, params).rowcount


def _complete(
    conn: sqlite3.Connection, flow: tuple[Any, ...], secret: tuple[Any, ...] | None
) -> list[Any]:
    """``complete_flow``'s two writes in one transaction. IMMEDIATE takes the write lock at
    once (on the inline connection a busy file fails here, before anything is written, and
    the operation is retried whole on the slow path); any failure rolls both back."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        rows = conn.execute(COMPLETE_FLOW, flow).fetchall()
        if rows and secret is not None:
            conn.execute(PUT_SECRET, secret)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return rows


def _task(row: tuple[Any, ...]) -> TaskRecord:
    return TaskRecord(
        id=row[0],
        server=row[1],
        user=row[2],
        version=int(row[3]),
        status=row[4],
        terminal=bool(row[5]),
        created_at=float(row[6]),
        expires_at=float(row[7]),
        lease_until=float(row[8]),
        payload=bytes(row[9]),
    )


def _secret_params(secret: SealedSecret) -> tuple[Any, ...]:
    return (secret.server, secret.user, secret.name, bytes(secret.sealed), secret.created_at)


class SQLiteStore:
    """The ``Store`` contract on one SQLite file. Opening is synchronous (it happens once, at
    start-up); every operation after that is one statement (see the module docstring).

    A store object belongs to the event loop that uses it; any number of store objects and
    processes may open the same file."""

    def __init__(self, path: str | os.PathLike[str], *, url: str | None = None) -> None:
        # Absolute now: the slow path opens its connection later, maybe after a chdir.
        self.path = Path(path).absolute()
        self.url = url if url is not None else f"sqlite:///{self.path}"
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise StoreError(
                f"SQLite {sqlite3.sqlite_version} is too old: the sqlite engine needs "
                f"{'.'.join(map(str, MIN_SQLITE))} or newer"
            )
        try:
            _create_file(self.path)
            # Opening waits for a busy file (another process creating the schema); after
            # that the inline connection never waits.
            self._conn: sqlite3.Connection | None = _connect(self.path, BUSY_TIMEOUT_S)
            try:
                _prepare_patiently(self._conn, self.path)
            except BaseException:
                self._conn.close()
                raise
            self._conn.execute("PRAGMA busy_timeout = 0")
        except sqlite3.Error as error:
            raise StoreError(f"cannot open {self.url}: {error}") from error
        except OSError as error:
            raise StoreError(f"cannot open {self.url}: {error.strerror or error}") from error
        self._slow_conn: sqlite3.Connection | None = None
        self._slow_lock = threading.Lock()
        self._limiter: anyio.CapacityLimiter | None = None

    @classmethod
    def from_url(cls, url: str) -> SQLiteStore:
        return cls(path_of(url), url=url)

    # --- running an operation: inline, or in a thread when the file is busy ---------------
    #
    # Each method runs its statement on the inline connection inside its own try block (a
    # shared helper coroutine would cost one more await on every operation) and hands any
    # error to ``_retry``, which re-runs the operation in a thread when SQLite said busy and
    # turns every other error into a StoreError.

    def _inline(self) -> sqlite3.Connection:
        conn = self._conn
        if conn is None:
            raise StoreError(f"store {self.url} is closed")
        return conn

    async def _retry(
        self, error: sqlite3.Error, op: Op[T], *args: Any, flow_id: str | None = None
    ) -> T:
        """``op(connection, *args)`` again, in a worker thread, on the connection that waits
        for locks; one such operation at a time. Called when the inline attempt failed."""
        if not _is_busy(error):
            raise self._fail(error, flow_id) from error
        if self._limiter is None:
            # One slow operation at a time: the others wait here, not in pool threads. Made
            # on first use because it belongs to the running event loop.
            self._limiter = anyio.CapacityLimiter(1)
        try:
            # The wait in the thread is not cancellable: a cancelled task still waits for the
            # statement to end, so whether it committed is never in doubt.
            return await anyio.to_thread.run_sync(self._blocking, op, args, limiter=self._limiter)
        except sqlite3.Error as again:
            raise self._fail(again, flow_id) from again

    def _blocking(self, op: Op[T], args: tuple[Any, ...]) -> T:
        with self._slow_lock:
            if self._conn is None:
                raise StoreError(f"store {self.url} is closed")
            if self._slow_conn is None:
                self._slow_conn = _connect(self.path, BUSY_TIMEOUT_S)
            return op(self._slow_conn, *args)

    def _fail(self, error: sqlite3.Error, flow_id: str | None = None) -> StoreError:
        if isinstance(error, sqlite3.IntegrityError) and (
            getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
        ):
            return FlowExists(f"flow {flow_id!r} already exists")
        if isinstance(error, sqlite3.ProgrammingError) and self._conn is None:
            return StoreError(f"store {self.url} is closed")
        if _is_busy(error):
            return StoreError(
                f"{self.url}: another connection held the write lock for more than "
                f"{BUSY_TIMEOUT_S:g} s"
            )
        return StoreError(f"{self.url}: {error}")

    # --- the contract ------------------------------------------------------------------------

    async def create_flow(self, flow: FlowRecord, *, limit: int | None = None) -> None:
        if not is_flow_id(flow.id):
            raise StoreError(f"not a flow id: {flow.id!r} (letters, digits, '-' and '_')")
        try:
            details = _encode(flow.details)
        except (TypeError, ValueError) as error:
            raise StoreError(f"flow details must be JSON: {error}") from error
        params: tuple[Any, ...] = (
            flow.id,
            flow.user,
            flow.purpose,
            _TEXT[flow.status],
            flow.created_at,
            flow.updated_at,
            flow.expires_at,
            details,
            flow.server,
        )
        sql = INSERT_FLOW
        if limit is not None:
            sql = INSERT_FLOW_LIMITED
            params = (*params, flow.server, flow.user, flow.created_at, limit)
        try:
            inserted = self._inline().execute(sql, params).rowcount
        except sqlite3.Error as error:
            inserted = await self._retry(error, _count, sql, params, flow_id=flow.id)
        if inserted == 0 and limit is not None:
            raise TooManyFlows(limit)

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        if not is_flow_id(flow_id):
            return None  # never stored (create_flow); a lone surrogate would not even encode
        try:
            rows = self._inline().execute(GET_FLOW, (flow_id,)).fetchall()
        except sqlite3.Error as error:
            rows = await self._retry(error, _rows, GET_FLOW, (flow_id,))
        return _flow(rows[0]) if rows else None

    async def set_flow_status(
        self,
        flow_id: str,
        status: FlowStatus,
        *,
        expected: Collection[FlowStatus],
        now: float,
    ) -> FlowRecord | None:
        if not is_flow_id(flow_id):
            return None
        wanted = {_TEXT[s] for s in expected}
        sql = SET_STATUS[len(wanted)]
        params = (_TEXT[status], now, flow_id, *wanted, now)
        try:
            rows = self._inline().execute(sql, params).fetchall()
        except sqlite3.Error as error:
            rows = await self._retry(error, _rows, sql, params)
        return _flow(rows[0]) if rows else None

    async def complete_flow(
        self,
        flow_id: str,
        *,
        now: float,
        result: bytes | None = None,
        secret: SealedSecret | None = None,
    ) -> FlowRecord | None:
        if not is_flow_id(flow_id):
            return None
        flow = (now, None if result is None else bytes(result), flow_id, now)
        stored = None if secret is None else _secret_params(secret)
        try:
            rows = _complete(self._inline(), flow, stored)
        except sqlite3.Error as error:
            rows = await self._retry(error, _complete, flow, stored)
        return _flow(rows[0]) if rows else None

    async def flow_result(self, flow_id: str) -> bytes | None:
        if not is_flow_id(flow_id):
            return None
        try:
            rows = self._inline().execute(FLOW_RESULT, (flow_id,)).fetchall()
        except sqlite3.Error as error:
            rows = await self._retry(error, _rows, FLOW_RESULT, (flow_id,))
        return bytes(rows[0][0]) if rows and rows[0][0] is not None else None

    async def expire_flows(self, now: float) -> int:
        return await self._count(EXPIRE_FLOWS, (now, now))

    async def purge_flows(self, before: float) -> int:
        return await self._count(PURGE_FLOWS, (before,))

    async def put_secret(self, secret: SealedSecret) -> None:
        params = _secret_params(secret)
        try:
            self._inline().execute(PUT_SECRET, params)
        except sqlite3.Error as error:
            await self._retry(error, _execute, PUT_SECRET, params)

    async def get_secret(self, user: str, name: str, *, server: str) -> SealedSecret | None:
        params = (server, user, name)
        try:
            rows = self._inline().execute(GET_SECRET, params).fetchall()
        except sqlite3.Error as error:
            rows = await self._retry(error, _rows, GET_SECRET, params)
        if not rows:
            return None
        sealed, created_at = rows[0]
        return SealedSecret(user, name, bytes(sealed), float(created_at), server)

    async def delete_secret(self, user: str, name: str, *, server: str) -> bool:
        return await self._count(DELETE_SECRET, (server, user, name)) > 0

    async def end_session(self, session_id: str, *, until: float, now: float) -> None:
        check_session_id(session_id)
        await self._count(FORGET_ENDED_SESSIONS, (now,))
        if until > now:
            await self._count(END_SESSION, (session_id, until))

    async def session_ended(self, session_id: str, *, now: float) -> bool:
        check_session_id(session_id)
        params = (session_id, now)
        try:
            rows = self._inline().execute(SESSION_ENDED, params).fetchall()
        except sqlite3.Error as error:
            rows = await self._retry(error, _rows, SESSION_ENDED, params)
        return bool(rows)

    # --- tasks -----------------------------------------------------------------------------

    async def create_task(self, task: TaskRecord, *, limit: int | None = None) -> None:
        check_task_id(task.id)
        params: tuple[Any, ...] = (
            task.id,
            task.server,
            task.user,
            task.version,
            task.status,
            1 if task.terminal else 0,
            task.created_at,
            task.expires_at,
            task.lease_until,
            bytes(task.payload),
        )
        sql = INSERT_TASK
        if limit is not None:
            sql = INSERT_TASK_LIMITED
            params = (*params, task.server, task.user, limit)
        if await self._count(sql, params) == 1:
            return
        if await self._rows(GET_TASK, (task.id,)):
            raise TaskExists(f"task {task.id!r} already exists")
        assert limit is not None  # without one, only a taken id inserts nothing
        raise TooManyTasks(limit)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        if not is_flow_id(task_id):
            return None
        rows = await self._rows(GET_TASK, (task_id,))
        return _task(rows[0]) if rows else None

    async def replace_task(self, task: TaskRecord, *, expected_version: int) -> bool:
        if not is_flow_id(task.id):
            return False
        params = (
            task.version,
            task.status,
            1 if task.terminal else 0,
            task.expires_at,
            task.lease_until,
            bytes(task.payload),
            task.id,
            expected_version,
        )
        return await self._count(REPLACE_TASK, params) == 1

    async def tasks_of(
        self, server: str, user: str, *, after: str | None = None, limit: int = 100
    ) -> list[TaskRecord]:
        limit = max(limit, 0)
        if after is None:
            rows = await self._rows(TASKS_OF, (server, user, limit))
        elif not is_flow_id(after):
            return []
        else:
            rows = await self._rows(TASKS_OF_AFTER, (server, user, after, server, user, limit))
        return [_task(row) for row in rows]

    async def stale_tasks(self, now: float) -> list[str]:
        return [row[0] for row in await self._rows(STALE_TASKS, (now, now))]

    async def purge_tasks(self, before: float) -> int:
        return await self._count(PURGE_TASKS, (before,))

    async def _rows(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        try:
            return self._inline().execute(sql, params).fetchall()
        except sqlite3.Error as error:
            return await self._retry(error, _rows, sql, params)

    async def _count(self, sql: str, params: tuple[Any, ...]) -> int:
        try:
            return self._inline().execute(sql, params).rowcount
        except sqlite3.Error as error:
            return await self._retry(error, _count, sql, params)

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        if self._limiter is not None:
            # The slow path was used: an operation may still be running in a thread (and may
            # have opened the waiting connection), so close after it, off the loop.
            await anyio.to_thread.run_sync(self._close_slow)

    def _close_slow(self) -> None:
        with self._slow_lock:
            if self._slow_conn is not None:
                self._slow_conn.close()
                self._slow_conn = None
