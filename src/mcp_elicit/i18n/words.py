"""Translating one message into the language in effect."""

from __future__ import annotations

from mcp_elicit.i18n.catalogs import catalog_for
from mcp_elicit.i18n.choosing import current_language


def _(message: str) -> str:
    """``message`` (English, as written in the source) in the language in effect."""
    return catalog_for(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` by ``n``, under the language's own plural rules."""
    return catalog_for(current_language()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for the catalog without translating it (for constants; translate the
    constant with :func:`_` where it is shown)."""
    return message
