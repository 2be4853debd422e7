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

The revisions themselves (their names, aliases, the released list) are
:mod:`mcp_elicit.revisions`; this module keys its table by that enum.

``pattern`` is in no revision's ``schema.ts``: it is tolerated everywhere, never required.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_elicit.revisions import RELEASED, Revision


@dataclass(frozen=True, slots=True)
class SchemaRules:
    """What a revision's ``requestedSchema`` may contain."""

    defaults_on_all_types: bool
    titled_single_select: bool  # ``oneOf: [{const, title}]``
    multi_select: bool  # ``type: array`` with enum items
    dollar_schema: bool  # top-level ``$schema``


_OLD = SchemaRules(
    defaults_on_all_types=False,
    titled_single_select=False,
    multi_select=False,
    dollar_schema=False,
)
_NEW = SchemaRules(
    defaults_on_all_types=True,
    titled_single_select=True,
    multi_select=True,
    dollar_schema=True,
)

_RULES: dict[Revision, SchemaRules] = {
    Revision.V2025_06_18: _OLD,
    Revision.URL_DRAFT: _OLD,
    Revision.V2025_11_25: _NEW,
    Revision.V2026_07_28: _NEW,
}


def schema_rules(revision: Revision | str) -> SchemaRules:
    """What ``revision``'s ``requestedSchema`` may contain (a revision or any of its names)."""
    return _RULES[Revision.parse(revision)]


def first_revision_with(feature: str) -> str:
    """The first released revision that has ``feature`` (an attribute of SchemaRules)."""
    for revision in RELEASED:
        if getattr(_RULES[revision], feature):
            return str(revision)
    raise ValueError(feature)  # pragma: no cover - a programming error
