"""``check_schema``: is this ``requestedSchema`` valid in that revision?"""

from __future__ import annotations

from typing import Any

from mcp_elicit.forms.problems import Problem
from mcp_elicit.forms.reading import read_schema
from mcp_elicit.forms.revisions import schema_rules
from mcp_elicit.revisions import Revision


def check_schema(schema: Any, *, revision: Revision | str) -> list[Problem]:
    """Every problem ``revision`` has with ``schema``; empty when it is valid.

    Only that revision's keywords and shapes are accepted (``pattern`` is tolerated; see
    ``lint_schema`` for what a person should be told). Never raises on any JSON input.
    """
    return read_schema(schema, schema_rules(revision)).problems
