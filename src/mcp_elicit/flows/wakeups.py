"""In-process wake-ups: a task waiting for a flow learns at once that this process finished
it, instead of at its next look at the store. Changes made by other processes are found by
polling; this only makes the local case immediate."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio


class Wakeups:
    """One :class:`anyio.Event` per flow id that someone is waiting on, replaced each time it
    fires. Entries live only while a waiter holds them, so flows nobody waits for cost
    nothing."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}
        self._waiters: dict[str, int] = {}
        self._observers: list[Callable[[str], None]] = []

    @contextmanager
    def listening(self, flow_id: str) -> Iterator[None]:
        """Keep the entry for ``flow_id`` while the block runs."""
        self._waiters[flow_id] = self._waiters.get(flow_id, 0) + 1
        try:
            yield
        finally:
            self._waiters[flow_id] -= 1
            if not self._waiters[flow_id]:
                del self._waiters[flow_id]
                self._events.pop(flow_id, None)

    def event(self, flow_id: str) -> anyio.Event:
        """The event the next :meth:`notify` sets. Take it *before* reading the store, so a
        change made between the read and the wait is not missed."""
        event = self._events.get(flow_id)
        if event is None:
            event = self._events[flow_id] = anyio.Event()
        return event

    @contextmanager
    def observing(self, observer: Callable[[str], None]) -> Iterator[None]:
        """Call ``observer(flow_id)`` on every :meth:`notify` while the block runs: for one
        task that watches many flows, where an event per flow would mean a task per flow.
        ``observer`` runs inside ``notify``, so it must be quick and must not raise."""
        self._observers.append(observer)
        try:
            yield
        finally:
            self._observers.remove(observer)

    def notify(self, flow_id: str) -> None:
        event = self._events.pop(flow_id, None)
        if event is not None:
            event.set()
        for observer in tuple(self._observers):
            observer(flow_id)

    def notify_all(self) -> None:
        """Wake every waiter, to read the store again (the observers are not called: no
        flow is known to have finished)."""
        events, self._events = self._events, {}
        for event in events.values():
            event.set()
