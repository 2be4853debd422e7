"""Request timeouts measure the server, not the person: their clocks stop while someone answers.

The SDK's timeout runs from the moment a request is sent. A tool call that asks the person a
question in the middle would time out while they are still typing. Every outgoing request with
a timeout registers a :class:`PausableDeadline` here, and the handler holds
:meth:`Attention.person_answering` open while a renderer waits on the person: while any
question is open, every registered deadline stands still.

All in-flight requests pause, not just the one that asked: with server-to-client requests we
cannot always tell which call a question serves, and a person busy with one question is busy.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import anyio


class PausableDeadline:
    """One request's timeout as a budget of seconds, spent only while nobody is answering."""

    def __init__(self, budget: float, scope: anyio.CancelScope, *, paused: bool) -> None:
        self._budget = budget
        self._scope = scope
        self._paused = paused
        scope.deadline = math.inf if paused else anyio.current_time() + budget

    def pause(self) -> None:
        if not self._paused:
            self._budget = max(0.0, self._scope.deadline - anyio.current_time())
            self._scope.deadline = math.inf
            self._paused = True

    def resume(self) -> None:
        if self._paused:
            self._scope.deadline = anyio.current_time() + self._budget
            self._paused = False


class Attention:
    """Counts the questions a person has open, and pauses deadlines while there are any."""

    def __init__(self) -> None:
        self._open = 0
        self._deadlines: set[PausableDeadline] = set()

    @property
    def busy(self) -> bool:
        return self._open > 0

    @contextmanager
    def person_answering(self) -> Iterator[None]:
        self._open += 1
        if self._open == 1:
            for deadline in self._deadlines:
                deadline.pause()
        try:
            yield
        finally:
            self._open -= 1
            if self._open == 0:
                for deadline in self._deadlines:
                    deadline.resume()

    @contextmanager
    def deadline(self, seconds: float) -> Iterator[anyio.CancelScope]:
        """A cancel scope that expires after ``seconds`` of time nobody spent answering.

        ``scope.cancelled_caught`` tells the caller the budget ran out.
        """
        with anyio.CancelScope() as scope:
            clock = PausableDeadline(seconds, scope, paused=self.busy)
            self._deadlines.add(clock)
            try:
                yield scope
            finally:
                self._deadlines.discard(clock)
