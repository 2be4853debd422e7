"""Dates and numbers as the person reads them, in the language in effect (CLDR, through Babel).

Only for showing: an answer keeps its JSON form (``2026-11-27``, ``3``) whatever is shown.
"""

from __future__ import annotations

from datetime import date, datetime

from mcp_elicit.i18n.choosing import current_language


def _locale() -> str:
    from babel import Locale, UnknownLocaleError  # on first use: see choosing

    tag = current_language().replace("-", "_")
    try:
        Locale.parse(tag)
    except (UnknownLocaleError, ValueError):
        return "en"  # a language the CLDR does not know (a pseudo-locale): English forms
    return tag


def format_date(value: date) -> str:
    """``2026-11-27`` as ``Nov 27, 2026`` in English, ``2026年11月27日`` in Chinese."""
    from babel.dates import format_date as _babel_date

    return _babel_date(value, format="medium", locale=_locale())


def format_datetime(value: datetime) -> str:
    """A moment in the person's way of writing one (medium length, the value's own zone)."""
    from babel.dates import format_datetime as _babel_datetime

    return _babel_datetime(value, format="medium", tzinfo=value.tzinfo, locale=_locale())


def format_number(value: int | float) -> str:
    """``1234.5`` as ``1,234.5`` (with the locale's separators)."""
    from babel.numbers import format_decimal

    return format_decimal(value, locale=_locale())


def text_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: two for an East Asian wide or full-width
    character (汉字, full-width Latin), none for a combining mark, one for the rest. (The standard
    library's Unicode data; the terminal renderer has prompt_toolkit's, which agrees.)"""
    import unicodedata

    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def aligned(rows: list[tuple[str, str]], indent: str = "  ") -> list[str]:
    """``label: value`` rows with the values in one column, measured in columns on screen, so
    that Chinese labels line up as English ones do."""
    widest = max((text_width(label) for label, _value in rows), default=0)
    return [
        f"{indent}{label}{' ' * (widest - text_width(label))} {value}".rstrip()
        for label, value in rows
    ]
