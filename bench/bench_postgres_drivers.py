"""Benchmark 11: which PostgreSQL driver the store runs on, asyncpg or psycopg 3, measured.

The store's hot statements (``stores/postgres.py``), sent by each raw driver, async, the way
the store would send them, on the machine's own PostgreSQL over loopback (``DATABASE_URL``),
in a schema of the benchmark's own (the store's tables, made by the store), dropped
afterwards:

- **insert a flow**: the plain ``INSERT``, a fresh id per call;
- **create with a limit**: what ``create_flow(limit=)`` runs: a transaction taking the
  owner's advisory lock, then the insert guarded by the count of the owner's live flows
  (several statements: where a driver's round trips show);
- **compare-and-set**: ``UPDATE ... WHERE id AND status = ANY AND expires_at > now
  RETURNING ...`` on a fresh pending flow per call;
- **select by id**: the flow lookup;
- **upsert a secret**: ``INSERT ... ON CONFLICT DO UPDATE``;
- **lookups, 10 at once**: select by id from 10 tasks sharing the pool (what a loaded
  server does), per lookup.

Each driver runs through its own pool (max 10, autocommit), as the store would use it:
``asyncpg.create_pool`` (with no reset on release, as the store configures it: the store keeps
no session state) and ``psycopg_pool.AsyncConnectionPool``. ``psycopg_pool`` is a package of
its own, not in this project's environment; without it psycopg runs on a minimal queue of
connections (said on its line). For where the time goes, the one-statement timings are also
made on one connection each, no pool.

A ratio is psycopg time / asyncpg time, paired per run: > 1 means asyncpg is faster. A
difference within ±5 % (:data:`NOISE`) is noise on these two cores; the verdict at the end
weighs the pooled statements alike (geometric mean) and picks asyncpg when it is within noise
(its async API is the simpler). Reported for information, no target.

    .venv/bin/python bench/bench_postgres_drivers.py          # on its own
    .venv/bin/python bench/run.py --only postgres_drivers
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import re
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from itertools import count
from typing import Any

from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Report,
    Result,
    Timing,
    describe_ratio,
    paired_ratio,
    side_by_side,
)

from mcp_elicit.stores.postgres import PostgresStore

TITLE = "Benchmark 11: PostgreSQL drivers for the store, asyncpg vs psycopg 3 (pools)"
DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
NOISE = 0.05
POOL_SIZE = 10
AT_ONCE = 10
LOOKUPS = 200
NOW = 1_700_000_000.0
DETAILS = '{"message":"Sign in to Example to connect your account","secret":"api_key"}'
SEALED = bytes(range(256)) * 2  # a vault entry's size, about


def psycopg_query(sql: str) -> tuple[str, list[int]]:
    """``$n`` placeholders (asyncpg, the store's spelling) as psycopg's ``%s``, and the order
    in which to pass the arguments (a ``$n`` used twice is passed twice)."""
    order: list[int] = []

    def one(match: re.Match[str]) -> str:
        order.append(int(match.group(1)) - 1)
        return "%s"

    return re.sub(r"\$(\d+)", one, sql), order


class QueuePool:
    """The least a pool can be (a queue of open connections), for psycopg when psycopg_pool
    is not installed."""

    def __init__(self, connections: list[Any]) -> None:
        self._idle: asyncio.Queue[Any] = asyncio.Queue()
        for connection in connections:
            self._idle.put_nowait(connection)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        connection = await self._idle.get()
        try:
            yield connection
        finally:
            self._idle.put_nowait(connection)

    async def close(self) -> None:
        while not self._idle.empty():
            await self._idle.get_nowait().close()


class Bench:
    """One event loop (timed from inside it), the store's schema, and the four ways in."""

    def __init__(self) -> None:
        self.runner = asyncio.Runner()
        self.schema = f"bench_{uuid.uuid4().hex}"
        self.ids: Iterator[str] = (f"f{n}" for n in count())
        self.users: Iterator[str] = (f"u{n}" for n in count())
        store = PostgresStore.from_url(f"{DATABASE_URL}?schema={self.schema}")
        self.store = store
        self.sql = store._sql
        self.runner.run(store._ready())  # creates the schema, as the store does
        self.pool_note = ""
        self.runner.run(self._open())

    async def _open(self) -> None:
        import asyncpg
        import psycopg

        async def no_reset(connection: Any) -> None:
            pass

        self.asyncpg_pool = await asyncpg.create_pool(
            DATABASE_URL, min_size=POOL_SIZE, max_size=POOL_SIZE, reset=no_reset
        )
        self.asyncpg_one = await asyncpg.connect(DATABASE_URL)
        self.psycopg_one = await psycopg.AsyncConnection.connect(DATABASE_URL, autocommit=True)
        try:
            from psycopg_pool import AsyncConnectionPool
        except ImportError:
            connections = [
                await psycopg.AsyncConnection.connect(DATABASE_URL, autocommit=True)
                for _ in range(POOL_SIZE)
            ]
            self.psycopg_pool: Any = QueuePool(connections)
            self.pool_note = " (queue; psycopg_pool not installed)"
        else:
            self.psycopg_pool = AsyncConnectionPool(
                DATABASE_URL,
                min_size=POOL_SIZE,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True},
                open=False,
            )
            await self.psycopg_pool.open(wait=True)

    def timed(self, body: Callable[[], Coroutine[Any, Any, None]]) -> int:
        """Run ``body`` on the loop, timed inside it, garbage collector off."""

        async def timing() -> int:
            start = time.perf_counter_ns()
            await body()
            return time.perf_counter_ns() - start

        was = gc.isenabled()
        gc.disable()
        try:
            return self.runner.run(timing())
        finally:
            if was:
                gc.enable()

    def pending_flows(self, number: int) -> list[str]:
        """``number`` new pending flows (made before the clock starts)."""
        ids = [next(self.ids) for _ in range(number)]
        rows = [(i, "", "user-1", "connect", "pending", NOW, NOW, NOW + 3600, DETAILS) for i in ids]
        self.runner.run(self.asyncpg_one.executemany(self.sql.insert_flow, rows))
        return ids

    def close(self) -> None:
        async def cleanup() -> None:
            await self.asyncpg_one.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
            await self.asyncpg_one.close()
            await self.psycopg_one.close()
            await self.asyncpg_pool.close()
            await self.psycopg_pool.close()
            await self.store.aclose()

        self.runner.run(cleanup())
        self.runner.close()


# -- what each driver sends ---------------------------------------------------------------------
#
# A "way" is how a driver runs one statement: ``fetch(sql, args)`` returning the first row (or
# nothing), on a pool or on one connection. The statement and its arguments are the same for
# every way; psycopg's are converted once, before the clock starts.


def asyncpg_way(source: Any) -> Callable[[str, Sequence[Any]], Coroutine[Any, Any, Any]]:
    async def fetch(sql: str, args: Sequence[Any]) -> Any:
        return await source.fetchrow(sql, *args)

    return fetch


def psycopg_way(
    connection: Callable[[], AbstractAsyncContextManager[Any]],
) -> Callable[[str, Sequence[Any]], Coroutine[Any, Any, Any]]:
    converted: dict[str, tuple[str, list[int]]] = {}

    async def fetch(sql: str, args: Sequence[Any]) -> Any:
        query, order = converted.get(sql) or converted.setdefault(sql, psycopg_query(sql))
        async with connection() as conn:
            cursor = await conn.execute(query, [args[i] for i in order])
            return await cursor.fetchone() if cursor.description else None

    return fetch


@asynccontextmanager
async def held(connection: Any) -> AsyncIterator[Any]:
    yield connection


def contenders(b: Bench) -> dict[str, list[Contender]]:
    sql = b.sql
    lookup_ids = b.pending_flows(LOOKUPS)
    live = ["pending", "opened"]
    ways = {
        "asyncpg, pool": asyncpg_way(b.asyncpg_pool),
        f"psycopg 3, pool{b.pool_note}": psycopg_way(b.psycopg_pool.connection),
        "asyncpg, one connection": asyncpg_way(b.asyncpg_one),
        "psycopg 3, one connection": psycopg_way(lambda: held(b.psycopg_one)),
    }

    def statement(
        label: str, query: str, arguments: Callable[[int], list[Sequence[Any]]]
    ) -> list[Contender]:
        """One contender per way, each sending ``query`` with ``arguments(number)``."""

        def of(
            way: Callable[[str, Sequence[Any]], Coroutine[Any, Any, Any]],
        ) -> Callable[[int], int]:
            def loop(number: int) -> int:
                calls = arguments(number)

                async def body() -> None:
                    for args in calls:
                        await way(query, args)

                return b.timed(body)

            return loop

        return [Contender(f"{name}: {label}", of(way)) for name, way in ways.items()]

    def inserts(number: int) -> list[Sequence[Any]]:
        return [
            (next(b.ids), "", "user-1", "connect", "pending", NOW, NOW, NOW + 3600, DETAILS)
            for _ in range(number)
        ]

    def updates(number: int) -> list[Sequence[Any]]:
        return [(i, "completed", NOW + 1, live) for i in b.pending_flows(number)]

    def lookups(number: int) -> list[Sequence[Any]]:
        return [(lookup_ids[n % LOOKUPS],) for n in range(number)]

    def upserts(number: int) -> list[Sequence[Any]]:
        return [("srv", "user-1", f"key{n % LOOKUPS}", SEALED, NOW + n) for n in range(number)]

    # create_flow(limit=5) for a fresh owner each time: lock, then the guarded insert.
    def limited(number: int) -> list[tuple[Any, ...]]:
        made = []
        for _ in range(number):
            user = next(b.users)
            flow = (next(b.ids), "", user, "connect", "pending", NOW, NOW, NOW + 3600, DETAILS)
            made.append((b.store._owner_lock("", user), (*flow, 5)))
        return made

    def asyncpg_limited(pooled: bool) -> Callable[[int], int]:
        def loop(number: int) -> int:
            calls = limited(number)

            async def one(connection: Any, key: int, args: tuple[Any, ...]) -> None:
                async with connection.transaction():
                    await connection.execute(sql.lock, key)
                    await connection.execute(sql.insert_flow_limited, *args)

            async def body() -> None:
                for key, args in calls:
                    if pooled:
                        async with b.asyncpg_pool.acquire() as connection:
                            await one(connection, key, args)
                    else:
                        await one(b.asyncpg_one, key, args)

            return b.timed(body)

        return loop

    def psycopg_limited(pooled: bool) -> Callable[[int], int]:
        lock, _ = psycopg_query(sql.lock)
        insert, order = psycopg_query(sql.insert_flow_limited)

        def loop(number: int) -> int:
            calls = [(key, [args[i] for i in order]) for key, args in limited(number)]

            async def one(connection: Any, key: int, args: list[Any]) -> None:
                async with connection.transaction():
                    await connection.execute(lock, (key,))
                    await connection.execute(insert, args)

            async def body() -> None:
                for key, args in calls:
                    if pooled:
                        async with b.psycopg_pool.connection() as connection:
                            await one(connection, key, args)
                    else:
                        await one(b.psycopg_one, key, args)

            return b.timed(body)

        return loop

    def at_once(
        way: Callable[[str, Sequence[Any]], Coroutine[Any, Any, Any]],
    ) -> Callable[[int], int]:
        def loop(number: int) -> int:
            calls = lookups(max(number, AT_ONCE))
            shares = [calls[k::AT_ONCE] for k in range(AT_ONCE)]

            async def worker(share: list[Sequence[Any]]) -> None:
                for args in share:
                    await way(sql.get_flow, args)

            async def body() -> None:
                await asyncio.gather(*(worker(share) for share in shares))

            return b.timed(body) * number // len(calls)

        return loop

    names = list(ways)
    return {
        "insert a flow": statement("INSERT", sql.insert_flow, inserts),
        "create with a limit": [
            Contender(f"{names[0]}: lock + guarded INSERT", asyncpg_limited(True)),
            Contender(f"{names[1]}: lock + guarded INSERT", psycopg_limited(True)),
            Contender(f"{names[2]}: lock + guarded INSERT", asyncpg_limited(False)),
            Contender(f"{names[3]}: lock + guarded INSERT", psycopg_limited(False)),
        ],
        "compare-and-set": statement("UPDATE ... RETURNING", sql.set_status, updates),
        "select by id": statement("SELECT", sql.get_flow, lookups),
        "upsert a secret": statement("INSERT ... ON CONFLICT", sql.put_secret, upserts),
        f"lookups, {AT_ONCE} at once": [
            Contender(f"{names[0]}: SELECT x {AT_ONCE} tasks", at_once(ways[names[0]])),
            Contender(f"{names[1]}: SELECT x {AT_ONCE} tasks", at_once(ways[names[1]])),
        ],
    }


def verdict(pooled: dict[str, float]) -> str:
    """The choice from the pooled ratios (psycopg / asyncpg)."""
    mean = math.exp(statistics.fmean(math.log(r) for r in pooled.values()))
    if mean > 1 + NOISE:
        choice = "asyncpg: faster"
    elif mean < 1 - NOISE:
        choice = "psycopg 3: faster"
    else:
        choice = f"within noise (±{NOISE:.0%}): asyncpg, for its simpler async API"
    return f"geometric mean of the pooled ratios {mean:.3f} (> 1: asyncpg faster) -> {choice}"


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    bench = Bench()
    pooled: dict[str, float] = {}
    try:
        for claim, group in contenders(bench).items():
            timings = side_by_side(group, repeats, loop_ms)
            report.timings(timings)
            pairs: list[tuple[str, Timing, Timing]] = [
                ("pool", timings[group[0].label], timings[group[1].label])
            ]
            if len(group) == 4:
                pairs.append(("one connection", timings[group[2].label], timings[group[3].label]))
            for how, asyncpg_timing, psycopg_timing in pairs:
                ratio = paired_ratio(psycopg_timing, asyncpg_timing)
                if how == "pool":
                    pooled[claim] = ratio
                report.add(
                    Result(
                        "postgres-drivers",
                        f"{claim}, {how}: asyncpg vs psycopg 3",
                        asyncpg_timing,
                        psycopg_timing,
                        ratio,
                        None,
                        "asyncpg " + describe_ratio(ratio) + " than psycopg 3"
                        if abs(ratio - 1) > NOISE
                        else f"within noise (±{NOISE:.0%})",
                    )
                )
    finally:
        bench.close()
    print(f"\n  Verdict: {verdict(pooled)}", flush=True)
    return report.results


if __name__ == "__main__":
    run()
