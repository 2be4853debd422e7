"""What fuzzing the forms core found (fuzz/schema_check.py, fuzz/form_validate.py), each case
held here as a plain test: the checker, the validator and coerce answer with problems instead
of raising."""

from __future__ import annotations

import json

import pytest

from mcp_elicit.forms import Form, InvalidSchema, check_schema


def _schema(prop: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": {"x": prop}}


@pytest.mark.parametrize("key", ["minimum", "maximum"])
def test_a_numeric_bound_past_a_doubles_range_is_a_problem_not_an_overflow(key: str) -> None:
    # 1e309 written out in digits: json.loads reads it as an int no float can hold.
    schema = _schema({"type": "number", key: json.loads("1" + "0" * 309)})
    problems = check_schema(schema, revision="2025-11-25")
    assert [(p.field, p.code) for p in problems] == [("x", "bad_value")]
    assert "range of a double" in problems[0].message
    with pytest.raises(InvalidSchema):
        Form.from_schema(schema)


@pytest.mark.parametrize("key", ["minLength", "maxLength"])
def test_a_length_past_a_doubles_range_is_a_problem_not_an_overflow(key: str) -> None:
    schema = _schema({"type": "string", key: 10**400})
    assert [(p.field, p.code) for p in check_schema(schema, revision="2025-06-18")] == [
        ("x", "bad_value")
    ]


def test_a_bound_a_double_holds_is_still_a_bound() -> None:
    form = Form.from_schema(_schema({"type": "integer", "maximum": 10**300}))
    assert form.validate({"x": 10**300}) == []
    assert [p.code for p in form.validate({"x": 10**300 + 1})] == ["too_large"]


@pytest.mark.parametrize("typed", ["²", "①", "12²", "٣٣"])
def test_digits_int_cannot_read_are_not_an_option_number(typed: str) -> None:
    form = Form.from_schema(_schema({"type": "string", "enum": ["a", "b", "c"]}))
    problem = form.coerce("x", typed)
    assert getattr(problem, "code", None) == "not_a_choice"


def test_an_option_number_in_another_scripts_digits_still_picks_it() -> None:
    form = Form.from_schema(
        _schema({"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}})
    )
    assert form.coerce("x", "٣") == ["c"]  # ARABIC-INDIC DIGIT THREE
    assert form.coerce("x", "1, ٢") == ["a", "b"]


@pytest.mark.parametrize("kind", ["integer", "number"])
def test_a_typed_number_with_too_many_digits_is_a_problem(kind: str) -> None:
    form = Form.from_schema(_schema({"type": kind}))
    problem = form.coerce("x", "9" * 5000)  # past Python's int conversion limit (4300 digits)
    assert getattr(problem, "code", None) == "type"
    assert "5000 digits" in getattr(problem, "message", "")
    assert form.coerce("x", "9" * 300) == int("9" * 300)


def test_a_lone_surrogate_against_a_pattern_is_a_pattern_problem() -> None:
    form = Form.from_schema(_schema({"type": "string", "pattern": "^a"}))
    answer = json.loads('{"x": "a\\udc80"}')  # valid JSON text, not valid Unicode
    assert [(p.field, p.code) for p in form.validate(answer)] == [("x", "pattern")]
    assert not form.is_valid(answer)
    # Without a pattern there is nothing RE2 must read: the text is taken as it is.
    assert Form.from_schema(_schema({"type": "string"})).validate(answer) == []
