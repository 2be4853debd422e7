"""Every schema example in the specification is valid for its revision."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_elicit.forms import Form, check_schema, lint_schema
from tests.spec_data import spec_schemas

SCHEMAS = spec_schemas()


def test_the_examples_were_found() -> None:
    # 40 schemas across the vectors and the 2026-07-28 examples (the URL-mode draft's have
    # none: its examples are URL mode); fewer means the copy or the extraction broke.
    assert len(SCHEMAS) == 40
    revisions = {revision for _, revision, _ in SCHEMAS}
    assert revisions == {"2025-06-18", "2025-11-25", "2026-07-28"}


@pytest.mark.parametrize(
    ("revision", "schema"), [(r, s) for _, r, s in SCHEMAS], ids=[i for i, _, _ in SCHEMAS]
)
def test_spec_example_is_valid_for_its_revision(revision: str, schema: dict[str, Any]) -> None:
    assert check_schema(schema, revision=revision) == []
    Form.from_schema(schema, revision=revision)  # and it reads into a form


def test_pattern_example_is_accepted_with_a_note() -> None:
    # V014: the 2025-06-18 page as released had "pattern"; no schema.ts ever did.
    [(_, revision, schema)] = [entry for entry in SCHEMAS if entry[0].startswith("V014")]
    assert check_schema(schema, revision=revision) == []
    codes = [note.code for note in lint_schema(schema)]
    assert codes == ["pattern_ignored"]


def test_later_shapes_are_refused_by_earlier_revisions() -> None:
    titled = {
        "type": "object",
        "properties": {"c": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}},
    }
    assert [p.code for p in check_schema(titled, revision="2025-06-18")] == ["not_in_revision"]
    assert check_schema(titled, revision="2025-11-25") == []
