"""Stores: the contract suite on every engine, then what only SQLite has to show (durability,
several processes on one file, WAL, file mode, the busy path), and opening by URL."""

from __future__ import annotations

import builtins
import itertools
import json
import math
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_elicit.stores import (
    LIVE,
    FlowStatus,
    MemoryStore,
    SealedSecret,
    SQLiteStore,
    Store,
    StoreError,
    open_store,
)
from mcp_elicit.stores import sqlite as sqlite_engine
from mcp_elicit.stores.credentials import without_password
from mcp_elicit.stores.redis import RedisStore
from tests.store_contract import (
    DETAILS,
    NOW,
    StoreContract,
    StoreFactory,
    TaskContract,
    flow,
    store_fixture,
    task,
)


@asynccontextmanager
async def memory_store(tmp_path: Path) -> AsyncIterator[Store]:
    store = open_store("memory://")
    try:
        yield store
    finally:
        await store.aclose()


@asynccontextmanager
async def sqlite_store(tmp_path: Path) -> AsyncIterator[Store]:
    store = open_store(f"sqlite:///{tmp_path / 'contract' / 'store.db'}")
    try:
        yield store
    finally:
        await store.aclose()


# A new engine runs the whole contract by adding its factory here.
FACTORIES: dict[str, StoreFactory] = {"memory": memory_store, "sqlite": sqlite_store}

store = store_fixture(FACTORIES)


class TestStoreContract(StoreContract, TaskContract):
    """The contract, once per engine in FACTORIES."""


# --- SQLite: durability ----------------------------------------------------------------------


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"  # path is absolute: four slashes in all


@pytest.mark.anyio
async def test_sqlite_data_survives_closing_and_reopening(tmp_path: Path) -> None:
    url = url_of(tmp_path / "store.db")
    first = open_store(url)
    await first.create_flow(flow(details=DETAILS))
    await first.put_secret(SealedSecret("user-1", "api_key", b"\x00\xff", NOW, "srv"))
    await first.create_flow(flow("done", server="srv"))
    await first.complete_flow("done", now=NOW + 1, result=b"\x00r")
    await first.aclose()

    second = open_store(url)
    try:
        assert await second.get_flow("flow-1") == flow(details=DETAILS)
        assert await second.get_secret("user-1", "api_key", server="srv") == SealedSecret(
            "user-1", "api_key", b"\x00\xff", NOW, "srv"
        )
        assert await second.flow_result("done") == b"\x00r"
    finally:
        await second.aclose()


def run_python(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parent.parent.parent,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


WRITER = """
    import sys, anyio
    from mcp_elicit.stores import FlowRecord, FlowStatus, SealedSecret, open_store

    async def main() -> None:
        store = open_store(sys.argv[1])
        await store.create_flow(FlowRecord(
            "from-child", "user-1", "connect", FlowStatus.OPENED, 1.5, 2.5, 3.5, {"k": ["v", 1]},
            "srv",
        ))
        await store.put_secret(SealedSecret("user-1", "key", bytes(range(256)), 4.5, "srv"))
        await store.aclose()

    anyio.run(main)
"""


@pytest.mark.slow
@pytest.mark.anyio
async def test_sqlite_data_written_by_another_process_is_read_here(tmp_path: Path) -> None:
    url = url_of(tmp_path / "shared.db")
    run_python(WRITER, url)
    store = open_store(url)
    try:
        got = await store.get_flow("from-child")
        assert got is not None
        assert (got.status, got.created_at, got.updated_at, got.expires_at) == (
            FlowStatus.OPENED,
            1.5,
            2.5,
            3.5,
        )
        assert got.details == {"k": ["v", 1]} and got.server == "srv"
        secret = await store.get_secret("user-1", "key", server="srv")
        assert secret is not None and secret.sealed == bytes(range(256))
    finally:
        await store.aclose()


# --- SQLite: several connections and processes on one file ---------------------------------

FLOW_IDS = [f"flow-{i}" for i in range(40)]


def create_flows(url: str, ids: list[str]) -> None:
    async def main() -> None:
        store = open_store(url)
        for flow_id in ids:
            await store.create_flow(flow(flow_id, expires_at=NOW + 3600))
        await store.aclose()

    anyio.run(main)


def test_sqlite_two_stores_racing_to_complete_have_exactly_one_winner(tmp_path: Path) -> None:
    """Two store objects, each on its own event loop in its own thread (real concurrency:
    sqlite3 lets go of the GIL while SQLite works), complete the same flows, starting each
    compare-and-set together, so that many of them collide (one finds the file busy)."""
    url = url_of(tmp_path / "race.db")
    create_flows(url, FLOW_IDS)
    barrier = threading.Barrier(2)
    wins: list[list[str]] = [[], []]
    errors: list[BaseException] = []

    def contender(k: int) -> None:
        async def main() -> None:
            store = open_store(url)
            status = (FlowStatus.COMPLETED, FlowStatus.DECLINED)[k]
            for flow_id in FLOW_IDS:
                barrier.wait(10)  # both start each compare-and-set at the same moment
                if await store.set_flow_status(flow_id, status, expected=LIVE, now=NOW + 1):
                    wins[k].append(flow_id)
            await store.aclose()

        try:
            anyio.run(main)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=contender, args=(k,)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert set(wins[0]).isdisjoint(wins[1])
    assert sorted(wins[0] + wins[1]) == sorted(FLOW_IDS)

    async def check() -> None:
        store = open_store(url)
        for k, status in enumerate((FlowStatus.COMPLETED, FlowStatus.DECLINED)):
            for flow_id in wins[k]:
                got = await store.get_flow(flow_id)
                assert got is not None and got.status is status
        await store.aclose()

    anyio.run(check)


RACER = """
    import json, sys, time, anyio
    from mcp_elicit.stores import LIVE, FlowStatus, open_store

    async def main() -> None:
        url, start, ids = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
        store = open_store(url)
        time.sleep(max(0.0, start - time.time()))
        won = []
        for flow_id in ids:
            if await store.set_flow_status(
                flow_id, FlowStatus.COMPLETED, expected=LIVE, now=1_700_000_001.0
            ):
                won.append(flow_id)
        await store.aclose()
        print(json.dumps(won))

    anyio.run(main)
"""


@pytest.mark.slow
def test_sqlite_processes_racing_to_complete_have_exactly_one_winner(tmp_path: Path) -> None:
    url = url_of(tmp_path / "race.db")
    create_flows(url, FLOW_IDS)
    start = str(time.time() + 1.0)  # both processes are up and have opened the store by then
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(RACER), url, start, json.dumps(FLOW_IDS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parent.parent.parent,
        )
        for _ in range(3)
    ]
    wins: list[list[str]] = []
    for racer in racers:
        out, err = racer.communicate(timeout=60)
        assert racer.returncode == 0, err
        wins.append(json.loads(out))
    everything = [flow_id for won in wins for flow_id in won]
    assert sorted(everything) == sorted(FLOW_IDS)  # every flow won once, by one process


OPENER = """
    import sys, time, anyio
    from mcp_elicit.stores import SealedSecret, open_store

    async def main() -> None:
        time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
        store = open_store(sys.argv[1])
        await store.put_secret(SealedSecret(sys.argv[3], "k", b"v", 1.0, "srv"))
        await store.aclose()

    anyio.run(main)
"""


@pytest.mark.slow
@pytest.mark.anyio
async def test_sqlite_processes_creating_one_new_file_at_once(tmp_path: Path) -> None:
    """Schema creation is one IMMEDIATE transaction: the first process creates, the others
    wait for it and find the schema there."""
    path = tmp_path / "new" / "fresh.db"
    start = str(time.time() + 1.0)
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(OPENER), url_of(path), start, f"user-{i}"],
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parent.parent.parent,
        )
        for i in range(4)
    ]
    for opener in openers:
        _, err = opener.communicate(timeout=60)
        assert opener.returncode == 0, err
    store = open_store(url_of(path))
    try:
        for i in range(4):
            assert await store.get_secret(f"user-{i}", "k", server="srv") is not None
    finally:
        await store.aclose()


# --- SQLite: how the file is set up --------------------------------------------------------


@pytest.mark.anyio
async def test_sqlite_file_is_in_wal_mode_with_a_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = SQLiteStore(path)
    try:
        conn = store._conn
        assert conn is not None
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 0  # the inline one
    finally:
        await store.aclose()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == sqlite_engine.SCHEMA_VERSION
        assert raw.execute("PRAGMA application_id").fetchone()[0] == sqlite_engine.APPLICATION_ID
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
        assert {"flows", "secrets"} <= tables
    finally:
        raw.close()


@pytest.mark.anyio
async def test_sqlite_creates_its_file_and_directory_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "store.db"
    store = open_store(url_of(path))
    await store.create_flow(flow())  # the -wal and -shm files exist now
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        for suffix in ("-wal", "-shm"):
            sidecar = path.with_name(path.name + suffix)
            assert stat.S_IMODE(sidecar.stat().st_mode) == 0o600, suffix
    finally:
        await store.aclose()


@pytest.mark.anyio
async def test_sqlite_leaves_the_mode_of_an_existing_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    path.touch()
    path.chmod(0o640)
    store = open_store(url_of(path))
    await store.aclose()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.anyio
async def test_sqlite_relative_url_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = open_store("sqlite:///data/rel.db")
    assert store.url == "sqlite:///data/rel.db"
    monkeypatch.chdir("/")  # the store keeps the file it opened
    await store.create_flow(flow())
    await store.aclose()
    assert (tmp_path / "data" / "rel.db").is_file()


def test_sqlite_refuses_another_applications_database(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA application_id = 1234")
    raw.execute("CREATE TABLE t (x)")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="another application"):
        open_store(url_of(path))


def test_sqlite_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA application_id = {sqlite_engine.APPLICATION_ID}")
    raw.execute(f"PRAGMA user_version = {sqlite_engine.SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="newer"):
        open_store(url_of(path))


VERSION_1 = (
    """CREATE TABLE flows (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL,
        purpose TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL,
        updated_at REAL NOT NULL, expires_at REAL NOT NULL, details TEXT NOT NULL)
        WITHOUT ROWID""",
    """CREATE TABLE secrets (user_id TEXT NOT NULL, name TEXT NOT NULL, sealed BLOB NOT NULL,
        created_at REAL NOT NULL, PRIMARY KEY (user_id, name)) WITHOUT ROWID""",
    "INSERT INTO flows VALUES ('old', 'user-1', 'secret', 'pending', 1.0, 1.0, 9e9, '{}')",
    "INSERT INTO secrets VALUES ('user-1', 'api_key', x'01', 1.0)",
    f"PRAGMA application_id = {sqlite_engine.APPLICATION_ID}",
    "PRAGMA user_version = 1",
)


@pytest.mark.anyio
async def test_sqlite_upgrades_a_version_1_file(tmp_path: Path) -> None:
    """Version 1 bound secrets to (user, name) only. Its flows stay, belonging to no server
    (``""``); its secrets, sealed without the server, can open for none, and are dropped:
    they are asked for again (docs/url-mode.md)."""
    path = tmp_path / "v1.db"
    raw = sqlite3.connect(path)
    for statement in VERSION_1:
        raw.execute(statement)
    raw.commit()
    raw.close()
    store = SQLiteStore(path)
    try:
        old = await store.get_flow("old")
        assert old is not None and old.server == "" and old.status is FlowStatus.PENDING
        assert await store.flow_result("old") is None
        assert await store.get_secret("user-1", "api_key", server="") is None
        await store.create_flow(flow("new", server="srv"), limit=1)
        await store.put_secret(SealedSecret("user-1", "api_key", b"v", NOW, "srv"))
        assert await store.get_secret("user-1", "api_key", server="srv") is not None
    finally:
        await store.aclose()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == sqlite_engine.SCHEMA_VERSION
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        raw.close()


@pytest.mark.anyio
async def test_sqlite_upgrades_a_version_2_file_keeping_everything(tmp_path: Path) -> None:
    """Version 3 adds the ended browser sessions; flows and secrets stay as they were."""
    path = tmp_path / "v2.db"
    store = SQLiteStore(path)
    await store.create_flow(flow("kept", server="srv"))
    await store.put_secret(SealedSecret("user-1", "api_key", b"v", NOW, "srv"))
    await store.aclose()
    raw = sqlite3.connect(path)
    raw.execute("DROP TABLE ended_sessions")
    raw.execute("PRAGMA user_version = 2")
    raw.commit()
    raw.close()
    store = SQLiteStore(path)
    try:
        assert await store.get_flow("kept") == flow("kept", server="srv")
        assert await store.get_secret("user-1", "api_key", server="srv") is not None
        await store.end_session("session-1", until=NOW + 60, now=NOW)
        assert await store.session_ended("session-1", now=NOW + 1)
    finally:
        await store.aclose()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == sqlite_engine.SCHEMA_VERSION
    finally:
        raw.close()


@pytest.mark.anyio
async def test_sqlite_upgrades_a_version_3_file_adding_the_tasks(tmp_path: Path) -> None:
    """Version 4 adds the tasks' table; flows, secrets and ended sessions stay."""
    path = tmp_path / "v3.db"
    store = SQLiteStore(path)
    await store.create_flow(flow("kept", server="srv"))
    await store.end_session("session-1", until=NOW + 60, now=NOW)
    await store.aclose()
    raw = sqlite3.connect(path)
    raw.execute("DROP TABLE tasks")
    raw.execute("PRAGMA user_version = 3")
    raw.commit()
    raw.close()
    store = SQLiteStore(path)
    try:
        assert await store.get_flow("kept") == flow("kept", server="srv")
        assert await store.session_ended("session-1", now=NOW + 1)
        await store.create_task(task(), limit=1)
        assert await store.get_task("task-1") == task()
    finally:
        await store.aclose()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == sqlite_engine.SCHEMA_VERSION
    finally:
        raw.close()


def test_sqlite_the_sweep_and_the_purge_of_tasks_use_their_indexes(tmp_path: Path) -> None:
    """Every instance asks ``stale_tasks`` every 5 s: no table scan."""
    store = SQLiteStore(tmp_path / "plan.db")
    conn = store._inline()
    try:
        for sql, index in [
            (sqlite_engine.STALE_TASKS, "tasks_live_lease"),
            (sqlite_engine.STALE_TASKS, "tasks_live_expiry"),
            (sqlite_engine.PURGE_TASKS, "tasks_done_expiry"),
        ]:
            params = (1.0, 1.0) if sql is sqlite_engine.STALE_TASKS else (1.0,)
            plan = " / ".join(row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
            assert f"USING INDEX {index}" in plan, plan
            assert "SCAN tasks" not in plan, plan
    finally:
        conn.close()


@pytest.mark.anyio
async def test_sqlite_complete_flow_is_all_or_nothing(tmp_path: Path) -> None:
    """The vault entry's write fails (here a trigger refuses it): the flow's completion and
    its result are rolled back with it."""
    path = tmp_path / "store.db"
    store = SQLiteStore(path)
    await store.create_flow(flow(server="s"))
    raw = sqlite3.connect(path)
    raw.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON secrets BEGIN SELECT RAISE(ABORT, 'no'); END"
    )
    raw.commit()
    raw.close()
    entry = SealedSecret("user-1", "api_key", b"v", NOW, "s")
    try:
        with pytest.raises(StoreError, match="no"):
            await store.complete_flow("flow-1", now=NOW + 1, result=b"r", secret=entry)
        assert await store.get_flow("flow-1") == flow(server="s")
        assert await store.flow_result("flow-1") is None
        assert await store.get_secret("user-1", "api_key", server="s") is None
        done = await store.complete_flow("flow-1", now=NOW + 1, result=b"r")  # no secret: fine
        assert done is not None and done.status is FlowStatus.COMPLETED
    finally:
        await store.aclose()


def test_sqlite_a_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open"):
        SQLiteStore(tmp_path)


# --- SQLite: the busy path -------------------------------------------------------------------


@dataclass
class Holder:
    """Another connection holding the write lock, in a thread. ``until`` is when it lets go
    (set just before its COMMIT): a write that waited for the lock ends after it, a read that
    did not wait ends before it."""

    thread: threading.Thread
    until: float = math.inf


def hold_write_lock(path: Path, seconds: float) -> Holder:
    """Another connection takes the write lock and keeps it ``seconds``, in a thread."""
    held = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        holder.until = time.monotonic()
        conn.execute("COMMIT")
        conn.close()

    holder = Holder(threading.Thread(target=hold))
    holder.thread.start()
    assert held.wait(10)
    return holder


# The tests below hold the lock for a second and compare with the moment it is let go, not
# with a stopwatch: on a busy machine (a parallel run on two cores) 10 ms sleeps take 100 ms
# and more, so fixed thresholds of a tenth of a second were passed by a loop that was never
# blocked. What a bug would show stays far from that: a blocked loop does not tick once while
# the write waits, a write that did not wait ends before the lock is let go.


@pytest.mark.anyio
async def test_sqlite_waits_for_a_busy_file_without_blocking_the_loop(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    store = SQLiteStore(path)
    await store.create_flow(flow("existing"))
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            await anyio.sleep(0.01)
            ticks.append(time.monotonic())

    holder = hold_write_lock(path, 1.0)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(ticker)
            # A reader never waits in WAL mode: it runs inline while the lock is held.
            assert await store.get_flow("existing") is not None
            assert time.monotonic() < holder.until, "the read waited for the write lock"
            writing = time.monotonic()
            await store.create_flow(flow("written-while-busy"), limit=5)
            done = await store.set_flow_status(
                "existing", FlowStatus.OPENED, expected=LIVE, now=NOW + 1
            )
            entry = SealedSecret("user-1", "k", b"v", NOW, "")
            completed = await store.complete_flow(
                "written-while-busy", now=NOW + 1, result=b"r", secret=entry
            )
            finished = time.monotonic()
            group.cancel_scope.cancel()
    finally:
        holder.thread.join()
    assert finished > holder.until, "the write should have waited for the lock"
    assert done is not None and done.status is FlowStatus.OPENED
    assert completed is not None and completed.status is FlowStatus.COMPLETED
    assert await store.flow_result("written-while-busy") == b"r"
    assert await store.get_secret("user-1", "k", server="") == entry
    # The loop kept running while the write waited: ~100 ticks of 10 ms on an idle machine,
    # dozens on a busy one, none at all if the wait blocked it; and no gap near the wait.
    waiting = [t for t in ticks if writing < t < holder.until]
    assert len(waiting) >= 10, (writing, holder.until, ticks)
    assert max(b - a for a, b in itertools.pairwise(ticks)) < 0.5, ticks
    await store.aclose()


@pytest.mark.anyio
async def test_sqlite_complete_flow_waits_for_a_busy_file(tmp_path: Path) -> None:
    """The transaction meets the held lock at BEGIN IMMEDIATE, before writing anything, and
    runs whole on the waiting connection."""
    path = tmp_path / "busy.db"
    store = SQLiteStore(path)
    await store.create_flow(flow(server="s"))
    entry = SealedSecret("user-1", "k", b"v", NOW, "s")
    holder = hold_write_lock(path, 1.0)
    try:
        done = await store.complete_flow("flow-1", now=NOW + 1, result=b"r", secret=entry)
        finished = time.monotonic()
    finally:
        holder.thread.join()
    assert finished > holder.until, "it should have waited for the lock"
    assert done is not None and done.status is FlowStatus.COMPLETED
    assert await store.flow_result("flow-1") == b"r"
    assert await store.get_secret("user-1", "k", server="s") == entry
    await store.aclose()


@pytest.mark.anyio
async def test_sqlite_gives_up_after_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_engine, "BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "busy.db"
    store = SQLiteStore(path)
    holder = hold_write_lock(path, 1.0)
    try:
        with pytest.raises(StoreError, match="write lock"):
            await store.create_flow(flow())
    finally:
        holder.thread.join()
    await store.create_flow(flow())  # and works again once the lock is gone
    await store.aclose()


# --- opening by URL --------------------------------------------------------------------------


@pytest.mark.anyio
async def test_open_store_picks_the_engine_by_scheme(tmp_path: Path) -> None:
    memory = open_store("memory://")
    assert isinstance(memory, MemoryStore) and memory.url == "memory://"
    url = url_of(tmp_path / "x.db")
    sqlite = open_store(url)
    assert isinstance(sqlite, SQLiteStore) and sqlite.url == url
    assert open_store("SQLite:///" + str(tmp_path / "y.db")).url.startswith("SQLite:")
    await sqlite.aclose()
    redis = open_store("redis://127.0.0.1:6379/0?prefix=x:")  # connects on first use only
    assert isinstance(redis, RedisStore) and redis.prefix == "x:"
    await redis.aclose()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/x", "unknown store scheme 'ftp'; supported: memory://, sqlite:///"),
        ("no-scheme.db", "not a store URL"),
        ("", "not a store URL"),
        ("memory://somewhere", "takes no path"),
        ("sqlite://", "needs a file path"),
        ("sqlite:///", "needs a file path"),
        ("sqlite://host/x.db", "has no host"),
        ("sqlite:///x.db?mode=ro", "takes no options"),
        ("sqlite:///:memory:", "use memory://"),
        ("sqlite:///dir/", "names a file"),
    ],
)
def test_bad_urls_raise_store_error_saying_why(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        open_store(url)


@pytest.mark.parametrize(
    "url",
    [
        "redis://:hunter2@cache.example:6379/0?unknown=1",
        "postgresql://app:hunter2@db.example/flows?unknown=1",
        "mysql://app:hunter2@db.example/flows",
        "weird:hunter2@x",
    ],
)
def test_store_errors_never_show_a_password(url: str) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert "hunter2" not in str(caught.value)


def test_without_password() -> None:
    assert without_password("redis://u:pw@h:1/0") == "redis://u:***@h:1/0"
    assert without_password("redis://:pw@h") == "redis://:***@h"
    assert without_password("postgresql://u@h/db") == "postgresql://u@h/db"
    assert without_password("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"


def test_memory_store_is_not_shared_between_opens() -> None:
    assert open_store("memory://") is not open_store("memory://")


def test_sqlite_env_is_new_enough() -> None:
    # RETURNING (set_flow_status in one statement) needs 3.35.
    assert sqlite3.sqlite_version_info >= sqlite_engine.MIN_SQLITE


@pytest.mark.parametrize(
    ("driver", "url", "extra"),
    [
        ("redis", "redis://127.0.0.1:6379/0", "redis"),
        ("asyncpg", "postgresql://127.0.0.1/db", "postgres"),
    ],
)
def test_without_its_driver_an_engine_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, driver: str, url: str, extra: str
) -> None:
    real_import = builtins.__import__

    def without(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == driver or name.startswith(driver + "."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without)
    with pytest.raises(StoreError, match=rf"pip install 'mcp-elicit\[{extra}\]'"):
        open_store(url)
