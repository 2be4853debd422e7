"""Checking one answer value against one ``Field``: strict JSON types, one problem at most.

This is the authoritative check; ``validation.py`` compiles a fast path that must agree with
it (a test holds them to that).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from mcp_elicit.forms.fields import Field, FieldKind
from mcp_elicit.forms.patterns import compile_pattern
from mcp_elicit.forms.problems import Problem
from mcp_elicit.i18n import N_, _, current_language, ngettext
from mcp_elicit.i18n.catalogs import SOURCE_LANGUAGE

# RFC 3339 date-time (the JSON Schema "date-time" format): a full date, "T", a full time with
# an offset. Python's fromisoformat then checks the calendar and the clock.
_DATETIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})",
    re.ASCII,
)


def is_date(text: str) -> bool:
    """An RFC 3339 full-date (YYYY-MM-DD) that is a real calendar day."""
    # Shape first, cheaply: fromisoformat alone also takes 20250331 and 2025-W14-1.
    if len(text) != 10 or not text.isascii() or text[4] != "-" or text[7] != "-":
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def is_datetime(text: str) -> bool:
    match = _DATETIME.fullmatch(text)
    if match is None:
        return False
    day, hour, minute, second, fraction, offset = match.groups()
    if second == "60":  # RFC 3339 allows a leap second; datetime does not
        second = "59"
    offset = "+00:00" if offset in ("Z", "z") else offset
    try:
        datetime.fromisoformat(f"{day}T{hour}:{minute}:{second}{(fraction or '')[:7]}{offset}")
    except ValueError:
        return False
    return True


def email_problem(text: str) -> str | None:
    """Why ``text`` is not an email address, or None. Checked by ``email-validator``."""
    # Imported on first use: it compiles its grammar's regular expressions on import, a cost
    # every server's start-up would pay for forms that may have no email field
    # (tests/server/test_lazy_imports.py holds this).
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(text, check_deliverability=False)
    except EmailNotValidError as exc:
        return str(exc)
    return None


def is_email(text: str) -> bool:
    return email_problem(text) is None


def is_uri(text: str) -> bool:
    """An absolute URI (with a scheme), per the RFC 3986 grammar."""
    from rfc3986_validator import validate_rfc3986  # on first use, as email_validator

    return bool(validate_rfc3986(text, rule="URI"))


FORMAT_CHECKS = {
    FieldKind.EMAIL: is_email,
    FieldKind.URI: is_uri,
    FieldKind.DATE: is_date,
    FieldKind.DATETIME: is_datetime,
}


def describe_type(value: Any) -> str:
    """How to name a JSON value's type to a person."""
    if value is None:
        return _("empty (null)")
    if isinstance(value, bool):
        return _("true/false")
    if isinstance(value, int | float):
        return _("a number")
    if isinstance(value, str):
        return _("text")
    if isinstance(value, list | tuple):
        return _("a list")
    if isinstance(value, dict):
        return _("an object")
    return type(value).__name__


def _fmt_number(n: int | float) -> str:
    return str(int(n)) if isinstance(n, float) and n.is_integer() else str(n)


def _choices_text(field: Field) -> str:
    labels = [c.value if c.title is None else f"{c.title} ({c.value})" for c in field.choices]
    if len(labels) > 12:
        labels = [*labels[:12], _("… {n} more").format(n=len(labels) - 12)]
    return _(", ").join(labels)


def _problem(field: Field, code: str, message: str) -> Problem:
    return Problem(field.name, code, message)


def check_value(field: Field, value: Any) -> Problem | None:
    """The first rule ``value`` breaks for ``field``, or None when it is a valid answer."""
    kind = field.kind
    if kind.is_text:
        return _check_text(field, value)
    if kind is FieldKind.INTEGER or kind is FieldKind.NUMBER:
        return _check_number(field, value)
    if kind is FieldKind.BOOLEAN:
        if isinstance(value, bool):
            return None
        return _problem(
            field, "type", _("must be true or false, not {kind}").format(kind=describe_type(value))
        )
    if kind is FieldKind.SINGLE_CHOICE:
        if not isinstance(value, str):
            return _problem(
                field,
                "type",
                _("must be one of the options ({choices}), not {kind}").format(
                    choices=_choices_text(field), kind=describe_type(value)
                ),
            )
        if value not in field.choice_values():
            return _problem(
                field,
                "not_a_choice",
                _("{value} is not an option: choose one of {choices}").format(
                    value=repr(value), choices=_choices_text(field)
                ),
            )
        return None
    return _check_multi(field, value)


def _check_text(field: Field, value: Any) -> Problem | None:
    if not isinstance(value, str):
        return _problem(
            field, "type", _("must be text, not {kind}").format(kind=describe_type(value))
        )
    length = len(value)  # code points, as JSON Schema counts them
    if field.min_length is not None and length < field.min_length:
        return _problem(
            field,
            "too_short",
            ngettext(
                "must be at least {n} character long (it has {length})",
                "must be at least {n} characters long (it has {length})",
                field.min_length,
            ).format(n=field.min_length, length=length),
        )
    if field.max_length is not None and length > field.max_length:
        return _problem(
            field,
            "too_long",
            ngettext(
                "must be at most {n} character long (it has {length})",
                "must be at most {n} characters long (it has {length})",
                field.max_length,
            ).format(n=field.max_length, length=length),
        )
    kind = field.kind
    if kind is FieldKind.EMAIL:
        reason = email_problem(value)
        if reason is not None:
            # email-validator explains in English only: in another language its explanation
            # would be the one English sentence on the screen, so it is left out there.
            if current_language() != SOURCE_LANGUAGE:
                return _problem(
                    field, "format", _("must be an email address like name@example.com")
                )
            return _problem(
                field,
                "format",
                _("must be an email address like name@example.com: {reason}").format(reason=reason),
            )
    elif kind is FieldKind.URI and not is_uri(value):
        return _problem(
            field,
            "format",
            _("must be an absolute URI with a scheme, like https://example.com/page"),
        )
    elif kind is FieldKind.DATE and not is_date(value):
        return _problem(
            field, "format", _("must be a real calendar date written YYYY-MM-DD, like 2025-03-31")
        )
    elif kind is FieldKind.DATETIME and not is_datetime(value):
        return _problem(
            field,
            "format",
            _(
                "must be a real date and time with a time zone, like 2025-03-31T14:30:00Z "
                "or 2025-03-31T14:30:00+02:00"
            ),
        )
    if field.pattern is not None:
        compiled = compile_pattern(field.pattern)
        if compiled.search is not None and not _matches(compiled.search, value):
            return _problem(
                field,
                "pattern",
                _("must match the pattern {pattern}").format(pattern=field.pattern),
            )
    return None


def _matches(search: Callable[[str], Any], text: str) -> bool:
    try:
        return search(text) is not None
    except UnicodeEncodeError:
        # A lone surrogate ("\ud800" in JSON): RE2 reads UTF-8, which cannot hold one, and no
        # real text contains one. (The fast path sends this case here: its ValueError.)
        return False


def _check_number(field: Field, value: Any) -> Problem | None:
    integer = field.kind is FieldKind.INTEGER
    wanted = (
        N_("must be a whole number, not {kind}") if integer else N_("must be a number, not {kind}")
    )
    if isinstance(value, bool) or not isinstance(value, int | float):
        return _problem(field, "type", _(wanted).format(kind=describe_type(value)))
    if isinstance(value, float):
        if not math.isfinite(value):
            return _problem(field, "type", _(wanted).format(kind=value))
        if integer and not value.is_integer():
            return _problem(
                field, "type", _("must be a whole number, not {kind}").format(kind=value)
            )
    if field.minimum is not None and value < field.minimum:
        return _problem(
            field,
            "too_small",
            _("must be {minimum} or more (it is {value})").format(
                minimum=_fmt_number(field.minimum), value=_fmt_number(value)
            ),
        )
    if field.maximum is not None and value > field.maximum:
        return _problem(
            field,
            "too_large",
            _("must be {maximum} or less (it is {value})").format(
                maximum=_fmt_number(field.maximum), value=_fmt_number(value)
            ),
        )
    return None


def _check_multi(field: Field, value: Any) -> Problem | None:
    if not isinstance(value, list):
        return _problem(
            field,
            "type",
            _("must be a list of options ({choices}), not {kind}").format(
                choices=_choices_text(field), kind=describe_type(value)
            ),
        )
    allowed = field.choice_values()
    seen: set[str] = set()
    for item in value:
        if not isinstance(item, str) or item not in allowed:
            shown = repr(item) if isinstance(item, str) else describe_type(item)
            return _problem(
                field,
                "not_a_choice",
                _("{value} is not an option: choose from {choices}").format(
                    value=shown, choices=_choices_text(field)
                ),
            )
        if item in seen:
            return _problem(
                field,
                "duplicate",
                _("{value} is chosen twice: choose each option once").format(value=repr(item)),
            )
        seen.add(item)
    count = len(value)
    if field.min_items is not None and count < field.min_items:
        return _problem(
            field,
            "too_few",
            ngettext(
                "choose at least {n} option (chosen: {count})",
                "choose at least {n} options (chosen: {count})",
                field.min_items,
            ).format(n=field.min_items, count=count),
        )
    if field.max_items is not None and count > field.max_items:
        return _problem(
            field,
            "too_many",
            ngettext(
                "choose at most {n} option (chosen: {count})",
                "choose at most {n} options (chosen: {count})",
                field.max_items,
            ).format(n=field.max_items, count=count),
        )
    return None
