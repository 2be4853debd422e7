"""Problems in the person's language: the same fields and codes in every language, the message
in the one in effect, and nothing left in English under the pseudo-locale."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcp_elicit.forms import Form, InvalidSchema, Problem, lint_schema
from mcp_elicit.i18n import language
from tests.i18n_support import escaped, pseudo_language

_CJK = re.compile(r"[\u4e00-\u9fff]")

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 5},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri", "title": "Site"},
        "arrival": {"type": "string", "format": "date", "title": "Arrival"},
        "at": {"type": "string", "format": "date-time", "title": "At"},
        "code": {"type": "string", "pattern": "^[A-Z]+$", "title": "Code"},
        "nights": {"type": "integer", "minimum": 1, "maximum": 14, "title": "Nights"},
        "budget": {"type": "number", "minimum": 0, "title": "Budget"},
        "breakfast": {"type": "boolean", "title": "Breakfast"},
        "room": {"type": "string", "enum": ["std", "sea"], "title": "Room"},
        "extras": {
            "type": "array",
            "items": {"type": "string", "enum": ["parking", "crib", "late"]},
            "minItems": 1,
            "maxItems": 2,
            "title": "Extras",
        },
    },
    "required": ["name", "arrival"],
}
FORM = Form.from_schema(SCHEMA)
# One answer per rule a value can break.
ANSWERS: list[dict[str, Any]] = [
    {"arrival": "2026-12-01"},  # name required
    {"name": "A", "arrival": "2026-02-30"},
    {"name": "Abcdefg", "arrival": "2026-12-01", "email": "no-at-sign"},
    {"name": 3, "arrival": "2026-12-01", "site": "not a uri", "at": "2026-12-01"},
    {"name": "Ab", "arrival": "2026-12-01", "code": "abc", "nights": 20, "budget": -1},
    {"name": "Ab", "arrival": "2026-12-01", "nights": 1.5, "breakfast": "yes", "room": "x"},
    {"name": "Ab", "arrival": "2026-12-01", "room": 3, "extras": "parking"},
    {"name": "Ab", "arrival": "2026-12-01", "extras": ["parking", "parking"]},
    {"name": "Ab", "arrival": "2026-12-01", "extras": []},
    {"name": "Ab", "arrival": "2026-12-01", "extras": ["parking", "crib", "late"]},
    {"name": "Ab", "arrival": "2026-12-01", "extras": ["boat"], "unknown": 1},
]
TYPED = [("nights", "many"), ("budget", "x"), ("breakfast", "maybe"), ("room", "9")]
BAD_SCHEMAS: list[Any] = [
    [],
    {"type": "array"},
    {"type": "object", "properties": [], "required": "name"},
    {"type": "object", "properties": {"a": {"type": "object"}, "b": {"type": "null"}}},
    {"type": "object", "properties": {"a": {"type": "string", "format": "color"}}},
    {"type": "object", "properties": {"a": {"type": "number", "minimum": 5, "maximum": 1}}},
    {"type": "object", "properties": {"a": {"type": "string", "enum": []}}},
    {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "x"]}}},
    {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}},
    {"type": "object", "properties": {"a": {"type": "string", "minLength": -1, "bogus": 1}}},
    {"type": "object", "properties": {"a": {"type": "integer", "default": "x"}}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a", "b"]},
]


def every_problem() -> list[Problem]:
    found = [p for answer in ANSWERS for p in FORM.validate(answer)]
    for name, typed in TYPED:
        coerced = FORM.coerce(name, typed)
        assert isinstance(coerced, Problem), (name, typed)
        found.append(coerced)
    for schema in BAD_SCHEMAS:
        with pytest.raises(InvalidSchema) as raised:
            Form.from_schema(schema)
        found += raised.value.problems
    found += lint_schema(
        {"type": "object", "properties": {"password": {"type": "string", "title": "Password"}}},
        message="see https://example.com/x",
    )
    return found


def test_every_rule_is_exercised() -> None:
    codes = {p.code for p in every_problem()}
    for code in ("required", "too_short", "too_long", "format", "pattern", "too_small"):
        assert code in codes
    for code in ("too_large", "type", "not_a_choice", "duplicate", "too_few", "too_many"):
        assert code in codes
    assert "unknown_field" in codes and "looks_secret" in codes and "url_in_text" in codes


def test_in_chinese_the_fields_and_codes_stay_the_messages_change() -> None:
    english = every_problem()
    with language("zh-Hans"):
        chinese = every_problem()
    assert [(p.field, p.code) for p in chinese] == [(p.field, p.code) for p in english]
    for en, zh in zip(english, chinese, strict=True):
        assert _CJK.search(zh.message), (en.code, zh.message)
        assert zh.message != en.message
        assert zh.to_json()["code"] == en.to_json()["code"]


def test_a_chinese_yes_is_a_yes() -> None:
    with language("zh-Hans"):
        assert FORM.coerce("breakfast", "是") is True
        assert FORM.coerce("breakfast", "否") is False
    assert FORM.coerce("breakfast", "y") is True  # in every language


def test_nothing_escapes_the_catalogs() -> None:
    with pseudo_language():
        problems = every_problem()
    # The data the messages quote: names, values, keywords and patterns from the schemas.
    data = [
        "Name",
        "Email",
        "Arrival",
        "Nights",
        "Budget",
        "Breakfast",
        "Room",
        "Extras",
        "Password",
        "password",
        "Site",
        "At",
        "Code",
        "'x'",
        "'maybe'",
        "'many'",
        "'9'",
        "'std'",
        "'sea'",
        "'boat'",
        "'parking'",
        "'crib'",
        "'late'",
        "'unknown'",
        "'name'",
        "'email'",
        "'site'",
        "'arrival'",
        "'at'",
        "'code'",
        "'nights'",
        "'budget'",
        "'breakfast'",
        "'room'",
        "'extras'",
        "std",
        "sea",
        "parking",
        "crib",
        "late",
        "^[A-Z]+$",
        "https://example.com/x",
        '"type"',
        '"properties"',
        '"required"',
        '"minimum"',
        '"maximum"',
        '"enum"',
        '"minLength"',
        "'object'",
        "'null'",
        "'color'",
        "'bogus'",
        "'a'",
        "'b'",
        "'x'",
        "'array'",
        "null",
        "true/false",
    ]
    for problem in problems:
        assert escaped(problem.message, data) == [], problem
