"""Annotations for ``typing.Annotated`` that say what a field's schema should carry.

``annotated_types`` constraints (``MinLen``, ``MaxLen``, ``Ge``, ``Le``, ...) and pydantic's
``Field(...)`` work too; these cover what those do not::

    name: Annotated[str, Title("Full name"), Description("As on your passport")]
    email: Email                      # = Annotated[str, Format("email")]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

FormatName = Literal["email", "uri", "date", "date-time"]


@dataclass(frozen=True, slots=True)
class Title:
    """The field's label (``title``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Description:
    """The field's help text (``description``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Format:
    """A string format: ``email``, ``uri``, ``date`` or ``date-time``."""

    name: FormatName


@dataclass(frozen=True, slots=True)
class Pattern:
    """A regular expression the text must match (``pattern``; clients may ignore it)."""

    regex: str


Email = Annotated[str, Format("email")]
Url = Annotated[str, Format("uri")]


@dataclass(frozen=True, slots=True)
class NotSecret:
    """The author's word that a field whose name looks secret-like is not a secret.

    The server refuses to put a field that looks like a password, token or API key in a form
    (secrets go through URL mode); this marker lifts that for one field::

        token_budget: Annotated[int, NotSecret()]
    """
