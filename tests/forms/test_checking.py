"""check_schema: only a revision's keywords and shapes, with precise problems."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_elicit.forms import check_schema, lint_schema


def one(prop: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"f": prop}, **top}


def codes(schema: Any, revision: str = "2025-11-25") -> list[tuple[str | None, str]]:
    return [(p.field, p.code) for p in check_schema(schema, revision=revision)]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ([], [(None, "not_object")]),
        ({"properties": {}}, [(None, "missing")]),
        ({"type": "array", "properties": {}}, [(None, "bad_value")]),
        ({"type": "object"}, [(None, "missing")]),
        ({"type": "object", "properties": []}, [(None, "bad_value")]),
        (
            {"type": "object", "properties": {}, "additionalProperties": False},
            [(None, "unknown_keyword")],
        ),
        ({"type": "object", "properties": {}, "required": "a"}, [(None, "bad_value")]),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
            [("b", "unknown_required")],
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a"]},
            [("a", "duplicate")],
        ),
        # N11: nested objects
        (one({"type": "object", "properties": {"x": {"type": "string"}}}), [("f", "nested")]),
        (one({"type": "null"}), [("f", "bad_type")]),
        (one({"title": "no type"}), [("f", "missing")]),
        (one("string"), [("f", "bad_value")]),
        (one({"type": "string", "minLength": -1}), [("f", "bad_value")]),
        (one({"type": "string", "minLength": 1.5}), [("f", "bad_value")]),
        (one({"type": "string", "minLength": 5, "maxLength": 2}), [("f", "bounds")]),
        (one({"type": "number", "minimum": 5, "maximum": 2}), [("f", "bounds")]),
        (one({"type": "number", "minimum": "0"}), [("f", "bad_value")]),
        (one({"type": "integer", "maximum": True}), [("f", "bad_value")]),
        (one({"type": "string", "format": "ipv4"}), [("f", "bad_format")]),
        (one({"type": "string", "enum": []}), [("f", "empty")]),
        (one({"type": "string", "enum": ["a", 1]}), [("f", "bad_value")]),
        (one({"type": "string", "enum": ["a", "a"]}), [("f", "duplicate")]),
        (one({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}), [("f", "enum_names")]),
        (one({"type": "string", "enum": ["a"], "minLength": 1}), [("f", "unknown_keyword")]),
        (one({"type": "string", "oneOf": [{"const": "a"}]}), [("f", "bad_value")]),
        (
            one(
                {
                    "type": "string",
                    "oneOf": [{"const": "a", "title": "A"}, {"const": "a", "title": "B"}],
                }
            ),
            [("f", "duplicate")],
        ),
        (one({"type": "boolean", "default": "yes"}), [("f", "bad_default")]),
        (
            one({"type": "string", "enum": ["Red", "Green"], "default": "Purple"}),
            [("f", "bad_default")],
        ),
        (one({"type": "integer", "minimum": 1, "default": 0}), [("f", "bad_default")]),
        (one({"type": "integer", "default": 1.5}), [("f", "bad_default")]),
        (
            one({"type": "string", "format": "date", "default": "2023-02-30"}),
            [("f", "bad_default")],
        ),
        (one({"type": "string", "maxLength": 2, "default": "abc"}), [("f", "bad_default")]),
        (one({"type": "string", "default": None}), [("f", "bad_default")]),
        (one({"type": "array", "items": {"type": "string"}}), [("f", "free_list")]),
        (one({"type": "array", "items": {"type": "object"}}), [("f", "nested")]),
        (one({"type": "array"}), [("f", "missing")]),
        # N12: titled multi-select uses items.anyOf, not items.oneOf
        (
            one({"type": "array", "items": {"oneOf": [{"const": "a", "title": "A"}]}}),
            [("f", "bad_value")],
        ),
        (
            one({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 2}),
            [("f", "bounds")],
        ),
        (
            one(
                {
                    "type": "array",
                    "items": {"type": "string", "enum": ["a", "b"]},
                    "default": ["a", "a"],
                }
            ),
            [("f", "bad_default")],
        ),
        (one({"type": "string", "pattern": "("}), [("f", "bad_pattern")]),
    ],
)
def test_problems_name_the_field_and_the_rule(
    schema: Any, expected: list[tuple[str | None, str]]
) -> None:
    assert codes(schema) == expected
    for problem in check_schema(schema, revision="2025-11-25"):
        assert problem.message  # every problem says what is wrong in words


def test_messages_say_what_is_allowed() -> None:
    [problem] = check_schema(one({"type": "string", "format": "ipv4"}), revision="2025-11-25")
    assert problem.message == "format 'ipv4' is not allowed: use email, uri, date or date-time"
    [problem] = check_schema(
        one({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}), revision="2025-06-18"
    )
    assert "1 names for 2" in problem.message


@pytest.mark.parametrize(
    ("prop", "feature"),
    [
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, "oneOf"),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, "multi-select"),
        ({"type": "string", "default": "x"}, "default"),
        ({"type": "integer", "default": 3}, "default"),
    ],
)
def test_2025_06_18_refuses_what_came_later(prop: dict[str, Any], feature: str) -> None:
    for old in ("2025-06-18", "url-draft"):
        [problem] = check_schema(one(prop), revision=old)
        assert problem.code == "not_in_revision"
        assert feature in problem.message and "2025-11-25" in problem.message
    assert check_schema(one(prop), revision="2025-11-25") == []
    assert check_schema(one(prop), revision="2026-07-28") == []


def test_boolean_default_and_enum_names_are_fine_everywhere() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ok": {"type": "boolean", "default": False},
            "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
        },
    }
    for revision in ("2025-06-18", "url-draft", "2025-11-25", "2026-07-28", "draft"):
        assert check_schema(schema, revision=revision) == []


def test_dollar_schema_arrived_in_2025_11_25() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {},
    }
    assert codes(schema, "2025-06-18") == [(None, "not_in_revision")]
    assert codes(schema, "2025-11-25") == []


def test_annotations_are_tolerated_and_noted() -> None:
    # The official SDK's schemas carry a top-level "title" (pydantic writes one).
    schema = {
        "type": "object",
        "title": "Booking",
        "properties": {"a": {"type": "string", "$comment": "x"}},
    }
    assert codes(schema) == []
    assert [(n.field, n.code) for n in lint_schema(schema)] == [
        (None, "ignored_keyword"),
        ("a", "ignored_keyword"),
    ]


def test_unknown_revision_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown revision '2024-01-01'"):
        check_schema({}, revision="2024-01-01")


@pytest.mark.parametrize(
    ("name", "title", "term"),
    [
        ("password", None, "password"),
        ("apiKey", None, "api key"),
        ("API_KEY", None, "api key"),
        ("github_token", None, "token"),
        ("x", "Credit card number", "credit card"),
        ("cvv", None, "cvv"),
        ("clientSecret", None, "client secret"),
        ("pin", None, "pin"),
    ],
)
def test_lint_flags_fields_that_look_like_secrets(name: str, title: str | None, term: str) -> None:
    prop: dict[str, Any] = {"type": "string"}
    if title:
        prop["title"] = title
    notes = lint_schema({"type": "object", "properties": {name: prop}})
    assert [(n.field, n.code) for n in notes] == [(name, "looks_secret")]
    assert repr(term) in notes[0].message


@pytest.mark.parametrize(
    "name", ["username", "email", "max_tokens", "spinner", "tokenizer_name", "passenger"]
)
def test_lint_leaves_ordinary_fields_alone(name: str) -> None:
    assert lint_schema({"type": "object", "properties": {name: {"type": "string"}}}) == []


def test_lint_flags_urls_in_any_text() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "description": "see https://evil.example/login"},
            "b": {"type": "string", "oneOf": [{"const": "x", "title": "www.evil.example"}]},
            "c": {"type": "string", "default": "javascript:alert(1)"},
            "d": {"type": "string", "title": "Plain title"},
        },
    }
    notes = lint_schema(schema, message="Click http://phish.example now")
    assert [(n.field, n.code) for n in notes] == [
        (None, "url_in_text"),
        ("a", "url_in_text"),
        ("b", "url_in_text"),
        ("c", "url_in_text"),
    ]
    assert "http://phish.example" in notes[0].message
