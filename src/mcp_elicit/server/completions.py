"""Telling a client that the out-of-band part of a URL-mode question is over: every revision's
way, in one module.

How a client learns that a link's flow completed depends on the revision, and the revision
rules table says which (``RevisionRules.completion``):

- ``"notification"`` (2025-11-25): ``notifications/elicitation/complete`` with the
  ``elicitationId``. After a pushed link the tool itself waits for the flow and sends it
  (:meth:`Completions.after_link`); after a -32042 the tool has returned, so one shared
  :class:`CompletionWatcher` watches every such flow and tells the client that got the error
  (:meth:`Completions.after_required`).
- ``"track"`` (the URL-mode draft): the client asks, with ``elicitation/track``; the server
  sends ``notifications/progress`` while the flow is open and answers when it completed
  (:meth:`Completions.track`).
- ``"retry"`` (2026-07-28): no message at all; the client's retry is the signal. It comes as
  soon as the person agrees to open the link, while they are most likely still on the page, so
  the retry is held for ``url_resume_wait`` (:meth:`Completions.hold`,
  :meth:`Completions.resume_linked`) rather than showing them the same link again. At most
  ``max_held`` retries are held at once (:data:`DEFAULT_MAX_HELD`); past that a retry is
  answered at once with the link asked for again, as if the page were not done yet.
- ``"none"`` (2025-06-18): no URL mode, nothing to tell.

What is sent, and when (2025-11-25, "Completion Notifications for URL Mode Elicitation"):

- only when the flow is *completed*: the spec's notification is for when the out-of-band
  interaction "is completed", and a client may retry on it automatically. After a decline a
  retry would only be sent the link again, asking a person who just said no; after an expiry
  there is nothing to retry for. Those flows are dropped without a notice (docs/url-mode.md);
- only to the session that received the link or the -32042 ("MUST only send the notification
  to the client that initiated the elicitation request"), with the ``elicitationId`` it
  carried.

The notice is optional for the server and clients must not depend on it (they "SHOULD still
provide manual controls"), so whatever goes wrong costs the notice and never the server: a
flow that vanished from the store, a read that failed, a session that is gone or cannot
take the message.

What the watcher holds: the ``ServerSession`` of the request that got the -32042. The SDK
makes one per request, as a proxy whose notices go to the connection's standalone stream, and
offers no public handle on the connection itself, so the watcher cannot tell that a client
left before it tries to send. It keeps the session until the flow finishes or expires (the
flow's ``ttl``), within :data:`MAX_WATCHED_FLOWS` and :data:`MAX_SESSIONS_PER_FLOW`; a send to
a client that left fails, and costs nothing else.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, NoReturn, Protocol

import anyio
import anyio.abc
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import RequestId

from mcp_elicit.flows import FlowNotFound, Flows
from mcp_elicit.protocol import rules_for
from mcp_elicit.protocol.codes import INVALID_PARAMS
from mcp_elicit.protocol.messages import TRACK_PROGRESS_EVERY
from mcp_elicit.protocol.models import TrackParams
from mcp_elicit.revisions import Revision
from mcp_elicit.server.rounds import Round
from mcp_elicit.stores import FlowRecord, FlowStatus

logger = logging.getLogger(__name__)

COMPLETION_TASK = "mcp-elicit completion notices"

DEFAULT_URL_RESUME_WAIT = 20.0
"""2026-07-28: how long a retry after "I opened the link" is held while the person is still
on the page, before the link is asked for again."""

DEFAULT_MAX_HELD = 1_000
"""2026-07-28: retries held at once. Each holds an open request (a connection, a task and a
store wait) for up to ``url_resume_wait``, so without a cap a client that keeps retrying, or
many people opening links at once, would pin the server's connections. Past the cap a retry
is not held: it gets the link again at once (what it gets anyway when the page is not done),
and the client asks again. Logged once per run."""

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

    async def send_elicit_complete(
        self, elicitation_id: str, related_request_id: RequestId | None = None
    ) -> None: ...


class Completions:
    """Completion signalling for one server (the ``Elicitation`` that made it): ``flows`` are
    read when first needed (a server that only asks never opens its store)."""

    def __init__(
        self,
        flows: Callable[[], Flows],
        *,
        url_resume_wait: float = DEFAULT_URL_RESUME_WAIT,
        max_held: int = DEFAULT_MAX_HELD,
        user_of: Callable[[ServerRequestContext[Any, Any]], str | None] = lambda ctx: None,
    ) -> None:
        self._flows = flows
        self.url_resume_wait = url_resume_wait
        self.max_held = max_held
        self.held = 0
        """Retries held right now."""
        self.not_held = 0
        """Retries answered at once because ``max_held`` were held already (since the start)."""
        self._said_full = False
        self._user_of = user_of
        self._tasks: anyio.abc.TaskGroup | None = None
        self._watcher: CompletionWatcher | None = None

    @contextlib.asynccontextmanager
    async def running(self, tasks: anyio.abc.TaskGroup) -> AsyncIterator[None]:
        """While the server runs: the watcher starts in ``tasks`` on the first -32042."""
        self._tasks = tasks
        try:
            yield
        finally:
            self._tasks = None
            # Its sessions belonged to this run; a later run starts a watcher of its own.
            self._watcher = None
            self._said_full = False

    # -- after a pushed link (2025-11-25, the URL-mode draft) -----------------------------------

    async def after_link(
        self,
        revision: Revision,
        flow: FlowRecord,
        *,
        session: CompletionClient,
        elicitation_id: str,
        request_id: RequestId | None,
        timeout: float | None,
    ) -> FlowRecord:
        """The person agreed to open the link of ``flow``: wait until it finishes (or
        ``timeout``), and tell the client the revision's way. The flow as it ended."""
        finished = await self._flows().wait(flow.id, timeout=timeout)
        if (
            finished.status is FlowStatus.COMPLETED
            and rules_for(revision).completion == "notification"
        ):
            # On the tool call's own stream: the request is still open.
            await session.send_elicit_complete(elicitation_id, related_request_id=request_id)
        return finished

    # -- after a link the tool raised (-32042, -32604) ------------------------------------------

    def after_required(
        self,
        revision: Revision,
        flow_id: str,
        *,
        session: CompletionClient,
        elicitation_id: str,
    ) -> bool:
        """The tool returned "open this link first": arrange for the client to learn when
        ``flow_id`` completes. ``False`` when it will not (logged)."""
        match rules_for(revision).completion:
            case "notification":
                return self._watch(flow_id, session, elicitation_id)
            case "track":
                return True  # the client asks, with elicitation/track
            case _:
                return False

    def _watch(self, flow_id: str, session: CompletionClient, elicitation_id: str) -> bool:
        if self._tasks is None:
            logger.warning(
                "flow %s: no completion notice will be sent (Elicitation is not running)",
                flow_id,
            )
            return False
        if self._watcher is None:
            self._watcher = CompletionWatcher(self._flows())
            self._tasks.start_soon(self._watcher.run, name=COMPLETION_TASK)
        return self._watcher.watch(flow_id, session, elicitation_id)

    # -- the URL-mode draft: elicitation/track ---------------------------------------------------

    async def track(
        self, ctx: ServerRequestContext[Any, Any], params: TrackParams
    ) -> dict[str, Any]:
        """``elicitation/track``: progress while the flow is open, ``{"status": "complete"}``
        once it completed. An unknown id and another user's id get the same error, so that
        an id cannot be probed."""
        flows = self._flows()
        flow = await flows.get(params.elicitation_id)
        user = self._user_of(ctx)
        if flow is None or not user or flow.user != user:
            raise MCPError(INVALID_PARAMS, f"unknown elicitation {params.elicitation_id!r}")
        step = 0
        while not flow.status.finished:
            step += 1
            await ctx.session.report_progress(step, None, f"Waiting: {flow.status.value}")
            flow = await flows.wait(flow.id, timeout=TRACK_PROGRESS_EVERY)
        if flow.status is not FlowStatus.COMPLETED:
            raise MCPError(
                INVALID_PARAMS, f"elicitation {flow.id!r} ended without completing: {flow.status}"
            )
        return {"status": "complete"}

    # -- 2026-07-28: the retry is the signal -----------------------------------------------------

    async def hold(self, flow: FlowRecord) -> FlowRecord:
        """The client retried as soon as the person agreed to open the link of ``flow``:
        give the flow ``url_resume_wait`` to finish before the link is asked for again. With
        ``max_held`` retries held already, ``flow`` as it is, at once."""
        if flow.status.finished or self.url_resume_wait <= 0:
            return flow
        if self.held >= self.max_held:
            self._not_held(flow)
            return flow
        self.held += 1
        try:
            return await self._flows().wait(flow.id, timeout=self.url_resume_wait)
        except FlowNotFound:  # swept meanwhile: the caller asks again, with a fresh flow
            return flow
        finally:
            self.held -= 1

    def _not_held(self, flow: FlowRecord) -> None:
        self.not_held += 1
        if self._said_full:
            logger.debug("flow %s: the retry is not held (%d held already)", flow.id, self.held)
            return
        # Once per run: under a flood a line per retry would be a flood of its own.
        self._said_full = True
        logger.warning(
            "flow %s: the retry after its link is answered at once with the link again, not "
            "held: %d retries are held already (max_held_retries; said once, the rest at "
            "DEBUG)",
            flow.id,
            self.max_held,
        )

    async def resume_linked(self, round_: Round) -> None:
        """Before a retry that follows a raised ``UrlRequired`` link the person agreed to
        open: hold it while the flow is open, so that the tool, run again, finds what the
        page stored rather than sending the link again."""
        flow = await self.linked_flow(round_)
        if flow is not None:
            await self.hold(flow)

    async def linked_flow(self, round_: Round | None) -> FlowRecord | None:
        """The flow a raised ``UrlRequired`` link of the last round led to, while it is open."""
        flow_id = round_.linked_flow() if round_ is not None else None
        if flow_id is None:
            return None
        flow = await self._flows().get(flow_id)
        return flow if flow is not None and not flow.status.finished else None


@dataclass(frozen=True, slots=True)
class _Watch:
    session: CompletionClient
    elicitation_id: str


class CompletionWatcher:
    """Watches flows for the clients that were sent to them; run :meth:`run` in one task.

    ``watch(flow_id, session, elicitation_id)`` adds a flow. The task then reads the watched
    flows every ``interval`` seconds, and at once for a flow this process finishes or another
    instance announces through the store's finish feed. While that feed listens the reads
    are only a backstop, at ``Flows.read_interval``'s slower pace (a feed lost meanwhile is
    noticed at the next read). It sends ``notifications/elicitation/complete`` to each
    session of a flow that completed, and forgets a flow as soon as it finished in any way
    or vanished.
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
                    pace = max(
                        self._interval,
                        self._flows.read_interval,
                        len(flow_ids) / self._reads_per_second,
                    )
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
