"""Validating an answer (``ElicitResult.content``) against a form, compiled once per schema.

Two paths that must agree:

- ``problems()`` walks the fields with ``values.check_value`` and says, per field, what was
  wrong and what is allowed. It is the authority.
- a *fast path* generated as one straight-line Python function per schema, which answers
  only "valid or not". A valid answer — the common case — costs one call with no loops, no
  per-field dispatch and no allocation; anything else falls through to ``problems()``.

Why generate code instead of using a JSON Schema library: the libraries either report only the
first error (fastjsonschema), or run 10-20x slower (jsonschema), and none gives one message per
field in words a person can act on. The generated function only ever embeds integers, floats
and names bound in its own namespace (never text from the schema), so a hostile schema cannot
inject code. ``bench/`` measures it against pydantic, jsonschema and fastjsonschema.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from mcp_elicit.forms.fields import Field, FieldKind
from mcp_elicit.forms.patterns import compile_pattern
from mcp_elicit.forms.problems import Problem
from mcp_elicit.forms.values import FORMAT_CHECKS, check_value, describe_type
from mcp_elicit.i18n import _

_MISSING = object()


class Validator:
    """Checks answers for one list of fields."""

    __slots__ = ("_by_name", "fast", "fields")

    def __init__(self, fields: Sequence[Field]) -> None:
        self.fields = tuple(fields)
        self._by_name = {f.name: f for f in self.fields}
        # True only for a valid answer; False means "ask problems()", not "invalid".
        self.fast: Callable[[Any], bool] = _compile_fast_path(self.fields)

    def problems(self, content: Any) -> list[Problem]:
        if not isinstance(content, dict):
            return [
                Problem(
                    None,
                    "not_object",
                    _("the answer must be an object of field values, not {kind}").format(
                        kind=describe_type(content)
                    ),
                )
            ]
        found: list[Problem] = []
        for field in self.fields:
            value = content.get(field.name, _MISSING)
            if value is _MISSING:
                if field.required:
                    found.append(
                        Problem(
                            field.name,
                            "required",
                            _("{label} is required").format(label=field.label),
                        )
                    )
                continue
            problem = check_value(field, value)
            if problem is not None:
                found.append(problem)
        for key in content:
            if key not in self._by_name:
                found.append(
                    Problem(
                        str(key),
                        "unknown_field",
                        (
                            _("{key} is not a field of this form; the fields are {fields}")
                            if self._by_name
                            else _("{key} is not a field of this form, which has no fields")
                        ).format(
                            key=repr(key),
                            fields=_(", ").join(repr(name) for name in self._by_name),
                        ),
                    )
                )
        return found


def _compile_fast_path(fields: Sequence[Field]) -> Callable[[Any], bool]:
    # The generated function, for a required text field "name" and an optional integer "age":
    #
    #   def _fast(c, *, K0=K0, K1=K1):
    #       if c.__class__ is not dict: return False
    #       try:
    #           n = 1
    #           v = c[K0]                                  # KeyError: missing -> slow path
    #           if v.__class__ is not str: return False
    #           if not 1 <= len(v) <= 50: return False
    #           if K1 in c:
    #               n += 1
    #               v = c[K1]
    #               if v.__class__ is not int: return False
    #           return len(c) == n                         # an unknown key -> slow path
    #       except (KeyError, TypeError, ValueError):      # TypeError: an unhashable option
    #           return False
    namespace: dict[str, Any] = {}
    body = [f"n = {sum(1 for f in fields if f.required)}"]
    for index, field in enumerate(fields):
        namespace[f"K{index}"] = field.name
        checks = _fast_checks(field, index, namespace)
        if field.required:
            body.append(f"v = c[K{index}]")
            body.extend(checks)
        else:
            body += [f"if K{index} in c:", "    n += 1", f"    v = c[K{index}]"]
            body.extend("    " + line for line in checks)
    body.append("return len(c) == n")
    # Constants are default arguments: locals are the cheapest names to load.
    constants = "".join(f", {name}={name}" for name in namespace)
    lines = [
        f"def _fast(c, *, _isfinite=_isfinite, _fromiso=_fromiso{constants}):",
        "    if c.__class__ is not dict: return False",
        "    try:",
        *("        " + line for line in body),
        "    except (KeyError, TypeError, ValueError):",
        "        return False",
    ]
    namespace["_isfinite"] = math.isfinite
    namespace["_fromiso"] = date.fromisoformat
    exec("\n".join(lines), namespace)  # see the module docstring: no schema text is embedded
    fast: Callable[[Any], bool] = namespace["_fast"]
    return fast


def _number_literal(value: int | float) -> str:
    # Only finite ints and floats reach here (the reader refuses anything else); repr of those
    # is a Python literal that reads back to the same value.
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"bound must be a finite number, not {value!r}")
    return repr(value)


def _range_check(expr: str, low: int | float | None, high: int | float | None) -> list[str]:
    if low is not None and high is not None:
        return [f"if not {_number_literal(low)} <= {expr} <= {_number_literal(high)}: return False"]
    if low is not None:
        return [f"if {expr} < {_number_literal(low)}: return False"]
    if high is not None:
        return [f"if {expr} > {_number_literal(high)}: return False"]
    return []


def _fast_checks(field: Field, index: int, namespace: dict[str, Any]) -> list[str]:
    kind = field.kind
    if kind.is_text:
        out = ["if v.__class__ is not str: return False"]
        out += _range_check("len(v)", field.min_length, field.max_length)
        format_check = FORMAT_CHECKS.get(kind)
        if kind is FieldKind.DATE:
            # values.is_date, inlined (the commonest format; a call costs a tenth of the total):
            # fromisoformat's ValueError lands in the except below, meaning "slow path".
            out.append('if len(v) != 10 or not v.isascii() or v[4] != "-" or v[7] != "-":')
            out.append("    return False")
            out.append("_fromiso(v)")
        elif format_check is not None:
            namespace[f"F{index}"] = format_check
            out.append(f"if not F{index}(v): return False")
        if field.pattern is not None:
            search = compile_pattern(field.pattern).search
            if search is not None:
                namespace[f"P{index}"] = search
                out.append(f"if P{index}(v) is None: return False")
        return out
    if kind is FieldKind.INTEGER:
        # Integral floats (36.0) are valid integers in JSON Schema; they take the slow path.
        return [
            "if v.__class__ is not int: return False",
            *_range_check("v", field.minimum, field.maximum),
        ]
    if kind is FieldKind.NUMBER:
        out = ["if v.__class__ is not float and v.__class__ is not int: return False"]
        if field.minimum is None or field.maximum is None:
            # Two bounds already exclude nan and the infinities; otherwise check.
            out.append("if v.__class__ is float and not _isfinite(v): return False")
        return out + _range_check("v", field.minimum, field.maximum)
    if kind is FieldKind.BOOLEAN:
        return ["if v is not True and v is not False: return False"]
    namespace[f"S{index}"] = frozenset(field.choice_values())
    if kind is FieldKind.SINGLE_CHOICE:
        # Only strings equal the options; an unhashable value raises TypeError (slow path).
        return [f"if v not in S{index}: return False"]
    return [
        "if v.__class__ is not list: return False",
        *_range_check("len(v)", field.min_items, field.max_items),
        "u = set(v)",
        f"if len(u) != len(v) or not u <= S{index}: return False",
    ]
