"""Where a :class:`~mcp_elicit.tasks.lifecycle.TaskBook` keeps its records: this process's
memory (the default), or a shared store (design §4). Engines only store: every rule is
:mod:`mcp_elicit.tasks.state`'s, and the one write is a compare-and-set on ``version``.

Both are asynchronous; the memory one never suspends inside an operation (no ``await``
reaches the event loop), so on one loop each operation is atomic without a lock, and code
that awaits it sees no more interleaving than the synchronous calls it replaces.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from mcp_elicit.stores.contract import Store, TaskExists, TaskFeed, TooManyTasks
from mcp_elicit.tasks.records import TaskSealer
from mcp_elicit.tasks.state import TaskState

logger = logging.getLogger(__name__)


class TaskStorage(Protocol):
    """What a book needs of its engine."""

    @property
    def feed(self) -> TaskFeed | None:
        """The broadcast of changes between instances, when the engine has one."""

    async def get(self, task_id: str) -> TaskState | None: ...

    async def insert(self, record: TaskState, *, limit: int | None = None) -> None:
        """Raises :class:`~mcp_elicit.stores.TaskExists` or
        :class:`~mcp_elicit.stores.TooManyTasks` (``limit`` counts the owner's tasks)."""

    async def replace(self, record: TaskState, *, expected_version: int) -> bool: ...

    async def page(
        self, server: str, user: str, *, after: str | None, limit: int
    ) -> list[TaskState]:
        """The owner's tasks, oldest first, after the task ``after`` (``Store.tasks_of``)."""

    async def stale(self, now: float) -> list[str]:
        """Ids of live tasks whose lease or ttl ran out (``Store.stale_tasks``)."""

    async def purge(self, before: float) -> list[str]:
        """Delete terminal tasks with ``expires_at < before``; the ids when known."""


class MemoryTasks:
    """A dict of states by id: one process, gone when it ends."""

    feed: TaskFeed | None = None

    def __init__(self) -> None:
        self.records: dict[str, TaskState] = {}

    async def get(self, task_id: str) -> TaskState | None:
        return self.records.get(task_id)

    async def insert(self, record: TaskState, *, limit: int | None = None) -> None:
        if record.id in self.records:
            raise TaskExists(f"task {record.id!r} already exists")
        if limit is not None:
            owner = (record.server, record.user)
            if sum(1 for r in self.records.values() if (r.server, r.user) == owner) >= limit:
                raise TooManyTasks(limit)
        self.records[record.id] = record

    async def replace(self, record: TaskState, *, expected_version: int) -> bool:
        current = self.records.get(record.id)
        if current is None or current.version != expected_version:
            return False
        self.records[record.id] = record
        return True

    async def page(
        self, server: str, user: str, *, after: str | None, limit: int
    ) -> list[TaskState]:
        mine = sorted(
            (r for r in self.records.values() if (r.server, r.user) == (server, user)),
            key=lambda r: (r.created_at, r.id),
        )
        if after is not None:
            ids = [r.id for r in mine]
            if after not in ids:
                return []  # a stale cursor, as on a store
            mine = mine[ids.index(after) + 1 :]
        return mine[: max(limit, 0)]

    async def stale(self, now: float) -> list[str]:
        return [
            r.id
            for r in self.records.values()
            if not r.terminal and (r.lease.until < now or r.expires_at <= now)
        ]

    async def purge(self, before: float) -> list[str]:
        old = [r.id for r in self.records.values() if r.terminal and r.expires_at < before]
        for task_id in old:
            del self.records[task_id]
        return old


class StoredTasks:
    """Task states in a shared :class:`~mcp_elicit.stores.Store`, sealed with ``keys`` (32
    bytes each, newest first: the server derives them from the deployment key, "tasks")."""

    def __init__(self, store: Store, keys: Sequence[bytes]) -> None:
        self.store = store
        self._sealer = TaskSealer(keys)
        # Decided once: whether the engine broadcasts changes (Redis, PostgreSQL).
        self._feed: TaskFeed | None = store if isinstance(store, TaskFeed) else None

    @property
    def feed(self) -> TaskFeed | None:
        return self._feed

    async def get(self, task_id: str) -> TaskState | None:
        stored = await self.store.get_task(task_id)
        if stored is None:
            return None
        state = self._sealer.open(stored, task_id)
        if state is None:
            # Without any value: only that it does not open here.
            logger.warning(
                "task %s: its stored record does not open (moved, altered, or sealed with a "
                "key this instance lacks); treating it as absent",
                task_id,
            )
        return state

    async def insert(self, record: TaskState, *, limit: int | None = None) -> None:
        await self.store.create_task(self._sealer.seal(record), limit=limit)

    async def replace(self, record: TaskState, *, expected_version: int) -> bool:
        sealed = self._sealer.seal(record)
        return await self.store.replace_task(sealed, expected_version=expected_version)

    async def page(
        self, server: str, user: str, *, after: str | None, limit: int
    ) -> list[TaskState]:
        stored = await self.store.tasks_of(server, user, after=after, limit=limit)
        opened = (self._sealer.open(record, record.id) for record in stored)
        # One that does not open is left out, as get reads it as no task (it is logged there).
        return [state for state in opened if state is not None]

    async def stale(self, now: float) -> list[str]:
        return await self.store.stale_tasks(now)

    async def purge(self, before: float) -> list[str]:
        await self.store.purge_tasks(before)
        return []  # the store does not say which: their wake-ups find them gone
