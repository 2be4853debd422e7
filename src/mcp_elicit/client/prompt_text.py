"""How the parts of a prompt read as text, whichever renderer shows them (no I/O here).

The terminal writes these words on its screens and the web page into its elements: a field's
facts, an answer, a finding, a domain, a notice. Server-supplied text goes through
:func:`clean` first, so a server cannot move the cursor, recolour the screen or reverse the
reading order of what follows; the page escapes what it is given as well.

Our own words are in the language in effect (:mod:`mcp_elicit.i18n`): the constants here are
marked English, translated where shown.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from datetime import date, datetime
from typing import Literal

import idna

from mcp_elicit.client.prompts import Notice
from mcp_elicit.forms import Field, FieldKind, Form, JSONValue, Problem
from mcp_elicit.i18n import N_, _, format_date, format_datetime, format_number, ngettext
from mcp_elicit.urls import UrlVerdict
from mcp_elicit.urls.characters import CharacterKind, classify_character

KIND_WORDS: dict[FieldKind, str] = {
    FieldKind.TEXT: N_("text"),
    FieldKind.EMAIL: N_("email address"),
    FieldKind.URI: N_("URI, like https://example.com/page"),
    FieldKind.DATE: N_("date, YYYY-MM-DD"),
    FieldKind.DATETIME: N_("date and time, like 2025-03-31T14:30:00Z"),
    FieldKind.INTEGER: N_("integer"),
    FieldKind.NUMBER: N_("number"),
    FieldKind.BOOLEAN: N_("yes/no"),
    FieldKind.SINGLE_CHOICE: N_("choose one"),
    FieldKind.MULTI_CHOICE: N_("choose several"),
}
"""What each kind of field takes, marked for the catalogs: shown through :func:`kind_word`."""

DASH = "\N{EN DASH}"  # ranges read "0 EN DASH 150", as people write them

# A notice's first words, by its level; shown through :func:`notice_line`.
_LEVELS = {
    "info": N_("Info from {server}: {text}"),
    "warning": N_("Warning from {server}: {text}"),
    "error": N_("Error from {server}: {text}"),
}


def clean(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control, bidi or invisible character written out as ``\\u{…}``
    (the notation of ``mcp-elicit url check``), whole: nothing is shortened.

    A tab becomes a space; a newline stays only when ``newlines`` (a label or a URL is one line).
    Ordinary spaces of any script stay as they are.
    """
    out: list[str] = []
    for char in text:
        if char == "\n" and newlines:
            out.append(char)
        elif char == "\t":
            out.append(" ")
        elif (kind := classify_character(char)) is None or (
            kind is CharacterKind.WHITESPACE and unicodedata.category(char) == "Zs"
        ):
            out.append(char)
        else:
            out.append(f"\\u{{{ord(char):04x}}}")
    return "".join(out)


def _number(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def number_text(value: int | float) -> str:
    """A number for reading, with the language's separators (``1,234.5``), and exact: one
    with more decimals than the locale's format keeps (three), or in exponent form, is shown
    as JSON writes it rather than rounded."""
    plain = _number(value)
    if "e" in plain.lower() or len(plain.partition(".")[2]) > 3:
        return plain
    return format_number(int(value) if isinstance(value, float) and value.is_integer() else value)


def kind_word(field: Field) -> str:
    """What the field takes, in words: ``integer``, ``date, YYYY-MM-DD``."""
    return _(KIND_WORDS[field.kind])


def list_text(parts: Sequence[str]) -> str:
    """Items one after another (a field's facts, the options chosen), as the language lists them."""
    # Translators: what goes between the items of a list: a field's facts ("integer, optional,
    # default 30"), the options a person chose.
    return _(", ").join(parts)


def _length_bounds(low: int | None, high: int | None) -> str | None:
    if low is not None and high is not None:
        return ngettext(
            "{low}\N{EN DASH}{high} character", "{low}\N{EN DASH}{high} characters", high
        ).format(low=low, high=high)
    if low is not None:
        return ngettext("at least {number} character", "at least {number} characters", low).format(
            number=low
        )
    if high is not None:
        return ngettext("at most {number} character", "at most {number} characters", high).format(
            number=high
        )
    return None


def _number_bounds(low: int | float | None, high: int | float | None) -> str | None:
    if low is not None and high is not None:
        return f"{_number(low)}{DASH}{_number(high)}"
    if low is not None:
        return _("at least {number}").format(number=_number(low))
    if high is not None:
        return _("at most {number}").format(number=_number(high))
    return None


def _pick_bounds(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return _("pick {low}\N{EN DASH}{high}").format(low=low, high=high)
    if low is not None:
        return _("pick at least {number}").format(number=low)
    if high is not None:
        return _("pick at most {number}").format(number=high)
    return _("pick any number")


def bounds_text(field: Field) -> str | None:
    if field.kind.is_text:
        return _length_bounds(field.min_length, field.max_length)
    if field.kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        return _number_bounds(field.minimum, field.maximum)
    if field.kind is FieldKind.MULTI_CHOICE:
        return _pick_bounds(field.min_items, field.max_items)
    return None


def choice_text(field: Field, value: str) -> str:
    """A choice as a person sees it: ``Title (value)`` when titled, else the value."""
    for choice in field.choices:
        if choice.value == value and choice.title is not None:
            return f"{clean(choice.title, newlines=False)} ({clean(value, newlines=False)})"
    return clean(value, newlines=False)


def value_text(field: Field, value: JSONValue | None, *, reading: bool = False) -> str:
    """An answer as shown in headings and on the review screen.

    ``reading``: shown only to be read (the review), not as what to type: numbers with the
    language's separators, dates and moments as the language writes them (a moment also as
    sent, which keeps its offset). Otherwise numbers and dates are shown as typed."""
    if value is None:
        return _("(no answer)")
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return list_text([choice_text(field, v) for v in value]) if value else _("(none chosen)")
    if isinstance(value, int | float):
        return number_text(value) if reading else _number(value)
    if field.kind is FieldKind.SINGLE_CHOICE:
        return choice_text(field, value)
    if reading and (dated := _date_text(field, value)) is not None:
        return dated
    # Quoted, so that an empty or blank answer is visible as one.
    return clean(json.dumps(value, ensure_ascii=False), newlines=False)


def _date_text(field: Field, value: str) -> str | None:
    """A date or date-time answer as the language writes it; None for any other answer."""
    try:
        if field.kind is FieldKind.DATE:
            return format_date(date.fromisoformat(value))
        if field.kind is FieldKind.DATETIME:
            moment = datetime.fromisoformat(value)
            # Translators: a date and time as the language writes it, then as it is sent (that
            # keeps its UTC offset, which the first may not show).
            return _("{moment} ({sent})").format(
                moment=format_datetime(moment), sent=clean(value, newlines=False)
            )
    except ValueError:
        return None
    return None


def field_facts(field: Field, *, required: bool = True) -> list[str]:
    """What a field is, in the words both renderers use: its kind, whether it is required
    (unless ``required=False``: the web page marks that apart), bounds, pattern, default."""
    parts = [kind_word(field)]
    if required:
        parts.append(_("required") if field.required else _("optional"))
    bounds = bounds_text(field)
    if bounds is not None:
        parts.append(bounds)
    if field.pattern is not None:
        parts.append(_("must match {pattern}").format(pattern=clean(field.pattern, newlines=False)))
    if field.default is not None:
        parts.append(_("default {value}").format(value=value_text(field, field.default)))
    return parts


_FINDING = {
    "Warning": (N_("Warning: {message}"), N_("Warning: {label}: {message}")),
    "Error": (N_("Error: {message}"), N_("Error: {label}: {message}")),
}


def finding_line(
    form: Form, problem: Problem, *, word: Literal["Warning", "Error"] = "Warning"
) -> str:
    """``Warning: Email: this field looks like it asks for a secret`` (``word``: which of
    ``Warning`` and ``Error`` it starts with, in the language in effect)."""
    whole, of_field = _FINDING[word]
    message = clean(problem.message, newlines=False)
    if problem.field is None:
        return _(whole).format(message=message)
    try:
        label = form[problem.field].label
    except KeyError:
        label = problem.field
    return _(of_field).format(label=clean(label, newlines=False), message=message)


def no_domain_note(verdict: UrlVerdict) -> str:
    """Why a link with a host has no registrable domain, and who decides where it leads:
    ``printer.local is a local network name (mDNS .local): any device on your network can
    answer to it``."""
    host = verdict.display_host
    assert host is not None
    return _("{host} is {who_controls}").format(
        host=clean(host.ascii, newlines=False), who_controls=verdict.who_controls
    )


def domain_text(domain: str) -> str:
    """The registrable domain as a person reads it and, when that differs, as it really is:
    a look-alike (``p\\u0430ypal.com``, a Cyrillic a) must not be shown as if it were the
    real one, in the very place the person is told to look."""
    shown = clean(domain, newlines=False)
    if domain.isascii():
        return shown
    try:
        ascii_form = idna.encode(domain, uts46=True).decode("ascii")
    except idna.IDNAError:
        return _("{domain} (not a valid international name)").format(domain=shown)
    return _("{domain} (punycode: {ascii})").format(domain=shown, ascii=ascii_form)


def notice_line(notice: Notice) -> str:
    server = clean(notice.server, newlines=False)
    text = clean(notice.text).replace("\n", "\n  ")
    template = _LEVELS.get(notice.level)
    if template is not None:
        return _(template).format(server=server, text=text)
    if notice.level:
        return _("{level} from {server}: {text}").format(
            level=notice.level.capitalize(), server=server, text=text
        )
    return _("Notice from {server}: {text}").format(server=server, text=text)
