"""Installing and running ``Elicitation``: refusals that protect users, and the one task
that sends completion notices after -32042."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from mcp_elicit.flows import Flows
from mcp_elicit.revisions import Revision
from mcp_elicit.server import DeploymentKey, Elicitation, secret_required
from mcp_elicit.server.completions import COMPLETION_TASK, CompletionWatcher
from mcp_elicit.server.identity import LOCAL_USER
from mcp_elicit.stores import FlowRecord, MemoryStore, Store

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "::"])
async def test_a_single_user_identity_is_never_served_beyond_loopback(host: str) -> None:
    elicitation = Elicitation(MCPServer("x"), key=DeploymentKey.generate(), store="memory://")
    with pytest.raises(ValueError, match="LocalIdentity is single-user"):
        await elicitation.run_async("streamable-http", host=host, port=1)


def test_a_public_url_that_is_not_an_origin_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="public_url must be an http:// or https:// origin"):
        Elicitation(
            MCPServer("x"), key=DeploymentKey.generate(), store="memory://", public_url="pages"
        )


def test_installing_twice_on_one_server_is_refused() -> None:
    server = MCPServer("x")
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")
    with pytest.raises(RuntimeError, match="already installed"):
        Elicitation(server, key=DeploymentKey.generate(), store="memory://")


# -- completion notices after -32042, through a real client ---------------------------------


async def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.01)


def watcher_tasks() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == COMPLETION_TASK]


class Notices:
    def __init__(self) -> None:
        self.completed: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            self.completed.append(message.params.elicitation_id)


@contextlib.asynccontextmanager
async def later_server() -> AsyncIterator[tuple[Elicitation, Client, Notices]]:
    """A running server whose ``later`` tool answers -32042, and a 2025-11-25 client."""
    server = MCPServer("later")
    elicitation = Elicitation(
        server, key=DeploymentKey.generate(), store="memory://", public_url="http://127.0.0.1:9"
    )

    @server.tool()
    async def later(ctx: Context) -> str:
        raise await secret_required(ctx, "API_KEY", "Your API key, to connect")

    async def never_asked(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError(f"-32042 only, never a request: {params}")

    notices = Notices()
    async with (
        elicitation.running(),
        # A callback makes the client declare elicitation (form and URL mode); without URL
        # mode the tool's link would be a tool error, not -32042.
        Client(
            server, mode="legacy", elicitation_callback=never_asked, message_handler=notices
        ) as client,
    ):
        assert client.protocol_version == "2025-11-25"
        yield elicitation, client, notices


async def minus_32042(client: Client) -> str:
    """Call ``later``; the flow id its -32042 links to."""
    with pytest.raises(MCPError) as raised:
        await client.call_tool("later", {})
    assert raised.value.error.code == -32042
    data = raised.value.error.data
    assert isinstance(data, dict)
    (item,) = data["elicitations"]
    flow_id: str = item["elicitationId"]
    return flow_id


async def test_one_task_watches_every_flow_and_each_completion_is_told() -> None:
    async with later_server() as (elicitation, client, notices):
        assert watcher_tasks() == []  # started on first use, not before
        first = await minus_32042(client)
        assert len(watcher_tasks()) == 1
        tasks_with_one = len(asyncio.all_tasks())
        # 20 flows: within the open links one user may have at once (a default limit).
        rest = [await minus_32042(client) for _ in range(19)]
        # One watcher for 20 flows (it used to be a task each).
        assert len(watcher_tasks()) == 1
        assert len(asyncio.all_tasks()) <= tasks_with_one
        for flow_id in [first, *rest]:
            await elicitation.flows.complete(flow_id, user=LOCAL_USER)
        await until(lambda: len(notices.completed) == 20)
        assert sorted(notices.completed) == sorted([first, *rest])


async def test_a_declined_flow_is_not_told_and_the_retry_gets_a_fresh_link() -> None:
    async with later_server() as (elicitation, client, notices):
        declined = await minus_32042(client)
        completed = await minus_32042(client)
        await elicitation.flows.decline(declined, user=LOCAL_USER)
        await elicitation.flows.complete(completed, user=LOCAL_USER)
        await until(lambda: notices.completed == [completed])
        # The retry after a decline is sent the link again, for a new flow.
        again = await minus_32042(client)
        assert again not in (declined, completed)
        await anyio.sleep(0.2)
        assert notices.completed == [completed]


# -- the watcher itself, with stand-in sessions ---------------------------------------------


class Session:
    """A stand-in for ``ServerSession``: records notices, or fails or hangs on demand."""

    def __init__(self, *, fail: bool = False, hang: bool = False) -> None:
        self.told: list[str] = []
        self.fail = fail
        self.hang = hang

    async def send_elicit_complete(self, elicitation_id: str) -> None:
        if self.fail:
            raise anyio.ClosedResourceError
        if self.hang:
            await anyio.sleep_forever()
        self.told.append(elicitation_id)


class CountingStore(MemoryStore):
    """Counts reads, and can lose flows or fail to read them."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.lost: set[str] = set()
        self.broken: set[str] = set()

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        self.reads += 1
        if flow_id in self.broken:
            raise OSError("disk on fire")
        if flow_id in self.lost:
            return None
        return await super().get_flow(flow_id)


@pytest.fixture
async def store() -> AsyncIterator[CountingStore]:
    opened = CountingStore()
    yield opened
    await opened.aclose()


@contextlib.asynccontextmanager
async def watching(flows: Flows, **options: Any) -> AsyncIterator[CompletionWatcher]:
    watcher = CompletionWatcher(flows, **options)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watcher.run)
        yield watcher
        tasks.cancel_scope.cancel()


async def start(flows: Flows, **options: Any) -> str:
    return (await flows.start(user="u", purpose="secret", **options)).id


async def test_finished_flows_leave_and_only_completed_ones_are_told(store: Store) -> None:
    flows = Flows(store)
    session = Session()
    async with watching(flows, interval=3600) as watcher:
        done, declined, expiring = await start(flows), await start(flows), await start(flows)
        for flow_id in (done, declined, expiring):
            assert watcher.watch(flow_id, session, f"e-{flow_id}")
        # Finished in this process: told at once, not at the next read (an hour away).
        await flows.decline(declined, user="u")
        await flows.complete(done, user="u")
        await until(lambda: session.told == [f"e-{done}"])
        await until(lambda: declined not in watcher)
        assert expiring in watcher and len(watcher) == 1
    async with watching(flows, interval=0.05) as watcher:
        short = await start(flows, ttl=0.2)
        watcher.watch(short, session, short)
        await until(lambda: short not in watcher)  # expired: dropped, not told
    assert session.told == [f"e-{done}"]


async def test_a_flow_finished_by_another_instance_is_found_by_polling(
    store: CountingStore,
) -> None:
    here, there = Flows(store), Flows(store)  # two instances on one store
    session = Session()
    async with watching(here, interval=0.05) as watcher:
        flow_ids = [await start(there) for _ in range(3)]
        for flow_id in flow_ids:
            watcher.watch(flow_id, session, flow_id)
        await anyio.sleep(0.3)
        # Several passes so far, each one read per watched flow.
        assert store.reads >= 6 and store.reads % 3 == 0
        for flow_id in flow_ids:
            await there.complete(flow_id, user="u")
        await until(lambda: sorted(session.told) == sorted(flow_ids))
        assert len(watcher) == 0
        reads = store.reads
        await anyio.sleep(0.2)
        assert store.reads == reads  # nothing watched, nothing read


async def test_lost_and_unreadable_flows_cost_their_notice_not_the_watcher(
    store: CountingStore, caplog: pytest.LogCaptureFixture
) -> None:
    flows = Flows(store)
    session = Session()
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.server.completions"):
        async with watching(flows, interval=0.05) as watcher:
            lost, broken, fine = await start(flows), await start(flows), await start(flows)
            store.lost.add(lost)
            store.broken.add(broken)
            for flow_id in (lost, broken, fine):
                watcher.watch(flow_id, session, flow_id)
            await until(lambda: lost not in watcher and broken not in watcher)
            await flows.complete(fine, user="u")
            await until(lambda: session.told == [fine])
    assert f"flow {lost}: no completion notice will be sent (it is no longer" in caplog.text
    assert "1 watched flow(s): no completion notice will be sent (reading them" in caplog.text


async def test_gone_and_stuck_sessions_do_not_stop_the_others(store: Store) -> None:
    flows = Flows(store)
    fine, gone, stuck = Session(), Session(fail=True), Session(hang=True)
    async with watching(flows, interval=3600, delivery_timeout=0.2) as watcher:
        flow_id = await start(flows)
        for session in (stuck, gone, fine):
            watcher.watch(flow_id, session, flow_id)
        await flows.complete(flow_id, user="u")
        await until(lambda: fine.told == [flow_id])
        assert len(watcher) == 0
        # ... and the watcher is still at work.
        another = await start(flows)
        watcher.watch(another, fine, another)
        await flows.complete(another, user="u")
        await until(lambda: fine.told == [flow_id, another])


async def test_the_number_of_watched_flows_is_capped(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    flows = Flows(store)
    session = Session()
    async with watching(flows, interval=3600, limit=2) as watcher:
        first, second, third = await start(flows), await start(flows), await start(flows)
        assert watcher.watch(first, session, first) and watcher.watch(second, session, second)
        with caplog.at_level(logging.WARNING, logger="mcp_elicit.server.completions"):
            assert not watcher.watch(third, session, third)
        assert f"flow {third}: no completion notice will be sent (2 flows are" in caplog.text
        assert third not in watcher
        assert watcher.watch(first, session, first)  # the same -32042 again: still in
        await flows.complete(first, user="u")
        await until(lambda: first not in watcher)
        assert watcher.watch(third, session, third)  # room again
        assert session.told == [first]  # told once, though watched twice


async def test_no_notice_when_elicitation_is_not_running(
    caplog: pytest.LogCaptureFixture,
) -> None:
    elicitation = Elicitation(MCPServer("x"), key=DeploymentKey.generate(), store="memory://")
    with caplog.at_level(logging.WARNING):
        completions = elicitation.runtime.completions
        told = completions.after_required(
            Revision.V2025_11_25,
            "f1",
            session=Session(),  # type: ignore[arg-type]
            elicitation_id="f1",
        )
        assert not told
    assert "Elicitation is not running" in caplog.text
