"""Server instances sharing one Redis or PostgreSQL store, and what a person and a client do
across them (tests/server/test_instances.py, tests/server/test_load_balancer.py)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio

from mcp_elicit.stores import open_store
from tests.nginx_support import Nginx
from tests.peer_servers.secret_server import (
    HttpServer,
    Wire,
    browser,
    fingerprint_of,
    mcp_http,
)
from tests.peers import missing
from tests.server.wire_support import DraftSession, RawHttp
from tests.stores.support import DATABASE_URL, drop

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


@asynccontextmanager
async def shared_store(engine: str) -> AsyncIterator[str]:
    """A store URL of this test's own on ``engine``; emptied afterwards."""
    name = f"t_{uuid.uuid4().hex}"
    base, option = (REDIS_URL, "prefix") if engine == "redis" else (DATABASE_URL, "schema")
    url = f"{base}?{option}={name}" + (":" if engine == "redis" else "")
    store = open_store(url)
    try:
        await store.get_flow("ping")
    except Exception as error:
        missing(f"{engine} at {store.url} ({error})")
    try:
        yield url
    finally:
        if engine == "redis":
            redis = store._redis  # type: ignore[attr-defined]
            keys = [k async for k in redis.scan_iter(match=f"{name}:*")]
            if keys:
                await redis.delete(*keys)
        else:
            await drop(name)
        await store.aclose()


async def minus_32042_then_the_retry(
    endpoint: HttpServer | Nginx, page: Callable[[str], str], sentinel: str
) -> None:
    """-32042 from ``endpoint``; the person enters the secret at ``page(link)``; the
    completion notice arrives on the session's stream and the call again returns the key."""
    raw = RawHttp(cast(HttpServer, endpoint), Wire())
    try:
        await raw.initialize()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(raw.listen)
            await raw.stream_open.wait()
            answer = await raw.request("tools/call", {"name": "connect_later", "arguments": {}})
            [item] = answer["error"]["data"]["elicitations"]
            async with browser("alice") as someone:
                await someone.enter(page(item["url"]), sentinel)
            while not any(
                m.get("method") == "notifications/elicitation/complete" for m in raw.stream
            ):
                await raw.streamed.wait()
            retried = await raw.request("tools/call", {"name": "connect_later", "arguments": {}})
            assert fingerprint_of(sentinel) in retried["result"]["content"][0]["text"]
            tasks.cancel_scope.cancel()
    finally:
        await raw.aclose()


async def track_then_the_call_again(
    endpoint: HttpServer | Nginx, page: Callable[[str], str], sentinel: str
) -> None:
    """The URL-mode draft: -32604 from ``endpoint``; ``elicitation/track`` is held until the
    person enters the secret at ``page(link)``, then returns; the call again gets the key."""
    async with mcp_http("alice", Wire()) as http:
        session = DraftSession(http, endpoint.url)
        await session.start()
        refused = await session.request("tools/call", {"name": "connect_later", "arguments": {}})
        assert refused["error"]["code"] == -32604, refused
        [item] = refused["error"]["data"]["elicitations"]
        tracked: dict[str, Any] = {}

        async def track() -> None:
            tracked.update(
                await session.request(
                    "elicitation/track",
                    {"_meta": {"progressToken": "t"}, "elicitationId": item["elicitationId"]},
                )
            )

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(track)
            await anyio.sleep(0.3)
            assert tracked == {}  # held while nobody has entered anything
            async with browser() as someone:
                await someone.enter(page(item["url"]), sentinel)
        assert "result" in tracked, tracked
        again = await session.request("tools/call", {"name": "connect_later", "arguments": {}})
        assert fingerprint_of(sentinel) in again["result"]["content"][0]["text"]
