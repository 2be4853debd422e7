"""The form model: fields, defaults, validation, coercion."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_elicit.forms import Choice, FieldKind, Form, InvalidSchema, Problem

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name", "minLength": 2, "maxLength": 5},
        "email": {"type": "string", "format": "email", "description": "Where we write"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meet": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 18, "maximum": 120},
        "score": {"type": "number", "minimum": 0, "maximum": 1, "default": 0},
        "news": {"type": "boolean", "default": False},
        "size": {"type": "string", "enum": ["s", "m", "l"], "default": "m"},
        "color": {
            "type": "string",
            "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}],
        },
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Apple", "Banana"]},
        "tags": {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {"type": "string", "enum": ["x", "y", "z"]},
            "default": ["x"],
        },
        "note": {"type": "string", "default": ""},
    },
    "required": ["name", "age"],
}


@pytest.fixture
def form() -> Form:
    return Form.from_schema(SCHEMA)


def test_fields_in_order_with_kind_label_help_default_choices(form: Form) -> None:
    assert [f.name for f in form.fields] == list(SCHEMA["properties"])
    kinds = {f.name: f.kind for f in form.fields}
    assert kinds == {
        "name": FieldKind.TEXT,
        "email": FieldKind.EMAIL,
        "site": FieldKind.URI,
        "born": FieldKind.DATE,
        "meet": FieldKind.DATETIME,
        "age": FieldKind.INTEGER,
        "score": FieldKind.NUMBER,
        "news": FieldKind.BOOLEAN,
        "size": FieldKind.SINGLE_CHOICE,
        "color": FieldKind.SINGLE_CHOICE,
        "legacy": FieldKind.SINGLE_CHOICE,
        "tags": FieldKind.MULTI_CHOICE,
        "note": FieldKind.TEXT,
    }
    assert form["name"].label == "Full name"
    assert form["site"].label == "Site"
    assert form["email"].help == "Where we write"
    assert form["name"].required and not form["email"].required
    assert (form["name"].min_length, form["name"].max_length) == (2, 5)
    assert (form["age"].minimum, form["age"].maximum) == (18, 120)
    assert form["color"].choices == (Choice("#f00", "Red"), Choice("#0f0", "Green"))
    assert form["legacy"].choices == (Choice("a", "Apple"), Choice("b", "Banana"))
    assert form["size"].choices == (Choice("s"), Choice("m"), Choice("l"))
    assert (form["tags"].min_items, form["tags"].max_items) == (1, 2)


def test_defaults_keep_falsy_values(form: Form) -> None:
    assert form.defaults() == {"score": 0, "news": False, "size": "m", "tags": ["x"], "note": ""}
    defaults = form.defaults()
    defaults["tags"].append("y")  # a copy: the form is not changed
    assert form.defaults()["tags"] == ["x"]


def test_valid_answer_has_no_problems(form: Form) -> None:
    answer = {
        "name": "Ann",
        "email": "ann@example.com",
        "site": "https://example.com/a?b=c",
        "born": "2024-02-29",
        "meet": "2025-03-31T14:30:00.5+02:00",
        "age": 36,
        "score": 0.5,
        "news": True,
        "size": "l",
        "color": "#0f0",
        "legacy": "b",
        "tags": ["x", "z"],
        "note": "",
    }
    assert form.validate(answer) == []
    assert form.is_valid(answer)
    assert form.validate({"name": "Ann", "age": 36.0}) == []  # 36.0 is an integer in JSON
    assert form.is_valid({"name": "Ann", "age": 36.0})  # the slow path agrees
    assert not form.is_valid({"name": "Ann", "age": 36.5})


@pytest.mark.parametrize(
    ("field", "value", "code", "message"),
    [
        ("name", "A", "too_short", "must be at least 2 characters long (it has 1)"),
        ("name", "Annabel", "too_long", "must be at most 5 characters long (it has 7)"),
        ("name", "😀😀", None, None),  # lengths are code points: two emoji are 2 characters
        ("name", 12, "type", "must be text, not a number"),
        ("age", "36", "type", "must be a whole number, not text"),
        ("age", True, "type", "must be a whole number, not true/false"),
        ("age", 36.5, "type", "must be a whole number, not 36.5"),
        ("age", 17, "too_small", "must be 18 or more (it is 17)"),
        ("age", 121, "too_large", "must be 120 or less (it is 121)"),
        ("score", float("nan"), "type", "must be a number, not nan"),
        ("score", float("inf"), "type", "must be a number, not inf"),
        ("score", True, "type", "must be a number, not true/false"),
        ("news", "true", "type", "must be true or false, not text"),
        ("news", 0, "type", "must be true or false, not a number"),
        ("size", "xl", "not_a_choice", "'xl' is not an option: choose one of s, m, l"),
        (
            "color",
            "Red",
            "not_a_choice",
            "'Red' is not an option: choose one of Red (#f00), Green (#0f0)",
        ),
        ("tags", [], "too_few", "choose at least 1 option (chosen: 0)"),
        ("tags", ["x", "y", "z"], "too_many", "choose at most 2 options (chosen: 3)"),
        ("tags", ["x", "x"], "duplicate", "'x' is chosen twice: choose each option once"),
        ("tags", "x", "type", "must be a list of options (x, y, z), not text"),
        (
            "born",
            "2023-02-29",
            "format",
            "must be a real calendar date written YYYY-MM-DD, like 2025-03-31",
        ),
        ("born", "20230101", "format", None),
        ("born", "2023-1-01", "format", None),
        ("meet", "2025-03-31T14:30:00", "format", None),
        ("meet", "2025-03-31 14:30:00Z", "format", None),
        ("meet", "2025-03-31T25:30:00Z", "format", None),
        ("meet", "2016-12-31T23:59:60Z", None, None),  # a leap second is RFC 3339
        ("site", "example.com", "format", None),
        ("site", "https://exa mple.com", "format", None),
        ("email", "ann@", "format", None),
        ("email", "ann.example.com", "format", None),
        ("email", "ann@b\u00fccher.example", None, None),
    ],
)
def test_one_human_message_per_field(
    form: Form, field: str, value: Any, code: str | None, message: str | None
) -> None:
    answer = {"name": "Ann", "age": 36, field: value}
    problems = form.validate(answer)
    if code is None:
        assert problems == []
        return
    assert [(p.field, p.code) for p in problems] == [(field, code)]
    if message is not None:
        assert problems[0].message == message


def test_every_field_reports_at_once(form: Form) -> None:
    problems = form.validate({"name": 1, "age": "x", "tags": [], "extra": True})
    assert [(p.field, p.code) for p in problems] == [
        ("name", "type"),
        ("age", "type"),
        ("tags", "too_few"),
        ("extra", "unknown_field"),
    ]
    assert form.validate({}) == [
        Problem("name", "required", "Full name is required"),
        Problem("age", "required", "Age is required"),
    ]
    assert [p.code for p in form.validate(["not", "an", "object"])] == ["not_object"]


@pytest.mark.parametrize(
    ("field", "typed", "expected"),
    [
        ("name", "Ann", "Ann"),
        ("age", " 42 ", 42),
        ("age", "42.0", 42),
        ("score", "0.25", 0.25),
        ("score", "1", 1),
        ("news", "yes", True),
        ("news", "N", False),
        ("size", "M", "m"),
        ("size", "3", "l"),
        ("color", "green", "#0f0"),
        ("legacy", "Banana", "b"),
        ("tags", "x, 3", ["x", "z"]),
        ("meet", "2025-03-31 14:30:00Z", "2025-03-31T14:30:00Z"),
        ("email", "", None),
        ("note", "", None),
        ("note", "  ", "  "),
    ],
)
def test_coerce_turns_typing_into_json_values(
    form: Form, field: str, typed: str, expected: Any
) -> None:
    assert form.coerce(field, typed) == expected


@pytest.mark.parametrize(
    ("field", "typed", "code"),
    [
        ("age", "forty", "type"),
        ("age", "4.5", "type"),
        ("age", "17", "too_small"),
        ("score", "nan", "type"),
        ("score", "1e400", "type"),
        ("news", "maybe", "type"),
        ("size", "xl", "not_a_choice"),
        ("size", "9", "not_a_choice"),
        ("tags", "x,y,z", "too_many"),
        ("born", "31/03/2025", "format"),
        ("name", "", "required"),
        ("age", "   ", "required"),
    ],
)
def test_coerce_returns_a_problem_for_bad_typing(
    form: Form, field: str, typed: str, code: str
) -> None:
    result = form.coerce(field, typed)
    assert isinstance(result, Problem)
    assert (result.field, result.code) == (field, code)


def test_coerce_unknown_field_is_a_key_error(form: Form) -> None:
    with pytest.raises(KeyError, match="no field 'nope'"):
        form.coerce("nope", "x")


def test_forms_are_cached_per_schema() -> None:
    first = Form.from_schema(SCHEMA)
    assert Form.from_schema(dict(SCHEMA)) is first
    assert Form.from_schema(SCHEMA, revision="2025-11-25") is not first


def test_an_invalid_schema_raises_with_every_problem() -> None:
    with pytest.raises(InvalidSchema) as caught:
        Form.from_schema(
            {
                "type": "object",
                "properties": {"a": {"type": "object"}, "b": {"type": "string", "minLength": -1}},
            }
        )
    assert [(p.field, p.code) for p in caught.value.problems] == [
        ("a", "nested"),
        ("b", "bad_value"),
    ]
    with pytest.raises(InvalidSchema, match=r"not in this revision"):
        Form.from_schema(SCHEMA, revision="2025-06-18")


def test_pattern_is_applied_safely() -> None:
    form = Form.from_schema(
        {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}}
    )
    assert form.validate({"code": "aaaa"}) == []
    # A classic catastrophic-backtracking input: Python's re would take far longer than the
    # age of the universe; RE2 answers in linear time, so the test finishes at once.
    [problem] = form.validate({"code": "a" * 100_000 + "!"})
    assert problem.code == "pattern"


def test_a_pattern_re2_cannot_run_is_not_applied() -> None:
    form = Form.from_schema(
        {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a)\\1$"}}}
    )
    assert form.validate({"code": "anything"}) == []
