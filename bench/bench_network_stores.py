"""Benchmark 9: the Redis and PostgreSQL stores against the same commands on the raw drivers.

On the machine's own Redis and PostgreSQL (``REDIS_URL``, ``DATABASE_URL``; 127.0.0.1), each
side in a prefix or schema of its own, dropped afterwards:

- **ours**: ``RedisStore`` / ``PostgresStore``, awaited one operation at a time;
- **anchor**: the raw client (redis-py's asyncio client; an asyncpg pool) sending the very
  command ours sends (the same Lua script, the same SQL) with its arguments made before the
  clock starts, so the ratio is everything ours adds: building arguments, JSON, a
  ``FlowRecord``, error handling.

Three operations: **lookup** (``get_flow``), **complete** (``set_flow_status`` pending ->
completed, the compare-and-set) and **create** (``create_flow`` with a limit, the engine's
heaviest write). Target: ours at least half as fast as the raw driver (anchor/ours >= 0.5).

Which PostgreSQL driver the store runs on is benchmark 11's question
(``bench_postgres_drivers.py``).
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
import uuid
from collections.abc import Callable, Coroutine
from itertools import count
from typing import Any

from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Contender,
    Report,
    Result,
    paired_ratio,
    side_by_side,
)

from mcp_elicit.stores import LIVE, FlowRecord, FlowStatus, open_store
from mcp_elicit.stores.postgres import PostgresStore
from mcp_elicit.stores.redis import RedisStore

TITLE = "Benchmark 9: Redis and PostgreSQL stores vs the same commands on the raw drivers"
TARGET = 0.5
NOW = 1_700_000_000.0
DETAILS = {"message": "Sign in to Example to connect your account", "secret": "api_key"}
LOOKUPS = 200
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def record(flow_id: str, user: str = "user-1") -> FlowRecord:
    return FlowRecord(flow_id, user, "connect", FlowStatus.PENDING, NOW, NOW, NOW + 3600, DETAILS)


class Bench:
    def __init__(self) -> None:
        self.runner = asyncio.Runner()
        self.ids = (f"f{n}" for n in count())
        self.users = (f"u{n}" for n in count())  # a fresh owner per create: the limit holds
        name = f"bench_{uuid.uuid4().hex}"
        self.redis = open_store(f"{REDIS_URL}?prefix={name}:")
        self.postgres = open_store(f"{DATABASE_URL}?schema={name}")
        assert isinstance(self.redis, RedisStore) and isinstance(self.postgres, PostgresStore)
        self.name = name

    def run(self, body: Callable[[], Coroutine[Any, Any, None]]) -> int:
        async def timed() -> int:
            start = time.perf_counter_ns()
            await body()
            return time.perf_counter_ns() - start

        was = gc.isenabled()
        gc.disable()
        try:
            return self.runner.run(timed())
        finally:
            if was:
                gc.enable()

    def setup(self, store: Any, ids: list[str]) -> None:
        async def made() -> None:
            for flow_id in ids:
                await store.create_flow(record(flow_id))

        self.runner.run(made())

    def close(self) -> None:
        async def cleanup() -> None:
            redis = self.redis._redis
            keys = [k async for k in redis.scan_iter(match=f"{self.name}:*")]
            if keys:
                await redis.delete(*keys)
            pool = await self.postgres._ready()
            await pool.execute(f'DROP SCHEMA IF EXISTS "{self.name}" CASCADE')
            await self.redis.aclose()
            await self.postgres.aclose()

        self.runner.run(cleanup())
        self.runner.close()


def contenders(b: Bench) -> dict[str, list[Contender]]:
    lookup_ids = [next(b.ids) for _ in range(LOOKUPS)]
    b.setup(b.redis, lookup_ids)
    b.setup(b.postgres, lookup_ids)
    redis, pg = b.redis, b.postgres
    raw_redis = redis._redis
    pool = b.runner.run(pg._ready())
    get_sql = f"SELECT id, server, owner, purpose, status, created_at, updated_at, expires_at, details FROM {pg._s}.flows WHERE id = $1"  # noqa: E501
    set_sql = (
        f"UPDATE {pg._s}.flows SET status = $2, updated_at = $3 WHERE id = $1"
        " AND status = ANY($4) AND expires_at > $3 RETURNING id, server, owner, purpose,"
        " status, created_at, updated_at, expires_at, details"
    )
    live = [s.value for s in LIVE]

    def cycle(number: int) -> list[str]:
        return [lookup_ids[n % LOOKUPS] for n in range(number)]

    def lookup_ours(store: Any) -> Contender:
        def loop(number: int) -> int:
            ids = cycle(number)

            async def body() -> None:
                for flow_id in ids:
                    await store.get_flow(flow_id)

            return b.run(body)

        return Contender("ours: get_flow", loop)

    def redis_lookup_raw(number: int) -> int:
        keys = [redis._flow_key(i) for i in cycle(number)]

        async def body() -> None:
            for key in keys:
                await raw_redis.hgetall(key)

        return b.run(body)

    def pg_lookup_raw(number: int) -> int:
        ids = cycle(number)

        async def body() -> None:
            for flow_id in ids:
                await pool.fetchrow(get_sql, flow_id)

        return b.run(body)

    def complete_ours(store: Any) -> Contender:
        def loop(number: int) -> int:
            ids = [next(b.ids) for _ in range(number)]
            b.setup(store, ids)

            async def body() -> None:
                for flow_id in ids:
                    await store.set_flow_status(
                        flow_id, FlowStatus.COMPLETED, expected=LIVE, now=NOW + 1
                    )

            return b.run(body)

        return Contender("ours: set_flow_status", loop)

    def redis_complete_raw(number: int) -> int:
        ids = [next(b.ids) for _ in range(number)]
        b.setup(redis, ids)
        calls = [
            ([redis._flow_key(i)], [i, "completed", repr(NOW + 1), "pending,opened", redis.prefix])
            for i in ids
        ]
        script = redis._set_status

        async def body() -> None:
            for keys, args in calls:
                await script(keys=keys, args=args)

        return b.run(body)

    def pg_complete_raw(number: int) -> int:
        ids = [next(b.ids) for _ in range(number)]
        b.setup(pg, ids)

        async def body() -> None:
            for flow_id in ids:
                await pool.fetchrow(set_sql, flow_id, "completed", NOW + 1, live)

        return b.run(body)

    return {
        "Redis get_flow": [
            lookup_ours(redis),
            Contender("raw redis-py: HGETALL", redis_lookup_raw),
        ],
        "Redis set_flow_status": [
            complete_ours(redis),
            Contender("raw redis-py: the same script", redis_complete_raw),
        ],
        "PostgreSQL get_flow": [
            lookup_ours(pg),
            Contender("raw asyncpg: the same SELECT", pg_lookup_raw),
        ],
        "PostgreSQL set_flow_status": [
            complete_ours(pg),
            Contender("raw asyncpg: the same UPDATE", pg_complete_raw),
        ],
    }


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()
    bench = Bench()
    try:
        for claim, group in contenders(bench).items():
            timings = side_by_side(group, repeats, loop_ms)
            report.timings(timings)
            ours, anchor = timings[group[0].label], timings[group[1].label]
            report.add(
                Result("network-stores", claim, ours, anchor, paired_ratio(anchor, ours), TARGET)
            )
    finally:
        bench.close()
    return report.results


if __name__ == "__main__":
    run()
