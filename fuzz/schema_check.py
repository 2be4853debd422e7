"""Fuzz target: the schema checker (``mcp_elicit.forms.check_schema``) and what rests on it.

Contract, for any JSON value as ``requestedSchema`` and every revision:

- ``check_schema`` returns a list of ``Problem`` (stable code, message), never raises, gives
  the same answer twice and leaves the schema as it was;
- ``Form.from_schema`` agrees with it: it raises ``InvalidSchema`` carrying exactly those
  problems, or builds a form when there are none; the liberal reading (any revision's shapes)
  accepts every schema that some revision accepts;
- for a valid schema: ``lint_schema`` returns problems, every default is a valid answer, and
  ``convert`` to each revision gives a schema that revision accepts, with the same questions
  (or ``ConversionError``, for what that revision cannot express).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import atheris
from _harness import (
    SCHEMA_WORDS,
    SchemaBuilder,
    expect,
    json_from_bytes,
    main,
    too_deep,
)

with atheris.instrument_imports(include=["mcp_elicit"]):
    from mcp_elicit.forms import (
        ConversionError,
        Form,
        InvalidSchema,
        Problem,
        Revision,
        check_schema,
        convert,
        lint_schema,
    )
    from mcp_elicit.forms.values import check_value

REVISIONS = [revision.value for revision in Revision]


def schema_from(data: bytes) -> Any:
    if data[:1] == b"\x00":  # bytes the builder shapes into a requestedSchema
        return SchemaBuilder(atheris.FuzzedDataProvider(data[1:]), SCHEMA_WORDS).schema()
    return json_from_bytes(data, SCHEMA_WORDS)


def check(data: bytes) -> None:
    schema = schema_from(data)
    if too_deep(schema):
        return
    before = repr(schema)
    accepted_by: list[str] = []
    for revision in REVISIONS:
        problems = check_schema(schema, revision=revision)
        expect(isinstance(problems, list), f"check_schema returned {type(problems).__name__}")
        for problem in problems:
            expect(isinstance(problem, Problem), f"not a Problem: {problem!r}")
            expect(isinstance(problem.code, str) and problem.code, f"no code: {problem!r}")
            expect(isinstance(problem.message, str) and problem.message, f"no text: {problem!r}")
            expect(problem.field is None or isinstance(problem.field, str), repr(problem))
        expect(check_schema(schema, revision=revision) == problems, "a second check differs")
        try:
            form = Form.from_schema(schema, revision=revision)
        except InvalidSchema as exc:
            expect(problems, f"Form.from_schema refused a schema check_schema accepts: {exc}")
            expect(exc.problems == problems, "InvalidSchema lists other problems than the check")
            continue
        expect(not problems, f"Form.from_schema accepted a schema with problems: {problems}")
        accepted_by.append(revision)
        valid_schema(schema, form)
    if accepted_by:
        Form.from_schema(schema)  # the liberal reading takes what any revision takes
    expect(repr(schema) == before, "the schema was changed by checking it")


def valid_schema(schema: Any, form: Form) -> None:
    lint = lint_schema(schema)
    expect(all(isinstance(problem, Problem) for problem in lint), f"lint_schema gave {lint!r}")
    for name, default in form.defaults().items():
        field = form[name]
        # Not against ``pattern``: the checker does not hold defaults to it (see reading.py).
        found = check_value(replace(field, pattern=None), default)
        expect(found is None, f"default of {name!r} is not a valid answer: {found}")
    for target in REVISIONS:
        try:
            converted = convert(schema, to=target)
        except ConversionError:
            continue
        problems = check_schema(converted, revision=target)
        expect(not problems, f"convert(to={target}) gave a schema it refuses: {problems}")
        again = Form.from_schema(converted, revision=target)
        expect(
            [(f.name, f.kind, f.required, f.choice_values()) for f in again]
            == [(f.name, f.kind, f.required, f.choice_values()) for f in form],
            f"convert(to={target}) changed the questions",
        )


if __name__ == "__main__":
    main(check, "schema_check")
    sys.exit(0)
