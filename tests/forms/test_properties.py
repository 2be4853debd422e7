"""Property tests of the forms core (hypothesis)."""

from __future__ import annotations

import contextlib
import copy
import re
from datetime import date
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from mcp_elicit.forms import (
    ConversionError,
    Field,
    Form,
    InvalidSchema,
    Revision,
    check_schema,
    convert,
    lint_schema,
)
from mcp_elicit.forms.rendering import render_schema
from mcp_elicit.forms.revisions import schema_rules
from mcp_elicit.forms.values import is_date
from tests.strategies import breakages, field_lists, json_values, valid_values

NEW = schema_rules(Revision.V2025_11_25)
ALL_REVISIONS = [r.value for r in Revision]


@st.composite
def form_and_valid_answer(draw: st.DrawFn) -> tuple[list[Field], dict[str, Any]]:
    fields = draw(field_lists())
    content: dict[str, Any] = {}
    for field in fields:
        if field.required or draw(st.booleans()):
            content[field.name] = draw(valid_values(field))
    return fields, content


@given(form_and_valid_answer())
def test_a_value_drawn_to_satisfy_the_schema_validates(
    case: tuple[list[Field], dict[str, Any]],
) -> None:
    fields, content = case
    schema = render_schema(fields, NEW)
    assert check_schema(schema, revision="2025-11-25") == []
    form = Form.from_schema(schema)
    assert form.validate(content) == []


@given(form_and_valid_answer(), st.data())
def test_breaking_one_rule_gives_exactly_one_problem_on_that_field(
    case: tuple[list[Field], dict[str, Any]], data: st.DataObject
) -> None:
    fields, content = case
    form = Form.from_schema(render_schema(fields, NEW))
    field = data.draw(st.sampled_from(fields))
    options = breakages(field)
    if field.required:
        options.append((None, "required"))
    options.append(("__extra__", "unknown_field"))
    value, code = data.draw(st.sampled_from(options))
    broken = dict(content)
    if code == "required":
        broken.pop(field.name, None)
        target = field.name
    elif code == "unknown_field":
        assume("zz_extra" not in broken)
        broken["zz_extra"] = 1
        target = "zz_extra"
    else:
        broken[field.name] = value
        target = field.name
    problems = form.validate(broken)
    assert [(p.field, p.code) for p in problems] == [(target, code)], problems
    assert problems[0].message


@given(form_and_valid_answer())
def test_the_fast_path_agrees_with_the_full_check(case: tuple[list[Field], dict[str, Any]]) -> None:
    fields, content = case
    form = Form.from_schema(render_schema(fields, NEW))
    validator = form._validator
    assert validator.fast(content) is True
    assert validator.problems(content) == []


@given(form_and_valid_answer(), json_values)
def test_the_validator_never_raises_and_fast_implies_valid(
    case: tuple[list[Field], dict[str, Any]], junk: Any
) -> None:
    fields, content = case
    form = Form.from_schema(render_schema(fields, NEW))
    for candidate in (junk, {**content, fields[0].name: junk}):
        problems = form.validate(candidate)
        assert isinstance(problems, list)
        if form._validator.fast(candidate):
            assert form._validator.problems(candidate) == []


@given(json_values, st.sampled_from(ALL_REVISIONS))
def test_the_checker_never_raises_on_arbitrary_json(schema: Any, revision: str) -> None:
    assert isinstance(check_schema(schema, revision=revision), list)
    assert isinstance(lint_schema(schema, message="hello"), list)
    try:
        Form.from_schema(schema)
    except InvalidSchema as exc:
        assert exc.problems


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


@given(field_lists(), json_values, st.data(), st.sampled_from(ALL_REVISIONS))
def test_the_checker_never_raises_on_a_damaged_schema(
    fields: list[Field], junk: Any, data: st.DataObject, revision: str
) -> None:
    schema = copy.deepcopy(render_schema(fields, NEW))
    path = data.draw(st.sampled_from(_paths(schema)[1:]))
    node = schema
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = junk
    problems = check_schema(schema, revision=revision)
    assert isinstance(problems, list)
    assert isinstance(lint_schema(schema), list)
    try:
        form = Form.from_schema(schema, revision=revision)
    except InvalidSchema:
        assert problems
    else:
        assert problems == []
        assert isinstance(form.validate({}), list)
        with contextlib.suppress(ConversionError):
            convert(schema, to="2025-06-18")


@given(form_and_valid_answer(), st.sampled_from(ALL_REVISIONS))
def test_conversion_round_trips_between_revisions(
    case: tuple[list[Field], dict[str, Any]], revision: str
) -> None:
    fields, content = case
    schema = render_schema(fields, NEW)
    has_multi = any(f.kind.value == "multi_choice" for f in fields)
    rules = schema_rules(revision)
    if has_multi and not rules.multi_select:
        return
    converted = convert(schema, to=revision)
    assert check_schema(converted, revision=revision) == []
    back = convert(converted, to="2025-11-25")
    old = Form.from_schema(schema)
    new = Form.from_schema(back)
    # The questions survive, titles included; only non-boolean defaults may be dropped.
    assert [(f.name, f.kind, f.choices, f.required) for f in old.fields] == [
        (f.name, f.kind, f.choices, f.required) for f in new.fields
    ]
    assert new.validate(content) == []


_FULL_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def _reference_is_date(text: str) -> bool:
    if _FULL_DATE.fullmatch(text) is None:
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


@given(
    st.text(max_size=12)
    | st.dates().map(lambda d: d.isoformat())
    | st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", fullmatch=True)
    | st.from_regex(r"[0-9０-９W+\- ]{10}", fullmatch=True)
)
def test_the_quick_date_check_matches_the_rfc_3339_grammar(text: str) -> None:
    assert is_date(text) == _reference_is_date(text)
