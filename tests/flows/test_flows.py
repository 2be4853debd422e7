"""Flows: the lifecycle, the owner (server and user) check, the limit on open flows, completing
with a result in one step, expiry, waiting (in process and across instances)
and sweeping — on every engine."""

from __future__ import annotations

import json
import logging
import string
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_elicit.flows import (
    DEFAULT_MAX_OPEN_FLOWS,
    FlowError,
    FlowFinished,
    FlowNotFound,
    FlowOfAnotherUser,
    FlowRecord,
    Flows,
    FlowStatus,
    TooManyOpenFlows,
)
from mcp_elicit.flows.wakeups import Wakeups
from mcp_elicit.stores import MemoryStore, SealedSecret, SQLiteStore, Store

pytestmark = pytest.mark.anyio

# A noisy two-core machine: bounds are loose on purpose; what they tell apart is "at once"
# versus "after a poll", and "after a poll" versus "never".
SLACK = 2.0


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


Opener = Callable[[], Store]


@pytest.fixture(params=["memory", "sqlite"])
async def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    """Opens a store object on the test's one database. For SQLite each call is a new
    connection to the same file, as another instance would have; memory has one object."""
    opened: list[Store] = []
    memory = MemoryStore()

    def open_one() -> Store:
        store: Store = memory if request.param == "memory" else SQLiteStore(tmp_path / "f.db")
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        await store.aclose()


@pytest.fixture
async def store(open_store: Opener) -> Store:
    return open_store()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def flows(store: Store, clock: Clock) -> Flows:
    return Flows(store, default_ttl=600.0, clock=clock)


# --- starting -------------------------------------------------------------------------------


async def test_start_makes_a_pending_flow_with_an_unguessable_id(
    flows: Flows, store: Store, clock: Clock
) -> None:
    flow = await flows.start(user="alice", purpose="api-key", details={"name": "openai"})
    assert flow.status is FlowStatus.PENDING
    assert (flow.user, flow.purpose, dict(flow.details)) == ("alice", "api-key", {"name": "openai"})
    assert flow.created_at == flow.updated_at == clock.now
    assert flow.expires_at == clock.now + 600.0
    assert len(flow.id) >= 32 and set(flow.id) <= set(string.ascii_letters + string.digits + "-_")
    assert await flows.get(flow.id) == flow
    assert await store.get_flow(flow.id) == flow
    assert flow.server == "" and flows.server is None  # a Flows of no particular server
    many = Flows(store, max_open=None, clock=clock)
    others = {(await many.start(user="alice", purpose="p")).id for _ in range(50)}
    assert len(others | {flow.id}) == 51


async def test_ttl(flows: Flows, clock: Clock) -> None:
    flow = await flows.start(user="alice", purpose="p", ttl=5.0)
    assert flow.expires_at == clock.now + 5.0
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="ttl"):
            await flows.start(user="alice", purpose="p", ttl=bad)


async def test_details_must_be_json_and_are_copied(flows: Flows) -> None:
    details: dict[str, Any] = {"scopes": ("read", "write"), "n": 1, "nested": {"a": [None]}}
    flow = await flows.start(user="alice", purpose="p", details=details)
    details["n"] = 2
    expected = {"scopes": ["read", "write"], "n": 1, "nested": {"a": [None]}}
    assert flow.details == expected
    stored = await flows.get(flow.id)
    assert stored is not None and stored.details == expected
    for bad in ({"when": object()}, {"when": float("nan")}, {"when": {1, 2}}):
        with pytest.raises(ValueError, match="'when'"):
            await flows.start(user="alice", purpose="p", details=bad)
    with pytest.raises(ValueError, match="keys"):
        await flows.start(user="alice", purpose="p", details={1: "x"})  # type: ignore[dict-item]


async def test_a_flow_needs_a_user_and_a_purpose(flows: Flows) -> None:
    with pytest.raises(ValueError, match="user"):
        await flows.start(user="", purpose="p")
    with pytest.raises(ValueError, match="purpose"):
        await flows.start(user="alice", purpose="")


@pytest.mark.parametrize(
    ("name", "value"), [("default_ttl", 0.0), ("poll_interval", 0.0), ("poll_interval", -1.0)]
)
def test_settings_are_checked(name: str, value: float) -> None:
    with pytest.raises(ValueError, match=name):
        Flows(MemoryStore(), **{name: value})  # type: ignore[arg-type]


def test_max_open_is_checked() -> None:
    for bad in (0, -3):
        with pytest.raises(ValueError, match="max_open"):
            Flows(MemoryStore(), max_open=bad)
    assert Flows(MemoryStore()).max_open == DEFAULT_MAX_OPEN_FLOWS == 20
    assert Flows(MemoryStore(), max_open=None).max_open is None


# --- the server a flow belongs to -----------------------------------------------------------


async def test_a_flow_belongs_to_the_server_that_started_it(
    open_store: Opener, clock: Clock
) -> None:
    """Two servers sharing one store (break 1 of issue 13): each sees only its own flows,
    and cannot open, finish or wait on the other's."""
    alpha = Flows(open_store(), server="alpha", clock=clock)
    beta = Flows(open_store(), server="beta", clock=clock)
    everyone = Flows(open_store(), clock=clock)
    flow = await alpha.start(user="alice", purpose="p")
    assert flow.server == "alpha" and alpha.server == "alpha"
    assert await alpha.get(flow.id) == flow
    assert await beta.get(flow.id) is None
    for change in (beta.open, beta.complete, beta.decline):
        with pytest.raises(FlowNotFound):
            await change(flow.id, user="alice")
    with pytest.raises(FlowNotFound):
        await beta.wait(flow.id, timeout=0.1)
    assert await everyone.get(flow.id) == flow  # a view of every flow, for tools and tests
    clock.now += 601  # expired: still not beta's to see
    assert await beta.get(flow.id) is None
    expired = await alpha.get(flow.id)
    assert expired is not None and expired.status is FlowStatus.EXPIRED


# --- how many open flows one user may have --------------------------------------------------


async def test_one_user_may_have_max_open_live_flows(store: Store, clock: Clock) -> None:
    """A tool starting flows in a loop is stopped at the limit (break 5 of issue 13); the
    error names the limit and nobody."""
    flows = Flows(store, server="s", max_open=3, clock=clock)
    started = [await flows.start(user="alice", purpose="p", ttl=100) for _ in range(3)]
    with pytest.raises(TooManyOpenFlows) as refused:
        await flows.start(user="alice", purpose="p")
    assert refused.value.limit == 3 and isinstance(refused.value, FlowError)
    assert "3" in str(refused.value) and "alice" not in str(refused.value)
    # Other users, and the same user on another server, have limits of their own.
    await flows.start(user="bob", purpose="p")
    await Flows(store, server="t", max_open=3, clock=clock).start(user="alice", purpose="p")
    # A finished flow makes room; so does an expired one.
    await flows.decline(started[0].id, user="alice")
    await flows.start(user="alice", purpose="p", ttl=1000)
    with pytest.raises(TooManyOpenFlows):
        await flows.start(user="alice", purpose="p")
    clock.now += 101
    await flows.start(user="alice", purpose="p")
    await flows.start(user="alice", purpose="p")


async def test_the_default_limit_is_twenty(store: Store) -> None:
    flows = Flows(store)
    for _ in range(DEFAULT_MAX_OPEN_FLOWS):
        await flows.start(user="alice", purpose="p")
    with pytest.raises(TooManyOpenFlows, match="20"):
        await flows.start(user="alice", purpose="p")


# --- completing with what the flow received -------------------------------------------------


async def test_complete_keeps_the_result_and_stores_the_secret(store: Store) -> None:
    flows = Flows(store, server="s")
    flow = await flows.start(user="alice", purpose="p")
    entry = SealedSecret("alice", "k", b"sealed", 1.0, "s")
    done = await flows.complete(flow.id, user="alice", result=b"for-this-flow", secret=entry)
    assert done.status is FlowStatus.COMPLETED
    assert await store.flow_result(flow.id) == b"for-this-flow"
    assert await store.get_secret("alice", "k", server="s") == entry


@pytest.mark.parametrize("first", ["decline", "expire"])
async def test_a_completion_that_comes_too_late_stores_nothing(
    store: Store, clock: Clock, first: str
) -> None:
    """Save after a Decline in another tab, or after the expiry (break 2 of issue 13): the
    flow stays as it ended, and neither value is stored."""
    flows = Flows(store, server="s", clock=clock)
    flow = await flows.start(user="alice", purpose="p", ttl=10)
    if first == "decline":
        await flows.decline(flow.id, user="alice")
    else:
        clock.now += 10
    entry = SealedSecret("alice", "k", b"sealed", 1.0, "s")
    with pytest.raises(FlowFinished) as finished:
        await flows.complete(flow.id, user="alice", result=b"r", secret=entry)
    ended = FlowStatus.DECLINED if first == "decline" else FlowStatus.EXPIRED
    assert finished.value.status is ended
    assert await store.flow_result(flow.id) is None
    assert await store.get_secret("alice", "k", server="s") is None


async def test_the_secret_stored_with_a_flow_is_its_owners(store: Store) -> None:
    flows = Flows(store, server="s")
    flow = await flows.start(user="alice", purpose="p")
    for wrong in (
        SealedSecret("mallory", "k", b"x", 1.0, "s"),
        SealedSecret("alice", "k", b"x", 1.0, "elsewhere"),
    ):
        with pytest.raises(ValueError, match="owner"):
            await flows.complete(flow.id, user="alice", result=b"r", secret=wrong)
    with pytest.raises(FlowOfAnotherUser):
        await flows.complete(flow.id, user="mallory", result=b"r")
    still = await flows.get(flow.id)
    assert still is not None and still.status is FlowStatus.PENDING
    assert await store.flow_result(flow.id) is None


# --- the lifecycle --------------------------------------------------------------------------


async def test_open_then_complete(flows: Flows, clock: Clock) -> None:
    flow = await flows.start(user="alice", purpose="p")
    clock.now += 1
    opened = await flows.open(flow.id, user="alice")
    assert opened.status is FlowStatus.OPENED and opened.updated_at == clock.now
    clock.now += 1
    assert await flows.open(flow.id, user="alice") == opened, "a reload changes nothing"
    clock.now += 1
    done = await flows.complete(flow.id, user="alice")
    assert done.status is FlowStatus.COMPLETED and done.updated_at == clock.now
    assert await flows.get(flow.id) == done


@pytest.mark.parametrize("opened", [False, True])
@pytest.mark.parametrize(
    ("finish", "status"), [("complete", FlowStatus.COMPLETED), ("decline", FlowStatus.DECLINED)]
)
async def test_finish_from_pending_or_opened(
    flows: Flows, opened: bool, finish: str, status: FlowStatus
) -> None:
    flow = await flows.start(user="alice", purpose="p")
    if opened:
        await flows.open(flow.id, user="alice")
    done = await getattr(flows, finish)(flow.id, user="alice")
    assert done.status is status


@pytest.mark.parametrize(
    ("finish", "status"), [("complete", FlowStatus.COMPLETED), ("decline", FlowStatus.DECLINED)]
)
async def test_a_finished_flow_never_changes(flows: Flows, finish: str, status: FlowStatus) -> None:
    flow = await flows.start(user="alice", purpose="p")
    done = await getattr(flows, finish)(flow.id, user="alice")
    for change in (flows.open, flows.complete, flows.decline):
        with pytest.raises(FlowFinished) as caught:
            await change(flow.id, user="alice")
        assert caught.value.status is status
    assert await flows.get(flow.id) == done


async def test_unknown_flows(flows: Flows) -> None:
    assert await flows.get("no-such-flow") is None
    for change in (flows.open, flows.complete, flows.decline):
        with pytest.raises(FlowNotFound):
            await change("no-such-flow", user="alice")
    with pytest.raises(FlowNotFound):
        await flows.wait("no-such-flow", timeout=0.1)


@pytest.mark.parametrize("state", ["pending", "opened", "completed", "declined", "expired"])
async def test_another_user_learns_nothing(flows: Flows, clock: Clock, state: str) -> None:
    # The owner check comes first: a finished or expired flow of alice's is, to mallory,
    # only "not yours" — no status, no name.
    flow = await flows.start(user="alice-the-owner", purpose="p", ttl=10)
    if state == "opened":
        await flows.open(flow.id, user="alice-the-owner")
    elif state == "completed":
        await flows.complete(flow.id, user="alice-the-owner")
    elif state == "declined":
        await flows.decline(flow.id, user="alice-the-owner")
    elif state == "expired":
        clock.now += 11
    before = await flows.get(flow.id)
    for change in (flows.open, flows.complete, flows.decline):
        with pytest.raises(FlowOfAnotherUser) as caught:
            await change(flow.id, user="mallory")
        assert not isinstance(caught.value, FlowFinished)
        assert "alice" not in str(caught.value) and state not in str(caught.value)
        with pytest.raises(FlowOfAnotherUser):
            await change(flow.id, user="")
    assert await flows.get(flow.id) == before
    assert before is not None and before.status.value == state


def test_error_types() -> None:
    for error in (FlowNotFound, FlowOfAnotherUser, FlowFinished, TooManyOpenFlows):
        assert issubclass(error, FlowError)
    assert FlowFinished("x", FlowStatus.EXPIRED).status is FlowStatus.EXPIRED


async def race(here: Flows, there: Flows, flow_id: str) -> list[FlowRecord | FlowFinished]:
    outcomes: list[FlowRecord | FlowFinished] = []

    async def finish(flows: Flows, how: str) -> None:
        try:
            outcomes.append(await getattr(flows, how)(flow_id, user="alice"))
        except FlowFinished as error:
            outcomes.append(error)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(finish, here, "complete")
        tasks.start_soon(finish, there, "decline")
    return outcomes


async def test_racing_finishers_have_one_winner(open_store: Opener, clock: Clock) -> None:
    here, there = Flows(open_store(), clock=clock), Flows(open_store(), clock=clock)
    for _ in range(5):
        flow = await here.start(user="alice", purpose="p")
        outcomes = await race(here, there, flow.id)
        won = [o for o in outcomes if isinstance(o, FlowRecord)]
        lost = [o for o in outcomes if isinstance(o, FlowFinished)]
        assert len(won) == len(lost) == 1
        assert lost[0].status is won[0].status


# --- expiry ---------------------------------------------------------------------------------


async def test_expiry_is_seen_by_get_and_persisted(
    flows: Flows, store: Store, clock: Clock
) -> None:
    flow = await flows.start(user="alice", purpose="p", ttl=10)
    await flows.open(flow.id, user="alice")
    clock.now += 9.999
    live = await flows.get(flow.id)
    assert live is not None and live.status is FlowStatus.OPENED
    clock.now = flow.expires_at  # expires_at is the first instant it is no longer live
    expired = await flows.get(flow.id)
    assert expired is not None and expired.status is FlowStatus.EXPIRED
    assert expired.updated_at == clock.now
    stored = await store.get_flow(flow.id)
    assert stored is not None and stored.status is FlowStatus.EXPIRED, "persisted"
    for change in (flows.open, flows.complete, flows.decline):
        with pytest.raises(FlowFinished) as caught:
            await change(flow.id, user="alice")
        assert caught.value.status is FlowStatus.EXPIRED


async def test_expiry_is_seen_by_another_instance(open_store: Opener, clock: Clock) -> None:
    here, there = Flows(open_store(), clock=clock), Flows(open_store(), clock=clock)
    flow = await here.start(user="alice", purpose="p", ttl=10)
    clock.now += 10
    with pytest.raises(FlowFinished):
        await there.complete(flow.id, user="alice")
    seen = await here.get(flow.id)
    assert seen is not None and seen.status is FlowStatus.EXPIRED


# --- waiting --------------------------------------------------------------------------------


async def test_wait_returns_a_finished_flow_at_once(flows: Flows) -> None:
    flow = await flows.start(user="alice", purpose="p")
    done = await flows.complete(flow.id, user="alice")
    with anyio.fail_after(SLACK):
        assert await flows.wait(flow.id, timeout=None) == done
        assert await flows.wait(flow.id, timeout=0) == done


async def test_wait_times_out_with_the_current_record(store: Store) -> None:
    flows = Flows(store, poll_interval=0.05)
    flow = await flows.start(user="alice", purpose="p")
    await flows.open(flow.id, user="alice")
    started = anyio.current_time()
    with anyio.fail_after(SLACK + 0.3):
        got = await flows.wait(flow.id, timeout=0.3)
    assert anyio.current_time() - started >= 0.29
    assert got.status is FlowStatus.OPENED and got.id == flow.id
    assert (await flows.wait(flow.id, timeout=0)).status is FlowStatus.OPENED


@pytest.mark.parametrize("finish", ["complete", "decline"])
async def test_wait_wakes_at_once_for_a_change_in_this_process(store: Store, finish: str) -> None:
    # A poll interval far longer than the bound: only the in-process wake-up can be on time.
    flows = Flows(store, poll_interval=30.0)
    flow = await flows.start(user="alice", purpose="p")
    results: list[tuple[FlowRecord, float]] = []

    async def waiter() -> None:
        got = await flows.wait(flow.id, timeout=60)
        results.append((got, anyio.current_time()))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(waiter)
            tasks.start_soon(waiter)
            await anyio.sleep(0.1)  # both are waiting now
            finished_at = anyio.current_time()
            await getattr(flows, finish)(flow.id, user="alice")
    assert len(results) == 2
    for got, woke_at in results:
        assert got.status.finished
        assert woke_at - finished_at < 1.0  # vs 30 s of polling


async def test_wait_sees_a_change_by_another_instance_within_a_poll(open_store: Opener) -> None:
    # Another Flows object has its own wake-ups: only polling the store can see its change.
    # With SQLite that is another connection to the file, as another process would have.
    here = Flows(open_store(), poll_interval=0.2)
    there = Flows(open_store(), poll_interval=0.2)
    flow = await here.start(user="alice", purpose="p")
    results: list[tuple[FlowRecord, float]] = []

    async def waiter() -> None:
        got = await here.wait(flow.id, timeout=60)
        results.append((got, anyio.current_time()))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(waiter)
            await anyio.sleep(0.5)
            assert not results, "nothing happened yet"
            await there.open(flow.id, user="alice")
            await anyio.sleep(0.5)
            assert not results, "opened is not finished"
            finished_at = anyio.current_time()
            await there.complete(flow.id, user="alice")
    ((got, woke_at),) = results
    assert got.status is FlowStatus.COMPLETED
    assert woke_at - finished_at < 0.2 + SLACK


async def test_wait_returns_when_the_flow_expires(store: Store) -> None:
    # Polling alone would take 30 s; the waiter wakes for the expiry itself.
    flows = Flows(store, poll_interval=30.0)
    flow = await flows.start(user="alice", purpose="p", ttl=0.5)
    with anyio.fail_after(0.5 + SLACK):
        got = await flows.wait(flow.id, timeout=None)
    assert got.status is FlowStatus.EXPIRED
    stored = await store.get_flow(flow.id)
    assert stored is not None and stored.status is FlowStatus.EXPIRED


async def test_wait_does_not_busy_loop(store: Store) -> None:
    reads = 0

    class Counting:
        """The store, counting reads."""

        url = store.url

        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        async def get_flow(self, flow_id: str) -> FlowRecord | None:
            nonlocal reads
            reads += 1
            return await store.get_flow(flow_id)

    flows = Flows(Counting(), poll_interval=0.1)
    flow = await flows.start(user="alice", purpose="p")
    await flows.wait(flow.id, timeout=1.0)
    assert 5 <= reads <= 15  # about one read per poll, not thousands


async def test_waiting_leaves_nothing_behind() -> None:
    wakeups = Wakeups()
    with wakeups.listening("a"), wakeups.listening("a"):
        first = wakeups.event("a")
        wakeups.notify("a")
        assert first.is_set()
        assert not wakeups.event("a").is_set(), "a fresh event for the next change"
    wakeups.notify("nobody-waits")
    assert not wakeups._events and not wakeups._waiters


async def test_an_observer_hears_of_each_flow_this_process_finishes(flows: Flows) -> None:
    """What lets one task watch many flows (the completion notices after -32042) instead
    of a waiter per flow."""
    heard: list[str] = []
    done, declined, opened = [await flows.start(user="alice", purpose="p") for _ in range(3)]
    with flows.observing_finishes(heard.append):
        await flows.open(opened.id, user="alice")  # not finished: not heard
        await flows.complete(done.id, user="alice")
        await flows.decline(declined.id, user="alice")
    assert heard == [done.id, declined.id]
    await flows.complete(opened.id, user="alice")  # after the block: not heard
    assert heard == [done.id, declined.id]


# --- sweeping -------------------------------------------------------------------------------


async def test_sweep_expires_then_purges(flows: Flows, clock: Clock) -> None:
    start = clock.now
    a = await flows.start(user="alice", purpose="p", ttl=10)
    b = await flows.start(user="alice", purpose="p", ttl=10)
    await flows.open(b.id, user="alice")
    c = await flows.start(user="alice", purpose="p", ttl=1000)
    await flows.complete(c.id, user="alice")
    d = await flows.start(user="alice", purpose="p", ttl=1000)

    clock.now = start + 500
    assert await flows.sweep(keep_finished_for=100) == (2, 1)  # a, b expire; c is old
    assert await flows.get(c.id) is None
    assert await flows.sweep(keep_finished_for=100) == (0, 0)
    clock.now = start + 700  # a and b expired at +500, now 200 s ago
    assert await flows.sweep(keep_finished_for=100) == (0, 2)
    assert await flows.get(a.id) is None and await flows.get(b.id) is None
    live = await flows.get(d.id)
    assert live is not None and live.status is FlowStatus.PENDING


async def test_sweep_default_keeps_finished_flows_a_day(flows: Flows, clock: Clock) -> None:
    flow = await flows.start(user="alice", purpose="p")
    await flows.decline(flow.id, user="alice")
    clock.now += 86399
    assert await flows.sweep() == (0, 0)
    clock.now += 2
    assert await flows.sweep() == (0, 1)


async def test_the_sweeper_keeps_going_after_a_failure(
    store: Store, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    calls = 0

    class FailingOnce:
        url = store.url

        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        async def expire_flows(self, now: float) -> int:
            nonlocal calls
            calls += 1
            if calls == 1:
                raise RuntimeError("database briefly away")
            return await store.expire_flows(now)

    flows = Flows(FailingOnce(), clock=clock)
    flow = await flows.start(user="alice", purpose="p", ttl=10)
    clock.now += 20
    with caplog.at_level(logging.ERROR), anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(flows.run_sweeper, 0.05)
            while calls < 3:
                await anyio.sleep(0.02)
            tasks.cancel_scope.cancel()
    assert "flow sweep failed" in caplog.text
    stored = await store.get_flow(flow.id)
    assert stored is not None and stored.status is FlowStatus.EXPIRED


# --- what a store keeps ---------------------------------------------------------------------


async def test_details_read_back_the_same_on_every_engine(flows: Flows) -> None:
    details = {"text": "Enter your key for «Example»", "list": [1, 2.5, True, None]}
    flow = await flows.start(user="alice", purpose="p", details=details)
    got = await flows.get(flow.id)
    assert got is not None
    assert json.dumps(dict(got.details), sort_keys=True) == json.dumps(details, sort_keys=True)
