"""Benchmark 12: what a pending secret flow costs one server instance, per store engine.

One server process (``tests/peer_servers/secret_server.py``: ``connect_service`` asks for an
API key with ``secret()``, on Streamable HTTP with test bearer tokens) per engine and era,
``PENDING`` users each with a flow open at once, none finished while the server is weighed:

- **2025-11-25** (push): each user's SDK client (``mode="legacy"``) calls the tool; the
  server sends the URL-mode request, the client agrees to open the link at once, and the
  tool waits for the flow to finish (the person is still on the page). Each pending flow
  holds an open session, its SSE stream, the waiting tool call and its wait on the store.
- **2026-07-28, retry held**: each user's client (``mode="auto"``) agrees to open the link at
  once, so its retry arrives while the page is still unanswered and the server holds it
  (``url_resume_wait``, 60 s here). A flow whose question was only returned holds nothing on
  the server (benchmark 7); a held retry holds an open request and its wait on the store.

Read from ``/proc``: the server's resident set size before (after a warm-up of finished
flows) and with every flow pending, per pending flow; and the server's CPU while all of them
wait and nothing happens (``IDLE_S`` seconds): what waiting costs, which grows with the
number of waiters if each polls the store often.

Engines side by side in one run: **sqlite** (one instance, the anchor the issue measured:
about 190 KiB per open 2025-11-25 session and 32 KiB per 2026-07-28 client), **redis** and
**postgresql** (the machine's servers, a prefix or schema of this run's own, dropped after).
Information, no target; the ratio printed is the anchor's bytes per flow / the engine's.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from _timing import Result, Timing, fmt_ratio
from bench_server_pending import MemoryResult
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.peer_servers.numbered_server import raise_open_files_limit
from tests.peer_servers.secret_server import HttpServer, start_http

TITLE = "Benchmark 12: server memory and idle CPU per pending secret flow, per store"
PENDING = 300
WARM_UP = 10
IDLE_S = 5.0
RESUME_WAIT = 60.0
TIMEOUT = 240.0
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Weighed:
    era: str
    engine: str
    pending: int
    rss_before: int  # bytes
    rss_pending: int  # bytes
    idle_cpu: float  # share of one core while every flow waits
    started_in: float  # seconds until every question had reached its client

    @property
    def per_flow(self) -> float:
        return max(self.rss_pending - self.rss_before, 0) / self.pending


def rss_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds_of(pid: int) -> float:
    # The fields after the command name, which may hold spaces: utime and stime are 14, 15.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def one_user(
    number: int,
    url: str,
    transport: httpx2.AsyncHTTPTransport,
    era: str,
    arrived: Callable[[], None],
) -> None:
    """One user's call, pending until it is cancelled with the others."""

    async def person(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams), params
        arrived()
        # The person agreed to open the link and is on the page, not done: on 2025-11-25 the
        # tool waits for the flow; on 2026-07-28 the retry follows at once and is held.
        return types.ElicitResult(action="accept")

    http = httpx2.AsyncClient(
        transport=transport,
        headers={"Authorization": f"Bearer user-bench-{number}"},
        timeout=httpx2.Timeout(TIMEOUT, read=None),
    )
    async with Client(
        streamable_http_client(url, http_client=http),
        mode="legacy" if era == "2025-11-25" else "auto",
        elicitation_callback=person,
        cache=None,
    ) as client:
        await client.call_tool("connect_service", {})


async def warm_up(server: HttpServer, transport: httpx2.AsyncHTTPTransport) -> None:
    """Finished flows first (decline at once), so caches and pools are in the baseline."""

    async def decline(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    for number in range(WARM_UP):
        http = httpx2.AsyncClient(
            transport=transport, headers={"Authorization": f"Bearer user-warm-{number}"}
        )
        async with Client(
            streamable_http_client(server.url, http_client=http),
            mode="legacy",
            elicitation_callback=decline,
            cache=None,
        ) as client:
            await client.call_tool("connect_service", {})


async def weigh(server: HttpServer, era: str, engine: str) -> Weighed:
    pid = server.process.pid
    limits = httpx2.Limits(max_connections=None, max_keepalive_connections=64)
    async with httpx2.AsyncHTTPTransport(limits=limits) as transport:
        await warm_up(server, transport)
        await anyio.sleep(1.0)
        before = rss_of(pid)
        count = 0
        all_arrived = anyio.Event()

        def arrived() -> None:
            nonlocal count
            count += 1
            if count == PENDING:
                all_arrived.set()

        started = time.perf_counter()
        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tasks:
                for number in range(PENDING):
                    tasks.start_soon(one_user, number, server.url, transport, era, arrived)
                await all_arrived.wait()
                started_in = time.perf_counter() - started
                # Every question reached its client; a 2026-07-28 retry follows at once.
                await anyio.sleep(2.0)
                pending = rss_of(pid)
                cpu_start, wall_start = cpu_seconds_of(pid), time.monotonic()
                await anyio.sleep(IDLE_S)
                idle = (cpu_seconds_of(pid) - cpu_start) / (time.monotonic() - wall_start)
                tasks.cancel_scope.cancel()
    return Weighed(era, engine, PENDING, before, pending, idle, started_in)


def _stores(run: str, folder: Path) -> dict[str, str]:
    return {
        "sqlite": f"sqlite:///{folder}/flows.db",
        "redis": f"{REDIS_URL}?prefix={run}:",
        "postgresql": f"{DATABASE_URL}?schema={run}",
    }


async def _drop(run: str) -> None:
    import asyncpg
    from redis.asyncio import Redis

    redis = Redis.from_url(REDIS_URL)
    keys = [k async for k in redis.scan_iter(match=f"{run}:*")]
    for start in range(0, len(keys), 1000):
        await redis.delete(*keys[start : start + 1000])
    await redis.aclose()
    connection = await asyncpg.connect(DATABASE_URL)
    await connection.execute(f'DROP SCHEMA IF EXISTS "{run}" CASCADE')
    await connection.close()


def _timing(found: Weighed) -> Timing:
    """The summary's time column: how long starting one more pending flow took (ns)."""
    return Timing(found.engine, found.pending, (found.started_in / found.pending * 1e9,))


def run(repeats: int = 7, *, loop_ms: float = 75.0) -> list[Result]:
    print(f"\n== {TITLE} ==", flush=True)
    raise_open_files_limit(PENDING * 8 + 512)
    os.environ.setdefault("SECRET_SERVER_LOG", "WARNING")
    weighed: list[Weighed] = []
    run_name = f"bench_{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        key = secrets.token_urlsafe(32)
        try:
            for era in ("2025-11-25", "2026-07-28"):
                for engine, store in _stores(run_name, folder).items():
                    server = start_http(
                        store=store,
                        key=key,
                        logs=folder / "logs",
                        name=f"{engine}-{era}",
                        resume_wait=RESUME_WAIT,
                    )
                    try:
                        found = asyncio.run(weigh(server, era, engine))
                    finally:
                        server.stop()
                    weighed.append(found)
                    print(
                        f"  {era} {engine:<10} {found.pending} pending: "
                        f"{found.per_flow / 1024:7.1f} KiB per flow "
                        f"(RSS {found.rss_before / 2**20:.0f} -> "
                        f"{found.rss_pending / 2**20:.0f} MiB); idle CPU while they wait "
                        f"{found.idle_cpu * 100:5.1f} % of a core",
                        flush=True,
                    )
        finally:
            asyncio.run(_drop(run_name))
    results: list[Result] = []
    for era in ("2025-11-25", "2026-07-28"):
        anchor = next(w for w in weighed if w.era == era and w.engine == "sqlite")
        for ours in (w for w in weighed if w.era == era and w.engine != "sqlite"):
            ratio = anchor.per_flow / max(ours.per_flow, 1.0)
            results.append(
                MemoryResult(
                    TITLE,
                    f"{era}, {ours.engine}: server memory per pending flow vs one sqlite instance",
                    _timing(ours),
                    _timing(anchor),
                    ratio,
                    None,
                    detail=(
                        f"{ours.per_flow / 1024:.0f} KiB vs {anchor.per_flow / 1024:.0f} KiB "
                        f"(sqlite holds {fmt_ratio(ratio)} as much); idle CPU "
                        f"{ours.idle_cpu * 100:.1f} % vs {anchor.idle_cpu * 100:.1f} % of a "
                        f"core with {ours.pending} waiting"
                    ),
                )
            )
    return results


if __name__ == "__main__":
    run()
