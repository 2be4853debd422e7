"""URL-mode links that passed through the gateway, until their completion is known.

A 2025-11-25 server says a link's flow is finished with ``notifications/elicitation/complete``
naming its ``elicitationId``, possibly after the call that sent the link has ended (after
-32042); for a 2026-07-28 server the gateway decides it (:meth:`Links.resolved`, when the
server stops asking for the link). The notice goes on to the downstream session the link was
sent to, when that client speaks a revision with the notice; a 2026-07-28 client's retry
waits for it (:meth:`Links.finished`); a URL-mode draft client asks with ``elicitation/track``
(:meth:`Links.track`), and only the client the link was sent to may (its ``owner``: the
signed-in user, else its session). Entries are forgotten after ``ttl`` seconds, or beyond
``size``.

A 2026-07-28 client's retry after links it was given for a -32042 waits for their completion
(at most the gateway's ``link_wait``). A server may send no notice; the person then says they
are done, and the client sends the very same retry again (``ElicitingClient`` does, having
dropped the first: "press Enter when you are done (asks … again now)"). So the second
arrival of one record is the person's word: :class:`LinkRetries` tells it from the first,
and ends the first's wait, so that the call is made again now, once.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from mcp_elicit.protocol.messages import TRACK_PROGRESS_EVERY

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class _Link:
    session: Any  # the downstream ServerSession told of completion, or None
    request_id: Any
    since: float
    done: anyio.Event = field(default_factory=anyio.Event)
    owner: object = None  # who may track it (URL-mode draft)


class Links:
    def __init__(self, *, ttl: float = 3600.0, size: int = 100_000) -> None:
        self.ttl = ttl
        self.size = size
        self._links: dict[str, _Link] = {}
        self.retries = LinkRetries()

    def watch(
        self, elicitation_id: str, session: Any, request_id: Any, *, owner: object = None
    ) -> None:
        """Remember ``elicitation_id``; tell ``session`` (if any) when it completes; let
        ``owner`` track it."""
        self._prune()
        found = self._links.get(elicitation_id)
        if found is not None and found.done.is_set():
            return
        done = found.done if found else anyio.Event()
        self._links[elicitation_id] = _Link(session, request_id, time.monotonic(), done, owner)

    async def finished(self, elicitation_id: str) -> None:
        """Return once the upstream has said ``elicitation_id`` is complete."""
        found = self._links.get(elicitation_id)
        if found is None:
            found = self._links[elicitation_id] = _Link(None, None, time.monotonic())
        await found.done.wait()

    def resolved(self, elicitation_id: str) -> None:
        """``elicitation_id`` is complete, and its client is told some other way."""
        found = self._links.get(elicitation_id)
        if found is not None:
            found.session = None
            found.done.set()

    async def track(
        self, elicitation_id: str, owner: object, progress: Callable[[int], Awaitable[None]]
    ) -> None:
        """URL-mode draft: return once ``elicitation_id`` is complete, calling ``progress``
        meanwhile. Another client's link, or one never sent, is unknown (the same error: an
        id cannot be probed)."""
        found = self._links.get(elicitation_id)
        if found is None or found.owner is None or found.owner != owner:
            raise MCPError(INVALID_PARAMS, f"unknown elicitation {elicitation_id!r}")
        step = 0
        while not found.done.is_set():
            step += 1
            await progress(step)
            with anyio.move_on_after(TRACK_PROGRESS_EVERY):
                await found.done.wait()

    async def complete(self, elicitation_id: str) -> None:
        """The upstream said ``elicitation_id`` is complete."""
        found = self._links.get(elicitation_id)
        if found is None:
            found = self._links[elicitation_id] = _Link(None, None, time.monotonic())
        found.done.set()
        if found.session is None:
            return
        session, found.session = found.session, None
        try:
            await session.send_elicit_complete(elicitation_id)
        except Exception as failed:  # the client went away: nothing more to tell it
            logger.info("could not pass on the completion of %s: %s", elicitation_id, failed)

    def _prune(self) -> None:
        now = time.monotonic()
        while self._links:
            oldest_id, oldest = next(iter(self._links.items()))
            if now - oldest.since < self.ttl and len(self._links) < self.size:
                return
            del self._links[oldest_id]


class LinkRetries:
    """The retries that carry a person's accept of required links, by their record's id
    (:class:`~.state.RequiredLinks`), the last ``size`` remembered.

    The first to arrive for a record waits for its links (:meth:`waiting_for`); any later one is
    the person saying they are done: it does not wait, and it ends the wait of the one before
    it (that request, which its client has dropped, goes no further: the call is made again
    once, by the later one)."""

    def __init__(self, *, size: int = 4096) -> None:
        self.size = size
        self._records: OrderedDict[str, anyio.Event] = OrderedDict()
        self.waiting = 0  # retries waiting for their links now

    def arrived(self, record_id: str) -> tuple[bool, anyio.Event]:
        """A retry for ``record_id`` arrived: whether it is the first, and an event set when a
        later one supersedes it."""
        earlier = self._records.pop(record_id, None)
        mine = self._records[record_id] = anyio.Event()
        while len(self._records) > self.size:
            self._records.popitem(last=False)
        if earlier is not None:
            earlier.set()
        return earlier is None, mine

    async def waiting_for(
        self, superseded: anyio.Event, finished: Callable[[], Awaitable[None]], limit: float
    ) -> None:
        """Wait for ``finished()``, at most ``limit`` seconds, or until ``superseded``."""
        self.waiting += 1
        try:
            with anyio.move_on_after(limit):
                async with anyio.create_task_group() as tasks:

                    async def until_finished() -> None:
                        await finished()
                        tasks.cancel_scope.cancel()

                    tasks.start_soon(until_finished)
                    await superseded.wait()
                    tasks.cancel_scope.cancel()
        finally:
            self.waiting -= 1
