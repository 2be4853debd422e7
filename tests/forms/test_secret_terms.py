"""The secret lint reads a negated mention ("do not give us your PIN") as no request for a
secret, and still flags every plain one, and every negation that does not reach the term."""

from __future__ import annotations

import pytest

from mcp_elicit.forms import lint_schema
from mcp_elicit.forms.secret_terms import secret_term
from tests.peers import EVERYTHING_INTEGER_FIELD


def test_the_reference_servers_integer_field_is_not_flagged() -> None:
    schema = {"type": "object", "properties": {"integer": EVERYTHING_INTEGER_FIELD}}
    assert [n.code for n in lint_schema(schema)] == []


@pytest.mark.parametrize(
    "text",
    [
        "do not give us your PIN",
        "Don't give us your PIN",
        "never enter your password",
        "Never, ever share your password with anyone",
        "we will not ask for your password",
        "We won't ask for your API key",
        "We will never ask you to enter your password",
        "No need to enter your PIN",
        "Do not include any token, password or card number",
    ],
)
def test_a_negated_mention_is_not_a_secret(text: str) -> None:
    assert secret_term(text) is None
    schema = {"type": "object", "properties": {"note": {"type": "string", "description": text}}}
    assert lint_schema(schema) == []


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("your PIN", "pin"),
        ("enter your password", "password"),
        ("PIN", "pin"),
        # A negation that governs something else, then the request:
        ("Do not worry, give us your PIN", "pin"),
        ("Do not share this page, enter your PIN", "pin"),
        ("Don't share it, just enter your password", "password"),
        ("Do not give us your PIN, give us your password", "password"),
        ("Yes or no, give us your PIN", "pin"),
        # The negation turned round:
        ("Don't give us the wrong PIN", "pin"),
        ("Do not give us anything but your PIN", "pin"),
        ("Do not give us anything other than your card number", "card number"),
        # A negation in another sentence or aside does not reach the term:
        ("Never share your PIN. Enter your PIN", "pin"),
        ("Enter your PIN (never share it)", "pin"),
        # Too far from its verb to be its object:
        ("Do not give us any of the things on that list you keep in a drawer, your PIN", "pin"),
    ],
)
def test_a_plain_mention_is_still_a_secret(text: str, term: str) -> None:
    assert secret_term(text) == term
    schema = {"type": "object", "properties": {"note": {"type": "string", "description": text}}}
    assert [(n.field, n.code) for n in lint_schema(schema)] == [("note", "looks_secret")]


def test_a_negated_description_does_not_clear_a_secret_name_or_title() -> None:
    prop = {"type": "string", "title": "PIN", "description": "Never share your PIN with anyone"}
    assert secret_term("pin", None, prop["description"]) == "pin"
    schema = {"type": "object", "properties": {"code": prop}}
    assert [(n.field, n.code) for n in lint_schema(schema)] == [("code", "looks_secret")]
