"""Build a schema from a dataclass, check it, and validate a person's answer.

Run: python examples/forms_quickstart.py
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Literal

import annotated_types as at

from mcp_elicit.forms import Email, Form, check_schema, schema_of


@dataclass
class Signup:
    name: Annotated[str, at.MinLen(2)]
    email: Email
    birthday: date
    plan: Literal["free", "pro"] = "free"
    newsletter: bool = False


def main() -> None:
    schema = schema_of(Signup, revision="2025-11-25")
    print(json.dumps(schema, indent=2))
    assert check_schema(schema, revision="2025-11-25") == []

    form = Form.from_schema(schema)
    answer = {"name": "A", "email": "not-an-email", "birthday": "2001-02-29"}
    for problem in form.validate(answer):
        print(f"{problem.field}: {problem.message}")

    fixed = {**form.defaults(), "name": "Ada", "email": "ada@example.com", "birthday": "2000-02-29"}
    assert form.validate(fixed) == []
    print("valid:", json.dumps(fixed))


if __name__ == "__main__":
    main()
