"""Three server instances behind a real nginx, on one Redis or PostgreSQL store.

The configuration is docs/deploy.md's (``tests/nginx_support.py``): a 2025-era session's
requests reach the instance that holds it (its tag leads the session id: ``SessionTag``);
everything else, the hosted pages and 2026-07-28 requests included, goes round-robin. So a
person's page is usually served by another instance than the one whose tool waits, and a
2026-07-28 retry lands wherever nginx sends it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from mcp.client.context import ClientRequestContext

from tests.nginx_support import Nginx, nginx
from tests.peer_servers.secret_server import (
    HttpServer,
    Notices,
    Wire,
    browser,
    fingerprint_of,
    flow_id_of,
    free_port,
    sdk_client,
    start_http,
    text_of,
)
from tests.server.test_instances import ENGINES, shared_store

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.services]

TIMEOUT = 120.0
TAGS = ("a", "b", "c")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@contextlib.asynccontextmanager
async def behind_nginx(tmp_path: Path, key: str, engine: str) -> AsyncIterator[Nginx]:
    listen = free_port()
    origin = f"http://127.0.0.1:{listen}"
    async with shared_store(engine) as url:
        servers: list[HttpServer] = []
        try:
            for tag in TAGS:
                extra = ["--public-url", origin, "--instance", tag]
                servers.append(
                    start_http(store=url, key=key, logs=tmp_path / "logs", name=tag, extra=extra)
                )
            ports = {tag: server.port for tag, server in zip(TAGS, servers, strict=True)}
            with nginx(tmp_path / "nginx", listen, ports) as balancer:
                yield balancer
        finally:
            for server in servers:
                server.stop()


def upstreams(lines: list[str], *, session: bool) -> set[str]:
    """The instances that answered the requests with (or without) a session id."""
    found = set()
    for line in lines:
        _method, uri, sid, _, upstream, _status = line.split(" ", 5)
        if uri == "/mcp" and (sid != "-") == session:
            found.add(upstream)
    return found


async def test_2025_11_25_a_session_stays_on_its_instance_and_the_page_may_be_elsewhere(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    asked: list[str] = []

    async def person(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        asked.append(params.url)
        async with browser() as someone:
            await someone.enter(params.url, sentinel)
        return types.ElicitResult(action="accept")

    with anyio.fail_after(TIMEOUT):
        async with behind_nginx(tmp_path, key, engine) as lb:
            notices = Notices()
            lb_server = cast(HttpServer, lb)  # sdk_client needs only .url
            async with sdk_client(
                lb_server, Wire(), mode="legacy", callback=person, notices=notices
            ) as client:
                for _ in range(3):  # three sessions' worth of calls would spread; one stays
                    await client.list_tools()
                text = text_of(await client.call_tool("connect_service", {}))
            routed = lb.routed()
    [link] = asked
    assert link.startswith(lb.origin + "/elicit/flows/")  # the pages are reached through nginx
    assert fingerprint_of(sentinel) in text
    assert notices.completed() == [flow_id_of(link)]
    # Every request of the session went to one instance (the SDK would have answered 404
    # anywhere else); the session id the client saw carries that instance's tag.
    assert len(upstreams(routed, session=True)) == 1
    sids = {line.split(" ")[2] for line in routed if line.split(" ")[2] != "-"}
    assert len({sid.split(".")[0] for sid in sids}) == 1 and all("." in s for s in sids)


async def test_2026_07_28_requests_go_round_robin_and_the_retry_resumes_anywhere(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    async def person(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        async with browser() as someone:
            await someone.enter(params.url, sentinel)
        return types.ElicitResult(action="accept")

    with anyio.fail_after(TIMEOUT):
        async with behind_nginx(tmp_path, key, engine) as lb:
            lb_server = cast(HttpServer, lb)
            async with sdk_client(lb_server, Wire(), mode="auto", callback=person) as client:
                assert client.protocol_version == "2026-07-28"
                text = text_of(await client.call_tool("connect_service", {}))
            routed = lb.routed()
    assert fingerprint_of(sentinel) in text
    # No session: the call, its retry and the pages were spread over the instances.
    spread: Any = upstreams(routed, session=False)
    assert len(spread) >= 2, routed
