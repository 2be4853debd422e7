"""Lists inside reason messages, punctuated for the language in effect (Chinese has its own
list comma and semicolon)."""

from __future__ import annotations

from collections.abc import Iterable

from mcp_elicit.i18n import _


def listed(items: Iterable[str]) -> str:
    """``a, b, c``: short items (characters, schemes, script names)."""
    result: str | None = None
    for item in items:
        # Translators: joins one more short item ({item}) to a list ({items}), as in "a, b".
        result = item if result is None else _("{items}, {item}").format(items=result, item=item)
    return result or ""


def clauses(items: Iterable[str]) -> str:
    """``a; b; c``: items that are clauses of their own."""
    result: str | None = None
    for item in items:
        # Translators: joins one more clause ({item}) to a list of clauses ({items}), as in
        # "it is percent-encoded (...); the IPv4 address ... is spelled '...'".
        result = item if result is None else _("{items}; {item}").format(items=result, item=item)
    return result or ""
