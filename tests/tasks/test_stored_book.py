"""A TaskBook on a shared store (design §4): several books (instances) on one store, the
sealed record at rest, an answer committed on one instance waking the ask on another, the
owner's lease, and the sweeper failing a task whose owner was killed, within the bound.

Memory and SQLite here; Redis and PostgreSQL, with their task feed, under ``services``."""

from __future__ import annotations

import math
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_elicit.protocol.codes import INTERNAL_ERROR
from mcp_elicit.stores import MemoryStore, SQLiteStore, Store, StoreError, TooManyTasks, open_store
from mcp_elicit.tasks import NO_CHANGE, TaskState, answer, cancel, create, request_input
from mcp_elicit.tasks.lifecycle import RESULT_TOO_LARGE, TaskBook, TaskGone
from mcp_elicit.tasks.records import MAX_PAYLOAD
from mcp_elicit.tasks.storage import StoredTasks
from tests import markers
from tests.peers import missing
from tests.stores.support import DATABASE_URL, drop

pytestmark = pytest.mark.anyio

KEY = os.urandom(32)
FORM = {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object"}}
SENTINEL = "S3NT1NEL-typed-by-a-person"
ACCEPT = {"action": "accept", "content": {"name": SENTINEL}}
ORPHANED = "The server instance running this task stopped; the task cannot continue"


def new(
    task_id: str = "task-1", *, now: float, lease: float = 15.0, user: str = "alice"
) -> TaskState:
    return create(
        task_id=task_id,
        server="srv",
        user=user,
        revision="2026-07-28",
        tool="book",
        now=now,
        ttl_ms=3_600_000,
        poll_interval_ms=1_000,
        instance="inst-a",
        lease_until=now + lease,
    )


def book_on(store: Store) -> TaskBook:
    return TaskBook(StoredTasks(store, [KEY]))


async def first_key(book: TaskBook, task_id: str = "task-1") -> str:
    """The first question's key, once the asker has committed it."""
    with anyio.fail_after(10):
        while True:
            record = await book.aget(task_id)
            if record is not None and record.outstanding:
                return next(iter(record.outstanding))
            await anyio.sleep(0.01)


async def answer_through(book: TaskBook, key: str, now: float) -> None:
    def answering(record: TaskState) -> TaskState | Any:
        return answer(record, {key: ACCEPT}, now=now)[0]

    assert await book.acommit("task-1", answering) is not NO_CHANGE


# -- one book, one store -----------------------------------------------------------------------


async def test_a_book_on_a_store_keeps_sealed_records_and_refuses_the_sync_calls() -> None:
    store = MemoryStore()
    book = book_on(store)
    record = new(now=time.time())
    await book.ainsert(record)
    assert await book.aget("task-1") == record
    stored = await store.get_task("task-1")
    assert stored is not None and stored.version == record.version
    assert b"book" not in stored.payload  # even the tool's name is sealed
    with pytest.raises(TypeError, match="asynchronous"):
        book.get("task-1")
    with pytest.raises(TypeError, match="asynchronous"):
        book.commit("task-1", lambda r: cancel(r, now=0.0))


async def test_the_limit_counts_the_owners_tasks_in_the_store() -> None:
    book = book_on(MemoryStore())
    now = time.time()
    await book.ainsert(new("t1", now=now), limit=2)
    await book.ainsert(new("t2", now=now), limit=2)
    with pytest.raises(TooManyTasks):
        await book.ainsert(new("t3", now=now), limit=2)
    await book.ainsert(new("t4", now=now, user="bob"), limit=2)


@pytest.mark.parametrize("on_store", [False, True])
async def test_tasks_of_pages_an_owners_tasks_oldest_first(on_store: bool) -> None:
    book = book_on(MemoryStore()) if on_store else TaskBook()
    for n, task_id in enumerate(["c", "a", "b"]):
        await book.ainsert(new(task_id, now=1000.0 + n))
    await book.ainsert(new("z", now=999.0, user="bob"))
    first = await book.tasks_of("srv", "alice", limit=2)
    assert [r.id for r in first] == ["c", "a"]
    assert first[0] == await book.aget("c")
    rest = await book.tasks_of("srv", "alice", after="a")
    assert [r.id for r in rest] == ["b"]
    assert await book.tasks_of("srv", "alice", after="z") == []  # bob's: a stale cursor


async def test_a_record_that_does_not_open_reads_as_no_task() -> None:
    store = MemoryStore()
    await book_on(store).ainsert(new(now=time.time()))
    assert await TaskBook(StoredTasks(store, [os.urandom(32)])).aget("task-1") is None


async def test_a_result_too_large_to_keep_fails_the_task_saying_so() -> None:
    book = book_on(MemoryStore())
    now = time.time()
    await book.ainsert(new(now=now))
    huge = {"content": [{"type": "text", "text": "x" * MAX_PAYLOAD}]}
    done = await book.afinish("task-1", now=now + 1, result=huge)
    assert isinstance(done, TaskState) and done.status == "failed"
    assert done.error == {"code": INTERNAL_ERROR, "message": RESULT_TOO_LARGE}
    assert await book.aget("task-1") == done
    small = await book.afinish("task-1", now=now + 2, result={"content": []})
    assert small is NO_CHANGE  # terminal already


# -- two books (instances) on one SQLite file: no feed, the waiters poll --------------------------


@asynccontextmanager
async def two_sqlite_books(tmp_path: Path) -> AsyncIterator[tuple[TaskBook, TaskBook, Path]]:
    path = tmp_path / "tasks.db"
    one, other = SQLiteStore(path), SQLiteStore(path)
    try:
        yield book_on(one), book_on(other), path
    finally:
        await one.aclose()
        await other.aclose()


async def test_an_answer_committed_on_b_reaches_the_ask_on_a(tmp_path: Path) -> None:
    async with two_sqlite_books(tmp_path) as (a, b, _path):
        await a.ainsert(new(now=time.time()))
        got: list[Any] = []
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:

                async def asking() -> None:
                    got.append(await a.ask("task-1", FORM, now=time.time, timeout=10))

                tasks.start_soon(asking)
                key = await first_key(b)
                await answer_through(b, key, time.time())
        assert got == [ACCEPT]
        record = await b.aget("task-1")
        assert record is not None and record.answered[key].settled
        assert record.status == "working"
        # At rest, the file holds the answer only sealed.
        raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
        assert SENTINEL.encode() not in raw


async def test_a_cancel_on_b_ends_the_ask_on_a(tmp_path: Path) -> None:
    async with two_sqlite_books(tmp_path) as (a, b, _path):
        await a.ainsert(new(now=time.time()))
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:

                async def asking() -> None:
                    with pytest.raises(TaskGone):
                        await a.ask("task-1", FORM, now=time.time, timeout=10)

                tasks.start_soon(asking)
                await first_key(b)
                await b.acommit("task-1", lambda r: cancel(r, now=time.time()))


async def test_many_answers_at_once_from_two_books_each_commit_once(tmp_path: Path) -> None:
    """The compare-and-set under a race: every writer retries on the newest record, and no
    answer is lost or applied twice."""
    async with two_sqlite_books(tmp_path) as (a, b, _path):
        record = new(now=time.time())
        keys = []
        for n in range(8):
            asked = request_input(record, FORM, epoch=1, now=record.created_at, base=f"k{n}")
            assert isinstance(asked, tuple)
            record, key = asked
            keys.append(key)
        await a.ainsert(record)
        async with anyio.create_task_group() as tasks:
            for n, key in enumerate(keys):
                tasks.start_soon(answer_through, a if n % 2 else b, key, record.created_at + 1)
        final = await a.aget("task-1")
        assert final is not None and sorted(final.answered) == sorted(keys)
        assert final.version == record.version + len(keys) and final.status == "working"


# -- the lease and the sweeper -----------------------------------------------------------------


async def test_the_owner_renews_its_lease_until_the_task_ends(tmp_path: Path) -> None:
    async with two_sqlite_books(tmp_path) as (a, b, _path):
        await a.ainsert(new(now=time.time(), lease=1.0))
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:

                async def holding() -> None:
                    why = await a.keep_lease("task-1", clock=time.time, every=0.05, length=1.0)
                    assert why == "ended"

                tasks.start_soon(holding)
                await anyio.sleep(0.3)
                renewed = await b.aget("task-1")
                assert renewed is not None and renewed.version > 1
                assert await b.sweep(time.time()) == 0  # the lease holds
                await b.acommit("task-1", lambda r: cancel(r, now=time.time()))


async def test_the_sweep_fails_an_orphan_keeping_its_answers(tmp_path: Path) -> None:
    async with two_sqlite_books(tmp_path) as (a, b, _path):
        now = time.time()
        await a.ainsert(new(now=now, lease=15.0))
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(lambda: a.ask("task-1", FORM, now=time.time, timeout=10))
                key = await first_key(b)
                tasks.cancel_scope.cancel()  # the owner's run dies with its key out
        # An answer lands after the owner died; nothing renews the lease any more.
        await answer_through(b, key, now + 1)
        assert await b.sweep(now + 15) == 0  # lease_until == now: not yet past
        assert await b.sweep(now + 16) == 1
        record = await a.aget("task-1")
        assert record is not None and record.status == "failed"
        assert record.error is not None and record.error["code"] == INTERNAL_ERROR
        assert record.error["message"] == ORPHANED
        assert record.error["data"] == {"answeredKeys": [key]}
        assert dict(record.answered[key].response) == ACCEPT
        assert record.lease.epoch == 2  # a late write of the old owner is fenced
        assert await b.sweep(now + 17) == 0


async def test_the_inline_check_fails_an_expired_task_before_it_is_served() -> None:
    book = book_on(MemoryStore())
    now = time.time()
    await book.ainsert(new(now=now))
    assert (await book.settle_stale("task-1", now=now + 1)) == await book.aget("task-1")
    expired = await book.settle_stale("task-1", now=now + 3600)
    assert expired is not None and expired.status == "failed"
    assert expired.status_message == "The task's ttl of 3600000 ms ran out"


# -- Redis and PostgreSQL: two instances, the task feed -----------------------------------------


REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


@asynccontextmanager
async def redis_pair() -> AsyncIterator[tuple[Store, Store]]:
    markers.require("services")
    prefix = f"test-{uuid.uuid4().hex}:"
    one, other = (
        open_store(f"{REDIS_URL}?prefix={prefix}"),
        open_store(f"{REDIS_URL}?prefix={prefix}"),
    )
    try:
        await one.get_task("ping")
    except StoreError as error:
        missing(f"Redis at {REDIS_URL} ({error}); start it: see README")
    try:
        yield one, other
    finally:
        redis = one._redis  # type: ignore[attr-defined]
        keys = [k async for k in redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await one.aclose()
        await other.aclose()


@asynccontextmanager
async def postgres_pair() -> AsyncIterator[tuple[Store, Store]]:
    markers.require("services")
    schema = f"t_{uuid.uuid4().hex}"
    url = f"{DATABASE_URL}?schema={schema}"
    one, other = open_store(url), open_store(url)
    try:
        await one.get_task("ping")
    except StoreError as error:
        missing(f"PostgreSQL at {DATABASE_URL} ({error}); start it: see README")
    try:
        yield one, other
    finally:
        await one.aclose()
        await other.aclose()
        await drop(schema)


PAIRS: dict[str, Callable[[], Any]] = {"redis": redis_pair, "postgresql": postgres_pair}


@pytest.mark.services
@pytest.mark.parametrize("engine", sorted(PAIRS))
async def test_an_answer_through_b_wakes_the_ask_on_a_by_the_feed(engine: str) -> None:
    async with PAIRS[engine]() as (one, other):
        a, b = book_on(one), book_on(other)
        await a.ainsert(new(now=time.time()))
        got: list[Any] = []
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tasks:
                await tasks.start(_feed_of, a)

                async def asking() -> None:
                    got.append(await a.ask("task-1", FORM, now=time.time, timeout=20))

                tasks.start_soon(asking)
                key = await first_key(b)
                await anyio.sleep(0.1)  # the asker waits on its event now
                answered_at = time.monotonic()
                await answer_through(b, key, time.time())
                with anyio.fail_after(2):  # the feed, not the 5 s backstop
                    while not got:
                        await anyio.sleep(0.01)
                woke_after = time.monotonic() - answered_at
                tasks.cancel_scope.cancel()
        assert got == [ACCEPT]
        assert woke_after < 2


async def _feed_of(book: TaskBook, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
    """Run the book's feed, reporting started once it listens."""
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(book.run_feed)
        with anyio.fail_after(10):
            while not book._feed_listening:
                await anyio.sleep(0.01)
        task_status.started()


@pytest.mark.services
@pytest.mark.parametrize("engine", sorted(PAIRS))
async def test_a_killed_owner_fails_its_task_within_the_bound(engine: str) -> None:
    """kill -9 of A, scaled down: A's renewals stop; B's sweeper fails the task within one
    lease plus one sweep, and the answer given before keeps its place in the record."""
    lease, every = 0.6, 0.2
    async with PAIRS[engine]() as (one, other):
        a, b = book_on(one), book_on(other)
        await a.ainsert(new(now=time.time(), lease=lease))
        with anyio.fail_after(20):
            async with anyio.create_task_group() as owner:
                owner.start_soon(
                    lambda: a.keep_lease("task-1", clock=time.time, every=every, length=lease)
                )
                owner.start_soon(lambda: a.ask("task-1", FORM, now=time.time, timeout=20))
                key = await first_key(b)
                await anyio.sleep(lease * 2)  # renewals keep it alive past the first lease
                alive = await b.aget("task-1")
                assert alive is not None and not alive.terminal
                owner.cancel_scope.cancel()  # A dies: its ask and its renewals with it
            killed_at = time.time()
            await answer_through(b, key, killed_at)
            async with anyio.create_task_group() as sweeping:
                sweeping.start_soon(lambda: b.run_sweeper(clock=time.time, every=every))
                while True:
                    record = await b.aget("task-1")
                    assert record is not None
                    if record.terminal:
                        break
                    await anyio.sleep(0.02)
                sweeping.cancel_scope.cancel()
        failed_after = time.time() - killed_at
        assert failed_after <= lease + every + 0.5  # the bound, with room for slow cores
        assert record.status == "failed" and record.error is not None
        assert record.error["message"] == ORPHANED
        assert record.error["data"] == {"answeredKeys": [key]}
        assert dict(record.answered[key].response) == ACCEPT


def test_the_memory_default_is_unchanged() -> None:
    """The sync API still works on a book made as before."""
    book = TaskBook()
    book.insert(new(now=0.0, lease=math.inf))
    assert book.get("task-1") is not None and book.all()
