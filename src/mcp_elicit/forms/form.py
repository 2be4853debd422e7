"""``Form``: a ``requestedSchema`` read once into fields a renderer can show and a validator
that checks answers, cached per schema."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from mcp_elicit.forms.fields import Choice, Field, FieldKind, JSONValue
from mcp_elicit.forms.problems import InvalidSchema, Problem
from mcp_elicit.forms.reading import read_schema
from mcp_elicit.forms.revisions import schema_rules
from mcp_elicit.forms.validation import Validator
from mcp_elicit.forms.values import check_value
from mcp_elicit.i18n import _
from mcp_elicit.revisions import Revision

_TRUE = frozenset({"y", "yes", "true", "t", "1", "on"})
_FALSE = frozenset({"n", "no", "false", "f", "0", "off"})
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)


class Form:
    """The fields of one schema, in order, with validation and coercion of answers.

    Build it with :meth:`from_schema`; the result is cached per schema (and revision), so
    asking again for an equal schema returns the same compiled form.
    """

    __slots__ = ("_by_name", "_fast", "_validator", "fields")

    def __init__(self, fields: list[Field] | tuple[Field, ...]) -> None:
        self.fields: tuple[Field, ...] = tuple(fields)
        self._by_name = {f.name: f for f in self.fields}
        self._validator = Validator(self.fields)
        self._fast = self._validator.fast  # the common case, one call away

    @classmethod
    def from_schema(cls, schema: Any, *, revision: Revision | str | None = None) -> Form:
        """Read ``schema``; raise :class:`InvalidSchema` listing every problem if it is not valid
        for ``revision`` (any revision's shapes when None)."""
        rev = None if revision is None else Revision.parse(revision)
        try:
            # Key order is kept: it is the order of the questions.
            key = json.dumps(schema, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):  # not JSON: read it uncached, to report the problems
            return _read(schema, rev)
        return _cached(key, rev)

    # -- reading ------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, name: str) -> Field:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no field {name!r} in this form") from None

    def __repr__(self) -> str:
        return f"Form({[f.name for f in self.fields]!r})"

    def defaults(self) -> dict[str, JSONValue]:
        """The schema's defaults, falsy ones included, for pre-filling the form."""
        return {
            f.name: list(f.default) if isinstance(f.default, list) else f.default
            for f in self.fields
            if f.default is not None
        }

    # -- answers ------------------------------------------------------------------------------

    def validate(self, content: Any) -> list[Problem]:
        """Every problem with ``content``, at most one per field; empty when it is valid."""
        if self._fast(content):
            return []
        return self._validator.problems(content)

    def is_valid(self, content: Any) -> bool:
        return self._fast(content) or not self._validator.problems(content)

    def coerce(self, name: str, text: str) -> JSONValue | Problem | None:
        """Turn what a person typed for field ``name`` into its JSON value, or a Problem.

        Blank input means "no answer": None for an optional field, a ``required`` Problem
        otherwise. Booleans take yes/no, true/false, y/n, 1/0; choices take the value, the
        title (any case) or the option's number (1-based); multi-choice takes a
        comma-separated list of those.
        """
        field = self[name]
        stripped = text.strip()
        if not stripped and not (field.kind is FieldKind.TEXT and text):
            if field.required:
                return Problem(name, "required", _("{label} is required").format(label=field.label))
            return None
        value = _parse_text(field, text, stripped)
        if isinstance(value, Problem):
            return value
        problem = check_value(field, value)
        return value if problem is None else problem


@lru_cache(maxsize=512)
def _cached(key: str, revision: Revision | None) -> Form:
    return _read(json.loads(key), revision)


def _read(schema: Any, revision: Revision | None) -> Form:
    reading = read_schema(schema, None if revision is None else schema_rules(revision))
    if reading.problems:
        raise InvalidSchema(reading.problems)
    return Form(reading.fields)


def _parse_text(field: Field, text: str, stripped: str) -> JSONValue | Problem:
    kind = field.kind
    if kind is FieldKind.TEXT:
        return text
    if kind is FieldKind.DATETIME and " " in stripped:
        return stripped.replace(" ", "T", 1)
    if kind.is_text:
        return stripped
    if kind is FieldKind.BOOLEAN:
        word = stripped.lower()
        # The words of the language in effect count too ("是", "否"), beside y/n and true/false.
        if word in _TRUE or word == _("yes").casefold():
            return True
        if word in _FALSE or word == _("no").casefold():
            return False
        return Problem(field.name, "type", _("answer yes or no (y/n, true/false)"))
    if kind is FieldKind.INTEGER:
        cleaned = stripped.replace("_", "")
        if _INTEGER_TEXT.fullmatch(cleaned):
            return _whole_number(field, cleaned)
        if _NUMBER_TEXT.fullmatch(cleaned) and float(cleaned).is_integer():
            return int(float(cleaned))
        return Problem(
            field.name,
            "type",
            _("must be a whole number, like 42 (not {text})").format(text=repr(stripped)),
        )
    if kind is FieldKind.NUMBER:
        cleaned = stripped.replace("_", "")
        if _INTEGER_TEXT.fullmatch(cleaned):
            return _whole_number(field, cleaned)
        if _NUMBER_TEXT.fullmatch(cleaned):
            number = float(cleaned)
            if math.isfinite(number):
                return number
        return Problem(
            field.name,
            "type",
            _("must be a number, like 42 or 3.5 (not {text})").format(text=repr(stripped)),
        )
    if kind is FieldKind.SINGLE_CHOICE:
        return _pick(field, stripped)
    picked: list[str] = []
    for part in stripped.split(","):
        if not part.strip():
            continue
        choice = _pick(field, part.strip())
        if isinstance(choice, Problem):
            return choice
        picked.append(choice)
    return picked


def _whole_number(field: Field, digits: str) -> int | Problem:
    try:
        return int(digits)
    except ValueError:  # more digits than Python converts (4300), or any JSON parser reads
        return Problem(
            field.name,
            "type",
            _("that number has {n} digits: far too many").format(n=len(digits)),
        )


def _pick(field: Field, text: str) -> str | Problem:
    choices: tuple[Choice, ...] = field.choices
    for choice in choices:
        if text == choice.value:
            return choice.value
    folded = text.casefold()
    for choice in choices:
        if folded == choice.value.casefold() or (
            choice.title is not None and folded == choice.title.casefold()
        ):
            return choice.value
    # An option's number, in the digits of any script that int() reads ("3", "٣"), not the
    # other characters isdigit() takes ("²", "①"); never long enough to be costly.
    if text.isdecimal() and len(text) <= 9 and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1].value
    options = _(", ").join(f"{i}. {c.label}" for i, c in enumerate(choices, 1))
    return Problem(
        field.name,
        "not_a_choice",
        _("{value} is not an option: choose one of {choices}").format(
            value=repr(text), choices=options
        ),
    )
