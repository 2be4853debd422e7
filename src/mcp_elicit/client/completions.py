"""Which URL-mode elicitations the server has said are complete (2025-11-25).

The handler starts watching an ``elicitationId`` before it shows the consent screen (so a
``notifications/elicitation/complete`` that arrives while the person is still reading it
counts) and forgets it once the step is over. A completion for an id nobody is watching (one
this client never saw, or already forgot) is ignored, as the specification says clients MUST:
it is not remembered, so a later elicitation that happens to carry that id starts out
incomplete. Nothing a server sends can make this grow: only ids the client watches are kept.
"""

from __future__ import annotations

import anyio


class CompletionWatch:
    """Completion events by ``elicitationId``, for the ids being watched."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}

    def expect(self, elicitation_id: str) -> anyio.Event:
        """Start watching ``elicitation_id``: the event is set when it completes."""
        event = self._events.get(elicitation_id)
        if event is None:
            event = self._events[elicitation_id] = anyio.Event()
        return event

    def complete(self, elicitation_id: str) -> bool:
        """A completion from the server: ``True`` if ``elicitation_id`` is watched (its
        event is set); ``False``, and nothing kept, if not."""
        event = self._events.get(elicitation_id)
        if event is None:
            return False
        event.set()
        return True

    def forget(self, elicitation_id: str) -> None:
        """Stop watching ``elicitation_id``; a completion for it is ignored from now on."""
        self._events.pop(elicitation_id, None)

    def watching(self, elicitation_id: str) -> bool:
        return elicitation_id in self._events
