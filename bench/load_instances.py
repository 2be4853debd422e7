"""``make load``: secret flows in flight at once through nginx and three server instances.

Not part of ``make test`` or ``make bench``: it takes minutes. On loopback, on the machine's
own Redis (``REDIS_URL``; ``--store postgresql`` for ``DATABASE_URL``), each run in a prefix
or schema of its own, dropped afterwards:

- three server processes (``tests/peer_servers/secret_server.py``: a ``connect_service``
  tool that asks for an API key with ``secret()``), each tagged, behind one nginx
  (``tests/nginx_support.py``'s configuration, the one docs/deploy.md shows);
- ``--flows`` (default 2,000) tool calls at once, each by a user of its own, through the
  official SDK client: on 2026-07-28 (the default; the retry lands on any instance) or on
  2025-11-25 (``--protocol 2025-11-25``: a session each, kept on its instance by nginx, the
  tool waiting while the person is on the page); for each, a person (an HTTP client of its
  own) opens the link and posts a secret of its own on the page, which nginx sends to any
  instance.

Checked: every call returns, and returns the fingerprint of its own secret (none lost, none
crossed). Printed: flows per second over the whole run, the time from the page's POST
answering to the tool's result reaching the client (p50 / p99), and what the three server
processes used: their resident memory at its peak over their memory before, per flow (at
the peak nearly every flow is in flight), and their CPU time per flow. The same figures as
issue 15 gives for one instance on SQLite, so that the two compare.

    .venv/bin/python bench/load_instances.py [--flows 2000] [--store redis|postgresql]
        [--protocol 2026-07-28|2025-11-25]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio
import httpx2
import mcp_types as types
from bench_instance_pending import cpu_seconds_of, rss_of
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tests.nginx_support import NGINX, config
from tests.peer_servers.numbered_server import raise_open_files_limit
from tests.peer_servers.secret_server import (
    Browser,
    fingerprint_of,
    free_port,
    start_http,
    text_of,
)

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
TAGS = ("a", "b", "c")


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def one_flow(
    number: int,
    url: str,
    transport: httpx2.AsyncHTTPTransport,
    posted: dict[int, float],
    protocol: str,
) -> tuple[str, str, float]:
    """A user of its own calls the tool; their person enters a secret of their own."""
    user = f"load-{number}"
    value = f"sk-load-{number}-{secrets.token_hex(8)}"

    async def person(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams), params
        someone = Browser(user)
        # A person waits for a slow page: minutes, not the test browser's 30 s.
        someone.http.timeout = httpx2.Timeout(300.0)
        try:
            await someone.enter(params.url, value)
        finally:
            await someone.aclose()
        posted[number] = time.perf_counter()
        return types.ElicitResult(action="accept")

    # The user's token on a client of its own; the connection pool is the shared transport's
    # (the client is not closed: that would close the transport under the others).
    http = httpx2.AsyncClient(
        transport=transport,
        headers={"Authorization": f"Bearer user-{user}"},
        timeout=httpx2.Timeout(120.0, read=None),
    )
    async with Client(
        streamable_http_client(url, http_client=http),
        mode="auto" if protocol == "2026-07-28" else "legacy",
        elicitation_callback=person,
        cache=None,
    ) as client:
        result = await client.call_tool("connect_service", {})
    return value, text_of(result), time.perf_counter() - posted[number]


class Usage:
    """The server processes' resident memory (sampled until stopped) and CPU time."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.rss_before = sum(rss_of(pid) for pid in pids)
        self.cpu_before = sum(cpu_seconds_of(pid) for pid in pids)
        self.rss_peak = self.rss_before

    async def sample(self) -> None:
        while True:
            self.rss_peak = max(self.rss_peak, sum(rss_of(pid) for pid in self.pids))
            await anyio.sleep(0.25)

    def cpu(self) -> float:
        return sum(cpu_seconds_of(pid) for pid in self.pids) - self.cpu_before


async def run(flows: int, engine: str, folder: Path, protocol: str) -> int:
    raise_open_files_limit(flows * 4 + 256)
    name = f"load_{uuid.uuid4().hex}"
    store = f"{REDIS_URL}?prefix={name}:" if engine == "redis" else f"{DATABASE_URL}?schema={name}"
    key = secrets.token_urlsafe(32)
    listen = free_port()
    origin = f"http://127.0.0.1:{listen}"
    servers = [
        start_http(
            store=store,
            key=key,
            logs=folder / "logs",
            name=tag,
            extra=["--public-url", origin, "--instance", tag],
        )
        for tag in TAGS
    ]
    (folder / "nginx" / "tmp").mkdir(parents=True, exist_ok=True)
    text = config(listen, {tag: s.port for tag, s in zip(TAGS, servers, strict=True)})
    text = text.replace("worker_processes 1;", "worker_processes 1;\nworker_rlimit_nofile 65536;")
    text = text.replace("worker_connections 4096;", "worker_connections 16384;")
    # Thousands of clients connect at once: a listen queue for them all.
    text = text.replace(f"listen 127.0.0.1:{listen};", f"listen 127.0.0.1:{listen} backlog=4096;")
    (folder / "nginx" / "nginx.conf").write_text(text)
    balancer = subprocess.Popen(
        [NGINX, "-p", str(folder / "nginx"), "-c", "nginx.conf", "-g", "daemon off;"]
    )
    try:
        await anyio.sleep(0.5)
        posted: dict[int, float] = {}
        limits = httpx2.Limits(max_connections=None, max_keepalive_connections=256)
        usage = Usage([server.process.pid for server in servers])
        async with httpx2.AsyncHTTPTransport(limits=limits) as transport:
            started, started_cpu = time.perf_counter(), time.process_time()
            outcomes: list[Any] = [None] * flows

            async def go(number: int) -> None:
                try:
                    outcomes[number] = await one_flow(
                        number, f"{origin}/mcp", transport, posted, protocol
                    )
                except Exception as error:  # counted, not raised: every flow is reported
                    outcomes[number] = error

            async with anyio.create_task_group() as sampling:
                sampling.start_soon(usage.sample)
                async with anyio.create_task_group() as tasks:
                    for number in range(flows):
                        tasks.start_soon(go, number)
                sampling.cancel_scope.cancel()
            elapsed = time.perf_counter() - started
            clients_cpu = time.process_time() - started_cpu
        failed = [o for o in outcomes if isinstance(o, BaseException)]
        crossed = [o for o in outcomes if isinstance(o, tuple) and fingerprint_of(o[0]) not in o[1]]
        latencies = [o[2] for o in outcomes if isinstance(o, tuple)]
        print(f"mcp-elicit load: {flows} secret flows at once, {protocol}, 3 instances behind")
        print(f"nginx, store {engine}; {elapsed:.1f} s in all, {flows / elapsed:.1f} flows/s")
        print(f"  returned its own secret: {len(latencies) - len(crossed)} / {flows}")
        print(f"  failed: {len(failed)}; crossed (another flow's secret): {len(crossed)}")
        if latencies:
            print(
                f"  page POST answered -> tool result at the client: p50 "
                f"{_p(latencies, 0.5):.2f} s, p99 {_p(latencies, 0.99):.2f} s"
            )
        print(
            f"  servers (3): memory {usage.rss_before / 2**20:.0f} -> peak "
            f"{usage.rss_peak / 2**20:.0f} MiB, "
            f"{(usage.rss_peak - usage.rss_before) / flows / 1024:.0f} KiB per flow; CPU "
            f"{usage.cpu():.1f} s, {usage.cpu() / flows * 1000:.1f} ms per flow"
        )
        # Where the time goes: the clients and people all run in this one process.
        print(
            f"  clients and people (this process): CPU {clients_cpu:.1f} s of "
            f"{elapsed:.1f} s ({clients_cpu / elapsed * 100:.0f} % of a core)"
        )
        kinds: dict[str, int] = {}
        for error in failed:
            leaf = _leaf(error)
            text = f"{type(leaf).__name__}: {str(leaf)[:160]}"
            kinds[text] = kinds.get(text, 0) + 1
        for text, count in sorted(kinds.items(), key=lambda item: -item[1])[:5]:
            print(f"  {count} x {text}")
        return 0 if not failed and not crossed else 1
    finally:
        balancer.terminate()
        balancer.wait()
        for server in servers:
            server.stop()
        await _drop(engine, name)


def _leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def _drop(engine: str, name: str) -> None:
    if engine == "redis":
        from redis.asyncio import Redis

        redis = Redis.from_url(REDIS_URL)
        keys = [k async for k in redis.scan_iter(match=f"{name}:*")]
        for start in range(0, len(keys), 1000):
            await redis.delete(*keys[start : start + 1000])
        await redis.aclose()
    else:
        import asyncpg

        connection = await asyncpg.connect(DATABASE_URL)
        await connection.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        await connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--flows", type=int, default=2000)
    parser.add_argument("--store", choices=("redis", "postgresql"), default="redis")
    parser.add_argument("--protocol", choices=("2026-07-28", "2025-11-25"), default="2026-07-28")
    args = parser.parse_args()
    os.environ.setdefault("SECRET_SERVER_LOG", "WARNING")
    with tempfile.TemporaryDirectory(prefix="mcp-elicit-load-") as folder:
        return asyncio.run(run(args.flows, args.store, Path(folder), args.protocol))


if __name__ == "__main__":
    sys.exit(main())
