"""What ``ask`` returns: the person accepted (with a value), declined, or cancelled.

Match on it::

    match await ask(ctx, Booking, "Book a table?"):
        case Accepted(booking):
            ...
        case Declined() | Cancelled():
            return "Nothing booked."
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Accepted(Generic[T]):
    """The person answered; ``value`` is validated and of the type that was asked for."""

    value: T
    __match_args__ = ("value",)


@dataclass(frozen=True, slots=True)
class Declined:
    """The person said no."""


@dataclass(frozen=True, slots=True)
class Cancelled:
    """No answer. ``reason`` says why, where it is known:

    - ``None`` — the client cancelled and said no more: usually the person dismissed the
      question (Esc, closed the dialog);
    - ``"timeout"`` — unanswered within the ``timeout`` the tool gave;
    - ``"expired"`` — a URL-mode flow expired before the person finished its page;
    - ``"not-stored"`` — the page was completed, but the secret is no longer in the vault;
    - the reason a client gave in the result's ``_meta["mcp-elicit/outcome"]`` when it
      cancelled on its own, without a person choosing. mcp-elicit's client sends
      ``"no-person"`` (nobody to ask: no terminal, no answers file), ``"answers-exhausted"``
      (a script ran out of answers), ``"invalid-answer"`` (the answer broke the form's rules
      and was not sent), ``"url-blocked"`` (the link failed the client's URL check),
      ``"server-denied"`` (the host does not let this server ask) and ``"rate-limited"``.
    """

    reason: str | None = None


Answer: TypeAlias = Accepted[T] | Declined | Cancelled
