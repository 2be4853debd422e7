"""2026-07-28: a question is a result, not a request.

A tool cannot send ``elicitation/create`` in 2026-07-28. Instead ``ask`` raises
:class:`AskPending`; :class:`RoundsMiddleware` turns it into an ``InputRequiredResult`` whose
``requestState`` records every answer so far. The client asks the person and retries the
call with ``inputResponses`` and the state; the tool body runs again from the top, and each
``ask`` whose answer is recorded returns at once. So code before an ``ask`` runs once per
round: keep side effects after the last ``ask`` (docs/server.md says more).

The state is plaintext JSON here. The SDK's ``RequestStateBoundary`` (outside this
middleware) seals it with AES-GCM, binds it to the method, tool name, arguments, user and
server, and gives it a lifetime; a token that fails any of that never reaches us (-32602).

Questions are keyed by their order in the body (``q1``, ``q2``, ...) and pinned to a digest
of exactly what was sent: an answer counts only for the question it answers, so a body that
asks something else on a later round (a redeploy, a branch on data) asks afresh.
"""

from __future__ import annotations

import base64
import contextvars
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp_elicit.protocol import input_required_result
from mcp_elicit.server.answers import Accepted, Answer, Cancelled, Declined

T = TypeVar("T")

STATE_KEY = "mcp-elicit"
STATE_VERSION = 1
METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})


def digest(params: Mapping[str, Any]) -> str:
    """A short, stable fingerprint of a question as sent."""
    raw = json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return base64.urlsafe_b64encode(hashlib.sha256(raw.encode()).digest()[:16]).decode()[:22]


@dataclass
class Round:
    """What one call of the tool body knows: answers recorded in earlier rounds, what was
    asked last round, and the client's responses to it."""

    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    asked: dict[str, dict[str, Any]] = field(default_factory=dict)
    responses: Mapping[str, Any] = field(default_factory=dict)
    _count: int = 0

    def next_key(self, chosen: str | None = None) -> str:
        """The author's key for the question, else its place in the body (``q1``, ...)."""
        self._count += 1
        return chosen if chosen else f"q{self._count}"

    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None) -> Round:
        params = params or {}
        responses = params.get("inputResponses")
        state = _read_state(params.get("requestState"))
        return cls(
            answers=dict(state.get("answers", {})),
            asked=dict(state.get("asked", {})),
            responses=responses if isinstance(responses, Mapping) else {},
        )

    def state(self, asked: Mapping[str, dict[str, Any]]) -> str:
        return json.dumps(
            {STATE_KEY: STATE_VERSION, "answers": self.answers, "asked": dict(asked)},
            separators=(",", ":"),
            ensure_ascii=True,
        )


def _read_state(raw: Any) -> dict[str, Any]:
    """The decoded state, or empty. It arrives authenticated by the SDK's boundary, so a shape
    we do not know is drift within our own fleet (an upgrade), not an attack: start over."""
    if not isinstance(raw, str):
        return {}
    try:
        state = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(state, dict) or state.get(STATE_KEY) != STATE_VERSION:
        return {}
    answers, asked = state.get("answers"), state.get("asked")
    if not isinstance(answers, dict) or not isinstance(asked, dict):
        return {}
    return state


class AskPending(BaseException):
    """Raised by ``ask`` on 2026-07-28 when the answer is not in yet.

    A ``BaseException`` on purpose: a tool's ``except Exception`` must not swallow it, or the
    question would never reach the client.
    """

    def __init__(self, key: str, request: dict[str, Any], round_: Round, asked: dict[str, Any]):
        super().__init__(key)
        self.key = key
        self.request = request
        self.round = round_
        self.asked = asked

    def result(self) -> dict[str, Any]:
        return input_required_result(
            {self.key: self.request}, self.round.state({self.key: self.asked})
        )


_CURRENT: contextvars.ContextVar[Round | None] = contextvars.ContextVar(
    "mcp_elicit_round", default=None
)


def enter_round(round_: Round) -> contextvars.Token[Round | None]:
    return _CURRENT.set(round_)


def leave_round(token: contextvars.Token[Round | None]) -> None:
    _CURRENT.reset(token)


def current_round() -> Round | None:
    """The round of the 2026-07-28 request being served, if the middleware is installed."""
    return _CURRENT.get()


def record(pinned: str, answer: Answer[Any], content: Any = None) -> dict[str, Any]:
    """How an outcome is kept in the state: the action, the content the client sent (never the
    author's value: restoring re-validates the same bytes) and a cancel's reason."""
    if isinstance(answer, Accepted):
        return {"q": pinned, "action": "accept", "content": content or {}}
    if isinstance(answer, Declined):
        return {"q": pinned, "action": "decline"}
    return {"q": pinned, "action": "cancel", "reason": answer.reason}


def restore(recorded: Mapping[str, Any], value_of: Callable[[dict[str, Any]], T]) -> Answer[T]:
    """The outcome :func:`record` kept; an accepted one's value made again from its content."""
    action = recorded.get("action")
    if action == "accept":
        return Accepted(value_of(dict(recorded.get("content") or {})))
    if action == "decline":
        return Declined()
    return Cancelled(recorded.get("reason"))


def find_pending(group: BaseExceptionGroup[Any]) -> AskPending | None:
    for exc in group.exceptions:
        if isinstance(exc, AskPending):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = find_pending(exc)
            if found is not None:
                return found
    return None
