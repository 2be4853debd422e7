"""Which URL-mode elicitations the server has said are complete (2025-11-25).

``notifications/elicitation/complete`` may arrive before the person closes the consent screen,
or for an id we never saw: an early completion is remembered, an unknown one is ignored
(the specification says clients MUST ignore unknown ids).
"""

from __future__ import annotations

from collections import OrderedDict

import anyio

# A server that completes ids we never asked about must not grow this without bound.
_REMEMBERED_EARLY = 1024


class Completions:
    """Completion events by ``elicitationId``."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}
        self._early: OrderedDict[str, None] = OrderedDict()

    def expect(self, elicitation_id: str) -> anyio.Event:
        """The event set when ``elicitation_id`` completes (already set if it has)."""
        event = self._events.get(elicitation_id)
        if event is None:
            event = self._events[elicitation_id] = anyio.Event()
            if elicitation_id in self._early:
                del self._early[elicitation_id]
                event.set()
        return event

    def complete(self, elicitation_id: str) -> bool:
        """Record a completion; ``True`` if someone was waiting for it."""
        event = self._events.get(elicitation_id)
        if event is not None:
            event.set()
            return True
        self._early[elicitation_id] = None
        while len(self._early) > _REMEMBERED_EARLY:
            self._early.popitem(last=False)
        return False

    def forget(self, elicitation_id: str) -> None:
        self._events.pop(elicitation_id, None)
