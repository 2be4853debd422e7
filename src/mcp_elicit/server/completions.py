"""Completion notices after -32042: one task watches every flow a 2025-11-25 client was sent
to, and tells that client when its flow completes.

A tool that raises ``UrlRequired`` (or ``secret_required``) returns at once; the client opens
the link and may wait for ``notifications/elicitation/complete`` before retrying. Something
must therefore watch the flow after the tool has returned. One task per flow, each polling
the store, costs a task and a store read per tick for every outstanding link; one shared
:class:`CompletionWatcher` costs one task in all, and one read per watched flow per pass.

What it sends, and when (2025-11-25, "Completion Notifications for URL Mode Elicitation"):

- only when the flow is *completed*: the spec's notification is for when the out-of-band
  interaction "is completed", and a client may retry on it automatically. After a decline a
  retry would only be sent the link again, asking a person who just said no; after an expiry
  there is nothing to retry for. Those flows are dropped without a notice (docs/url-mode.md);
- only to the session that received the -32042 ("MUST only send the notification to the
  client that initiated the elicitation request"), with the ``elicitationId`` that error
  carried.

The notice is optional for the server and clients must not depend on it (they "SHOULD still
provide manual controls"), so whatever goes wrong costs the notice and never the server: a
flow that vanished from the store, a read that failed, a session that is gone or cannot
take the message.

What is held: the ``ServerSession`` of the request that got the -32042. The SDK makes one per
request, as a proxy whose notices go to the connection's standalone stream, and offers no
public handle on the connection itself, so the watcher cannot tell that a client left
before it tries to send. It keeps the session until the flow finishes or expires (the flow's
``ttl``), within :data:`MAX_WATCHED_FLOWS` and :data:`MAX_SESSIONS_PER_FLOW`; a send to a
client that left fails, and costs nothing else.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import NoReturn, Protocol

import anyio

from mcp_elicit.flows import Flows
from mcp_elicit.stores import FlowRecord, FlowStatus

logger = logging.getLogger(__name__)

MAX_WATCHED_FLOWS = 10_000
"""Flows watched at once. Each costs a store read per pass and holds its sessions until the
flow finishes or expires, so an unbounded map would let a client that keeps calling a -32042
tool grow memory and store load without limit. Past the cap the newest flow is not watched:
its client gets no notice and retries by hand, which the spec requires clients to offer
anyway."""

MAX_SESSIONS_PER_FLOW = 16
"""Sessions told about one flow. A flow is normally behind one -32042; a tool that reuses one
flow across many calls (``UrlRequired(flow_id=...)``) must not grow its entry without bound.
(Each call is a session of its own, so one client may be told more than once; clients ignore
an id that already completed.)"""

POLL_INTERVAL = 1.0
"""Seconds between reads of the watched flows. A flow finished in this process (its page,
``Flows.complete``) is noticed at once without waiting for a read; polling only finds the
ones finished by another instance sharing the store, and expiries."""

READS_PER_SECOND = 2_000.0
"""The most store reads a pass aims at per second: with many flows watched the interval
stretches (10,000 flows: one pass every 5 s) instead of the store's load growing with them."""

DELIVERY_TIMEOUT = 5.0
"""Seconds to hand one notice to a session. The watcher tells every client in turn, so a
client whose stream does not drain must not hold up the notices of the others."""


class CompletionClient(Protocol):
    """What a notice is sent through: ``ServerSession`` is one."""

    async def send_elicit_complete(self, elicitation_id: str) -> None: ...


@dataclass(frozen=True, slots=True)
class _Watch:
    session: CompletionClient
    elicitation_id: str


class CompletionWatcher:
    """Watches flows for the clients that were sent to them; run :meth:`run` in one task.

    ``watch(flow_id, session, elicitation_id)`` adds a flow. The task then reads the watched
    flows every ``interval`` seconds (at once for a flow this process finishes), sends
    ``notifications/elicitation/complete`` to each session of a flow that completed, and
    forgets a flow as soon as it finished in any way or vanished.
    """

    def __init__(
        self,
        flows: Flows,
        *,
        limit: int = MAX_WATCHED_FLOWS,
        interval: float = POLL_INTERVAL,
        reads_per_second: float = READS_PER_SECOND,
        delivery_timeout: float = DELIVERY_TIMEOUT,
    ) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit!r}")
        self._flows = flows
        self._limit = limit
        self._interval = interval
        self._reads_per_second = reads_per_second
        self._delivery_timeout = delivery_timeout
        self._watched: dict[str, list[_Watch]] = {}
        self._due: set[str] = set()  # finished in this process since the last look
        self._wake = anyio.Event()

    def __len__(self) -> int:
        return len(self._watched)

    def __contains__(self, flow_id: object) -> bool:
        return flow_id in self._watched

    def watch(self, flow_id: str, session: CompletionClient, elicitation_id: str) -> bool:
        """Tell ``session`` (with ``elicitation_id``) when the flow completes. ``False`` when
        the watcher is full and the flow is not watched (logged)."""
        watches = self._watched.get(flow_id)
        if watches is None:
            if len(self._watched) >= self._limit:
                logger.warning(
                    "flow %s: no completion notice will be sent (%d flows are watched "
                    "already, the limit); the client must retry by hand",
                    flow_id,
                    self._limit,
                )
                return False
            watches = self._watched[flow_id] = []
        watch = _Watch(session, elicitation_id)
        if watch in watches:
            return True  # the same -32042 again
        if len(watches) >= MAX_SESSIONS_PER_FLOW:
            logger.warning(
                "flow %s: no completion notice for one more session (%d wait on it already)",
                flow_id,
                len(watches),
            )
            return False
        watches.append(watch)
        self._wake.set()  # an idle watcher starts polling
        return True

    async def run(self) -> NoReturn:
        """Watch until cancelled. Never raises otherwise: it runs in the server's task
        group, where an exception would stop the whole server."""
        with self._flows.observing_finishes(self._finished_here):
            next_pass = anyio.current_time()
            while True:
                if self._watched:
                    with anyio.move_on_after(next_pass - anyio.current_time()):
                        await self._wake.wait()
                else:
                    await self._wake.wait()  # nothing to read until a flow is watched
                # A new event before the reads: a wake-up during them is kept for the next
                # turn rather than lost.
                self._wake = anyio.Event()
                now = anyio.current_time()
                if now >= next_pass:
                    flow_ids = list(self._watched)
                    pace = max(self._interval, len(flow_ids) / self._reads_per_second)
                    next_pass = now + pace
                else:
                    flow_ids = [f for f in self._due if f in self._watched]
                self._due.clear()
                await self._look_at(flow_ids)

    def _finished_here(self, flow_id: str) -> None:
        if flow_id in self._watched:
            self._due.add(flow_id)
            self._wake.set()

    async def _look_at(self, flow_ids: list[str]) -> None:
        failed = 0
        for flow_id in flow_ids:
            if flow_id not in self._watched:
                continue  # finished on an earlier turn
            try:
                flow = await self._flows.get(flow_id)
            except Exception:
                # Keeping a flow we cannot read could keep it for ever; the notice is
                # optional, so give it up (one line for the whole pass, below).
                failed += 1
                self._watched.pop(flow_id, None)
                logger.debug("flow %s: reading it failed", flow_id, exc_info=True)
                continue
            if flow is None:
                self._watched.pop(flow_id, None)
                logger.warning(
                    "flow %s: no completion notice will be sent (it is no longer in the store)",
                    flow_id,
                )
                continue
            if not flow.status.finished:
                continue
            # Taken now, not before the read: a session added meanwhile is told too.
            finished = self._watched.pop(flow_id, [])
            if flow.status is FlowStatus.COMPLETED:
                await self._tell(flow, finished)
            else:
                logger.debug("flow %s %s: no completion notice", flow_id, flow.status.value)
        if failed:
            logger.warning(
                "%d watched flow(s): no completion notice will be sent (reading them from the "
                "store failed; details at DEBUG)",
                failed,
            )

    async def _tell(self, flow: FlowRecord, watches: list[_Watch]) -> None:
        for watch in watches:
            try:
                with anyio.fail_after(self._delivery_timeout):
                    await watch.session.send_elicit_complete(watch.elicitation_id)
            except Exception:
                # The client disconnected, or its stream is stuck: it simply gets no notice.
                logger.info(
                    "flow %s: the completion notice could not be sent (the client is gone?)",
                    flow.id,
                    exc_info=logger.isEnabledFor(logging.DEBUG),
                )
