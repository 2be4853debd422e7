"""Three server instances behind a real nginx, on one Redis or PostgreSQL store.

The configuration is docs/deploy.md's (``tests/nginx_support.py``): a 2025-era session's
requests reach the instance that holds it (its tag leads the session id: ``SessionTag``);
everything else, the hosted pages and 2026-07-28 requests included, goes round-robin. So a
person's page is usually served by another instance than the one whose tool waits, and a
2026-07-28 retry lands wherever nginx sends it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
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
from tests.server.instances_support import (
    minus_32042_then_the_retry,
    shared_store,
    track_then_the_call_again,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.services]

TIMEOUT = 120.0
TAGS = ("a", "b", "c")


class Cluster:
    """nginx and the three instances behind it; an instance can be killed and started again
    on its port."""

    def __init__(
        self, tmp_path: Path, key: str, store: str, origin: str, options: Sequence[str] = ()
    ) -> None:
        self.tmp, self.key, self.store, self.origin = tmp_path, key, store, origin
        self.options = list(options)
        self.servers: dict[str, HttpServer] = {}
        self.lb: Nginx | None = None

    def start(self, tag: str, port: int | None = None) -> HttpServer:
        extra = ["--public-url", self.origin, "--instance", tag, *self.options]
        server = start_http(
            store=self.store,
            key=self.key,
            logs=self.tmp / "logs",
            name=tag,
            port=port,
            extra=extra,
        )
        self.servers[tag] = server
        return server

    def kill(self, tag: str) -> None:
        self.servers[tag].kill()

    def restart(self, tag: str) -> HttpServer:
        return self.start(tag, self.servers[tag].port)


@contextlib.asynccontextmanager
async def cluster(tmp_path: Path, key: str, engine: str, *options: str) -> AsyncIterator[Cluster]:
    listen = free_port()
    async with shared_store(engine) as url:
        made = Cluster(tmp_path, key, url, f"http://127.0.0.1:{listen}", options)
        try:
            for tag in TAGS:
                made.start(tag)
            ports = {tag: server.port for tag, server in made.servers.items()}
            with nginx(tmp_path / "nginx", listen, ports) as balancer:
                made.lb = balancer
                yield made
        finally:
            for server in made.servers.values():
                server.stop()


@contextlib.asynccontextmanager
async def behind_nginx(
    tmp_path: Path, key: str, engine: str, *options: str
) -> AsyncIterator[Nginx]:
    async with cluster(tmp_path, key, engine, *options) as made:
        assert made.lb is not None
        yield made.lb


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


async def test_minus_32042_and_its_retry_through_nginx(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    """The session (and its notice stream) stays on one instance; the page may be served by
    any: the completion notice still reaches the session, and the retry gets the key."""
    with anyio.fail_after(TIMEOUT):
        async with behind_nginx(tmp_path, key, engine) as lb:
            await minus_32042_then_the_retry(lb, lambda url: url, sentinel)
            routed = lb.routed()
    assert len(upstreams(routed, session=True)) == 1


async def test_the_url_drafts_track_through_nginx(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with behind_nginx(tmp_path, key, engine, "--url-draft") as lb:
            await track_then_the_call_again(lb, lambda url: url, sentinel)
            routed = lb.routed()
    assert len(upstreams(routed, session=True)) == 1


async def test_2026_07_28_an_instance_killed_mid_flow_loses_nothing_and_the_others_serve(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    """kill -9 of an instance while the person is on the page: the page, the retry and the
    result go through the other two; the instance started again serves as before."""
    async with cluster(tmp_path, key, engine) as made:
        lb = made.lb
        assert lb is not None

        async def person(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams)
            made.kill("a")  # mid-flow: whichever instance asked, a is gone now
            async with browser() as someone:
                await someone.enter(params.url, sentinel)
            return types.ElicitResult(action="accept")

        with anyio.fail_after(TIMEOUT):
            lb_server = cast(HttpServer, lb)
            async with sdk_client(lb_server, Wire(), mode="auto", callback=person) as client:
                text = text_of(await client.call_tool("connect_service", {}))
            assert fingerprint_of(sentinel) in text
            made.restart("a")
            # Everyone serves again, a included, and the stored secret is used: no question.
            async with sdk_client(lb_server, Wire(), mode="auto") as client:
                for _ in range(6):
                    again = text_of(await client.call_tool("connect_service", {}))
                    assert fingerprint_of(sentinel) in again
        # The calls after the kill were spread over the instances still up (nginx leaves a
        # failed one out for a while, so a may or may not be among them yet).
        answered = {line.split(" ")[4] for line in lb.routed()[-6:]}
        assert len(answered) >= 2, lb.routed()


async def test_2025_11_25_the_instance_holding_the_session_killed_mid_flow_loses_nothing(
    tmp_path: Path, key: str, sentinel: str, engine: str
) -> None:
    """The session dies with its instance; the flow does not. The person finishes on the
    page (another instance serves it); the client connects again and the tool finds the
    secret stored, without asking again."""
    async with cluster(tmp_path, key, engine) as made:
        lb = made.lb
        assert lb is not None
        links: list[str] = []
        entered = anyio.Event()

        async def kill_the_holder_then_enter(url: str) -> None:
            # The person is not the client: what they do goes on when the session breaks.
            held_by = upstreams(lb.routed(), session=True)
            [holder] = [t for t in TAGS if f"127.0.0.1:{made.servers[t].port}" in held_by]
            made.kill(holder)
            async with browser() as someone:
                await someone.enter(url, sentinel)
            entered.set()

        with anyio.fail_after(TIMEOUT):
            lb_server = cast(HttpServer, lb)
            async with anyio.create_task_group() as people:

                async def person(
                    context: ClientRequestContext, params: types.ElicitRequestParams
                ) -> types.ElicitResult:
                    assert isinstance(params, types.ElicitRequestURLParams)
                    links.append(params.url)
                    people.start_soon(kill_the_holder_then_enter, params.url)
                    await anyio.sleep_forever()  # the session ends first
                    raise AssertionError("unreachable")

                with pytest.raises(Exception):  # noqa: B017, PT011 - the session is gone
                    async with sdk_client(
                        lb_server, Wire(), mode="legacy", callback=person
                    ) as client:
                        await client.call_tool("connect_service", {})
                await entered.wait()
            for tag, server in list(made.servers.items()):
                if server.process.poll() is not None:
                    made.restart(tag)
            async with sdk_client(lb_server, Wire(), mode="legacy") as client:  # never asked
                text = text_of(await client.call_tool("connect_service", {}))
        assert len(links) == 1 and fingerprint_of(sentinel) in text
