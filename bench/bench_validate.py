"""Benchmark 2: validating a valid answer to the 10-field form (no email field).

The schema is ``schema_of(Model)`` as a plain JSON dict; the content is ``VALID_CONTENT``. Four
contenders, each built once, each checked once (before timing) to say the content is valid:

1. ours: ``Form.from_schema(schema)`` once, then ``form.validate(content)`` (``[]`` = valid);
2. pydantic: ``Model.model_validate(content)`` on the equivalent model;
3. jsonschema: ``Draft202012Validator(schema, format_checker=FORMAT_CHECKER)`` once, then
   ``is_valid(content)`` and ``list(iter_errors(content))``;
4. fastjsonschema: ``fastjsonschema.compile(schema)`` once, then the compiled function.

Targets: ours at least as fast as pydantic (pydantic/ours >= 1.0) and at least 10x faster than
jsonschema's ``iter_errors`` (ours, like ``iter_errors``, reports every problem; ``is_valid``
stops at the first). The rest is reported for information.
"""

from __future__ import annotations

import fastjsonschema
import jsonschema
from _fixtures import VALID_CONTENT, Model, plain_schema
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Report,
    Result,
    paired_ratio,
    side_by_side,
    statement,
)

from mcp_elicit.forms import Form

TITLE = "Benchmark 2: validating a valid 10-field answer (no email field)"
TARGET_PYDANTIC = 1.0
TARGET_JSONSCHEMA = 10.0

OURS = "ours: form.validate(content)"
PYDANTIC = "pydantic: Model.model_validate(content)"
JS_ITER = "jsonschema: list(validator.iter_errors(content))"
JS_VALID = "jsonschema: validator.is_valid(content)"
FAST = "fastjsonschema: compiled(content)"
OURS_UNCACHED_FORM = "ours: Form.from_schema(schema).validate(content)"


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()

    schema = plain_schema()
    content = dict(VALID_CONTENT)
    form = Form.from_schema(schema)
    validator_cls = jsonschema.Draft202012Validator
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
    compiled = fastjsonschema.compile(schema)

    # Each contender must say "valid" for this content before it is timed.
    problems = form.validate(content)
    if problems:
        raise AssertionError(f"ours rejects the valid content: {problems}")
    Model.model_validate(content)  # raises ValidationError if not valid
    errors = list(validator.iter_errors(content))
    if errors or not validator.is_valid(content):
        raise AssertionError(f"jsonschema rejects the valid content: {errors}")
    compiled(content)  # raises JsonSchemaValueException if not valid

    namespace = {
        "form": form,
        "Form": Form,
        "schema": schema,
        "Model": Model,
        "validator": validator,
        "compiled": compiled,
        "content": content,
    }
    timings = side_by_side(
        [
            statement(OURS, "form.validate(content)", namespace),
            statement(PYDANTIC, "Model.model_validate(content)", namespace),
            statement(JS_ITER, "list(validator.iter_errors(content))", namespace),
            statement(JS_VALID, "validator.is_valid(content)", namespace),
            statement(FAST, "compiled(content)", namespace),
            statement(OURS_UNCACHED_FORM, "Form.from_schema(schema).validate(content)", namespace),
        ],
        repeats,
        loop_ms,
    )
    report.timings(timings)
    ours = timings[OURS]

    def versus(label: str, claim: str, target: float | None, note: str = "") -> None:
        anchor = timings[label]
        report.add(Result(TITLE, claim, ours, anchor, paired_ratio(anchor, ours), target, note))

    versus(PYDANTIC, "form.validate vs pydantic model_validate", TARGET_PYDANTIC)
    versus(
        JS_ITER,
        "form.validate vs jsonschema iter_errors",
        TARGET_JSONSCHEMA,
        note="ratio uses list(iter_errors): both report every problem",
    )
    versus(JS_VALID, "form.validate vs jsonschema is_valid", None)
    versus(FAST, "form.validate vs fastjsonschema compiled", None)
    report.add(
        Result(
            TITLE,
            "form.validate vs Form.from_schema(schema).validate on every answer",
            ours,
            timings[OURS_UNCACHED_FORM],
            paired_ratio(timings[OURS_UNCACHED_FORM], ours),
            None,
            note="the from_schema cache key is json.dumps(schema): keep the Form",
        )
    )
    return report.results


if __name__ == "__main__":
    run()
