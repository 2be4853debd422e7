"""Two server instances on one Redis or PostgreSQL store: a flow started through A and
finished on a page served by B reaches the tool (and the client) on A.

Both are real server processes (``tests/peer_servers/secret_server.py``) with the same
deployment key and program, so the same server id, sharing a Redis prefix or a PostgreSQL
schema of this test's own. The person's browser goes to B's pages, never A's. A learns of
it through the store's feed (pub/sub, LISTEN/NOTIFY) or, were a message lost, its poll of the store.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from mcp.client.context import ClientRequestContext

from mcp_elicit.stores import open_store
from tests.nginx_support import Nginx
from tests.peer_servers.secret_server import (
    HttpServer,
    Notices,
    Wire,
    browser,
    fingerprint_of,
    flow_id_of,
    mcp_http,
    sdk_client,
    start_http,
    text_of,
)
from tests.peers import missing
from tests.server.test_url_mode import RawHttp

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.services]

TIMEOUT = 90.0
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


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
            from tests.stores.test_postgres import drop

            await drop(name)
        await store.aclose()


@asynccontextmanager
async def two_instances(
    tmp_path: Path, key: str, engine: str, *options: str
) -> AsyncIterator[tuple[HttpServer, HttpServer]]:
    async with shared_store(engine) as url:
        logs = tmp_path / "logs"
        a = start_http(store=url, key=key, logs=logs, name="a", extra=options)
        b = start_http(store=url, key=key, logs=logs, name="b", extra=options)
        try:
            yield a, b
        finally:
            a.stop()
            b.stop()


def on(other: HttpServer, url: str) -> str:
    """The same flow link, on the other instance's pages."""
    found = flow_id_of(url)
    return f"{other.origin}/elicit/flows/{found}"


async def test_a_secret_started_on_a_and_entered_on_b_returns_to_the_tool_on_a(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    asked: list[str] = []

    async def person(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        asked.append(params.url)
        async with browser() as someone:
            await someone.enter(on(b, params.url), sentinel)
        return types.ElicitResult(action="accept")

    with anyio.fail_after(TIMEOUT):
        async with two_instances(tmp_path, key, engine) as (a, b):
            notices = Notices()
            async with sdk_client(
                a, Wire(), mode="legacy", callback=person, notices=notices
            ) as client:
                text = text_of(await client.call_tool("connect_service", {}))
            [link] = asked
            assert link.startswith(a.origin)  # A made the link; B's page took the secret
            assert fingerprint_of(sentinel) in text
            # A's session was told the flow completed, though B completed it.
            assert notices.completed() == [flow_id_of(link)]


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
    from tests.server.oauth.test_downstream_draft import DraftSession

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


async def test_minus_32042_on_a_completed_on_b_then_the_retry_on_a(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with two_instances(tmp_path, key, engine) as (a, b):
            await minus_32042_then_the_retry(a, lambda url: on(b, url), sentinel)


async def test_the_url_drafts_track_on_a_returns_when_b_completes_the_flow(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    """-32604 from A; ``elicitation/track`` held on A returns once the person has entered
    the secret on B's page; the call again on A gets it."""
    with anyio.fail_after(TIMEOUT):
        async with two_instances(tmp_path, key, engine, "--url-draft") as (a, b):
            await track_then_the_call_again(a, lambda url: on(b, url), sentinel)


async def test_2026_07_28_a_retry_held_on_a_returns_when_b_completes_the_flow(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    """The client retries as soon as the person agrees to open the link; A holds that retry
    (``url_resume_wait``) while the person is still on B's page, and the held retry
    returns the tool's result once B has taken the secret: the link is asked for once."""
    asked: list[str] = []
    entered = anyio.Event()

    async def person(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        asked.append(params.url)
        tasks.start_soon(enter_later, params.url)
        return types.ElicitResult(action="accept")  # before the page is done: A holds

    async def enter_later(url: str) -> None:
        await anyio.sleep(1.0)  # the retry is on A and held by now
        async with browser() as someone:
            await someone.enter(on(b, url), sentinel)
        entered.set()

    with anyio.fail_after(TIMEOUT):
        async with (
            two_instances(tmp_path, key, engine) as (a, b),
            anyio.create_task_group() as tasks,
        ):
            async with sdk_client(a, Wire(), mode="auto", callback=person) as client:
                assert client.protocol_version == "2026-07-28"
                text = text_of(await client.call_tool("connect_service", {}))
            assert entered.is_set()
    assert fingerprint_of(sentinel) in text
    assert len(asked) == 1  # the held retry got the result, not the link again
