"""Fuzz target: the answer validator (``Form.validate``) and the typed-answer reader
(``Form.coerce``), on forms built from fuzzed schemas.

Contract, for any valid schema and any JSON value as ``content``:

- ``validate`` returns a list of ``Problem``, never raises, and gives the same answer twice;
  at most one problem per field; a problem names a field of the form, a key of the content
  (``unknown_field``) or nothing (``not_object``, only for content that is not an object);
- the generated fast path never calls valid what the full check refuses, and ``is_valid``
  is ``validate() == []``;
- the content is left as it was;
- ``coerce(field, text)`` returns a value, a ``Problem`` about that field, or ``None``, for
  any text; a value it returns is a valid answer for that field.

Input: JSON text ``{"schema": ..., "content": ..., "typed": [...]}`` (the seeds), or bytes
the builders shape into a schema, content and typed text.
"""

from __future__ import annotations

import sys
from typing import Any

import atheris
from _harness import (
    SCHEMA_WORDS,
    TYPED,
    SchemaBuilder,
    expect,
    json_from_bytes,
    main,
    too_deep,
)

with atheris.instrument_imports(include=["mcp_elicit"]):
    from mcp_elicit.forms import Field, FieldKind, Form, InvalidSchema, Problem
    from mcp_elicit.forms.values import check_value

SAMPLES: dict[FieldKind, tuple[Any, ...]] = {
    FieldKind.TEXT: ("", "a", "hello", "x" * 30),
    FieldKind.EMAIL: ("a@b.co", "name@example.com", "a@b", "@", "a@xn--bcher-kva.de"),
    FieldKind.URI: ("https://example.com/p?q#f", "urn:isbn:1", "//x", "a b:c", "http://[::1]"),
    FieldKind.DATE: ("2025-03-31", "2025-02-29", "2024-02-29", "2025-13-01", "20250331"),
    FieldKind.DATETIME: (
        "2025-03-31T14:30:00Z",
        "2025-03-31t14:30:60+02:00",
        "2025-03-31T24:00:00Z",
        "2025-03-31T14:30:00.1234567891-00:00",
    ),
    FieldKind.INTEGER: (0, -1, 36, 36.0, 36.5, 10**20, 1e308, True),
    FieldKind.NUMBER: (0, 2.5, -1e-300, float("nan"), float("inf"), 10**400, False),
    FieldKind.BOOLEAN: (True, False, 0, "true", None),
}


def inputs(data: bytes) -> tuple[Any, Any, list[Any]]:
    if data[:1] == b"\x00":
        builder = SchemaBuilder(atheris.FuzzedDataProvider(data[1:]), SCHEMA_WORDS)
        builder.junk = 1  # mostly valid schemas: the answers are what this target is about
        schema = builder.schema()
        content = ContentBuilder(builder).content(schema)
        typed = [builder.word(TYPED) if builder.chance(60) else builder.text() for _ in range(3)]
        return schema, content, typed
    value = json_from_bytes(data, SCHEMA_WORDS)
    if not isinstance(value, dict):
        return None, None, []
    typed = value.get("typed")
    return value.get("schema"), value.get("content"), typed if isinstance(typed, list) else []


class ContentBuilder:
    """Answers for a schema: valid ones, nearly valid ones, and anything at all."""

    def __init__(self, builder: SchemaBuilder) -> None:
        self.b = builder

    def content(self, schema: Any) -> Any:
        b = self.b
        if b.chance(5):
            return b.value()
        try:
            form = Form.from_schema(schema)
        except Exception:  # InvalidSchema, or a finding that check() will report
            return b.value(b.max_depth - 1) if b.chance(50) else {}
        content: dict[str, Any] = {}
        for field in form:
            if b.chance(85 if field.required else 50):
                content[field.name] = self.answer(field)
        if b.chance(5):
            content[b.short_text()] = b.value(b.max_depth - 1)
        return content

    def answer(self, field: Field) -> Any:
        b = self.b
        if b.chance(10):
            return b.value(b.max_depth - 1)
        if field.kind in (FieldKind.SINGLE_CHOICE, FieldKind.MULTI_CHOICE):
            values = list(field.choice_values())
            picked = [v for v in values if b.chance(50)] + (
                [b.short_text()] if b.chance(10) else []
            )
            if field.kind is FieldKind.MULTI_CHOICE:
                return picked + picked[:1] if b.chance(5) else picked
            return picked[0] if picked else b.short_text()
        if field.kind is FieldKind.TEXT and b.chance(50):
            return b.text()
        if field.kind in (FieldKind.INTEGER, FieldKind.NUMBER) and b.chance(50):
            return b.bound()
        return b.word(SAMPLES[field.kind])


def check(data: bytes) -> None:
    schema, content, typed = inputs(data)
    if too_deep(schema) or too_deep(content):
        return
    try:
        form = Form.from_schema(schema)
    except InvalidSchema:
        return
    before = repr(content)
    problems = form.validate(content)
    expect(isinstance(problems, list), f"validate returned {type(problems).__name__}")
    expect(form.validate(content) == problems, "a second validation differs")
    names = {field.name for field in form}
    seen: set[str | None] = set()
    for problem in problems:
        expect(isinstance(problem, Problem), f"not a Problem: {problem!r}")
        expect(isinstance(problem.code, str) and problem.code, repr(problem))
        expect(isinstance(problem.message, str) and problem.message, repr(problem))
        expect(problem.field not in seen, f"two problems for {problem.field!r}: {problems}")
        seen.add(problem.field)
        if problem.field is None:
            expect(problem.code == "not_object", repr(problem))
            expect(not isinstance(content, dict), "not_object for an object")
        elif problem.code == "unknown_field":
            expect(problem.field not in names, f"a field of the form is unknown: {problem}")
        else:
            expect(problem.field in names, f"a problem for no field of the form: {problem}")
    if not isinstance(content, dict):
        expect([p.code for p in problems] == ["not_object"], f"content {content!r}: {problems}")
    full = form._validator.problems(content)
    expect(not (form._fast(content) and full), f"the fast path accepts what fails: {full}")
    expect(form.is_valid(content) == (not problems), "is_valid disagrees with validate")
    expect(repr(content) == before, "the content was changed by validating it")
    for text in typed:
        if isinstance(text, str):
            for field in form:
                coerced(form, field, text)


def coerced(form: Form, field: Field, text: str) -> None:
    value = form.coerce(field.name, text)
    if value is None:
        expect(not field.required, f"coerce({field.name!r}, {text!r}) gave None for a required one")
        return
    if isinstance(value, Problem):
        expect(value.field == field.name, f"coerce gave a problem for another field: {value}")
        return
    found = check_value(field, value)
    expect(found is None, f"coerce({field.name!r}, {text!r}) = {value!r}, invalid: {found}")


if __name__ == "__main__":
    main(check, "form_validate")
    sys.exit(0)
