"""Protocol revisions that have elicitation, and what each one's ``requestedSchema`` allows.

All schema rules that differ between revisions live in this one table, so the checker, the
builder and the converter agree. Sources: each revision's ``schema.ts`` (the source of truth,
per every revision's ``basic/index.mdx``), not the prose examples.

- 2025-06-18 (and the mid-2025 draft, and the URL-mode draft SEP-1036, whose form schema is the
  same): string, number/integer, boolean and ``enum`` (+ legacy ``enumNames``); ``default``
  only on booleans.
- 2025-11-25: adds ``default`` on every type (SEP-1034), titled single-select (``oneOf`` of
  ``{const, title}``), multi-select arrays (untitled ``items.enum``, titled ``items.anyOf``;
  SEP-1330) and a top-level ``$schema``.
- 2026-07-28 (= ``draft`` today): the same schema subset as 2025-11-25.

``pattern`` is in no revision's ``schema.ts``: it is tolerated everywhere, never required.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Revision(enum.Enum):
    """A protocol revision, named by its version string."""

    V2025_06_18 = "2025-06-18"
    URL_DRAFT = "url-draft"  # SEP-1036 (URL mode + elicitation/track + -32604), never released
    V2025_11_25 = "2025-11-25"
    V2026_07_28 = "2026-07-28"

    @classmethod
    def parse(cls, value: Revision | str) -> Revision:
        """Accept a ``Revision`` or its name; ``draft`` means the current draft (= 2026-07-28)."""
        if isinstance(value, Revision):
            return value
        if not isinstance(value, str):
            raise TypeError(f"revision must be a str or Revision, not {type(value).__name__}")
        key = value.strip().lower()
        found = _ALIASES.get(key)
        if found is None:
            names = ", ".join(sorted(_ALIASES))
            raise ValueError(f"unknown revision {value!r}: expected one of {names}")
        return found

    @property
    def rules(self) -> SchemaRules:
        return _RULES[self]

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class SchemaRules:
    """What a revision's ``requestedSchema`` may contain."""

    defaults_on_all_types: bool
    titled_single_select: bool  # ``oneOf: [{const, title}]``
    multi_select: bool  # ``type: array`` with enum items
    dollar_schema: bool  # top-level ``$schema``
    array_content: bool  # ``ElicitResult.content`` may hold ``string[]``


_OLD = SchemaRules(
    defaults_on_all_types=False,
    titled_single_select=False,
    multi_select=False,
    dollar_schema=False,
    array_content=False,
)
_NEW = SchemaRules(
    defaults_on_all_types=True,
    titled_single_select=True,
    multi_select=True,
    dollar_schema=True,
    array_content=True,
)

_RULES: dict[Revision, SchemaRules] = {
    Revision.V2025_06_18: _OLD,
    Revision.URL_DRAFT: _OLD,
    Revision.V2025_11_25: _NEW,
    Revision.V2026_07_28: _NEW,
}

_ALIASES: dict[str, Revision] = {
    "2025-06-18": Revision.V2025_06_18,
    "url-draft": Revision.URL_DRAFT,
    "sep-1036": Revision.URL_DRAFT,
    "2025-11-25": Revision.V2025_11_25,
    "2026-07-28": Revision.V2026_07_28,
    "draft": Revision.V2026_07_28,
    "latest": Revision.V2026_07_28,
}

LATEST = Revision.V2026_07_28
REVISION_NAMES: tuple[str, ...] = tuple(_ALIASES)


def first_revision_with(feature: str) -> str:
    """The first released revision that has ``feature`` (an attribute of SchemaRules)."""
    for revision in (Revision.V2025_06_18, Revision.V2025_11_25, Revision.V2026_07_28):
        if getattr(revision.rules, feature):
            return str(revision)
    raise ValueError(feature)  # pragma: no cover - a programming error
