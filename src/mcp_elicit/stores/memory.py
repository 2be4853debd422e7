"""The in-process engine (``memory://``): for tests and a single process that need not survive
a restart.

Every operation runs without an ``await`` inside, so on one event loop each is atomic without
a lock, which is what makes ``set_flow_status`` a true compare-and-set here, and
``complete_flow`` and a limited ``create_flow`` single steps.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from mcp_elicit.stores.contract import (
    FlowExists,
    StoreError,
    TaskExists,
    TooManyFlows,
    TooManyTasks,
)
from mcp_elicit.stores.records import (
    LIVE,
    FlowRecord,
    FlowStatus,
    SealedSecret,
    TaskRecord,
    is_flow_id,
    is_session_id,
)


def copy_details(details: Mapping[str, Any]) -> dict[str, Any]:
    """A private copy through JSON, so that this engine accepts exactly what a durable one can
    store and a caller mutating its dict never changes what is stored."""
    try:
        copied = json.loads(json.dumps(details, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise StoreError(f"flow details must be JSON: {error}") from error
    if not isinstance(copied, dict):
        raise StoreError("flow details must be a JSON object")
    return copied


def check_session_id(session_id: str) -> None:
    """:class:`StoreError` for an id that is not of a session id's shape."""
    if not is_session_id(session_id):
        raise StoreError(f"not a session id: {session_id!r} (letters, digits, '-' and '_')")


def check_task_id(task_id: str) -> None:
    """:class:`StoreError` for a task id that is not of the minted shape (a flow id's)."""
    if not is_flow_id(task_id):
        raise StoreError(f"not a task id: {task_id!r} (letters, digits, '-' and '_')")


def _task_copy(task: TaskRecord) -> TaskRecord:
    # bytes(): a caller's bytearray or memoryview must not stay shared with what is stored.
    return replace(task, payload=bytes(task.payload), terminal=bool(task.terminal))


class MemoryStore:
    """Flows and secrets in dicts; gone when the process ends."""

    def __init__(self) -> None:
        self.url = "memory://"
        self._flows: dict[str, FlowRecord] = {}
        self._results: dict[str, bytes] = {}
        self._secrets: dict[tuple[str, str, str], SealedSecret] = {}
        self._ended: dict[str, float] = {}  # session id -> until
        self._tasks: dict[str, TaskRecord] = {}
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"store {self.url} is closed")

    @staticmethod
    def _out(flow: FlowRecord) -> FlowRecord:
        return replace(flow, details=copy_details(flow.details))

    async def create_flow(self, flow: FlowRecord, *, limit: int | None = None) -> None:
        self._check_open()
        if not is_flow_id(flow.id):
            raise StoreError(f"not a flow id: {flow.id!r} (letters, digits, '-' and '_')")
        if flow.id in self._flows:
            raise FlowExists(f"flow {flow.id!r} already exists")
        if limit is not None:
            live = sum(
                1
                for f in self._flows.values()
                if f.server == flow.server
                and f.user == flow.user
                and f.status in LIVE
                and f.expires_at > flow.created_at
            )
            if live >= limit:
                raise TooManyFlows(limit)
        self._flows[flow.id] = replace(
            flow, status=FlowStatus(flow.status), details=copy_details(flow.details)
        )

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        self._check_open()
        flow = self._flows.get(flow_id)
        return None if flow is None else self._out(flow)

    async def set_flow_status(
        self,
        flow_id: str,
        status: FlowStatus,
        *,
        expected: Collection[FlowStatus],
        now: float,
    ) -> FlowRecord | None:
        self._check_open()
        flow = self._flows.get(flow_id)
        if flow is None or flow.status not in expected or flow.expires_at <= now:
            return None
        updated = replace(flow, status=FlowStatus(status), updated_at=now)
        self._flows[flow_id] = updated
        return self._out(updated)

    async def complete_flow(
        self,
        flow_id: str,
        *,
        now: float,
        result: bytes | None = None,
        secret: SealedSecret | None = None,
    ) -> FlowRecord | None:
        self._check_open()
        flow = self._flows.get(flow_id)
        if flow is None or flow.status not in LIVE or flow.expires_at <= now:
            return None
        updated = replace(flow, status=FlowStatus.COMPLETED, updated_at=now)
        self._flows[flow_id] = updated
        if result is not None:
            self._results[flow_id] = bytes(result)
        if secret is not None:
            self._put(secret)
        return self._out(updated)

    async def flow_result(self, flow_id: str) -> bytes | None:
        self._check_open()
        return self._results.get(flow_id)

    async def expire_flows(self, now: float) -> int:
        self._check_open()
        due = [f for f in self._flows.values() if f.status in LIVE and f.expires_at <= now]
        for flow in due:
            self._flows[flow.id] = replace(flow, status=FlowStatus.EXPIRED, updated_at=now)
        return len(due)

    async def purge_flows(self, before: float) -> int:
        self._check_open()
        old = [f.id for f in self._flows.values() if f.status.finished and f.updated_at < before]
        for flow_id in old:
            del self._flows[flow_id]
            self._results.pop(flow_id, None)
        return len(old)

    async def put_secret(self, secret: SealedSecret) -> None:
        self._check_open()
        self._put(secret)

    def _put(self, secret: SealedSecret) -> None:
        key = (secret.server, secret.user, secret.name)
        self._secrets[key] = replace(secret, sealed=bytes(secret.sealed))

    async def get_secret(self, user: str, name: str, *, server: str) -> SealedSecret | None:
        self._check_open()
        return self._secrets.get((server, user, name))

    async def delete_secret(self, user: str, name: str, *, server: str) -> bool:
        self._check_open()
        return self._secrets.pop((server, user, name), None) is not None

    async def end_session(self, session_id: str, *, until: float, now: float) -> None:
        self._check_open()
        check_session_id(session_id)
        for gone in [s for s, kept in self._ended.items() if kept <= now]:
            del self._ended[gone]
        if until > now:
            self._ended[session_id] = max(until, self._ended.get(session_id, until))

    async def session_ended(self, session_id: str, *, now: float) -> bool:
        self._check_open()
        check_session_id(session_id)
        return self._ended.get(session_id, now) > now

    # -- tasks ----------------------------------------------------------------------------------

    async def create_task(self, task: TaskRecord, *, limit: int | None = None) -> None:
        self._check_open()
        check_task_id(task.id)
        if task.id in self._tasks:
            raise TaskExists(f"task {task.id!r} already exists")
        if limit is not None:
            held = sum(
                1 for t in self._tasks.values() if (t.server, t.user) == (task.server, task.user)
            )
            if held >= limit:
                raise TooManyTasks(limit)
        self._tasks[task.id] = _task_copy(task)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        self._check_open()
        return self._tasks.get(task_id)

    async def replace_task(self, task: TaskRecord, *, expected_version: int) -> bool:
        self._check_open()
        current = self._tasks.get(task.id)
        if current is None or current.version != expected_version:
            return False
        kept = replace(
            task, server=current.server, user=current.user, created_at=current.created_at
        )
        self._tasks[task.id] = _task_copy(kept)
        return True

    async def tasks_of(
        self, server: str, user: str, *, after: str | None = None, limit: int = 100
    ) -> list[TaskRecord]:
        self._check_open()
        mine = sorted(
            (t for t in self._tasks.values() if (t.server, t.user) == (server, user)),
            key=lambda t: (t.created_at, t.id),
        )
        if after is not None:
            ids = [t.id for t in mine]
            if after not in ids:
                return []
            mine = mine[ids.index(after) + 1 :]
        return mine[: max(limit, 0)]

    async def stale_tasks(self, now: float) -> list[str]:
        self._check_open()
        return [
            t.id
            for t in self._tasks.values()
            if not t.terminal and (t.lease_until < now or t.expires_at <= now)
        ]

    async def purge_tasks(self, before: float) -> int:
        self._check_open()
        old = [t.id for t in self._tasks.values() if t.terminal and t.expires_at < before]
        for task_id in old:
            del self._tasks[task_id]
        return len(old)

    async def aclose(self) -> None:
        self._closed = True
