"""Flows: start one, let its owner open, complete or decline it, wait for it to finish.

The rules, and why:

- A flow is bound to the user who started it, on the server that started it: its owner is
  the pair. ``Flows(store, server=...)`` sees only that server's flows: another server's flow,
  in a store both share, reads as absent (``FlowNotFound``), so a flow link made by one
  server is never answered on another's pages. Every change names a user, and the owner
  check comes first, before anything about the flow (its status, whether it expired) is
  revealed: a person handed someone else's flow link learns only that it is not theirs.
- One owner has at most ``max_open`` live flows (20 by default): past that, ``start``
  raises ``TooManyOpenFlows``. The store counts and inserts in one step, so flows started at
  once cannot pass the limit together.
- Completing a flow can carry what it received (sealed, by the vault) and the vault entry
  for later reuse: the store writes both with the status change or none of them, so a value
  is never stored for a flow that was declined or expired meanwhile.
- ``pending`` → ``opened`` → ``completed`` | ``declined``; a live flow past ``expires_at``
  is ``expired``. Finished flows never change again. Each change is a compare-and-set in
  the store, so when two instances race to finish a flow exactly one wins, and the loser
  reports what actually happened.
- Expiry is applied when a flow is read: the store's ``get_flow`` returns what it holds, and
  a live flow past its time is persisted as expired there and then (``expire_flows``, which
  also expires any other overdue flow — harmless, they are due). Reporting a copy instead
  would let another instance, reading the row, still see it live until the next sweep.
- The store is the only shared state: a waiter polls it, so a flow finished by another
  instance is seen within ``poll_interval``; a flow finished in this process wakes its
  waiters at once. An engine that offers a :class:`~mcp_elicit.stores.FinishFeed` (Redis,
  PostgreSQL) also carries "finished" to every instance (:meth:`Flows.run_feed`), so their
  waiters wake at once too. While the feed listens, a waiter reads the store only every
  ``backstop_interval`` (a lost message delays a completion by at most that, and a thousand
  waiters do not poll the shared store four thousand times a second); when the feed is
  lost, every waiter reads the store at once and polls at ``poll_interval`` again until it
  listens anew, so nothing finished in the gap waits for the backstop.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import anyio

from mcp_elicit.flows.details import json_details
from mcp_elicit.flows.errors import (
    FlowError,
    FlowFinished,
    FlowNotFound,
    FlowOfAnotherUser,
    TooManyOpenFlows,
)
from mcp_elicit.flows.wakeups import Wakeups
from mcp_elicit.stores.contract import FinishFeed, Store, TooManyFlows
from mcp_elicit.stores.records import LIVE, FlowRecord, FlowStatus, SealedSecret

logger = logging.getLogger(__name__)

_PENDING = frozenset({FlowStatus.PENDING})

DEFAULT_BACKSTOP_INTERVAL = 5.0
"""Seconds between a waiter's reads of the store while the finish feed listens: the longest a
lost feed message can delay a completion."""

DEFAULT_MAX_OPEN_FLOWS = 20
"""Live flows one user may have on one server. A person works through a few links at a
time; twenty is room for a tool that asks for several secrets at once, and a wall against
one that asks in a loop."""

Write = Callable[[FlowRecord, float], Awaitable[FlowRecord | None]]


class Flows:
    """Out-of-band flows kept in ``store``. Times come from ``clock`` (Unix seconds).

    ``server``: the server these flows belong to (its ``server_id``): ``start`` records it,
    and every other method sees only its flows. ``None`` (the default) is a view of every
    flow in the store, for tools and tests; the flows it starts belong to no server (``""``).
    ``max_open``: live flows one user may have on this server (``None``: no limit).
    ``poll_interval``: how often a waiter reads the store, and ``backstop_interval`` how
    often while :meth:`run_feed` listens to the store's finish feed.
    """

    def __init__(
        self,
        store: Store,
        *,
        server: str | None = None,
        max_open: int | None = DEFAULT_MAX_OPEN_FLOWS,
        default_ttl: float = 600.0,
        poll_interval: float = 0.25,
        backstop_interval: float = DEFAULT_BACKSTOP_INTERVAL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        _check_positive("default_ttl", default_ttl)
        _check_positive("poll_interval", poll_interval)
        _check_positive("backstop_interval", backstop_interval)
        if max_open is not None and max_open < 1:
            raise ValueError(f"max_open must be at least 1 (or None), not {max_open!r}")
        self._store = store
        # Whether the engine broadcasts finishes: decided once, not on every change.
        self._feed: FinishFeed | None = store if isinstance(store, FinishFeed) else None
        self._server = server
        self._max_open = max_open
        self._default_ttl = default_ttl
        self._poll_interval = poll_interval
        self._backstop_interval = max(backstop_interval, poll_interval)
        self._feed_listening = False
        self._clock = clock
        self._wakeups = Wakeups()

    @property
    def store(self) -> Store:
        """The store these flows are kept in (the hosted pages keep ended sign-ins there too,
        so that every instance sharing it sees them)."""
        return self._store

    @property
    def server(self) -> str | None:
        """The server these flows belong to; ``None`` for a view of every flow."""
        return self._server

    @property
    def max_open(self) -> int | None:
        return self._max_open

    @property
    def feed_listening(self) -> bool:
        """Whether :meth:`run_feed` is subscribed to the store's finish feed right now."""
        return self._feed_listening

    @property
    def read_interval(self) -> float:
        """How long a waiter goes without reading the store now: ``backstop_interval``
        while the feed listens, else ``poll_interval``."""
        return self._backstop_interval if self._feed_listening else self._poll_interval

    async def start(
        self,
        *,
        user: str,
        purpose: str,
        details: Mapping[str, Any] | None = None,
        ttl: float | None = None,
    ) -> FlowRecord:
        """A new ``pending`` flow owned by ``user`` on this server. Its id goes into URLs, so
        it is random and unguessable (192 bits). ``details`` is non-secret JSON. Raises
        :class:`TooManyOpenFlows` when ``user`` has ``max_open`` live flows already."""
        if not user:
            # An empty identity would match every unauthenticated visitor.
            raise ValueError("a flow belongs to an authenticated user; user is empty")
        if not purpose:
            raise ValueError("a flow needs a purpose")
        ttl = self._default_ttl if ttl is None else ttl
        _check_positive("ttl", ttl)
        now = self._clock()
        flow = FlowRecord(
            id=secrets.token_urlsafe(24),
            user=user,
            purpose=purpose,
            status=FlowStatus.PENDING,
            created_at=now,
            updated_at=now,
            expires_at=now + ttl,
            details=json_details(details),
            server=self._server or "",
        )
        # 192 random bits: a collision (FlowExists) is not worth a retry loop.
        try:
            await self._store.create_flow(flow, limit=self._max_open)
        except TooManyFlows as full:
            raise TooManyOpenFlows(full.limit) from None
        return flow

    async def get(self, flow_id: str) -> FlowRecord | None:
        """The flow, with expiry applied, or ``None`` (also for another server's flow). No
        user check: for the server's own use, not to show to whoever presents an id."""
        flow = await self._store.get_flow(flow_id)
        if flow is not None and self._server is not None and flow.server != self._server:
            return None
        if flow is None or flow.status not in LIVE:
            return flow
        now = self._clock()
        if flow.expires_at > now:
            return flow
        await self._store.expire_flows(now)
        flow = await self._store.get_flow(flow_id)
        if flow is not None and self._server is not None and flow.server != self._server:
            return None  # replaced by another server's under the same id: only a broken store
        if flow is not None and flow.status in LIVE:
            # Only a store that ignores its contract gets here; still never report it live.
            flow = dataclasses.replace(flow, status=FlowStatus.EXPIRED, updated_at=now)
        return flow

    async def open(self, flow_id: str, *, user: str) -> FlowRecord:
        """``user`` opened the flow's page: ``pending`` → ``opened``. Opening it again (a
        reload) returns it unchanged."""
        return await self._change(flow_id, user, FlowStatus.OPENED, _PENDING)

    async def complete(
        self,
        flow_id: str,
        *,
        user: str,
        result: bytes | None = None,
        secret: SealedSecret | None = None,
    ) -> FlowRecord:
        """``user`` did what the flow asked: ``pending`` | ``opened`` → ``completed``.

        ``result``: what the flow received, sealed (the vault's ``seal_for_flow``), for the
        one who waits on this flow to read (``Store.flow_result``). ``secret``: the vault
        entry to store for later reuse (the flow owner's). Both are written in the same
        atomic step as the status, or not at all: when the flow is declined or expires
        first, nothing is stored and :class:`FlowFinished` says what happened."""
        if result is None and secret is None:
            return await self._change(flow_id, user, FlowStatus.COMPLETED, LIVE)

        async def complete_with(flow: FlowRecord, now: float) -> FlowRecord | None:
            if secret is not None and (secret.user, secret.server) != (flow.user, flow.server):
                raise ValueError("the secret stored with a flow must be its owner's, on its server")
            return await self._store.complete_flow(flow_id, now=now, result=result, secret=secret)

        return await self._change(flow_id, user, FlowStatus.COMPLETED, LIVE, write=complete_with)

    async def decline(self, flow_id: str, *, user: str) -> FlowRecord:
        """``user`` refused: ``pending`` | ``opened`` → ``declined``."""
        return await self._change(flow_id, user, FlowStatus.DECLINED, LIVE)

    async def _change(
        self,
        flow_id: str,
        user: str,
        to: FlowStatus,
        expected: Collection[FlowStatus],
        *,
        write: Write | None = None,
    ) -> FlowRecord:
        # A failed compare-and-set means someone else changed the flow between our read and
        # our write; the next read says what happened. Two rounds settle every real race.
        for _ in range(3):
            flow = await self.get(flow_id)
            if flow is None:
                raise FlowNotFound(flow_id)
            if flow.user != user:
                raise FlowOfAnotherUser(flow_id)
            if flow.status.finished:
                raise FlowFinished(flow_id, flow.status)
            if flow.status is to:
                return flow  # opened again
            now = self._clock()
            if write is not None:
                changed = await write(flow, now)
            else:
                changed = await self._store.set_flow_status(flow_id, to, expected=expected, now=now)
            if changed is not None:
                if to.finished:
                    self._wakeups.notify(flow_id)
                    await self._announce(flow_id)
                return changed
        raise FlowError(f"flow {flow_id!r} kept changing; try again")

    async def wait(self, flow_id: str, *, timeout: float | None) -> FlowRecord:
        """The flow once it is finished (completed, declined or expired), or as it stands
        when ``timeout`` seconds have passed. ``None`` waits until it finishes, which its
        expiry bounds."""
        deadline = math.inf if timeout is None else anyio.current_time() + max(timeout, 0.0)
        with self._wakeups.listening(flow_id):
            while True:
                woken = self._wakeups.event(flow_id)  # before the read: see Wakeups.event
                flow = await self.get(flow_id)
                if flow is None:
                    raise FlowNotFound(flow_id)
                left = deadline - anyio.current_time()
                if flow.status.finished or left <= 0:
                    return flow
                # Wake for the expiry itself too, so an expiring flow is reported on time.
                until_expiry = max(flow.expires_at - self._clock(), 0.0)
                with anyio.move_on_after(min(self.read_interval, left, until_expiry)):
                    await woken.wait()

    @contextmanager
    def observing_finishes(self, observer: Callable[[str], None]) -> Iterator[None]:
        """While the block runs, call ``observer(flow_id)`` each time *this process*
        completes or declines a flow, or (with :meth:`run_feed` running) another instance
        announces one. Expiry is seen only by reading the store. For one task watching many
        flows; ``observer`` must be quick and must not raise."""
        with self._wakeups.observing(observer):
            yield

    async def _announce(self, flow_id: str) -> None:
        if self._feed is None:
            return
        try:
            await self._feed.announce_finished(flow_id)
        except Exception:
            # The change is stored; other instances find it at their next poll.
            logger.warning("flow %s: other instances were not told it finished", flow_id)
            logger.debug("announcing flow %s failed", flow_id, exc_info=True)

    async def run_feed(self, *, retry_after: float = 1.0) -> None:
        """Wake this process's waiters when any instance announces a finished flow, forever
        (start it in a task group); returns at once when the store has no feed. A lost
        connection is logged and listened to again after ``retry_after`` seconds (doubling
        up to 30 s); meanwhile waiters poll at ``poll_interval``."""
        _check_positive("retry_after", retry_after)
        store = self._feed
        if store is None:
            return
        delay = retry_after

        def listening() -> None:
            nonlocal delay
            delay = retry_after
            self._feed_listening = True

        while True:
            try:
                async for flow_id in store.finished_flows(listening):
                    self._wakeups.notify(flow_id)
            except Exception as error:
                logger.warning(
                    "listening for other instances' finished flows failed (%s); waiters poll "
                    "the store meanwhile; listening again in %.0f s",
                    error,
                    delay,
                )
            finally:
                self._feed_deaf()
            await anyio.sleep(delay)
            delay = min(delay * 2, 30.0)

    def _feed_deaf(self) -> None:
        """The feed stopped: what other instances finish from now on is heard only by
        reading the store, so every waiter reads it at once and then polls often."""
        if self._feed_listening:
            self._feed_listening = False
            self._wakeups.notify_all()

    async def sweep(self, *, keep_finished_for: float = 86400.0) -> tuple[int, int]:
        """Expire overdue flows and delete flows finished more than ``keep_finished_for``
        seconds ago; return ``(expired, purged)``."""
        now = self._clock()
        expired = await self._store.expire_flows(now)
        purged = await self._store.purge_flows(now - keep_finished_for)
        return expired, purged

    async def run_sweeper(self, interval: float = 60.0) -> None:
        """Sweep every ``interval`` seconds, forever; start it in a task group. A failed
        sweep is logged and retried next time: a store that is briefly down must not take
        the server with it."""
        _check_positive("interval", interval)
        while True:
            try:
                expired, purged = await self.sweep()
            except Exception:
                logger.exception("flow sweep failed; trying again in %.0f s", interval)
            else:
                if expired or purged:
                    logger.debug("flow sweep: %d expired, %d purged", expired, purged)
            await anyio.sleep(interval)


def _check_positive(name: str, value: float) -> None:
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")
