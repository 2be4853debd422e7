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
    """No answer: the person dismissed the question, or it timed out (``reason``)."""

    reason: str | None = None


Answer: TypeAlias = Accepted[T] | Declined | Cancelled
