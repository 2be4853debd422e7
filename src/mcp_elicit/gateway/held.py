"""Held calls: a push-era upstream call kept open while a 2026-07-28 client answers by retrying.

This module is the only one that moves a held call from state to state; the rules are here.

Why it is needed. A 2025-era server asks while its call is open (it sends
``elicitation/create`` and waits); a 2026-07-28 client answers only by retrying the call with
``inputResponses`` and the ``requestState`` it was given. So the gateway starts the upstream
call, and when the server asks, it ends the client's request with an ``InputRequiredResult``
while the upstream call stays open, *held*, waiting for the answer. The ``requestState``
names the held call and the question (a :class:`~.state.HeldQuestion`, sealed by the SDK's
``RequestStateBoundary``: bound to the method, the tool and its arguments, the user, and
short-lived), and the retry that carries it delivers the answer to the waiting server.

States (one at a time):

- ``running``: the upstream call runs; nothing is waiting for the client.
- ``asking``: the server asked question ``key`` (``q1``, ``q2``, ... in order); the client has
  it, or will have it as soon as a request of its is waiting.
- ``finished``: the upstream call ended (``outcome``: its result, or its error).
- ``expired``: nobody came back within ``limit``; the upstream call was cancelled.

Moves:

- ``running`` → ``asking``: the server asks (:meth:`HeldCall.ask`, in the upstream session's
  task; it returns when the answer arrives).
- ``asking`` → ``running``: a retry delivers the answer to the current question
  (:meth:`HeldCall.answer`). Only the current key is taken (:meth:`HeldCall.question` says
  which it is): an answer to an older question (a replayed retry), or a second retry racing
  the first for the same question, is refused (:class:`Stale`), so one question is answered
  once.
- ``running`` → ``finished``: the upstream call returned (:meth:`HeldCall.finish`).
- ``asking`` or ``finished`` → ``expired``: no client request has waited on the call for
  ``limit`` seconds (:meth:`HeldCall.expired_at`, watched by
  :meth:`HeldCalls.expire_when_idle`): :meth:`HeldCall.expire` cancels the upstream call,
  and it is forgotten. An answer the gateway rejects expires the call the same way
  (:meth:`HeldCalls.give_up`: the server never sees that answer). While a request waits
  (:meth:`HeldCall.next_step`) the clock stops: the server may take as long as it likes to
  compute.

Whose. A held call belongs to the client that made it (:func:`~.context.client_of`: the
signed-in user, or the bearer token's, when there is one). The seal already binds the
``requestState`` to that user; :meth:`HeldCall.question` checks again, and another client's
retry is refused as :class:`Foreign`, which the caller answers exactly as it answers a forged
state, so a state cannot be used to probe for calls.

How many. :meth:`HeldCalls.new` refuses a call past the cap in all or the cap for its client
(:class:`~.limits.OverLimit`, naming the cap) before anything is started upstream; a call
counts until it is forgotten.

A finished call is forgotten once a request has taken its outcome. Everything lives in this
process's memory: held calls do not cross gateway instances (docs/gateway.md).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from mcp_elicit.gateway.limits import Limits, cap_reached
from mcp_elicit.protocol import ElicitationRequest

State = Literal["running", "asking", "finished", "expired"]

DEFAULT_HOLD_LIMIT = 30 * 60.0
"""How long a held call waits for the client to come back with an answer: long enough for a
person to find a password or finish a sign-in in a browser."""


class Stale(Exception):
    """The retry names a question that is not the one the held call is waiting on."""


class Foreign(Exception):
    """The retry comes from another client than the one the held call was made by."""


@dataclass(frozen=True, slots=True)
class OpenQuestion:
    """The held call waits on question ``key`` (``shown``: as the client is asked it)."""

    key: str
    request: ElicitationRequest
    shown: dict[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CallEnded:
    """The upstream call ended: ``result`` (a raw result) or ``error`` (an ``MCPError``)."""

    result: dict[str, Any] | None = None
    error: BaseException | None = None


HeldStep = OpenQuestion | CallEnded


@dataclass(eq=False)
class HeldCall:
    """One upstream call held for a 2026-07-28 client."""

    limit: float
    clock: Callable[[], float] = time.monotonic
    owner: object = None  # the client that made it (context.client_of)
    id: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    state: State = "running"
    asked: int = 0
    cancel: Callable[[], None] | None = None  # cancels the upstream call while it runs
    current: OpenQuestion | None = None
    outcome: CallEnded | None = None
    waiting: int = 0  # client requests waiting on the call right now
    idle_since: float = 0.0
    _answer: Any = None
    _answered: anyio.Event = field(default_factory=anyio.Event)
    _changed: anyio.Event = field(default_factory=anyio.Event)

    def __post_init__(self) -> None:
        self.idle_since = self.clock()

    # -- the upstream side ---------------------------------------------------------------

    async def ask(self, request: ElicitationRequest, shown: dict[str, Any] | None = None) -> Any:
        """The server asks ``request`` (``shown`` to the client): wait for the answer."""
        if self.state != "running":
            raise RuntimeError(f"a held call cannot ask while {self.state}")
        self.asked += 1
        self.current = OpenQuestion(f"q{self.asked}", request, shown)
        self._answered = anyio.Event()
        self._move("asking")
        await self._answered.wait()
        answer, self._answer = self._answer, None
        return answer

    def finish(self, outcome: CallEnded) -> None:
        if self.state in ("finished", "expired"):
            return
        self.outcome = outcome
        self.current = None
        self._move("finished")

    # -- the client side -----------------------------------------------------------------

    def question(self, key: str, owner: object = None) -> OpenQuestion:
        """The question ``key``, asked of ``owner``, if it is the one the call waits on
        (``Foreign`` if the call is another client's, ``Stale`` if the question is not)."""
        if owner != self.owner:
            raise Foreign("this call was made by another client")
        if self.state != "asking" or self.current is None or self.current.key != key:
            raise Stale(f"question {key!r} is not the one this call is waiting on")
        return self.current

    def answer(self, key: str, answer: Any, owner: object = None) -> None:
        """Deliver ``owner``'s answer to question ``key`` (``Foreign``, ``Stale``: as
        :meth:`question`)."""
        self.question(key, owner)
        self.current = None
        self._answer = answer
        self._move("running")
        self._answered.set()

    async def next_step(self) -> HeldStep:
        """Wait until the call asks or ends; the hold clock stops meanwhile."""
        self.waiting += 1
        try:
            while self.state == "running":
                await self._changed.wait()
            if self.state == "expired":
                raise Stale("the held call expired")
            if self.state == "asking":
                assert self.current is not None
                return self.current
            assert self.outcome is not None
            return self.outcome
        finally:
            self.waiting -= 1
            self.idle_since = self.clock()

    # -- the clock -----------------------------------------------------------------------

    def expired_at(self) -> float | None:
        """When the call expires if nobody comes back (``None``: a request is waiting, or it
        already expired)."""
        if self.waiting or self.state == "expired":
            return None
        return self.idle_since + self.limit

    def expire(self) -> None:
        """Give the call up: its upstream call is cancelled."""
        self.current = None
        self._move("expired")
        self._answered.set()
        if self.cancel is not None:
            self.cancel()

    def _move(self, state: State) -> None:
        self.state = state
        changed, self._changed = self._changed, anyio.Event()
        changed.set()


class HeldCalls:
    """The held calls of this gateway, by id, within ``limits``' caps."""

    def __init__(self, limit: float = DEFAULT_HOLD_LIMIT, limits: Limits | None = None) -> None:
        if limit <= 0:
            raise ValueError("the hold limit must be positive")
        self.limit = limit
        self.limits = limits or Limits()
        self._calls: dict[str, HeldCall] = {}
        self._by_owner: dict[object, int] = {}

    def new(self, owner: object = None) -> HeldCall:
        """A held call for ``owner``; ``OverLimit`` past the cap in all or ``owner``'s."""
        limits = self.limits
        if len(self._calls) >= limits.held_calls:
            raise cap_reached("held_calls", limits.held_calls, "held calls", "--max-held-calls")
        if self._by_owner.get(owner, 0) >= limits.held_calls_per_client:
            raise cap_reached(
                "held_calls_per_client",
                limits.held_calls_per_client,
                "held calls",
                "--max-held-calls-per-client",
            )
        call = HeldCall(self.limit, owner=owner)
        self._calls[call.id] = call
        self._by_owner[owner] = self._by_owner.get(owner, 0) + 1
        return call

    def get(self, call_id: str) -> HeldCall | None:
        return self._calls.get(call_id)

    def forget(self, call: HeldCall) -> None:
        if self._calls.pop(call.id, None) is None:
            return
        left = self._by_owner.pop(call.owner, 0) - 1
        if left > 0:
            self._by_owner[call.owner] = left

    def held_for(self, owner: object) -> int:
        """How many calls are held for ``owner`` now."""
        return self._by_owner.get(owner, 0)

    def give_up(self, call: HeldCall) -> None:
        """Expire ``call`` now (its upstream call is cancelled) and forget it."""
        call.expire()
        self.forget(call)

    async def expire_when_idle(self, call: HeldCall) -> None:
        """Give ``call`` up once nobody has come back for it within its limit; return when it
        is forgotten (its outcome was taken, or it was given up)."""
        while self.get(call.id) is call:
            at = call.expired_at()
            now = call.clock()
            if at is not None and now >= at:
                self.give_up(call)
                return
            await anyio.sleep(min(call.limit, 5.0) if at is None else max(at - now, 0.01))

    def __len__(self) -> int:
        return len(self._calls)
