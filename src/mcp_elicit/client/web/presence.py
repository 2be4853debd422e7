"""Whether the person still has the page open, from the page's own requests.

The page always has one state request open (a long poll: the server answers when something
changes, or after a while with nothing new, and the page asks again at once). While one is
open, or for ``grace`` seconds after the last one ended, the page is here. A closed tab drops
its connection, the open request ends, and ``grace`` seconds later the page is gone.

Why not ``pagehide`` and ``navigator.sendBeacon``: a reload fires them too, a crashed or killed
browser fires nothing, and a beacon can be lost. The missing poll covers all of those; the
grace covers a reload.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Presence:
    def __init__(self, *, grace: float, clock: Callable[[], float]) -> None:
        self.grace = grace
        self._clock = clock
        self._open = 0
        self._last = -math.inf  # when a state request last started or ended

    @contextmanager
    def polling(self) -> Iterator[None]:
        """Around each state request."""
        self._open += 1
        self._last = self._clock()
        try:
            yield
        finally:
            self._open -= 1
            self._last = self._clock()

    def here(self) -> bool:
        return self._open > 0 or self._clock() - self._last < self.grace

    def came_since(self, moment: float) -> bool:
        """Whether a page asked for the state at or after ``moment``."""
        return self._last >= moment
