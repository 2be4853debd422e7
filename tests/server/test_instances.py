"""Two server instances on one Redis or PostgreSQL store: a flow started through A and
finished on a page served by B reaches the tool (and the client) on A.

Both are real server processes (``tests/peer_servers/secret_server.py``) with the same
deployment key and program, so the same server id, sharing a Redis prefix or a PostgreSQL
schema of this test's own. The person's browser goes to B's pages, never A's. A learns of
it through the store's feed (pub/sub, LISTEN/NOTIFY) or, were a message lost, its poll of the store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.context import ClientRequestContext

from tests.peer_servers.secret_server import (
    HttpServer,
    Notices,
    Wire,
    browser,
    fingerprint_of,
    flow_id_of,
    sdk_client,
    start_http,
    text_of,
)
from tests.server.instances_support import (
    minus_32042_then_the_retry,
    shared_store,
    track_then_the_call_again,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.services]

TIMEOUT = 90.0


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
