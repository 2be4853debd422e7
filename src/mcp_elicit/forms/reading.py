"""Reading a ``requestedSchema``: every problem a revision has with it, and the fields.

One pass serves both ``check_schema`` (the problems) and ``Form.from_schema`` (the fields).
The rules per revision come from ``revisions.SchemaRules``; ``rules=None`` reads liberally,
as the union of every revision (what a client accepts from any server).

The shapes, per ``schema.ts``: a property is exactly one of

- ``StringSchema``     ``{type: string, minLength?, maxLength?, format?, default?}``
- ``NumberSchema``     ``{type: number|integer, minimum?, maximum?, default?}``
- ``BooleanSchema``    ``{type: boolean, default?}``
- untitled / legacy single select ``{type: string, enum, enumNames?, default?}``
- titled single select ``{type: string, oneOf: [{const, title}], default?}``
- multi select         ``{type: array, minItems?, maxItems?, items: {type: string, enum} |
  {anyOf: [{const, title}]}, default?}``

each with optional ``title`` and ``description``. Keywords outside a shape are problems,
except pure annotations (``$comment``, and a top-level ``title``/``description`` such as
pydantic writes), which are ignored and reported by the linter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from mcp_elicit.forms.fields import FORMAT_KINDS, Choice, Field, FieldKind, JSONValue
from mcp_elicit.forms.patterns import compile_pattern
from mcp_elicit.forms.problems import Problem
from mcp_elicit.forms.revisions import SchemaRules, first_revision_with
from mcp_elicit.forms.values import check_value, describe_type
from mcp_elicit.i18n import N_, _

TOP_KEYWORDS = frozenset({"type", "properties", "required", "$schema"})
TOP_ANNOTATIONS = frozenset({"title", "description", "$comment"})
PROPERTY_ANNOTATIONS = frozenset({"$comment"})
_COMMON = frozenset({"type", "title", "description", "default"})
SHAPE_KEYWORDS: dict[str, frozenset[str]] = {
    "string": _COMMON | {"minLength", "maxLength", "format", "pattern"},
    "enum": _COMMON | {"enum", "enumNames"},
    "titled": _COMMON | {"oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"minItems", "maxItems", "items"},
}
_SHAPE_NAMES = {
    "string": N_("a text field"),
    "enum": N_("a single-select (enum) field"),
    "titled": N_("a titled single-select (oneOf) field"),
    "number": N_("a number field"),
    "boolean": N_("a boolean field"),
    "array": N_("a multi-select field"),
}


@dataclass(slots=True)
class Reading:
    """What reading a schema found: the fields that could be read, and every problem."""

    fields: list[Field] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ignored: list[tuple[str | None, str]] = field(default_factory=list)  # (field, keyword)
    dollar_schema: str | None = None


def read_schema(schema: Any, rules: SchemaRules | None) -> Reading:
    reading = Reading()
    problems = reading.problems
    if not isinstance(schema, dict):
        problems.append(
            Problem(
                None,
                "not_object",
                _("requestedSchema must be an object, not {kind}").format(
                    kind=describe_type(schema)
                ),
            )
        )
        return reading
    if schema.get("type") != "object":
        if "type" not in schema:
            problems.append(Problem(None, "missing", _('requestedSchema needs "type": "object"')))
        else:
            problems.append(
                Problem(
                    None,
                    "bad_value",
                    _('requestedSchema "type" must be "object", not {value}').format(
                        value=repr(schema["type"])
                    ),
                )
            )
    for key in schema:
        if key in TOP_ANNOTATIONS:
            reading.ignored.append((None, key))
        elif key not in TOP_KEYWORDS:
            problems.append(
                Problem(
                    None,
                    "unknown_keyword",
                    _("requestedSchema does not allow {key} at the top level").format(
                        key=repr(key)
                    ),
                )
            )
    if "$schema" in schema:
        if rules is not None and not rules.dollar_schema:
            problems.append(
                Problem(None, "not_in_revision", _not_in_revision('"$schema"', "dollar_schema"))
            )
        elif not isinstance(schema["$schema"], str):
            problems.append(
                Problem(None, "bad_value", _('"$schema" must be a string (a dialect URI)'))
            )
        else:
            reading.dollar_schema = schema["$schema"]
    properties = schema.get("properties")
    if properties is None:
        problems.append(
            Problem(None, "missing", _('requestedSchema needs "properties" (an object)'))
        )
        properties = {}
    elif not isinstance(properties, dict):
        problems.append(
            Problem(
                None,
                "bad_value",
                _('"properties" must be an object, not {kind}').format(
                    kind=describe_type(properties)
                ),
            )
        )
        properties = {}
    required = _read_required(schema.get("required"), properties, problems)
    for name, prop in properties.items():
        read = _PropertyReader(
            str(name), prop, rules, required=str(name) in required, reading=reading
        )
        built = read.field()
        if built is not None:
            reading.fields.append(built)
    return reading


def _read_required(value: Any, properties: dict[Any, Any], problems: list[Problem]) -> set[str]:
    if value is None:
        return set()
    if not isinstance(value, list):
        problems.append(
            Problem(
                None,
                "bad_value",
                _('"required" must be a list of field names, not {kind}').format(
                    kind=describe_type(value)
                ),
            )
        )
        return set()
    names: set[str] = set()
    for item in value:
        if not isinstance(item, str):
            problems.append(
                Problem(
                    None,
                    "bad_value",
                    _('"required" lists {kind}; it takes field names').format(
                        kind=describe_type(item)
                    ),
                )
            )
        elif item in names:
            problems.append(
                Problem(
                    item, "duplicate", _('"required" lists {name} twice').format(name=repr(item))
                )
            )
        elif item not in properties:
            problems.append(
                Problem(
                    item,
                    "unknown_required",
                    _('"required" lists {name}, which is not in "properties"').format(
                        name=repr(item)
                    ),
                )
            )
        else:
            names.add(item)
    return names


def _not_in_revision(what: str, feature: str) -> str:
    return _("{what} is not in this revision (it arrived in {revision})").format(
        what=_(what), revision=first_revision_with(feature)
    )


def _is_number(value: Any) -> bool:
    """A finite number that a double holds: what every peer reads alike (RFC 8259, section 6).
    An integer past a double's range (1e309 written out in digits) is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large to convert to float
        return False


def _not_a_number(key: str, value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _("{key} must be a finite number within the range of a double").format(
            key=f'"{key}"'
        )
    return _("{key} must be a finite number, not {kind}").format(
        key=f'"{key}"', kind=describe_type(value)
    )


class _PropertyReader:
    """Reads one property; records problems on ``reading`` and returns a Field when sound."""

    def __init__(
        self, name: str, prop: Any, rules: SchemaRules | None, *, required: bool, reading: Reading
    ) -> None:
        self.name = name
        self.prop = prop
        self.rules = rules
        self.required = required
        self.reading = reading
        self.ok = True

    def problem(self, code: str, message: str) -> None:
        self.ok = False
        self.reading.problems.append(Problem(self.name, code, message))

    def field(self) -> Field | None:
        prop = self.prop
        if not isinstance(prop, dict):
            self.problem(
                "bad_value",
                _("the property must be a schema object, not {kind}").format(
                    kind=describe_type(prop)
                ),
            )
            return None
        kind_of = prop.get("type")
        if kind_of == "object":
            self.problem(
                "nested",
                _("nested objects are not allowed: the schema is flat, one value per field"),
            )
            return None
        if kind_of == "string":
            shape = "titled" if "oneOf" in prop else "enum" if "enum" in prop else "string"
        elif kind_of in ("number", "integer"):
            shape = "number"
        elif kind_of in ("boolean", "array"):
            shape = str(kind_of)
        elif "type" not in prop:
            self.problem(
                "missing",
                _('the property needs a "type": string, number, integer, boolean or array'),
            )
            return None
        else:
            self.problem(
                "bad_type",
                _(
                    "type {kind} is not allowed: use string, number, integer, boolean "
                    "or array (multi-select)"
                ).format(kind=repr(kind_of)),
            )
            return None
        self._check_keywords(shape)
        title = self._text("title")
        description = self._text("description")
        built = getattr(self, f"_{shape}")(title, description)
        if built is None or not self.ok:
            return None
        return self._with_default(built)

    # -- shapes ---------------------------------------------------------------------------

    def _string(self, title: str | None, description: str | None) -> Field | None:
        kind = FieldKind.TEXT
        fmt = self.prop.get("format")
        if fmt is not None:
            if not isinstance(fmt, str) or fmt not in FORMAT_KINDS:
                self.problem(
                    "bad_format",
                    _("format {format} is not allowed: use email, uri, date or date-time").format(
                        format=repr(fmt)
                    ),
                )
            else:
                kind = FORMAT_KINDS[fmt]
        min_length, max_length = self._bounds("minLength", "maxLength")
        pattern = self.prop.get("pattern")
        if pattern is not None:
            if not isinstance(pattern, str):
                self.problem("bad_value", _('"pattern" must be a string (a regular expression)'))
                pattern = None
            else:
                compiled = compile_pattern(pattern)
                if compiled.invalid is not None:
                    self.problem(
                        "bad_pattern",
                        _('"pattern" is not a regular expression: {why}').format(
                            why=compiled.invalid
                        ),
                    )
        return Field(
            self.name,
            kind,
            self.required,
            title,
            description,
            min_length=min_length,
            max_length=max_length,
            pattern=pattern,
        )

    def _number(self, title: str | None, description: str | None) -> Field | None:
        values: list[int | float | None] = []
        for key in ("minimum", "maximum"):
            value = self.prop.get(key)
            if value is not None and not _is_number(value):
                self.problem("bad_value", _not_a_number(key, value))
                value = None
            values.append(value)
        minimum, maximum = values
        if minimum is not None and maximum is not None and minimum > maximum:
            self.problem(
                "bounds",
                _('"minimum" ({minimum}) is greater than "maximum" ({maximum})').format(
                    minimum=minimum, maximum=maximum
                ),
            )
        kind = FieldKind.INTEGER if self.prop["type"] == "integer" else FieldKind.NUMBER
        return Field(
            self.name, kind, self.required, title, description, minimum=minimum, maximum=maximum
        )

    def _boolean(self, title: str | None, description: str | None) -> Field | None:
        return Field(self.name, FieldKind.BOOLEAN, self.required, title, description)

    def _enum(self, title: str | None, description: str | None) -> Field | None:
        values = self._string_list(self.prop.get("enum"), '"enum"')
        if values is None:
            return None
        names = self.prop.get("enumNames")
        titles: list[str | None] = [None] * len(values)
        if names is not None:
            checked = self._string_list(names, '"enumNames"', unique=False)
            if checked is not None:
                if len(checked) != len(values):
                    self.problem(
                        "enum_names",
                        _(
                            '"enumNames" has {names} names for {values} "enum" values: '
                            "it needs one name per value"
                        ).format(names=len(checked), values=len(values)),
                    )
                else:
                    titles = list(checked)
        choices = tuple(Choice(v, t) for v, t in zip(values, titles, strict=True))
        return Field(
            self.name, FieldKind.SINGLE_CHOICE, self.required, title, description, choices=choices
        )

    def _titled(self, title: str | None, description: str | None) -> Field | None:
        if self.rules is not None and not self.rules.titled_single_select:
            self.problem(
                "not_in_revision",
                _not_in_revision(N_('"oneOf" (titled options)'), "titled_single_select"),
            )
            return None
        choices = self._titled_options(self.prop.get("oneOf"), '"oneOf"')
        if choices is None:
            return None
        return Field(
            self.name, FieldKind.SINGLE_CHOICE, self.required, title, description, choices=choices
        )

    def _array(self, title: str | None, description: str | None) -> Field | None:
        if self.rules is not None and not self.rules.multi_select:
            self.problem(
                "not_in_revision", _not_in_revision(N_("multi-select (type array)"), "multi_select")
            )
            return None
        items = self.prop.get("items")
        choices: tuple[Choice, ...] | None = None
        if not isinstance(items, dict):
            self.problem(
                "missing" if items is None else "bad_value",
                _(
                    'a multi-select needs "items": {{"type": "string", "enum": [...]}} '
                    'or {{"anyOf": [{{"const": ..., "title": ...}}]}}'
                ).format(),
            )
            return None
        if "anyOf" in items:
            extra = set(items) - {"anyOf"}
            if extra:
                self.problem(
                    "unknown_keyword",
                    _('"items" with "anyOf" does not allow {keys}').format(keys=sorted(extra)),
                )
            choices = self._titled_options(items["anyOf"], '"items.anyOf"')
        elif "enum" in items:
            extra = set(items) - {"type", "enum"}
            if extra:
                self.problem(
                    "unknown_keyword",
                    _('"items" with "enum" does not allow {keys}').format(keys=sorted(extra)),
                )
            if items.get("type") != "string":
                self.problem("bad_value", _('"items" with "enum" needs "type": "string"'))
            values = self._string_list(items["enum"], '"items.enum"')
            choices = None if values is None else tuple(Choice(v) for v in values)
        elif "oneOf" in items:
            self.problem(
                "bad_value",
                _('titled multi-select options go in "items.anyOf", not "items.oneOf"'),
            )
            return None
        elif items.get("type") == "object":
            self.problem("nested", _("arrays of objects are not allowed: only lists of options"))
            return None
        else:
            self.problem(
                "free_list",
                _(
                    "a free list is not allowed: a multi-select lists its options in "
                    '"items.enum" or "items.anyOf"'
                ),
            )
            return None
        if choices is None:
            return None
        min_items, max_items = self._bounds("minItems", "maxItems")
        if min_items is not None and min_items > len(choices):
            self.problem(
                "bounds",
                _('"minItems" ({min_items}) is more than the {n} options offered').format(
                    min_items=min_items, n=len(choices)
                ),
            )
        return Field(
            self.name,
            FieldKind.MULTI_CHOICE,
            self.required,
            title,
            description,
            choices=choices,
            min_items=min_items,
            max_items=max_items,
        )

    # -- pieces ---------------------------------------------------------------------------

    def _check_keywords(self, shape: str) -> None:
        allowed = SHAPE_KEYWORDS[shape]
        for key in self.prop:
            if key in allowed:
                continue
            if key in PROPERTY_ANNOTATIONS:
                self.reading.ignored.append((self.name, key))
                continue
            self.problem(
                "unknown_keyword",
                _("{shape} does not allow {key}").format(
                    shape=_(_SHAPE_NAMES[shape]), key=repr(key)
                ),
            )

    def _text(self, key: str) -> str | None:
        value = self.prop.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.problem(
                "bad_value",
                _("{key} must be a string, not {kind}").format(
                    key=f'"{key}"', kind=describe_type(value)
                ),
            )
            return None
        return value

    def _bounds(self, low_key: str, high_key: str) -> tuple[int | None, int | None]:
        found: list[int | None] = []
        for key in (low_key, high_key):
            value = self.prop.get(key)
            if value is None:
                found.append(None)
            elif not _is_number(value) or not float(value).is_integer() or value < 0:
                self.problem(
                    "bad_value",
                    _("{key} must be a whole number, 0 or more, not {value}").format(
                        key=f'"{key}"', value=repr(value)
                    ),
                )
                found.append(None)
            else:
                found.append(int(value))
        low, high = found
        if low is not None and high is not None and low > high:
            self.problem(
                "bounds",
                _("{low_key} ({low}) is greater than {high_key} ({high})").format(
                    low_key=f'"{low_key}"', low=low, high_key=f'"{high_key}"', high=high
                ),
            )
        return low, high

    def _string_list(self, value: Any, what: str, *, unique: bool = True) -> list[str] | None:
        if not isinstance(value, list):
            self.problem(
                "bad_value",
                _("{what} must be a list of strings, not {kind}").format(
                    what=what, kind=describe_type(value)
                ),
            )
            return None
        if not value:
            self.problem("empty", _("{what} is empty: offer at least one option").format(what=what))
            return None
        if not all(isinstance(item, str) for item in value):
            self.problem("bad_value", _("{what} must hold only strings").format(what=what))
            return None
        if unique and len(set(value)) != len(value):
            twice = sorted({v for v in value if value.count(v) > 1})
            self.problem(
                "duplicate",
                _("{what} lists {values} more than once").format(
                    what=what, values=_(", ").join(map(repr, twice))
                ),
            )
            return None
        return list(value)

    def _titled_options(self, value: Any, what: str) -> tuple[Choice, ...] | None:
        if not isinstance(value, list):
            self.problem(
                "bad_value",
                _("{what} must be a list of {{const, title}} options").format(what=what),
            )
            return None
        if not value:
            self.problem("empty", _("{what} is empty: offer at least one option").format(what=what))
            return None
        choices: list[Choice] = []
        for option in value:
            if (
                not isinstance(option, dict)
                or set(option) != {"const", "title"}
                or not isinstance(option["const"], str)
                or not isinstance(option["title"], str)
            ):
                self.problem(
                    "bad_value",
                    _(
                        'each option in {what} must be {{"const": "<value>", "title": "<label>"}}, '
                        "not {option}"
                    ).format(what=what, option=repr(option)[:240]),
                )
                return None
            choices.append(Choice(option["const"], option["title"]))
        consts = [c.value for c in choices]
        if len(set(consts)) != len(consts):
            self.problem(
                "duplicate", _("{what} offers the same value more than once").format(what=what)
            )
            return None
        return tuple(choices)

    def _with_default(self, built: Field) -> Field | None:
        if "default" not in self.prop:
            return built
        default = self.prop["default"]
        if (
            self.rules is not None
            and not self.rules.defaults_on_all_types
            and built.kind is not FieldKind.BOOLEAN
        ):
            self.problem(
                "not_in_revision",
                _not_in_revision(N_("a default on this type"), "defaults_on_all_types"),
            )
            return None
        value: JSONValue = list(default) if isinstance(default, list) else default
        candidate = replace(built, default=value)
        # Not against ``pattern``: clients may ignore it, and the 2025-11-25 String Schema
        # example itself has a default its pattern rejects.
        found = check_value(replace(candidate, pattern=None), default)
        if found is not None:
            self.problem(
                "bad_default",
                _("the default is not a valid answer: {why}").format(why=found.message),
            )
            return None
        return candidate
