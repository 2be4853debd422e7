"""The PostgreSQL engine: the whole store contract on a real PostgreSQL (``DATABASE_URL``, by
default the machine's own on 127.0.0.1), each test in a schema of its own; then what only
PostgreSQL has to show: the schema, its version and its migration, isolation by schema and
prefix, atomicity across store objects (each with its own pool, as instances have), indexes,
errors that name what is wrong, the missing driver, and a restart of PostgreSQL (on a server
the test starts itself, never the machine's shared one).

Without PostgreSQL these tests are skipped on a developer's machine and FAIL in CI
(``CI=true``): :func:`tests.peers.missing`."""

from __future__ import annotations

import builtins
import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from glob import glob
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from mcp_elicit.stores import FlowStatus, SealedSecret, StoreError, TooManyFlows, open_store
from mcp_elicit.stores.postgres import SCHEMA_VERSION, PostgresStore
from tests import markers
from tests.peers import missing
from tests.store_contract import (
    NOW,
    FeedContract,
    StoreContract,
    TaskContract,
    TaskFeedContract,
    flow,
    sealed,
    store_fixture,
)
from tests.stores.support import DATABASE_URL, admin, drop

pytestmark = [pytest.mark.anyio, pytest.mark.services]


def new_schema() -> str:
    return f"t_{uuid.uuid4().hex}"


@asynccontextmanager
async def postgres_store(
    tmp_path: Path | None = None, *, schema: str | None = None, table_prefix: str = ""
) -> AsyncIterator[PostgresStore]:
    """An empty store in a schema of its own, dropped afterwards."""
    markers.require("services")
    schema = schema or new_schema()
    prefix = f"&table_prefix={table_prefix}" if table_prefix else ""
    store = open_store(f"{DATABASE_URL}?schema={schema}{prefix}")
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


class TestPostgresContract(StoreContract, FeedContract, TaskContract, TaskFeedContract):
    """The contract, unchanged, on PostgreSQL."""


# -- the schema and its version ----------------------------------------------------------------


async def tables_of(connection: Any, schema: str) -> dict[str, int]:
    """Table name -> oid in ``schema`` (a table made again gets a new oid)."""
    rows = await connection.fetch(
        "SELECT c.relname, c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = $1 AND c.relkind = 'r'",
        schema,
    )
    return {row["relname"]: int(row["oid"]) for row in rows}


async def version_rows(connection: Any, schema: str, prefix: str = "") -> list[int]:
    rows = await connection.fetch(f'SELECT version FROM "{schema}"."{prefix}schema_version"')
    return [row["version"] for row in rows]


async def test_the_schema_is_made_on_first_use_and_a_second_store_leaves_it_alone() -> None:
    schema = new_schema()
    async with admin() as connection:
        first = open_store(f"{DATABASE_URL}?schema={schema}")
        try:
            assert await tables_of(connection, schema) == {}  # opening connects to nothing
            await first.create_flow(flow())
            made = await tables_of(connection, schema)
            assert set(made) == {"flows", "secrets", "ended_sessions", "tasks", "schema_version"}
            assert await version_rows(connection, schema) == [SCHEMA_VERSION]
            second = open_store(f"{DATABASE_URL}?schema={schema}")
            try:
                assert await second.get_flow("flow-1") == flow()
                await second.create_flow(flow("flow-2"))
            finally:
                await second.aclose()
            assert await tables_of(connection, schema) == made  # not made again
            assert await version_rows(connection, schema) == [SCHEMA_VERSION]
            assert await first.get_flow("flow-2") == flow("flow-2")
        finally:
            await first.aclose()
            await drop(schema)


async def test_stores_making_one_new_schema_at_once_agree() -> None:
    """Eight stores (eight pools, as eight instances starting together) on one new schema:
    one makes it under the schema's advisory lock, the others wait and find it done."""
    schema = new_schema()
    stores = [open_store(f"{DATABASE_URL}?schema={schema}") for _ in range(8)]
    try:
        async with anyio.create_task_group() as tasks:
            for n, one in enumerate(stores):
                tasks.start_soon(one.create_flow, flow(f"f{n}"))
        async with admin() as connection:
            assert await version_rows(connection, schema) == [SCHEMA_VERSION]
            stored = await connection.fetchval(f'SELECT count(*) FROM "{schema}".flows')
            assert stored == len(stores)
    finally:
        for one in stores:
            await one.aclose()
        await drop(schema)


# What the engine's first release (schema version 1, commit db3b151) ran, verbatim: the
# migration test starts from these tables, with rows in them.
VERSION_1 = """
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
"""


async def make_version_1(connection: Any, schema: str) -> None:
    s = f'"{schema}"'
    async with connection.transaction():
        await connection.execute(f"CREATE SCHEMA {s}")
        await connection.execute(f"CREATE TABLE {s}.schema_version (version integer NOT NULL)")
        await connection.execute(f"INSERT INTO {s}.schema_version VALUES (0)")
        await connection.execute(VERSION_1.format(s=s))
        await connection.execute(f"UPDATE {s}.schema_version SET version = $1", 1)


async def test_a_store_meeting_an_older_version_migrates_it_and_keeps_the_data() -> None:
    schema = new_schema()
    async with admin() as connection:
        await make_version_1(connection, schema)
        await connection.execute(
            f'INSERT INTO "{schema}".flows VALUES'
            " ('old', 's', 'user-1', 'connect', 'pending', $1, $1, $2, $3, NULL)",
            NOW,
            NOW + 600,
            '{"message":"hi"}',
        )
        await connection.execute(
            f"INSERT INTO \"{schema}\".secrets VALUES ('s', 'user-1', 'k', '\\x00ff', $1)", NOW
        )
        # Four instances meet it at once: one migrates (version 2 adds a constraint, which
        # could not be added twice), the others find it done.
        stores = [open_store(f"{DATABASE_URL}?schema={schema}") for _ in range(4)]
        store = stores[0]
        try:
            async with anyio.create_task_group() as tasks:
                for one in stores:
                    tasks.start_soon(one.get_flow, "old")
            old = await store.get_flow("old")
            assert old is not None and old.details == {"message": "hi"} and old.server == "s"
            assert await version_rows(connection, schema) == [SCHEMA_VERSION]
            done = await store.complete_flow("old", now=NOW + 1, result=b"r")
            assert done is not None and done.status is FlowStatus.COMPLETED
            kept = await store.get_secret("user-1", "k", server="s")
            assert kept == SealedSecret("user-1", "k", b"\x00\xff", NOW, "s")
            # Version 2's check: a status this code cannot read is refused when written.
            import asyncpg

            with pytest.raises(asyncpg.CheckViolationError):
                await connection.execute(
                    f"UPDATE \"{schema}\".flows SET status = 'lost' WHERE id = 'old'"
                )
            # Version 3's table: sessions ended on one instance are ended for all.
            await store.end_session("session-1", until=NOW + 60, now=NOW)
            assert await stores[1].session_ended("session-1", now=NOW + 1)
        finally:
            for one in stores:
                await one.aclose()
            await drop(schema)


async def test_a_version_newer_than_the_code_is_refused_and_left_as_it_is() -> None:
    async with postgres_store() as store, admin() as connection:
        await connection.execute(
            f'UPDATE "{store.schema}".schema_version SET version = $1', SCHEMA_VERSION + 1
        )
        newer = open_store(f"{DATABASE_URL}?schema={store.schema}")
        try:
            with pytest.raises(StoreError, match="newer than this mcp-elicit knows") as raised:
                await newer.get_flow("x")
            assert f"version {SCHEMA_VERSION + 1}" in str(raised.value)
            assert store.schema in str(raised.value)
        finally:
            await newer.aclose()
        assert await version_rows(connection, store.schema) == [SCHEMA_VERSION + 1]


async def test_a_table_prefix_puts_every_name_under_it() -> None:
    async with postgres_store(table_prefix="tenant_a_") as store, admin() as connection:
        await store.create_flow(flow())
        assert set(await tables_of(connection, store.schema)) == {
            "tenant_a_flows",
            "tenant_a_secrets",
            "tenant_a_ended_sessions",
            "tenant_a_tasks",
            "tenant_a_schema_version",
        }
        indexes = await connection.fetch(
            "SELECT indexname FROM pg_indexes WHERE schemaname = $1", store.schema
        )
        assert all(row["indexname"].startswith("tenant_a_") for row in indexes)
        assert store.channel == f"{store.schema}_tenant_a_finished"


# -- isolation -----------------------------------------------------------------------------------


async def test_two_schemas_are_two_stores_and_one_schema_is_shared() -> None:
    async with postgres_store() as one, postgres_store() as other:
        await one.create_flow(flow(server="s"))
        await one.put_secret(sealed(server="s"))
        assert await other.get_flow("flow-1") is None
        assert await other.get_secret("user-1", "api_key", server="s") is None
        # The limit counts in its own schema only.
        for n in range(2):
            await other.create_flow(flow(f"o{n}", server="s"), limit=2)
        again = open_store(f"{DATABASE_URL}?schema={one.schema}")  # another instance
        try:
            assert await again.get_flow("flow-1") == await one.get_flow("flow-1")
        finally:
            await again.aclose()


async def test_two_prefixes_in_one_schema_are_two_stores() -> None:
    schema = new_schema()
    async with (
        postgres_store(schema=schema, table_prefix="a_") as a,
        postgres_store(schema=schema, table_prefix="b_") as b,
    ):
        await a.create_flow(flow())
        await a.put_secret(sealed())
        assert await b.get_flow("flow-1") is None
        assert await b.get_secret("user-1", "api_key", server="srv") is None
        await b.create_flow(flow())  # the same id, another table
        assert await a.expire_flows(NOW + 10_000) == 1
        got = await b.get_flow("flow-1")
        assert got is not None and got.status is FlowStatus.PENDING


# -- atomicity across store objects (several instances) ------------------------------------------


async def test_twenty_creates_at_once_from_four_instances_store_exactly_the_limit() -> None:
    async with postgres_store() as first:
        url = f"{DATABASE_URL}?schema={first.schema}"
        stores = [first, *(open_store(url) for _ in range(3))]
        refused: list[int] = []

        async def create(n: int) -> None:
            try:
                await stores[n % 4].create_flow(flow(f"f{n}", server="s"), limit=5)
            except TooManyFlows:
                refused.append(n)

        try:
            async with anyio.create_task_group() as tasks:
                for n in range(20):
                    tasks.start_soon(create, n)
        finally:
            for other in stores[1:]:
                await other.aclose()
        stored = [n for n in range(20) if await first.get_flow(f"f{n}") is not None]
        assert len(stored) == 5 and len(refused) == 15


async def test_ten_completions_at_once_from_ten_instances_have_one_winner() -> None:
    async with postgres_store() as first:
        await first.create_flow(flow(server="s"))
        url = f"{DATABASE_URL}?schema={first.schema}"
        stores = [first, *(open_store(url) for _ in range(9))]
        won: list[int] = []

        async def complete(n: int) -> None:
            secret = sealed(value=f"v{n}".encode(), server="s")
            done = await stores[n].complete_flow(
                "flow-1", now=NOW + 1, result=b"r%d" % n, secret=secret
            )
            if done is not None:
                won.append(n)

        try:
            async with anyio.create_task_group() as tasks:
                for n in range(10):
                    tasks.start_soon(complete, n)
        finally:
            for other in stores[1:]:
                await other.aclose()
        [winner] = won
        assert await first.flow_result("flow-1") == b"r%d" % winner
        kept = await first.get_secret("user-1", "api_key", server="s")
        assert kept is not None and kept.sealed == f"v{winner}".encode()


async def test_a_completion_that_fails_writes_nothing() -> None:
    """The flow's update and the secret's upsert are one statement: when the upsert fails
    (PostgreSQL refuses a NUL in text), the flow stays as it was."""
    async with postgres_store() as store:
        await store.create_flow(flow())
        with pytest.raises(StoreError, match=r"PostgreSQL at postgresql://"):
            await store.complete_flow(
                "flow-1", now=NOW + 1, result=b"r", secret=sealed(name="bad\x00name")
            )
        assert await store.get_flow("flow-1") == flow()
        assert await store.flow_result("flow-1") is None


# -- values ----------------------------------------------------------------------------------------

AWKWARD_TIMES = [0.1 + 0.2, 5e-324, 1.7976931348623157e308, -0.0, NOW + 1 / 3, 2.0**53 + 1]


async def test_times_come_back_exactly_and_non_finite_ones_are_refused() -> None:
    async with postgres_store() as store:
        for n, when in enumerate(AWKWARD_TIMES):
            record = flow(f"f{n}", created_at=when, updated_at=when, expires_at=when)
            await store.create_flow(record)
            got = await store.get_flow(f"f{n}")
            assert got is not None
            assert [t.hex() for t in (got.created_at, got.updated_at, got.expires_at)] == [
                when.hex()
            ] * 3
        for bad in (math.nan, math.inf, -math.inf):
            with pytest.raises(StoreError, match="finite"):
                await store.create_flow(flow("bad", expires_at=bad))
            with pytest.raises(StoreError, match="finite"):
                await store.expire_flows(bad)
            with pytest.raises(StoreError, match="finite"):
                await store.put_secret(sealed(created_at=bad))
        assert await store.get_flow("bad") is None


async def test_text_postgresql_cannot_hold_is_a_store_error() -> None:
    async with postgres_store() as store:
        for bad_id in ("nul\x00id", "lone \ud800 surrogate"):
            with pytest.raises(StoreError):
                await store.create_flow(flow(bad_id))
        # Details are JSON text: a NUL and a lone surrogate survive as escapes.
        details = {"nul": "\x00", "surrogate": "\ud800"}
        await store.create_flow(flow(details=details))
        got = await store.get_flow("flow-1")
        assert got is not None and got.details == details


async def test_expire_purge_and_the_limit_use_their_indexes_under_a_generic_plan() -> None:
    """asyncpg prepares every statement, and after five runs PostgreSQL may plan it once for
    any parameters: the partial indexes must still match (the statements name the statuses as
    literals, as the indexes do)."""
    async with postgres_store() as store, admin() as connection:
        sql = store._sql
        rows = [
            (
                f"f{n}",
                "s",
                f"u{n % 100}",
                "p",
                [*FlowStatus][n % 5].value,
                1.0,
                float(n),
                1000.0 + n,
                "{}",
            )
            for n in range(5000)
        ]
        await connection.executemany(sql.insert_flow, rows)
        await connection.execute(f'ANALYZE "{store.schema}".flows')
        await connection.execute("SET plan_cache_mode = force_generic_plan")
        cases = {
            "flows_live_by_expiry": (sql.expire, "(1500.0)"),
            "flows_finished_by_change": (sql.purge, "(1500.0)"),
            "flows_live_by_owner": (
                sql.insert_flow_limited,
                "('x', 's', 'u1', 'p', 'pending', 1.0, 1.0, 2.0, '{}', 5)",
            ),
        }
        for n, (index, (statement, args)) in enumerate(cases.items()):
            await connection.execute(f"PREPARE q{n} AS {statement}")
            plan = "\n".join(r[0] for r in await connection.fetch(f"EXPLAIN EXECUTE q{n}{args}"))
            assert (
                f"Index Only Scan using {index}" in plan or f"Index Scan using {index}" in plan
            ), plan


async def test_the_sweep_and_the_purge_of_tasks_use_their_indexes() -> None:
    """``stale_tasks`` runs on every instance every 5 s: each half of it, and the purge, must
    read a partial index under a generic plan, never scan the table."""
    async with postgres_store() as store, admin() as connection:
        sql = store._task_sql
        rows = [
            (f"t{n}", "s", f"u{n % 100}", 1, "working", n % 5 == 0, 1.0, 1000.0 + n, float(n), b"")
            for n in range(5000)
        ]
        await connection.executemany(sql.insert, rows)
        await connection.execute(f'ANALYZE "{store.schema}".tasks')
        await connection.execute("SET plan_cache_mode = force_generic_plan")
        cases = {
            "tasks_live_by_lease": (sql.stale, "(10.0)"),
            "tasks_live_by_expiry": (sql.stale, "(10.0)"),
            "tasks_done_by_expiry": (sql.purge, "(1010.0)"),
        }
        for n, (index, (statement, args)) in enumerate(cases.items()):
            await connection.execute(f"PREPARE q{n} AS {statement}")
            plan = "\n".join(r[0] for r in await connection.fetch(f"EXPLAIN EXECUTE q{n}{args}"))
            assert f"Index Scan using {index}" in plan or f"Bitmap Index Scan on {index}" in plan, (
                plan
            )


# -- URLs and errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://", "not a PostgreSQL URL"),
        ("postgresql://h:notaport/db", "not a PostgreSQL URL"),
        ("postgresql://h/db?schma=a", "unknown PostgreSQL store option 'schma'"),
        ("postgresql://h/db?schema=Robert';drop", 'option schema="Robert\';drop"'),
        ("postgresql://h/db?schema=", "option schema=''"),
        ("postgresql://h/db?schema=Upper", "option schema='Upper'"),
        ("postgresql://h/db?schema=pg_catalog", "option schema='pg_catalog'"),
        ("postgresql://h/db?schema=" + "a" * 42, "option schema='aaaa"),
        ("postgresql://h/db?table_prefix=a-b", "option table_prefix='a-b'"),
        ("postgresql://h/db?table_prefix=a%22b", "option table_prefix='a\"b'"),
        ("postgresql://h/db?table_prefix=9a", "option table_prefix='9a'"),
        ("postgresql://h/db?schema=ok&table_prefix=" + "a" * 21, "option table_prefix="),
    ],
)
def test_a_bad_url_names_what_is_wrong(url: str, said: str) -> None:
    with pytest.raises(StoreError, match=re.escape(said)):
        open_store(url)


def test_good_options_are_taken() -> None:
    store = open_store("postgres://h/db?schema=app_1&table_prefix=tenant_")
    assert isinstance(store, PostgresStore)
    assert (store.schema, store.table_prefix) == ("app_1", "tenant_")
    assert store._tables["flows"] == '"app_1"."tenant_flows"'
    plain = open_store("postgresql://h/db")
    assert isinstance(plain, PostgresStore) and plain.schema == "mcp_elicit"
    longest = PostgresStore.from_url(f"postgresql://h/db?schema={'s' * 41}&table_prefix={'p' * 20}")
    assert len(longest.channel) <= 63 and longest.channel.endswith("_finished")


def test_a_store_made_directly_checks_its_names_too() -> None:
    with pytest.raises(StoreError, match="option schema='x\"; drop'"):
        PostgresStore("postgresql://h/db", url="postgresql://h/db", schema='x"; drop')
    with pytest.raises(StoreError, match="option table_prefix='T'"):
        PostgresStore("postgresql://h/db", url="postgresql://h/db", table_prefix="T")


def test_the_password_is_never_shown() -> None:
    store = open_store("postgresql://app:hunter2@127.0.0.1/db?schema=x")
    assert "hunter2" not in store.url and "hunter2" not in repr(store)
    assert store.url == "postgresql://app:***@127.0.0.1/db?schema=x"


async def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    store = open_store("postgresql://app:hunter2@127.0.0.1:1/db")
    try:
        with pytest.raises(StoreError, match=r"PostgreSQL at postgresql://app:\*\*\*@") as raised:
            await store.get_flow("x")
        assert "hunter2" not in str(raised.value)
        with pytest.raises(StoreError, match="PostgreSQL at"):  # tried again, not stuck
            await store.put_secret(sealed())
    finally:
        await store.aclose()
    await store.aclose()
    with pytest.raises(StoreError, match="closed"):
        await store.get_flow("x")


def without_asyncpg(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def refusing(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "asyncpg" or name.startswith("asyncpg."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refusing)


async def test_without_asyncpg_opening_and_first_use_say_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made_before = PostgresStore.from_url("postgresql://127.0.0.1:1/db")
    without_asyncpg(monkeypatch)
    with pytest.raises(StoreError, match=r"pip install 'mcp-elicit\[postgres\]'"):
        open_store("postgresql://127.0.0.1/db")
    with pytest.raises(StoreError, match=r"pip install 'mcp-elicit\[postgres\]'"):
        await made_before.get_flow("x")
    await made_before.aclose()


# -- a PostgreSQL of the test's own: restarts, and a role without the right to create ----------


class PrivateServer:
    """A throwaway PostgreSQL cluster in a temporary directory, on a free port of 127.0.0.1,
    trust authentication; started, stopped (fast shutdown) and started again by the test.
    Run as the ``postgres`` user when the tests run as root (PostgreSQL refuses root)."""

    def __init__(self, bindir: Path, folder: Path, port: int, user: str | None) -> None:
        self.bindir, self.folder, self.port, self.user = bindir, folder, port, user
        self.data = folder / "data"
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, *, password: str = "", user: str = "postgres", **options: str) -> str:
        secret = f":{password}" if password else ""
        query = "&".join(f"{k}={v}" for k, v in options.items())
        return f"postgresql://{user}{secret}@127.0.0.1:{self.port}/postgres?{query}"

    def initdb(self) -> None:
        subprocess.run(
            [str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres",
             "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"],
            check=True, capture_output=True, user=self.user, timeout=60,
        )  # fmt: skip

    async def start(self) -> None:
        log = (self.folder / "log").open("ab")
        self.process = subprocess.Popen(
            [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port),
             "-k", str(self.folder), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
            stdout=log, stderr=log, user=self.user,
        )  # fmt: skip
        log.close()
        import asyncpg

        with anyio.fail_after(30):
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError((self.folder / "log").read_text(errors="replace"))
                try:
                    connection = await asyncpg.connect(self.url(), timeout=2)
                except (OSError, asyncpg.PostgresError):
                    await anyio.sleep(0.05)
                    continue
                await connection.close()
                return

    async def stop(self) -> None:
        """Fast shutdown: the server ends every session, then exits."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            await anyio.to_thread.run_sync(process.wait)

    async def restart(self) -> None:
        await self.stop()
        await self.start()


def postgres_bindir() -> Path:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(
        glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3])
    )
    if not versions:
        missing("PostgreSQL's server programs (initdb, postgres; Debian's postgresql package)")
    return Path(versions[-1]).parent


@asynccontextmanager
async def private_server() -> AsyncIterator[PrivateServer]:
    markers.require("slow")
    bindir = postgres_bindir()
    user = None
    folder = Path(tempfile.mkdtemp(prefix="mcp-elicit-pg-"))
    if os.geteuid() == 0:
        user = "postgres"
        try:
            shutil.chown(folder, user, user)
        except LookupError:
            missing("a 'postgres' user to run a private PostgreSQL as (the tests run as root)")
    from tests.peer_servers.secret_server import free_port

    server = PrivateServer(bindir, folder, free_port(), user)
    try:
        server.initdb()
        await server.start()
        yield server
    finally:
        with anyio.CancelScope(shield=True):
            await server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
async def test_after_postgresql_restarts_the_next_call_works() -> None:
    async with private_server() as server:
        url = server.url(password="hunter2", schema="app")
        store = open_store(url)
        try:
            await store.create_flow(flow("a"))
            await store.create_flow(flow("b"))
            await store.put_secret(sealed())
            await server.restart()  # every connection of the pool is cut
            assert await store.get_flow("a") == flow("a")
            done = await store.complete_flow("a", now=NOW + 1, result=b"r")
            assert done is not None and done.status is FlowStatus.COMPLETED

            await server.stop()  # down: an error that says where, without the password
            shown = f"PostgreSQL at postgresql://postgres:***@127.0.0.1:{server.port}/postgres"
            with pytest.raises(StoreError, match=re.escape(shown)) as raised:
                await store.get_flow("b")
            assert "hunter2" not in str(raised.value)
            fresh = open_store(url)  # first used while the server is down
            with pytest.raises(StoreError, match="PostgreSQL at"):
                await fresh.get_flow("b")

            await server.start()
            assert await store.get_flow("b") == flow("b")
            assert await fresh.get_flow("b") == flow("b")
            assert await fresh.get_secret("user-1", "api_key", server="srv") == sealed()
            assert await store.flow_result("a") == b"r"
            await fresh.aclose()
        finally:
            await store.aclose()


@pytest.mark.slow
async def test_a_role_that_may_not_create_uses_a_current_schema() -> None:
    """The operator makes the tables once (as an owner), then runs the server as a role with
    only USAGE and the four data rights: reading the version needs nothing more. On a schema
    not made yet, that role gets an error that says why."""
    async with private_server() as server:
        owner = open_store(server.url(schema="app"))
        try:
            await owner.get_flow("x")  # made
        finally:
            await owner.aclose()
        async with admin(server.url()) as connection:
            await connection.execute("CREATE ROLE app LOGIN")
            await connection.execute("GRANT USAGE ON SCHEMA app TO app")
            await connection.execute(
                "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA app TO app"
            )
        limited = open_store(server.url(user="app", schema="app"))
        try:
            await limited.create_flow(flow(), limit=3)
            assert await limited.complete_flow("flow-1", now=NOW + 1, secret=sealed())
            assert await limited.get_secret("user-1", "api_key", server="srv") == sealed()
        finally:
            await limited.aclose()
        elsewhere = open_store(server.url(user="app", schema="other"))
        try:
            with pytest.raises(StoreError, match="permission denied"):
                await elsewhere.get_flow("x")
        finally:
            with suppress(StoreError):
                await elsewhere.aclose()
