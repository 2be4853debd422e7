"""Benchmark 1: building the ``requestedSchema`` of a 10-field model.

Ours, ``schema_of(Model, revision=...)``, caches per (type, revision): a repeated call is a dict
lookup. The official SDK's ``render_elicitation_schema(Model)`` runs pydantic's JSON Schema
generator and checks every property on every call. Both get the SAME pydantic model.

Target: a repeated ``schema_of`` call at least 100x faster than the SDK. The first (uncached)
call of ``schema_of`` is reported too, against the same SDK timing, with no target.
"""

from __future__ import annotations

from typing import Any

from _fixtures import REVISION, Model, make_model
from _timing import (
    DEFAULT_LOOP_MS,
    DEFAULT_REPEATS,
    Report,
    Result,
    each_fresh,
    paired_ratio,
    side_by_side,
    statement,
)
from mcp.server.elicitation import render_elicitation_schema

from mcp_elicit.forms import schema_of

TITLE = "Benchmark 1: building a schema (10-field pydantic model)"
TARGET = 100.0

OURS = "ours: schema_of(Model), repeated (cached) call"
OURS_FIRST = "ours: schema_of(NewModel), first (uncached) call"
SDK = "SDK: render_elicitation_schema(Model)"


def _first_call(model: Any) -> object:
    return schema_of(model, revision=REVISION)


def run(repeats: int = DEFAULT_REPEATS, *, loop_ms: float = DEFAULT_LOOP_MS) -> list[Result]:
    report = Report(TITLE)
    report.header()

    # Same model, same fields: both must list the 10 properties and the same required ones.
    ours, theirs = schema_of(Model, revision=REVISION), render_elicitation_schema(Model)
    if list(ours["properties"]) != list(theirs["properties"]):
        raise AssertionError(f"different fields: {ours['properties']} vs {theirs['properties']}")
    if sorted(ours["required"]) != sorted(theirs["required"]):
        raise AssertionError(f"different required fields: {ours['required']} {theirs['required']}")

    namespace = {
        "schema_of": schema_of,
        "render_elicitation_schema": render_elicitation_schema,
        "Model": Model,
        "REVISION": REVISION,
    }
    timings = side_by_side(
        [
            statement(OURS, "schema_of(Model, revision=REVISION)", namespace),
            statement(SDK, "render_elicitation_schema(Model)", namespace),
            # A new class per call (class creation is not timed): every call is a first call.
            each_fresh(OURS_FIRST, make_model, _first_call),
        ],
        repeats,
        loop_ms,
    )
    report.timings(timings)
    sdk = timings[SDK]
    report.add(
        Result(
            TITLE,
            "schema_of repeated call vs SDK render_elicitation_schema",
            timings[OURS],
            sdk,
            paired_ratio(sdk, timings[OURS]),
            TARGET,
        )
    )
    report.add(
        Result(
            TITLE,
            "schema_of FIRST call vs SDK render_elicitation_schema",
            timings[OURS_FIRST],
            sdk,
            paired_ratio(sdk, timings[OURS_FIRST]),
            None,
            note="paid once per (type, revision)",
        )
    )
    return report.results


if __name__ == "__main__":
    run()
