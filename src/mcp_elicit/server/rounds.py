"""The 2026-07-28 round state machine: where each question of a tool call stands, retry by retry.

Sans-IO: no SDK, no store, no clock of its own. ``handling`` builds a :class:`Round` from a
request of this revision, ``ask``/``secret`` resolve their questions against it, and what
they decide leaves as an ``InputRequiredResult`` (:class:`AskPending`). This module is the
only one that reads or writes the records kept in ``requestState``.

Why it is needed. On 2026-07-28 a server never sends a request. A tool that needs an answer
ends its call with an ``InputRequiredResult`` ("ask this"); the client asks the person and
calls again with ``inputResponses`` and the ``requestState`` echoed. The tool body runs again
from the top, so every question it asked before the pending one must come out as it did,
without asking again. (Code before an ``ask`` runs once per round: docs/server.md.)

Questions are named by a key (their order in the body, ``q1``, ``q2``, ..., or the author's
``key=``) and pinned by a digest of exactly what was sent: an answer counts only for the
question it answers, so a body that asks something else on a later round (a redeploy, a
branch on data) asks afresh instead of taking an answer to a different question.

**An answer counts only for a question the sealed state shows was sent.** ``inputResponses``
are the client's word; the ``requestState`` is ours (sealed, bound to this call and user). A
response under a key the state has no :class:`Asked` record for, with the same pin, is
ignored and the question is asked: otherwise a client could answer a question no person was
shown, on a first call with no ``requestState`` at all (a confirmation nobody saw would count,
and ``timeout=`` would be skipped, since it is measured from the time the state records).

Per key, the state carries at most one record:

- nothing: never asked, or asked something else;
- :class:`Asked` (pin, when, tries, note, flow): sent last round; its answer arrives in
  ``inputResponses[key]``;
- :class:`Recorded` (pin, action, content, reason): answered; every later round has it.

:meth:`Round.resolve` reads where a question stands:

1. recorded with the same pin → :class:`Restored`: the answer as recorded, nothing is asked;
   recorded with another pin → the body asks something else now: go on as if never asked;
2. asked with the same pin and a response has come → :class:`TimedOut` when it came more
   than ``timeout`` seconds after the question was sent, else :class:`Responded`;
3. otherwise → :class:`Unanswered`: ask, carrying over the tries and the note of the last
   time this same question was sent (an ask of another pin carries nothing). A response
   with no :class:`Asked` record of this question behind it (no ``requestState``, or one
   that never asked it) lands here: it is ignored, and the question is asked.

What the caller does with a response, and records (:meth:`Round.record`) or asks
(:meth:`Round.ask`):

- a form answer that is valid → recorded; invalid → asked again with ``tries + 1`` and a note
  saying what was wrong, until ``reask`` is used up (then the call fails, naming the fields);
- a link the person declined or cancelled → recorded; accepted with no flow behind it →
  recorded as accepted; accepted and its flow finished without completing → the decline or
  expiry is recorded; a *completed* flow is recorded by its id only, never what its page
  received (later rounds read that flow again, and the value sealed with it); accepted and
  the flow still open → the same link is asked again, with the same flow.

Links that a tool raises as :class:`~mcp_elicit.server.url_mode.UrlRequired` leave under the
key :data:`LINK_KEY` with the flow they lead to (:meth:`Round.linked_flow`): the retry runs the
tool again, which checks its own precondition. If the person declined or cancelled that link
(:meth:`Round.link_response`) and the tool raises it again, the call ends there: asking again
would loop for as long as the client keeps retrying.

The state is plaintext JSON here. The SDK's ``RequestStateBoundary`` (outside the middleware)
seals it with AES-GCM, binds it to the method, tool name, arguments, user and server, and
gives it a lifetime; a token that fails any of that never reaches us (-32602). So a record we
cannot read is drift within our own fleet (an upgrade), not an attack: it is dropped, and the
question is asked again.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp_elicit.protocol import input_required_result
from mcp_elicit.protocol.messages import Action
from mcp_elicit.server.answers import Accepted, Answer, Cancelled, Declined

T = TypeVar("T")

STATE_KEY = "mcp-elicit"
STATE_VERSION = 1

LINK_KEY = "url"
"""The input request a raised ``UrlRequired`` becomes."""


def digest(params: Mapping[str, Any]) -> str:
    """A short, stable fingerprint of a question as sent: its pin."""
    raw = json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return base64.urlsafe_b64encode(hashlib.sha256(raw.encode()).digest()[:16]).decode()[:22]


# -- the records -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Asked:
    """A question sent in the last round. ``pin`` is ``None`` for a raised ``UrlRequired``
    link (the tool checks its own precondition on the retry)."""

    pin: str | None
    at: float  # wall-clock seconds when it was sent: timeouts outlive a restart
    tries: int = 0  # invalid answers to it so far
    note: str | None = None  # what was wrong with the last answer, shown with the question
    flow: str | None = None  # URL mode: the flow the link leads to

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": self.at}
        if self.pin is not None:
            out["q"] = self.pin
        if self.tries:
            out["try"] = self.tries
        if self.note is not None:
            out["note"] = self.note
        if self.flow is not None:
            out["flow"] = self.flow
        return out

    @classmethod
    def from_json(cls, raw: Any) -> Asked | None:
        if not isinstance(raw, dict):
            return None
        pin, at, tries = raw.get("q"), raw.get("at", 0), raw.get("try", 0)
        note, flow = raw.get("note"), raw.get("flow")
        if not (
            (pin is None or isinstance(pin, str))
            and isinstance(at, int | float)
            and isinstance(tries, int)
            and (note is None or isinstance(note, str))
            and (flow is None or isinstance(flow, str))
        ):
            return None
        return cls(pin, float(at), tries, note, flow)


@dataclass(frozen=True, slots=True)
class Recorded:
    """An answer kept for the rounds to come: the action, the content the client sent (never
    the author's value: restoring re-validates the same bytes) and a cancel's reason."""

    pin: str
    action: Action
    content: dict[str, Any] | None = None
    reason: str | None = None

    @classmethod
    def of(cls, pin: str, answer: Answer[Any], content: Any = None) -> Recorded:
        if isinstance(answer, Accepted):
            return cls(pin, "accept", dict(content or {}))
        if isinstance(answer, Declined):
            return cls(pin, "decline")
        return cls(pin, "cancel", reason=answer.reason)

    def answer(self, value_of: Callable[[dict[str, Any]], T]) -> Answer[T]:
        """The answer again; an accepted one's value made anew from its content."""
        if self.action == "accept":
            return Accepted(value_of(dict(self.content or {})))
        if self.action == "decline":
            return Declined()
        return Cancelled(self.reason)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"q": self.pin, "action": self.action}
        if self.action == "accept":
            out["content"] = self.content or {}
        if self.action == "cancel":
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, raw: Any) -> Recorded | None:
        if not isinstance(raw, dict):
            return None
        pin, action, content, reason = (
            raw.get("q"),
            raw.get("action"),
            raw.get("content"),
            raw.get("reason"),
        )
        if (
            not isinstance(pin, str)
            or action not in ("accept", "decline", "cancel")
            or not (content is None or isinstance(content, dict))
            or not (reason is None or isinstance(reason, str))
        ):
            return None
        return cls(pin, action, content, reason)


# -- where a question stands ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Restored:
    """Answered in an earlier round: return this, ask nothing."""

    recorded: Recorded


@dataclass(frozen=True, slots=True)
class Responded:
    """The client's response to this question (``asked``: the sealed record of its sending)."""

    response: Mapping[str, Any]
    asked: Asked

    @property
    def tries(self) -> int:
        return self.asked.tries


@dataclass(frozen=True, slots=True)
class TimedOut:
    """A response that came after the question's ``timeout``: the question is cancelled."""

    asked: Asked


@dataclass(frozen=True, slots=True)
class Unanswered:
    """Nothing usable yet: ask. ``last`` is the previous sending of this same question."""

    last: Asked | None

    @property
    def tries(self) -> int:
        return self.last.tries if self.last is not None else 0

    @property
    def note(self) -> str | None:
        return self.last.note if self.last is not None else None


Standing = Restored | Responded | TimedOut | Unanswered


# -- one round -----------------------------------------------------------------------------------


@dataclass
class Round:
    """What one run of the tool body knows: the answers recorded in earlier rounds, what was
    asked last round, and the client's responses to it."""

    answers: dict[str, Recorded] = field(default_factory=dict)
    asked: dict[str, Asked] = field(default_factory=dict)
    responses: Mapping[str, Any] = field(default_factory=dict)
    _count: int = 0

    @classmethod
    def from_request(cls, input_responses: Any, request_state: Any) -> Round:
        """The round of a request, from its ``inputResponses`` and (unsealed)
        ``requestState``."""
        state = _read_state(request_state)
        answers = {
            key: found
            for key, raw in state.get("answers", {}).items()
            if (found := Recorded.from_json(raw)) is not None
        }
        asked = {
            key: sent
            for key, raw in state.get("asked", {}).items()
            if (sent := Asked.from_json(raw)) is not None
        }
        responses = input_responses if isinstance(input_responses, Mapping) else {}
        return cls(answers=answers, asked=asked, responses=responses)

    def next_key(self, chosen: str | None = None) -> str:
        """The author's key for the question, else its place in the body (``q1``, ...)."""
        self._count += 1
        return chosen if chosen else f"q{self._count}"

    def resolve(self, key: str, pin: str, *, now: float, timeout: float | None = None) -> Standing:
        """Where the question ``key``, pinned ``pin``, stands (the rules at the top)."""
        recorded = self.answers.get(key)
        if recorded is not None and recorded.pin == pin:
            return Restored(recorded)
        asked = self.asked.get(key)
        if asked is None or asked.pin != pin:
            # Never sent, as far as the sealed state shows: any response is not an answer.
            return Unanswered(None)
        response = self.responses.get(key)
        if isinstance(response, Mapping):
            if timeout is not None and now > asked.at + timeout:
                return TimedOut(asked)
            return Responded(response, asked)
        return Unanswered(asked)

    def record(self, key: str, recorded: Recorded) -> None:
        """Keep an answer for the rounds to come."""
        self.answers[key] = recorded

    def ask(self, key: str, request: Mapping[str, Any], asked: Asked) -> AskPending:
        """The exception that ends this round with ``request`` as the input request ``key``."""
        return AskPending(key, dict(request), self, asked)

    def link_response(self) -> Mapping[str, Any] | None:
        """The client's response to a raised ``UrlRequired`` link of the last round."""
        response = self.responses.get(LINK_KEY)
        if LINK_KEY not in self.asked or not isinstance(response, Mapping):
            return None
        return response

    def linked_flow(self) -> str | None:
        """The flow a raised ``UrlRequired`` link of the last round led to, if any."""
        asked = self.asked.get(LINK_KEY)
        return asked.flow if asked is not None else None

    def state(self, asked: Mapping[str, Asked]) -> str:
        """The ``requestState`` of a round that ends asking ``asked`` (before sealing)."""
        return json.dumps(
            {
                STATE_KEY: STATE_VERSION,
                "answers": {key: found.to_json() for key, found in self.answers.items()},
                "asked": {key: found.to_json() for key, found in asked.items()},
            },
            separators=(",", ":"),
            ensure_ascii=True,
        )


def _read_state(raw: Any) -> dict[str, Any]:
    """The decoded state, or empty (see the module's last paragraph for why that is safe)."""
    if not isinstance(raw, str):
        return {}
    try:
        state = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(state, dict) or state.get(STATE_KEY) != STATE_VERSION:
        return {}
    if not isinstance(state.get("answers"), dict) or not isinstance(state.get("asked"), dict):
        return {}
    return state


class AskPending(BaseException):
    """Raised to end a 2026-07-28 round with a question (made by :meth:`Round.ask`).

    A ``BaseException`` on purpose: a tool's ``except Exception`` must not swallow it, or the
    question would never reach the client.
    """

    def __init__(self, key: str, request: dict[str, Any], round_: Round, asked: Asked) -> None:
        super().__init__(key)
        self.key = key
        self.request = request
        self.round = round_
        self.asked = asked

    def result(self) -> dict[str, Any]:
        """The ``InputRequiredResult``: this question, and every answer so far in the state."""
        return input_required_result(
            {self.key: self.request}, self.round.state({self.key: self.asked})
        )


def find_pending(group: BaseExceptionGroup[Any]) -> AskPending | None:
    """An :class:`AskPending` raised inside a task group of the tool's."""
    for exc in group.exceptions:
        if isinstance(exc, AskPending):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = find_pending(exc)
            if found is not None:
                return found
    return None
