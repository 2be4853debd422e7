"""``convert``: the same questions in another revision's shapes."""

from __future__ import annotations

from typing import Any

from mcp_elicit.forms.problems import InvalidSchema
from mcp_elicit.forms.reading import read_schema
from mcp_elicit.forms.rendering import render_schema
from mcp_elicit.forms.revisions import schema_rules
from mcp_elicit.revisions import Revision


def convert(schema: Any, *, to: Revision | str) -> dict[str, Any]:
    """Rewrite ``schema`` (valid in any revision) in revision ``to``'s shapes.

    Lossless where the target can say the same thing: titled single-select becomes
    ``enum`` + ``enumNames`` for 2025-06-18 and back to ``oneOf`` for 2025-11-25 and later.
    Defaults other than booleans are left out for 2025-06-18, which has no such defaults (the
    fields stay optional). Raises ``InvalidSchema`` for a schema no revision accepts and
    ``ConversionError`` for one the target cannot express (multi-select in 2025-06-18).
    """
    target = Revision.parse(to)
    reading = read_schema(schema, None)
    if reading.problems:
        raise InvalidSchema(reading.problems)
    return render_schema(reading.fields, schema_rules(target), dollar_schema=reading.dollar_schema)
