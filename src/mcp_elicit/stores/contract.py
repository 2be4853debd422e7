"""The store contract every engine meets, and the errors it raises: flows, sealed secrets,
the ended browser sessions that every instance must refuse, and task records.

Engines are asynchronous and safe to share between tasks. Times are Unix seconds (float),
always passed in by the caller so that tests and sweeps control the clock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Collection
from typing import Protocol, runtime_checkable

from mcp_elicit.stores.records import FlowRecord, FlowStatus, SealedSecret, TaskRecord


class StoreError(Exception):
    """A store could not do what was asked (bad URL, engine failure)."""


class FlowExists(StoreError):
    """``create_flow`` with an id that is already stored."""


class TooManyFlows(StoreError):
    """``create_flow`` with a ``limit`` that the flow's owner has reached."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the owner of this flow has {limit} live flows already (the limit)")
        self.limit = limit


class TaskExists(StoreError):
    """``create_task`` with an id that is already stored."""


class TooManyTasks(StoreError):
    """``create_task`` with a ``limit`` that the task's owner has reached."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the owner of this task has {limit} tasks already (the limit)")
        self.limit = limit


@runtime_checkable
class Store(Protocol):
    """Flows and sealed secrets, durable across restarts (except the memory engine)."""

    url: str  # how it was opened, with any password removed

    async def create_flow(self, flow: FlowRecord, *, limit: int | None = None) -> None:
        """Store a new flow. Raises :class:`FlowExists` when the id is taken, and
        :class:`StoreError` when ``details`` is not JSON (NaN and Infinity included) or the id
        is not of a flow id's shape (``records.is_flow_id``).

        Every method that takes a ``flow_id`` treats an id of another shape as no flow
        (``None``), without asking the engine: ids arrive in a page's URL, and a NUL or a lone
        surrogate must be "not found", not an engine's error.

        With ``limit``: raises :class:`TooManyFlows` instead of storing it when its owner
        (``flow.server`` and ``flow.user``) already has ``limit`` live flows, counting those
        ``pending`` or ``opened`` with ``expires_at > flow.created_at``. The count and the
        insert are one atomic step: flows started at the same moment cannot pass the limit
        together."""

    async def get_flow(self, flow_id: str) -> FlowRecord | None:
        """The flow, or ``None``. Does not apply expiry: see :meth:`expire_flows`."""

    async def set_flow_status(
        self,
        flow_id: str,
        status: FlowStatus,
        *,
        expected: Collection[FlowStatus],
        now: float,
    ) -> FlowRecord | None:
        """Atomically move a flow to ``status`` if its current status is in ``expected`` and
        it has not expired (``expires_at > now``); set ``updated_at = now``. Returns the
        updated record, or ``None`` when the flow is missing, expired, or in another status
        (two instances racing to complete a flow: exactly one wins)."""

    async def complete_flow(
        self,
        flow_id: str,
        *,
        now: float,
        result: bytes | None = None,
        secret: SealedSecret | None = None,
    ) -> FlowRecord | None:
        """One atomic step, all of it or nothing: if the flow is ``pending`` or ``opened``
        and has not expired (``expires_at > now``), mark it ``completed`` (``updated_at =
        now``), keep ``result`` with it (:meth:`flow_result`), and store ``secret`` as
        :meth:`put_secret` would. Returns the updated record; ``None`` when the flow is
        missing, finished or expired, and then nothing at all was written (a value is never
        stored for a flow that did not complete)."""

    async def flow_result(self, flow_id: str) -> bytes | None:
        """What :meth:`complete_flow` kept with the flow (sealed bytes), or ``None``: no such
        flow, or nothing was kept. Deleted with the flow by :meth:`purge_flows`."""

    async def expire_flows(self, now: float) -> int:
        """Mark every ``pending`` or ``opened`` flow with ``expires_at <= now`` as
        ``expired`` (``updated_at = now``); return how many changed."""

    async def purge_flows(self, before: float) -> int:
        """Delete finished flows (completed, declined, expired) with ``updated_at < before``;
        return how many were deleted."""

    async def put_secret(self, secret: SealedSecret) -> None:
        """Store or replace the sealed secret for ``(secret.server, secret.user,
        secret.name)``."""

    async def get_secret(self, user: str, name: str, *, server: str) -> SealedSecret | None:
        """The sealed secret of ``(server, user, name)``, or ``None``."""

    async def delete_secret(self, user: str, name: str, *, server: str) -> bool:
        """Delete the secret of ``(server, user, name)``; ``True`` when there was one."""

    async def end_session(self, session_id: str, *, until: float, now: float) -> None:
        """Record that the browser session ``session_id`` has ended (signed out), for every
        instance sharing this store, until ``until``: when the session would have expired
        anyway, after which the record may be forgotten (and ending it again keeps the later
        ``until``). Records whose ``until`` is past ``now`` may be forgotten here. Raises
        :class:`StoreError` for an id not of a session id's shape
        (``records.is_session_id``)."""

    async def session_ended(self, session_id: str, *, now: float) -> bool:
        """Whether ``session_id`` was ended and is still remembered (``until > now``). An id
        not of a session id's shape raises :class:`StoreError`, as in :meth:`end_session`."""

    # -- tasks: records the tasks layer seals; every rule is its own -------------------------

    async def create_task(self, task: TaskRecord, *, limit: int | None = None) -> None:
        """Store a new task. Raises :class:`TaskExists` when the id is taken, and
        :class:`StoreError` when the id is not of a flow id's shape (``records.is_flow_id``;
        task ids are minted the same way). Every method that takes a task id treats an id of
        another shape as no task, as for flows.

        With ``limit``: raises :class:`TooManyTasks` instead when the owner (``task.server``
        and ``task.user``) already has ``limit`` tasks stored, live or terminal (a terminal
        task counts until :meth:`purge_tasks` deletes it). The count and the insert are one
        atomic step."""

    async def get_task(self, task_id: str) -> TaskRecord | None:
        """The task, or ``None``."""

    async def replace_task(self, task: TaskRecord, *, expected_version: int) -> bool:
        """The one write of a task, a compare-and-set: ``task`` replaces the stored record of
        its id if that one's version is ``expected_version`` (``True``); otherwise nothing is
        written (``False``: missing, or another writer got there first). ``server``, ``user``
        and ``created_at`` never change: the stored ones are kept."""

    async def tasks_of(
        self, server: str, user: str, *, after: str | None = None, limit: int = 100
    ) -> list[TaskRecord]:
        """At most ``limit`` tasks of ``(server, user)``, oldest first (by ``created_at``,
        then id), starting after the task ``after`` (a page's last id); an ``after`` that is
        not one of this owner's stored tasks gives ``[]`` (a stale cursor)."""

    async def stale_tasks(self, now: float) -> list[str]:
        """The ids of the tasks that are not terminal and whose lease ran out (``lease_until
        < now``) or whose ttl did (``expires_at <= now``): what a sweeper must look at."""

    async def purge_tasks(self, before: float) -> int:
        """Delete terminal tasks with ``expires_at < before``; return how many."""

    async def aclose(self) -> None:
        """Release connections. Idempotent; any other call afterwards raises
        :class:`StoreError`."""


@runtime_checkable
class FinishFeed(Protocol):
    """What an engine shared by several server instances offers besides the contract: a
    broadcast of "this flow finished", so that a waiter on one instance wakes when another
    instance completes its flow, at once rather than at its next poll (Redis pub/sub,
    PostgreSQL LISTEN/NOTIFY). Delivery is best effort: a message may be lost (a dropped
    connection); waiters keep reading the store now and then, so a lost message delays a
    completion and never loses it. Announcements carry flow ids only, never anything a flow
    holds."""

    async def announce_finished(self, flow_id: str) -> None:
        """Tell every instance listening that ``flow_id`` finished."""

    def finished_flows(self, listening: Callable[[], None] | None = None) -> AsyncIterator[str]:
        """The ids announced by any instance (this one included), for as long as it is
        iterated. ``listening()`` is called once the subscription is in place: from then
        on no announcement is missed while the connection holds (so waiters may poll
        slowly). Raises :class:`StoreError` when the connection is lost; the caller
        listens again."""


@runtime_checkable
class TaskFeed(Protocol):
    """Like :class:`FinishFeed`, for tasks: a broadcast of "this task changed", so that the
    instance running a task wakes at once when another one commits an answer or a cancel.
    Best effort, as the finish feed: waiters read the store now and then anyway. The
    announcements carry task ids only."""

    async def announce_task(self, task_id: str) -> None:
        """Tell every instance listening that ``task_id`` changed."""

    def task_changes(self, listening: Callable[[], None] | None = None) -> AsyncIterator[str]:
        """The ids announced by any instance (this one included), for as long as it is
        iterated; ``listening()`` as in :meth:`FinishFeed.finished_flows`. Raises
        :class:`StoreError` when the connection is lost."""
