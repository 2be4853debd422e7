"""Benchmark 10: how soon an instance learns that another completed its flow.

Two ``Flows`` on one store, each with a store object (and connections) of its own, as two
server instances have: A waits on a flow (``Flows.wait``), B completes it. The time from B
calling ``complete`` (its store write included) to A's ``wait`` returning, over many flows:

- **feed**: A runs ``run_feed`` (Redis pub/sub, PostgreSQL LISTEN/NOTIFY);
- **poll**: no feed (an engine without one, or while the feed is lost), polling every
  0.25 s (``Flows``' ``poll_interval``). While the feed listens, waiters read the store
  only every 5 s (``backstop_interval``): that is the most a lost message can delay.

Target: p99 through the feed under 50 ms on loopback. Printed as p50 / p99 per engine and
way; the ratio reported is poll p50 / feed p50 (how much sooner the feed wakes).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
import uuid
from typing import Any

import anyio
from _timing import Result, Timing

from mcp_elicit.flows import Flows
from mcp_elicit.stores import Store, open_store

TITLE = "Benchmark 10: cross-instance completion wake-up, feed vs poll"
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
TARGET_P99 = 0.050


class _NoFeed:
    """The store without its feed: what an engine without one (or a lost feed) leaves."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name in ("announce_finished", "finished_flows"):
            raise AttributeError(name)
        return getattr(self._store, name)


async def _latencies(url: str, flows: int, *, feed: bool) -> list[float]:
    a_store, b_store = open_store(url), open_store(url)
    a = Flows(a_store if feed else _NoFeed(a_store), server="bench")  # type: ignore[arg-type]
    b = Flows(b_store if feed else _NoFeed(b_store), server="bench")  # type: ignore[arg-type]
    found: list[float] = []
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(a.run_feed)
            while feed and not a.feed_listening:  # subscribed
                await anyio.sleep(0.01)
            for _ in range(flows):
                flow = await a.start(user="u", purpose="bench", ttl=600)
                done_at: list[float] = []

                async def wait(flow_id: str = flow.id, done_at: list[float] = done_at) -> None:
                    await a.wait(flow_id, timeout=None)
                    found.append(time.perf_counter() - done_at[0])

                async with anyio.create_task_group() as one:
                    one.start_soon(wait)
                    await anyio.sleep(0.005)  # A is waiting
                    done_at.append(time.perf_counter())
                    await b.complete(flow.id, user="u")
            tasks.cancel_scope.cancel()
    finally:
        await a_store.aclose()
        await b_store.aclose()
    return found


def _cleanup(urls: dict[str, str], names: dict[str, str]) -> None:
    async def run() -> None:
        import asyncpg
        from redis.asyncio import Redis

        redis = Redis.from_url(REDIS_URL)
        keys = [k async for k in redis.scan_iter(match=f"{names['redis']}:*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()
        connection = await asyncpg.connect(DATABASE_URL)
        await connection.execute(f'DROP SCHEMA IF EXISTS "{names["postgresql"]}" CASCADE')
        await connection.close()

    asyncio.run(run())


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(repeats: int = 7, *, loop_ms: float = 75.0) -> list[Result]:
    print(f"\n== {TITLE} ==", flush=True)
    names = {"redis": f"bench_{uuid.uuid4().hex}", "postgresql": f"bench_{uuid.uuid4().hex}"}
    urls = {
        "redis": f"{REDIS_URL}?prefix={names['redis']}:",
        "postgresql": f"{DATABASE_URL}?schema={names['postgresql']}",
    }
    results: list[Result] = []
    flows = max(20, repeats * 10)
    try:
        for engine, url in urls.items():
            feed = asyncio.run(_latencies(url, flows, feed=True))
            poll = asyncio.run(_latencies(url, max(10, flows // 4), feed=False))
            for way, values in (("feed", feed), ("poll", poll)):
                print(
                    f"  {engine:<10} {way}: p50 {_p(values, 0.5) * 1000:7.2f} ms"
                    f"  p99 {_p(values, 0.99) * 1000:7.2f} ms  ({len(values)} flows)",
                    flush=True,
                )
            met = _p(feed, 0.99) < TARGET_P99
            print(
                f"  {engine} feed p99 target < {TARGET_P99 * 1000:.0f} ms: "
                f"{'OK' if met else 'MISSED'}",
                flush=True,
            )
            ours = Timing("feed", len(feed), tuple(v * 1e9 for v in feed))
            anchor = Timing("poll", len(poll), tuple(v * 1e9 for v in poll))
            results.append(
                Result(
                    "wakeup",
                    f"{engine}: wake-up through the feed vs the poll (p50)",
                    ours,
                    anchor,
                    statistics.median(poll) / statistics.median(feed),
                    None,
                    f"feed p99 {_p(feed, 0.99) * 1000:.1f} ms "
                    f"({'OK' if met else 'MISSED'} < {TARGET_P99 * 1000:.0f} ms)",
                )
            )
    finally:
        _cleanup(urls, names)
    return results


if __name__ == "__main__":
    run()
