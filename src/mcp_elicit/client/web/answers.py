"""What the page sent for a form, read into the answer's content with the form model.

The page does no checking of its own: it sends what the person typed or picked, and this
module reads it with the same code the terminal uses (:meth:`Form.coerce` for typed text, then
:meth:`Form.validate`), so the page shows the terminal's messages, word for word.

What the page sends for each field:

- text, email, URI, date, date-time, integer, number: the text in the box, as typed;
- a checkbox (boolean): ``true`` or ``false``;
- a single choice: the option's value, or ``""`` for none;
- several choices: the list of checked values.

As at the terminal, an empty box takes the field's default when it has one (the page shows the
default in the box to begin with, and says what an empty box means).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from mcp_elicit.client._terminal_text import clean, value_text
from mcp_elicit.forms import Field, FieldKind, Form, JSONValue, Problem

# Fields the person types into; the rest are ticked or picked.
TYPED_KINDS = frozenset(
    {
        FieldKind.TEXT,
        FieldKind.EMAIL,
        FieldKind.URI,
        FieldKind.DATE,
        FieldKind.DATETIME,
        FieldKind.INTEGER,
        FieldKind.NUMBER,
    }
)

# A problem with no field (the whole answer) is keyed by this in ``Reading.problems``.
WHOLE_FORM = ""


@dataclass
class Reading:
    """The content to send, and one message per field that is wrong (``Error: …``)."""

    content: dict[str, JSONValue] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)


def read_values(form: Form, sent: Mapping[str, Any]) -> Reading:
    reading = Reading()
    for item in form:
        value = _read_one(form, item, sent.get(item.name))
        if isinstance(value, Problem):
            reading.problems[item.name] = error_text(value)
        elif value is not None:
            reading.content[item.name] = value
    # The whole answer once more, as the handler will: bounds on several choices, a value the
    # page should not have been able to send, a required field left without one.
    for problem in form.validate(reading.content):
        key = WHOLE_FORM if problem.field is None else problem.field
        reading.problems.setdefault(key, error_text(problem))
    return reading


def _read_one(form: Form, item: Field, value: Any) -> JSONValue | Problem | None:
    if item.kind in TYPED_KINDS:
        if value is None:
            value = ""
        if not isinstance(value, str):
            return Problem(item.name, "type", "send the text as typed")
        return _typed(form, item, value)
    if value is None or value == "":
        return _default(item)
    # A boolean, an option or a list of options: the form's validation checks it.
    return cast(JSONValue, value)


def _typed(form: Form, item: Field, text: str) -> JSONValue | Problem | None:
    """The terminal's rule: what was typed, coerced; an empty box takes the default."""
    value = form.coerce(item.name, text)
    empty = value is None or (isinstance(value, Problem) and value.code == "required")
    if empty and item.default is not None:
        return _default(item)
    return value


def _default(item: Field) -> JSONValue | None:
    default = item.default
    return list(default) if isinstance(default, list) else default


def error_text(problem: Problem) -> str:
    """As the terminal shows it under the line."""
    return f"Error: {clean(problem.message, newlines=False)}"


def review(form: Form, content: Mapping[str, JSONValue]) -> list[dict[str, str]]:
    """The review step's lines: each field's label and its answer (:func:`review_value`)."""
    return [
        {
            "name": item.name,
            "label": clean(item.label, newlines=False),
            "value": review_value(item, content.get(item.name)),
        }
        for item in form
    ]


def review_value(item: Field, value: JSONValue | None) -> str:
    """One answer on the review step, as the terminal's review shows it (``yes``/``no``, ``2``
    for 2.0, choices by title, lists joined by commas, ``(no answer)``), except text.

    Text (dates, email addresses and links too) is shown as the person typed it: the page
    gives each answer a line of its own, so it needs none of the JSON quotes the terminal
    puts round text to make an empty answer visible. An empty or blank one says so in words.
    """
    if not isinstance(value, str) or item.kind is FieldKind.SINGLE_CHOICE:
        return value_text(item, value)
    if not value:
        return "(empty)"
    if not value.strip():
        return "(only white space)"
    return clean(value)
