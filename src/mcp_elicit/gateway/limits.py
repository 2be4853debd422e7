"""What the gateway lets its peers make it hold: the caps and limits, and the error for each.

Why. Every upstream call that may be asked holds an upstream session of its own (a process,
for a stdio upstream: :mod:`.upstream`), and a held call keeps that session for up to the hold
limit (:mod:`.held`). Without caps, unanswered calls spawn without bound; without limits, a
server can pass a person a question of any size, or any number of them.

Rules:

- Caps count what is held *now*: held calls (:class:`~.held.HeldCalls`), upstream sessions
  open, pooled or leased (:class:`~.upstream.Upstream`). Each has a cap in all and a cap per
  client (:func:`~.context.client_of` says who a client is). What would go past a cap is
  refused before anything is started (never a process spawned past it, never a wait): the
  request ends with :class:`OverLimit`, naming the cap, its value and what to do.
- Limits apply to one call, both ways: a question's size (from the upstream) and an answer's
  (from the client), in bytes of compact JSON; the questions one call asks, and the answers
  one retry carries. Over one, the call ends with :class:`OverLimit`; what is over never
  reaches the other side.
- Idle pooled upstream sessions are closed after :attr:`Limits.idle_session_close`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST


@dataclass(frozen=True, slots=True)
class Limits:
    """The gateway's caps and limits (docs/gateway.md has the reasoning for each default).

    - ``held_calls`` / ``held_calls_per_client``: push-era calls held open for 2026-07-28
      clients at once.
    - ``upstream_sessions`` / ``upstream_sessions_per_client``: push-era upstream sessions
      open at once, pooled ones included (in all), leased by one client (per client); each is
      a process for a stdio upstream. The main session is not counted.
    - ``idle_session_close``: seconds a pooled upstream session may sit unused before it is
      closed.
    - ``question_bytes``: the largest question (from the upstream) or answer (from the
      client), as compact JSON.
    - ``questions_per_call``: the most questions one call may ask the person (links of a
      -32042 included; on 2026-07-28 at both ends, per round), and the most answers one retry
      may carry.
    """

    held_calls: int = 64
    held_calls_per_client: int = 16
    upstream_sessions: int = 64
    upstream_sessions_per_client: int = 16
    idle_session_close: float = 60.0
    question_bytes: int = 128 * 1024
    questions_per_call: int = 32

    def __post_init__(self) -> None:
        for limit in fields(self):
            if not getattr(self, limit.name) > 0:
                raise ValueError(f"the gateway's {limit.name} must be more than 0")

    # -- the checks (each raises OverLimit naming itself) ----------------------------------

    def question_size(self, value: Any) -> None:
        """A question from the upstream, as it would be passed on."""
        size = json_size(value)
        if size > self.question_bytes:
            raise OverLimit(
                INVALID_REQUEST,
                "question_bytes",
                self.question_bytes,
                f"The server's question is {size} bytes, over this gateway's limit of "
                f"{self.question_bytes} bytes (question_bytes, --max-question-bytes): it was "
                "not passed on. Ask the server for a shorter one, or raise the limit",
            )

    def answer_size(self, value: Any) -> None:
        """An answer (an input response) from the client."""
        size = json_size(value)
        if size > self.question_bytes:
            raise OverLimit(
                INVALID_PARAMS,
                "question_bytes",
                self.question_bytes,
                f"The answer is {size} bytes, over this gateway's limit of "
                f"{self.question_bytes} bytes (question_bytes, --max-question-bytes): it was "
                "not passed on",
            )

    def questions(self, asked: int) -> None:
        """The ``asked``-th question of one call (or ``asked`` questions in one round)."""
        if asked > self.questions_per_call:
            raise OverLimit(
                INVALID_REQUEST,
                "questions_per_call",
                self.questions_per_call,
                f"The server asked more than {self.questions_per_call} questions in one call, "
                "this gateway's limit (questions_per_call, --max-questions-per-call): the call "
                "was ended",
            )

    def answers(self, given: int) -> None:
        """``given`` answers in one retry."""
        if given > self.questions_per_call:
            raise OverLimit(
                INVALID_PARAMS,
                "questions_per_call",
                self.questions_per_call,
                f"The retry carries {given} answers, over this gateway's limit of "
                f"{self.questions_per_call} (questions_per_call, --max-questions-per-call)",
            )


class OverLimit(MCPError):
    """A cap or limit of the gateway's was reached: the message says which, its value and
    what to do; ``data`` names it (``{"limit": "held_calls", "value": 64}``)."""

    def __init__(self, code: int, limit: str, value: int, message: str) -> None:
        super().__init__(code, message, {"limit": limit, "value": value})
        self.limit = limit
        self.value = value


def cap_reached(limit: str, value: int, what: str, option: str) -> OverLimit:
    """The error for a full cap: ``what`` are counted, ``option`` raises it."""
    per_client = limit.endswith("_per_client")
    whose = "this client's" if per_client else "this gateway's"
    hint = (
        "answer or cancel a pending call first"
        if per_client
        else "try again once other calls have ended"
    )
    return OverLimit(
        INVALID_REQUEST,
        limit,
        value,
        f"{whose.capitalize()} {what} are at the cap of {value} ({limit}, {option}): {hint}, "
        "or have the gateway's operator raise the cap",
    )


def json_size(value: Any) -> int:
    """``value``'s size as compact JSON, in UTF-8 bytes (what a peer sent or would be sent)."""
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except ValueError:  # a loop in a value a peer cannot send: treat it as too large
        return 1 << 62
    return len(text.encode("utf-8", "surrogatepass"))
