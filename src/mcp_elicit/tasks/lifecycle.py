"""Tasks with I/O: where records are kept, how a change is committed, and how the tool code of
a task waits for its answer. The rules are :mod:`mcp_elicit.tasks.state`'s; this module only
commits what its pure functions return.

Where the records are kept is the book's storage (:mod:`mcp_elicit.tasks.storage`): this
process's memory by default, or a shared store (design ``docs/tasks-design.md`` §4), where the
state is sealed (:mod:`mcp_elicit.tasks.records`). Either way:

- every write is a compare-and-set on ``version`` (:meth:`TaskBook.acommit`), retried
  :data:`RETRIES` times when it loses a race;
- each task has a wake-up event, set by every commit here and, on a store with a
  :class:`~mcp_elicit.stores.TaskFeed`, by every change another instance announces
  (:meth:`TaskBook.run_feed`); a waiter takes it *before* reading the record, so a change
  between the read and the wait is not missed, and it reads the store anyway every
  :data:`BACKSTOP` seconds (:data:`FEED_BACKSTOP` while the feed listens);
- the instance that created a task owns it under epoch 1. On a store, it renews its lease
  (:meth:`TaskBook.keep_lease`: ``lease_until = now + 15 s`` every 5 s), and every instance's
  sweeper (:meth:`TaskBook.run_sweeper`) fails the tasks whose lease or ttl ran out, so a task
  whose owner was killed fails within 20 s. In memory the one owner's lease never ends.

The synchronous methods (:meth:`TaskBook.get`, :meth:`~TaskBook.all`, :meth:`~TaskBook.insert`,
:meth:`~TaskBook.replace`, :meth:`~TaskBook.commit`, :meth:`~TaskBook.purge`) are the memory
engine's only: a store is asynchronous, so a book on one uses their ``a``-prefixed
counterparts (:meth:`~TaskBook.aget`, :meth:`~TaskBook.ainsert`, :meth:`~TaskBook.areplace`,
:meth:`~TaskBook.acommit`), which work on either.

How tool code suspends and resumes (design §3), :meth:`TaskBook.ask`:

1. commit :func:`~mcp_elicit.tasks.state.request_input`, giving a new key;
2. wait for that key's answer (the wake-up event, with a re-read every
   :data:`BACKSTOP` seconds);
3. commit :func:`~mcp_elicit.tasks.state.settle` and return the raw answer;
4. on ``timeout``, commit :func:`~mcp_elicit.tasks.state.withdraw` and raise
   :class:`AskTimedOut` (the server raises ``MCPError(REQUEST_TIMEOUT)`` for it, which
   ``asking._push`` already turns into ``Cancelled``).

An answer that :func:`~mcp_elicit.tasks.state.answer` does not accept (not an ``ElicitResult``
of the question's mode), or a JSON-RPC error the client answered with, is *delivered* instead
(:meth:`TaskBook.deliver`): the key is withdrawn and the asker gets it as a pushed question
would have (the raw answer, to report field by field, or the client's error, raised).
Deliveries live in this process only: on the memory engine that is every process there is;
on a store, only an answer refused on the instance that runs the task reaches its asker.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final, Literal

import anyio

from mcp_elicit.protocol.codes import ELICITATION_CREATE, INTERNAL_ERROR
from mcp_elicit.stores.contract import StoreError
from mcp_elicit.tasks import state
from mcp_elicit.tasks.records import RecordTooLarge
from mcp_elicit.tasks.state import NO_CHANGE, NoChange, TaskState
from mcp_elicit.tasks.storage import MemoryTasks, TaskStorage

logger = logging.getLogger(__name__)

RETRIES: Final = 5
"""Compare-and-set attempts before a write gives up (design §4: a lost race retries)."""
BACKSTOP: Final = 0.25
"""Seconds between two re-reads of a record a waiter is woken for anyway (as flows poll)."""
EPOCH: Final = 1
"""The memory engine's one owner never loses its lease, so its epoch never moves."""
NO_LEASE_END: Final = math.inf

FEED_BACKSTOP: Final = 5.0
"""Seconds between a waiter's reads while the task feed listens: the longest a lost feed
message delays an answer (as flows: ``flows.lifecycle.DEFAULT_BACKSTOP_INTERVAL``)."""
LEASE: Final = 15.0
"""Seconds a renewal extends the owner's lease (design §4: three renewals may be missed)."""
RENEW_EVERY: Final = 5.0
"""Seconds between the owner's renewals."""
GIVE_UP: Final = 10.0
"""Seconds without a successful renewal after which the owner stops the run itself: it can
no longer prove that it owns the task."""
SWEEP_EVERY: Final = 5.0
"""Seconds between two sweeps (``stale_tasks``, one indexed query) of each instance."""
PURGE_GRACE: Final = 300.0
"""Seconds a terminal task stays readable after its ttl (design §4)."""

RESULT_TOO_LARGE: Final = "The task's result is too large to keep (over 1 MiB)"

LeaseLost = Literal["ended", "fenced", "unreachable"]

Change = Callable[[TaskState], TaskState | NoChange]
Observer = Callable[[TaskState | None, TaskState], None]


class TaskGone(Exception):
    """The task ended (cancelled, failed, expired) while its tool was asking: the tool stops."""


class AskTimedOut(Exception):
    """No answer came within the asker's ``timeout``; the key is withdrawn. The server turns it
    into ``MCPError(REQUEST_TIMEOUT)``, which ``asking._push`` reads as ``Cancelled``."""


class Conflict(Exception):
    """A write lost its compare-and-set :data:`RETRIES` times in a row."""


class TaskBook:
    """The tasks of one server: in this process's memory (the default), or in ``storage``
    (:class:`~mcp_elicit.tasks.storage.StoredTasks` on a shared store)."""

    def __init__(self, storage: TaskStorage | None = None) -> None:
        self._storage: TaskStorage = storage if storage is not None else MemoryTasks()
        self._events: dict[str, anyio.Event] = {}
        self._delivered: dict[tuple[str, str], Any] = {}
        self._asking: set[tuple[str, str]] = set()  # the keys an ask here waits on
        self._observers: list[Observer] = []
        self._feed_listening = False

    @property
    def storage(self) -> TaskStorage:
        return self._storage

    def _records(self) -> dict[str, TaskState]:
        """The memory engine's dict, for the synchronous methods."""
        if isinstance(self._storage, MemoryTasks):
            return self._storage.records
        raise TypeError(
            "this book keeps its tasks in a store, which is asynchronous: use aget, ainsert, "
            "areplace and acommit"
        )

    # -- the memory engine, synchronously: reads, and the one write -----------------------------

    def get(self, task_id: str) -> TaskState | None:
        return self._records().get(task_id)

    def all(self) -> list[TaskState]:
        """Every record, oldest first (dicts keep insertion order)."""
        return list(self._records().values())

    def insert(self, record: TaskState) -> None:
        records = self._records()
        if record.id in records:
            raise ValueError(f"task {record.id} exists already")
        records[record.id] = record
        self._changed(None, record)

    def replace(self, record: TaskState, *, expected_version: int) -> bool:
        """The compare-and-set: ``record`` replaces the one at ``expected_version``, else
        nothing is written and ``False`` says the caller read a stale record."""
        records = self._records()
        current = records.get(record.id)
        if current is None or current.version != expected_version:
            return False
        records[record.id] = record
        self._changed(current, record)
        return True

    def purge(self, task_id: str) -> None:
        """Forget a task (its ttl and the grace after it are over)."""
        self._records().pop(task_id, None)
        self._forget(task_id)

    def _forget(self, task_id: str) -> None:
        self._wake(task_id)
        for pair in [p for p in self._delivered if p[0] == task_id]:
            del self._delivered[pair]

    def commit(self, task_id: str, change: Change) -> TaskState | NoChange:
        """Apply ``change`` to the newest record and commit it, retrying a lost race. The new
        record, or :data:`NO_CHANGE` (nothing written); ``KeyError`` for an unknown task."""
        records = self._records()
        for _attempt in range(RETRIES):
            current = records.get(task_id)
            if current is None:
                raise KeyError(task_id)
            new = change(current)
            if new is NO_CHANGE:
                return NO_CHANGE
            assert isinstance(new, TaskState)
            if self.replace(new, expected_version=current.version):
                return new
        raise Conflict(f"task {task_id}: {RETRIES} writes in a row lost to another")

    # -- any engine, asynchronously -------------------------------------------------------------

    async def aget(self, task_id: str) -> TaskState | None:
        return await self._storage.get(task_id)

    async def tasks_of(
        self, server: str, user: str, *, after: str | None = None, limit: int = 100
    ) -> list[TaskState]:
        """A page of the owner's tasks, oldest first, after the task ``after`` (the previous
        page's last id; one that is not the owner's any more gives ``[]``): 2025-11-25's
        ``tasks/list`` on any engine."""
        return await self._storage.page(server, user, after=after, limit=limit)

    async def ainsert(self, record: TaskState, *, limit: int | None = None) -> None:
        """Store a new task. Raises :class:`~mcp_elicit.stores.TaskExists`, or
        :class:`~mcp_elicit.stores.TooManyTasks` when its owner has ``limit`` tasks (live
        or not yet purged) already: the count and the insert are one step."""
        await self._storage.insert(record, limit=limit)
        self._changed(None, record)

    async def areplace(
        self, record: TaskState, *, expected_version: int, announce: bool = True
    ) -> bool:
        """:meth:`replace` on any engine; a write that wins is announced to the other
        instances (unless ``announce`` is false: a change nobody waits for, a renewal)."""
        current = await self._storage.get(record.id)
        if not await self._storage.replace(record, expected_version=expected_version):
            return False
        self._changed(current if current and current.version == expected_version else None, record)
        if announce:
            await self._announce(record.id)
        return True

    async def acommit(
        self, task_id: str, change: Change, *, announce: bool = True
    ) -> TaskState | NoChange:
        """:meth:`commit` on any engine (see :meth:`areplace` for ``announce``)."""
        for _attempt in range(RETRIES):
            current = await self._storage.get(task_id)
            if current is None:
                raise KeyError(task_id)
            new = change(current)
            if new is NO_CHANGE:
                return NO_CHANGE
            assert isinstance(new, TaskState)
            if await self._storage.replace(new, expected_version=current.version):
                self._changed(current, new)
                if announce:
                    await self._announce(task_id)
                return new
        raise Conflict(f"task {task_id}: {RETRIES} writes in a row lost to another")

    async def afinish(
        self,
        task_id: str,
        *,
        now: float,
        epoch: int = EPOCH,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
    ) -> TaskState | NoChange:
        """Commit the call's outcome (:func:`state.finish`). A result whose record would be
        too large to store (over 1 MiB sealed) fails the task instead, with -32603 "result
        too large" (design §4): the client learns why rather than waiting for a task that
        can never finish."""
        try:
            return await self.acommit(
                task_id,
                lambda r: state.finish(r, epoch=epoch, now=now, result=result, error=error),
            )
        except RecordTooLarge as too_large:
            logger.warning("task %s: %s", task_id[:6], too_large)
            failed = {"code": INTERNAL_ERROR, "message": RESULT_TOO_LARGE}
            return await self.acommit(
                task_id, lambda r: state.finish(r, epoch=epoch, now=now, error=failed)
            )

    async def _announce(self, task_id: str) -> None:
        feed = self._storage.feed
        if feed is None:
            return
        try:
            await feed.announce_task(task_id)
        except StoreError as error:
            # Committed already: the others' backstop reads find it, a little later.
            logger.warning("task %s: the change was not announced (%s)", task_id[:6], error)

    # -- watching -------------------------------------------------------------------------------

    @contextmanager
    def observing(self, observer: Observer) -> Iterator[None]:
        """Call ``observer(before, after)`` after every committed write while the block runs
        (quick, and never raising: it runs inside the write)."""
        self._observers.append(observer)
        try:
            yield
        finally:
            self._observers.remove(observer)

    def _changed(self, before: TaskState | None, after: TaskState) -> None:
        self._wake(after.id)
        for observer in tuple(self._observers):
            try:
                observer(before, after)
            except Exception:  # an observer's bug must not undo a committed write
                logger.exception("a task observer failed")

    def _wake(self, task_id: str) -> None:
        event = self._events.pop(task_id, None)
        if event is not None:
            event.set()

    def wake_up(self, task_id: str) -> anyio.Event:
        """The event the next change of ``task_id`` sets: take it before reading the record."""
        event = self._events.get(task_id)
        if event is None:
            event = self._events[task_id] = anyio.Event()
        return event

    def _wake_all(self) -> None:
        events, self._events = self._events, {}
        for event in events.values():
            event.set()

    def _backstop(self) -> float:
        return FEED_BACKSTOP if self._feed_listening else BACKSTOP

    async def changed(self, task_id: str, seen_version: int) -> TaskState | None:
        """Wait until the record is no longer at ``seen_version`` (or is gone: ``None``)."""
        while True:
            event = self.wake_up(task_id)
            record = await self._storage.get(task_id)
            if record is None or record.version != seen_version:
                return record
            with anyio.move_on_after(self._backstop()):
                await event.wait()

    async def run_feed(self, *, retry_after: float = 1.0) -> None:
        """Wake this instance's waiters when another instance changes their task: read the
        store's :class:`~mcp_elicit.stores.TaskFeed` until cancelled, listening again after
        a lost connection (every waiter reads the store at once then, and polls at
        :data:`BACKSTOP` until the feed listens anew). Returns at once without a feed."""
        feed = self._storage.feed
        if feed is None:
            return

        def listening() -> None:
            self._feed_listening = True

        while True:
            try:
                async for task_id in feed.task_changes(listening):
                    self._wake(task_id)
            except StoreError as error:
                logger.warning("the task feed was lost (%s); listening again", error)
            finally:
                self._feed_listening = False
                self._wake_all()
            await anyio.sleep(retry_after)

    # -- the lease and the sweeper (design §4) ----------------------------------------------------

    async def renew(
        self, task_id: str, *, now: float, epoch: int = EPOCH, length: float = LEASE
    ) -> bool:
        """One renewal of the owner's lease to ``now + length``. ``False`` when the task is
        terminal, gone, or its epoch moved: the owner must stop the run (fencing)."""
        try:
            renewed = await self.acommit(
                task_id,
                lambda r: state.renew(r, epoch=epoch, now=now, until=now + length),
                announce=False,  # no waiter needs to hear of it
            )
        except (state.Fenced, KeyError):
            return False
        return renewed is not NO_CHANGE

    async def keep_lease(
        self,
        task_id: str,
        *,
        clock: Callable[[], float],
        epoch: int = EPOCH,
        every: float = RENEW_EVERY,
        length: float = LEASE,
        give_up: float = GIVE_UP,
    ) -> LeaseLost:
        """Renew the lease every ``every`` seconds until it is lost, and say why: the task
        ``ended`` (terminal or purged) or was ``fenced`` (both :meth:`renew` ``False``), or
        the store was ``unreachable`` for ``give_up`` seconds. Run it beside the task's
        body and cancel the body when it returns."""
        last_renewed = clock()
        while True:
            await anyio.sleep(every)
            now = clock()
            try:
                if not await self.renew(task_id, now=now, epoch=epoch, length=length):
                    return "ended"
                last_renewed = now
            except (StoreError, Conflict) as error:
                logger.warning("task %s: the lease was not renewed (%s)", task_id[:6], error)
                if now - last_renewed >= give_up:
                    return "unreachable"

    async def settle_stale(self, task_id: str, *, now: float) -> TaskState | None:
        """The record, after failing it when its lease or ttl ran out (``orphan`` or
        ``expire``): the inline check each ``tasks/*`` request runs first (design §4)."""
        record = await self._storage.get(task_id)
        if record is None or record.terminal:
            return record
        if record.lease.until >= now and record.expires_at > now:
            return record
        try:
            ended = await self.acommit(task_id, lambda r: _end_stale(r, now))
        except KeyError:
            return None
        if isinstance(ended, TaskState):
            return ended
        return await self._storage.get(task_id)  # another instance ended it first

    async def sweep(self, now: float) -> int:
        """Fail every task whose owner's lease ran out (``orphan``: "The server instance
        running this task stopped") or whose ttl did (``expire``); how many were failed."""
        failed = 0
        for task_id in await self._storage.stale(now):
            try:
                if await self.acommit(task_id, lambda r: _end_stale(r, now)) is not NO_CHANGE:
                    failed += 1
            except KeyError:
                continue  # purged meanwhile
            except Conflict:
                logger.warning(
                    "task %s: the sweep lost every race; the next one retries", task_id[:6]
                )
        return failed

    async def run_sweeper(
        self,
        *,
        clock: Callable[[], float],
        every: float = SWEEP_EVERY,
        grace: float = PURGE_GRACE,
    ) -> None:
        """Sweep every ``every`` seconds, and purge the tasks ``grace`` seconds past their
        ttl, until cancelled. A store that fails is logged and tried again next time."""
        while True:
            try:
                await self.sweep(clock())
                for task_id in await self._storage.purge(clock() - grace):
                    self._forget(task_id)
            except StoreError as error:
                logger.warning("the task sweep failed (%s); trying again", error)
            await anyio.sleep(every)

    # -- a question asked by the tool of a task (the owner) ---------------------------------------

    def deliver(self, task_id: str, key: str, outcome: Any) -> None:
        """Hand the asker of ``key`` what :func:`state.answer` would not take: a raw answer
        refused as malformed, or the exception the client's error became (raised to it).
        On a store, only an asker in this process can be handed it."""
        if isinstance(self._storage, MemoryTasks):
            record = self._storage.records.get(task_id)
            if record is None or key not in record.outstanding:
                return
        elif (task_id, key) not in self._asking:
            return
        self._delivered[(task_id, key)] = outcome
        self._wake(task_id)

    async def ask(
        self,
        task_id: str,
        params: Mapping[str, Any],
        *,
        now: Callable[[], float],
        timeout: float | None,
        base: str | None = None,
    ) -> Any:
        """Ask the person, inside the task (steps 1 to 4 of the module docstring): the raw
        answer to ``elicitation/create`` with ``params``."""
        keys: list[str] = []

        def asking(record: TaskState) -> TaskState | NoChange:
            asked = state.request_input(
                record, params, epoch=EPOCH, now=now(), base=base, method=ELICITATION_CREATE
            )
            if asked is NO_CHANGE:
                return NO_CHANGE
            assert isinstance(asked, tuple)
            keys.append(asked[1])
            return asked[0]

        # On the memory engine these awaits never suspend, so the steps stay as atomic as
        # the synchronous commits they were.
        if await self.acommit(task_id, asking) is NO_CHANGE:
            raise TaskGone(f"task {task_id} has ended: nothing more is asked in it")
        key = keys[-1]  # the attempt that was committed (a lost race retries)
        self._asking.add((task_id, key))
        try:
            with anyio.fail_after(timeout):
                return await self._answer_of(task_id, key, now)
        except TimeoutError:
            # An answer that won the race stays an answer (withdraw is then NO_CHANGE).
            await self._withdraw(task_id, key, now(), "timeout")
            record = await self._storage.get(task_id)
            if record is not None and key in record.answered:
                return await self._settle(task_id, key, now())
            raise AskTimedOut(f"question {key} of task {task_id}: no answer in time") from None
        finally:
            self._asking.discard((task_id, key))
            self._delivered.pop((task_id, key), None)

    async def _answer_of(self, task_id: str, key: str, now: Callable[[], float]) -> Any:
        while True:
            event = self.wake_up(task_id)
            record = await self._storage.get(task_id)
            if record is None or record.terminal:
                raise TaskGone(f"task {task_id} has ended while it asked {key}")
            if key in record.answered:
                return await self._settle(task_id, key, now())
            if key in record.withdrawn:
                raise TaskGone(f"question {key} of task {task_id} was withdrawn")
            if (task_id, key) in self._delivered:
                outcome = self._delivered.pop((task_id, key))
                await self._withdraw(task_id, key, now(), "refused")
                if isinstance(outcome, Exception):
                    raise outcome
                return outcome
            with anyio.move_on_after(self._backstop()):
                await event.wait()

    async def _settle(self, task_id: str, key: str, at: float) -> Any:
        record = await self._storage.get(task_id)
        if record is None:
            raise TaskGone(f"task {task_id} is gone")
        response = dict(record.answered[key].response)
        await self.acommit(task_id, lambda r: state.settle(r, key, epoch=EPOCH, now=at))
        return response

    async def _withdraw(self, task_id: str, key: str, at: float, reason: str) -> None:
        with contextlib.suppress(KeyError):  # purged meanwhile
            await self.acommit(
                task_id, lambda r: state.withdraw(r, key, epoch=EPOCH, now=at, reason=reason)
            )


def _end_stale(record: TaskState, now: float) -> TaskState | NoChange:
    """The sweep's change: a task past its ttl expires; one whose lease ran out is orphaned."""
    if record.expires_at <= now:
        return state.expire(record, now=now)
    return state.orphan(record, now=now)
