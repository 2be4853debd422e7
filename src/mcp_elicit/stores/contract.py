"""The store contract every engine meets, and the errors it raises.

Engines are asynchronous and safe to share between tasks. Times are Unix seconds (float),
always passed in by the caller so that tests and sweeps control the clock.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol, runtime_checkable

from mcp_elicit.stores.records import FlowRecord, FlowStatus, SealedSecret


class StoreError(Exception):
    """A store could not do what was asked (bad URL, engine failure)."""


class FlowExists(StoreError):
    """``create_flow`` with an id that is already stored."""


@runtime_checkable
class Store(Protocol):
    """Flows and sealed secrets, durable across restarts (except the memory engine)."""

    url: str  # how it was opened, with any password removed

    async def create_flow(self, flow: FlowRecord) -> None:
        """Store a new flow. Raises :class:`FlowExists` when the id is taken, and
        :class:`StoreError` when ``details`` is not JSON (NaN and Infinity included)."""

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

    async def expire_flows(self, now: float) -> int:
        """Mark every ``pending`` or ``opened`` flow with ``expires_at <= now`` as
        ``expired`` (``updated_at = now``); return how many changed."""

    async def purge_flows(self, before: float) -> int:
        """Delete finished flows (completed, declined, expired) with ``updated_at < before``;
        return how many were deleted."""

    async def put_secret(self, secret: SealedSecret) -> None:
        """Store or replace the sealed secret for ``(secret.user, secret.name)``."""

    async def get_secret(self, user: str, name: str) -> SealedSecret | None:
        """The sealed secret, or ``None``."""

    async def delete_secret(self, user: str, name: str) -> bool:
        """Delete it; ``True`` when there was one."""

    async def aclose(self) -> None:
        """Release connections. Idempotent; any other call afterwards raises
        :class:`StoreError`."""
