"""Benchmark 5: the SQLite flow store against the same statements on a bare ``sqlite3``.

Two files in one temporary directory, the same schema (both made by ``SQLiteStore``), the same
pragmas (WAL, ``synchronous=NORMAL``, autocommit: a commit per write):

- **ours**: ``SQLiteStore``, awaited one operation at a time on an asyncio loop;
- **anchor**: a ``sqlite3`` connection running the store's own SQL (``INSERT_FLOW``,
  ``SET_STATUS``, ``GET_FLOW``) with parameters made before the clock starts (details already
  JSON text), so the ratio is everything ours adds: the coroutine, JSON, building a
  ``FlowRecord``, error handling.

Three operations: **create** (``create_flow``), **complete** (``set_flow_status`` pending ->
completed, the compare-and-set ``UPDATE ... RETURNING``) and **lookup** (``get_flow`` of one of
1,000 flows). Before every run, untimed, each side's flows are reset the same way and its WAL
checkpointed, so that every run starts from the same file state.

Target: ours at least half as fast as the bare statements (anchor/ours >= 0.5) for each.

For information, the lookup is also timed as the bare statement behind a thread hop per
operation (``anyio.to_thread.run_sync``), which is what a thread-backed driver such as
aiosqlite pays on every call, and why ``SQLiteStore`` runs its statements inline.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sqlite3
import tempfile
import time
from collections.abc import Callable, Coroutine
from itertools import count
from pathlib import Path
from typing import Any

import anyio.to_thread
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Report,
    Result,
    paired_ratio,
    side_by_side,
)

from mcp_elicit.stores import LIVE, FlowRecord, FlowStatus, SQLiteStore
from mcp_elicit.stores.sqlite import GET_FLOW, INSERT_FLOW, SET_STATUS

TITLE = "Benchmark 5: SQLite flow store vs the same statements on bare sqlite3"
TARGET = 0.5
NOW = 1_700_000_000.0
DETAILS = {"message": "Sign in to Example to connect your account", "secret": "api_key"}
LOOKUP_FLOWS = 1_000
COMPLETE_SQL = SET_STATUS[len(LIVE)]


def record(flow_id: str) -> FlowRecord:
    return FlowRecord(
        flow_id, "user-1", "connect", FlowStatus.PENDING, NOW, NOW, NOW + 3600, DETAILS
    )


def params(flow: FlowRecord) -> tuple[Any, ...]:
    return (
        flow.id,
        flow.user,
        flow.purpose,
        flow.status.value,
        flow.created_at,
        flow.updated_at,
        flow.expires_at,
        json.dumps(dict(flow.details), separators=(",", ":")),
        flow.server,
    )


def raw_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


class Sides:
    """Our store and the bare connection, each on its own file, plus what resets them."""

    def __init__(self, directory: Path) -> None:
        self.runner = asyncio.Runner()
        self.store = SQLiteStore(directory / "ours.db")
        self.raw_path = directory / "raw.db"
        self.runner.run(SQLiteStore(self.raw_path).aclose())  # the same schema
        self.raw = raw_connection(self.raw_path)
        # The store's own connection, for untimed resets of its file.
        conn = self.store._conn
        assert conn is not None
        self.ours_conn = conn
        self.ids = (f"flow-{n}" for n in count())
        self.lookup_ids = [f"lookup-{n}" for n in range(LOOKUP_FLOWS)]

    def reset(self, conn: sqlite3.Connection, pending: list[str]) -> None:
        """Only the lookup flows and ``pending`` left, WAL checkpointed."""
        conn.execute("DELETE FROM flows WHERE id NOT LIKE 'lookup-%'")
        conn.execute("BEGIN")
        for flow_id in pending:
            conn.execute(INSERT_FLOW, params(record(flow_id)))
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def fill_lookups(self) -> None:
        for conn in (self.ours_conn, self.raw):
            conn.execute("BEGIN")
            for flow_id in self.lookup_ids:
                conn.execute(INSERT_FLOW, params(record(flow_id)))
            conn.execute("COMMIT")

    def timed(
        self,
        body: Callable[[], Coroutine[Any, Any, None]],
        warm: Callable[[], Coroutine[Any, Any, None]] | None = None,
    ) -> int:
        """Run ``body`` on the loop with the collector off; elapsed ns, taken inside. ``warm``
        runs first, untimed, in the same loop run."""

        async def run() -> int:
            if warm is not None:
                await warm()
            start = time.perf_counter_ns()
            await body()
            return time.perf_counter_ns() - start

        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self.runner.run(run())
        finally:
            if gc_was_enabled:
                gc.enable()

    def bare(self, body: Callable[[], None]) -> int:
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter_ns()
            body()
            return time.perf_counter_ns() - start
        finally:
            if gc_was_enabled:
                gc.enable()

    # --- create ---------------------------------------------------------------------------

    def ours_create(self, number: int) -> int:
        self.reset(self.ours_conn, [])
        flows = [record(next(self.ids)) for _ in range(number)]
        store = self.store

        async def body() -> None:
            for flow in flows:
                await store.create_flow(flow)

        return self.timed(body)

    def raw_create(self, number: int) -> int:
        self.reset(self.raw, [])
        rows = [params(record(next(self.ids))) for _ in range(number)]
        execute = self.raw.execute

        def body() -> None:
            for row in rows:
                execute(INSERT_FLOW, row)

        return self.bare(body)

    # --- complete -------------------------------------------------------------------------

    def ours_complete(self, number: int) -> int:
        ids = [next(self.ids) for _ in range(number)]
        self.reset(self.ours_conn, ids)
        store = self.store
        completed = FlowStatus.COMPLETED

        async def body() -> None:
            for flow_id in ids:
                await store.set_flow_status(flow_id, completed, expected=LIVE, now=NOW + 1)

        return self.timed(body)

    def raw_complete(self, number: int) -> int:
        ids = [next(self.ids) for _ in range(number)]
        self.reset(self.raw, ids)
        rows = [("completed", NOW + 1, flow_id, "pending", "opened", NOW + 1) for flow_id in ids]
        execute = self.raw.execute

        def body() -> None:
            for row in rows:
                execute(COMPLETE_SQL, row).fetchall()

        return self.bare(body)

    # --- lookup ---------------------------------------------------------------------------

    def lookups(self, number: int) -> list[str]:
        return [self.lookup_ids[n % LOOKUP_FLOWS] for n in range(number)]

    def ours_lookup(self, number: int) -> int:
        ids = self.lookups(number)
        store = self.store

        async def body() -> None:
            for flow_id in ids:
                await store.get_flow(flow_id)

        return self.timed(body)

    def raw_lookup(self, number: int) -> int:
        rows = [(flow_id,) for flow_id in self.lookups(number)]
        execute = self.raw.execute

        def body() -> None:
            for row in rows:
                execute(GET_FLOW, row).fetchone()

        return self.bare(body)

    def threaded_lookup(self, number: int) -> int:
        rows = [(flow_id,) for flow_id in self.lookups(number)]
        # A connection of its own that worker threads may use (one at a time: awaited).
        conn = sqlite3.connect(self.raw_path, isolation_level=None, check_same_thread=False)

        def one(row: tuple[str]) -> Any:
            return conn.execute(GET_FLOW, row).fetchone()

        async def body() -> None:
            for row in rows:
                await anyio.to_thread.run_sync(one, row)

        async def warm() -> None:
            # anyio stops its worker threads when a loop run ends: start one, untimed.
            await anyio.to_thread.run_sync(one, rows[0])

        try:
            return self.timed(body, warm)
        finally:
            conn.close()

    def check(self) -> None:
        """Both sides do the same thing before anything is timed."""

        async def ours() -> tuple[Any, Any]:
            await self.store.create_flow(record("check"))
            done = await self.store.set_flow_status(
                "check", FlowStatus.COMPLETED, expected=LIVE, now=NOW + 1
            )
            return done, await self.store.get_flow("lookup-7")

        done, found = self.runner.run(ours())
        if done is None or done.status is not FlowStatus.COMPLETED or found != record("lookup-7"):
            raise AssertionError(f"ours did not create, complete and find: {done}, {found}")
        self.raw.execute(INSERT_FLOW, params(record("check")))
        rows = self.raw.execute(COMPLETE_SQL, ("completed", NOW + 1, "check", *LIVE, NOW + 1))
        if len(rows.fetchall()) != 1 or not self.raw.execute(GET_FLOW, ("lookup-7",)).fetchone():
            raise AssertionError("the bare statements did not create, complete and find")

    def close(self) -> None:
        self.runner.run(self.store.aclose())
        self.runner.close()
        self.raw.close()


CREATE = ("ours: await store.create_flow(flow)", "bare: execute(INSERT_FLOW, row)")
COMPLETE = (
    "ours: await store.set_flow_status(id, completed, ...)",
    "bare: execute(SET_STATUS, row).fetchall()",
)
LOOKUP = ("ours: await store.get_flow(id)", "bare: execute(GET_FLOW, row).fetchone()")
THREADED = "bare statement, one thread hop per call (as aiosqlite)"


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    with tempfile.TemporaryDirectory(prefix="bench-store-") as directory:
        sides = Sides(Path(directory))
        try:
            sides.fill_lookups()
            sides.check()
            comparisons = [
                ("create", CREATE, sides.ours_create, sides.raw_create, []),
                ("complete", COMPLETE, sides.ours_complete, sides.raw_complete, []),
                (
                    "lookup",
                    LOOKUP,
                    sides.ours_lookup,
                    sides.raw_lookup,
                    [Contender(THREADED, sides.threaded_lookup)],
                ),
            ]
            for name, (ours_label, raw_label), ours_loop, raw_loop, extra in comparisons:
                timings = side_by_side(
                    [Contender(ours_label, ours_loop), Contender(raw_label, raw_loop), *extra],
                    repeats,
                    loop_ms,
                )
                report.timings(timings)
                ours, anchor = timings[ours_label], timings[raw_label]
                ops = f"{1e9 / ours.median:,.0f} vs {1e9 / anchor.median:,.0f} ops/s"
                report.add(
                    Result(
                        TITLE,
                        f"{name}: SQLiteStore vs bare sqlite3",
                        ours,
                        anchor,
                        paired_ratio(anchor, ours),
                        TARGET,
                        note=ops,
                    )
                )
                for contender in extra:
                    other = timings[contender.label]
                    report.add(
                        Result(
                            TITLE,
                            f"{name}: SQLiteStore vs {contender.label}",
                            ours,
                            other,
                            paired_ratio(other, ours),
                            None,
                        )
                    )
        finally:
            sides.close()
    return report.results


if __name__ == "__main__":
    run()
