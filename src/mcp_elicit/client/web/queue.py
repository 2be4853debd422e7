"""The prompts waiting for the person, in the order the page shows them, and how a page
learns that something changed.

Every change (a prompt added, answered or given up, a notice) bumps :attr:`Queue.version`
and wakes every page waiting on :meth:`Queue.changed_since`, so a page long-polls with the
version it last saw and hears of the next change at once.

Order: a "waiting for you to finish" step comes first (it continues a link the person has
just opened), then forms and links in the order they arrived.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

import anyio

from mcp_elicit.client.prompts import Cancel, Decision, FormPrompt, Notice, UrlPrompt

Kind = Literal["form", "url", "wait"]

# Notices are a log for the person, not a store: the page shows the latest few.
NOTICES_KEPT = 20


@dataclass(eq=False)
class Pending:
    """One prompt on the page; :attr:`answered` is set once :attr:`answer` is."""

    id: str
    kind: Kind
    prompt: FormPrompt | UrlPrompt
    seq: int
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: Decision | None = None
    # Listed to a page at least once: only such a prompt is cancelled when the page goes.
    seen: bool = False

    async def wait(self) -> Decision:
        await self.answered.wait()
        assert self.answer is not None
        return self.answer


@dataclass(frozen=True)
class PostedNotice:
    number: int
    notice: Notice


class Queue:
    """Pending prompts and recent notices. Create it inside a running event loop."""

    def __init__(self) -> None:
        self.version = 0
        self.closed = False
        self._items: dict[str, Pending] = {}
        self._numbers = itertools.count(1)
        self._changed = anyio.Event()
        self.notices: deque[PostedNotice] = deque(maxlen=NOTICES_KEPT)

    def add(self, kind: Kind, prompt: FormPrompt | UrlPrompt) -> Pending:
        number = next(self._numbers)
        pending = Pending(f"p{number}", kind, prompt, number)
        self._items[pending.id] = pending
        self._change()
        return pending

    def get(self, prompt_id: str) -> Pending | None:
        return self._items.get(prompt_id)

    def resolve(self, pending: Pending, answer: Decision) -> bool:
        """Give ``pending`` its answer; ``False`` if it already had one (the first wins)."""
        if pending.answer is not None:
            return False
        pending.answer = answer
        pending.answered.set()
        self.remove(pending)
        return True

    def remove(self, pending: Pending) -> None:
        if self._items.pop(pending.id, None) is not None:
            self._change()

    def ordered(self) -> list[Pending]:
        return sorted(self._items.values(), key=lambda p: (p.kind != "wait", p.seq))

    def post(self, notice: Notice) -> None:
        self.notices.append(PostedNotice(next(self._numbers), notice))
        self._change()

    def close(self, reason: str) -> None:
        """No more pages: every pending prompt is cancelled, every waiting page told."""
        self.closed = True
        for pending in list(self._items.values()):
            self.resolve(pending, Cancel(reason=reason))
        self._change()

    async def changed_since(self, version: int) -> None:
        """Return once :attr:`version` differs from ``version`` (at once if it does now)."""
        while self.version == version and not self.closed:
            await self._changed.wait()

    def _change(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = anyio.Event()
