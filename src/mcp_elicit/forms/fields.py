"""The form model's vocabulary: a ``Field`` of some ``FieldKind`` with ``Choice``s.

A ``Field`` is the renderer-agnostic reading of one ``requestedSchema`` property: what a
terminal, a browser or a script needs to ask for it, and what the validator needs to check
the answer. It carries no wire details beyond what rendering back to a revision needs.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TypeAlias

JSONValue: TypeAlias = str | int | float | bool | list[str]
"""A value in ``ElicitResult.content``: string, number, boolean, or (multi-select) string[]."""


class FieldKind(enum.StrEnum):
    """The widget a field needs."""

    TEXT = "text"
    EMAIL = "email"
    URI = "uri"
    DATE = "date"
    DATETIME = "datetime"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    SINGLE_CHOICE = "single_choice"
    MULTI_CHOICE = "multi_choice"

    @property
    def is_text(self) -> bool:
        return self in _TEXT_KINDS


_TEXT_KINDS = frozenset(
    {FieldKind.TEXT, FieldKind.EMAIL, FieldKind.URI, FieldKind.DATE, FieldKind.DATETIME}
)

FORMAT_KINDS: dict[str, FieldKind] = {
    "email": FieldKind.EMAIL,
    "uri": FieldKind.URI,
    "date": FieldKind.DATE,
    "date-time": FieldKind.DATETIME,
}
KIND_FORMATS: dict[FieldKind, str] = {kind: fmt for fmt, kind in FORMAT_KINDS.items()}


@dataclass(frozen=True, slots=True)
class Choice:
    """One option of a single- or multi-choice field. ``title`` is None when untitled."""

    value: str
    title: str | None = None

    @property
    def label(self) -> str:
        return self.title if self.title is not None else self.value


@dataclass(frozen=True, slots=True)
class Field:
    """One question of a form, in the order the schema lists it.

    ``default`` is None when there is none (``null`` is never a valid answer, so None is
    unambiguous); falsy defaults (``False``, ``0``, ``""``, ``[]``) are kept as they are.
    """

    name: str
    kind: FieldKind
    required: bool = False
    title: str | None = None
    description: str | None = None
    default: JSONValue | None = None
    choices: tuple[Choice, ...] = ()
    min_length: int | None = None
    max_length: int | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    min_items: int | None = None
    max_items: int | None = None
    pattern: str | None = None

    @property
    def label(self) -> str:
        """What to call the field in front of a person: its title, else its name, readable."""
        return self.title if self.title else humanize(self.name)

    @property
    def help(self) -> str | None:
        return self.description

    @property
    def titled(self) -> bool:
        """Whether the choices carry display titles (titled enum or legacy ``enumNames``)."""
        return any(choice.title is not None for choice in self.choices)

    @property
    def format(self) -> str | None:
        return KIND_FORMATS.get(self.kind)

    def choice_values(self) -> tuple[str, ...]:
        return tuple(choice.value for choice in self.choices)


_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.\s]+")


def humanize(name: str) -> str:
    """``check_in_date`` / ``checkInDate`` → ``Check in date``."""
    words = [w for w in _WORD_BREAK.split(name) if w]
    if not words:
        return name
    text = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)
    return text[0].upper() + text[1:]
