"""Hypothesis strategies: form fields, valid answers, and answers broken in exactly one way."""

from __future__ import annotations

import string
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

from hypothesis import strategies as st

from mcp_elicit.forms import Choice, Field, FieldKind

names = st.text(string.ascii_lowercase + "_", min_size=1, max_size=12).filter(
    lambda s: s.strip("_") != ""
)
labels = st.none() | st.text(string.ascii_letters + " ", min_size=1, max_size=20)
option_values = st.lists(
    st.text(string.ascii_lowercase, min_size=1, max_size=8), min_size=1, max_size=6, unique=True
)


@st.composite
def choices(draw: st.DrawFn) -> tuple[Choice, ...]:
    values = draw(option_values)
    titled = draw(st.booleans())
    return tuple(Choice(v, v.upper() + " option" if titled else None) for v in values)


@st.composite
def fields(draw: st.DrawFn, name: str | None = None) -> Field:
    kind = draw(st.sampled_from(list(FieldKind)))
    base = Field(
        name or draw(names),
        kind,
        draw(st.booleans()),
        draw(labels),
        draw(labels),
    )
    if kind is FieldKind.TEXT:
        low = draw(st.none() | st.integers(0, 5))
        high = draw(st.none() | st.integers(max(low or 0, 1), 12))
        return replace(base, min_length=low, max_length=high)
    if kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        low = draw(st.none() | st.integers(-100, 100))
        high = draw(st.none() | st.integers(low if low is not None else -100, 200))
        return replace(base, minimum=low, maximum=high)
    if kind in (FieldKind.SINGLE_CHOICE, FieldKind.MULTI_CHOICE):
        options = draw(choices())
        base = replace(base, choices=options)
        if kind is FieldKind.MULTI_CHOICE:
            low = draw(st.none() | st.integers(0, len(options)))
            high = draw(st.none() | st.integers(max(low or 0, 1), len(options) + 1))
            base = replace(base, min_items=low, max_items=high)
        return base
    return base


@st.composite
def field_lists(draw: st.DrawFn) -> list[Field]:
    count = draw(st.integers(1, 6))
    chosen = draw(st.lists(names, min_size=count, max_size=count, unique=True))
    return [draw(fields(name)) for name in chosen]


def valid_values(field: Field) -> st.SearchStrategy[Any]:
    kind = field.kind
    if kind is FieldKind.TEXT:
        low = field.min_length or 0
        high = field.max_length if field.max_length is not None else low + 10
        return st.text(min_size=low, max_size=high)
    if kind is FieldKind.EMAIL:
        return st.builds(
            lambda local, domain: f"{local}@{domain}",
            st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=10),
            st.sampled_from(["example.com", "mail.example.org", "b\u00fccher.example"]),
        )
    if kind is FieldKind.URI:
        return st.builds(
            lambda path: f"https://example.com/{path}",
            st.text(string.ascii_letters + string.digits + "-._~/", max_size=15),
        )
    if kind is FieldKind.DATE:
        return st.dates().map(date.isoformat)
    if kind is FieldKind.DATETIME:
        return st.datetimes(timezones=st.just(UTC)).map(datetime.isoformat)
    if kind is FieldKind.BOOLEAN:
        return st.booleans()
    if kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        low = int(field.minimum) if field.minimum is not None else -(10**6)
        high = int(field.maximum) if field.maximum is not None else 10**6
        ints = st.integers(low, high)
        if kind is FieldKind.INTEGER:
            return ints
        return ints | st.floats(low, high, allow_nan=False, allow_infinity=False)
    values = list(field.choice_values())
    if kind is FieldKind.SINGLE_CHOICE:
        return st.sampled_from(values)
    low = field.min_items or 0
    high = min(field.max_items if field.max_items is not None else len(values), len(values))
    return st.lists(st.sampled_from(values), min_size=low, max_size=high, unique=True)


def breakages(field: Field) -> list[tuple[Any, str]]:
    """(value, expected problem code) for every single rule ``field`` can be broken by."""
    kind = field.kind
    out: list[tuple[Any, str]] = []
    if kind.is_text:
        out.append((5, "type"))
    if kind is FieldKind.TEXT:
        if field.min_length:
            out.append(("x" * (field.min_length - 1), "too_short"))
        if field.max_length is not None:
            out.append(("x" * (field.max_length + 1), "too_long"))
    formats = {
        FieldKind.EMAIL: "not-an-email",
        FieldKind.URI: "no scheme here",
        FieldKind.DATE: "2023-02-30",
        FieldKind.DATETIME: "2023-01-01T10:00:00",
    }
    if kind in formats:
        out.append((formats[kind], "format"))
    if kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        out.append(("5", "type"))
        out.append((True, "type"))
        if field.minimum is not None:
            out.append((field.minimum - 1, "too_small"))
        if field.maximum is not None:
            out.append((field.maximum + 1, "too_large"))
    if kind is FieldKind.INTEGER:
        out.append((0.5, "type"))
    if kind is FieldKind.BOOLEAN:
        out.append(("true", "type"))
        out.append((1, "type"))
    values = list(field.choice_values())
    if kind is FieldKind.SINGLE_CHOICE:
        out.append((["x"], "type"))
        out.append(("NOT-AN-OPTION", "not_a_choice"))
    if kind is FieldKind.MULTI_CHOICE:
        out.append((values[0], "type"))
        out.append((["NOT-AN-OPTION"], "not_a_choice"))
        out.append(([values[0], values[0]], "duplicate"))
        if field.min_items:
            out.append((values[: field.min_items - 1], "too_few"))
        if field.max_items is not None and field.max_items < len(values):
            out.append((values[: field.max_items + 1], "too_many"))
    return out


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
