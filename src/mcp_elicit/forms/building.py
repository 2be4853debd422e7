"""``schema_of``: a Python type → the ``requestedSchema`` that asks for it.

Accepted containers: dataclasses, TypedDicts and pydantic models. Accepted field types:
``str``, ``int``, ``float``, ``bool``, ``date``, ``datetime``, email (``Email``, pydantic
``EmailStr``), URL (``Url``, pydantic ``AnyUrl`` and friends), ``Enum`` with string values,
``Literal`` of strings, and ``list``/``set``/``frozenset`` of an Enum or Literal (multi-select).
``X | None`` makes a field optional; a default makes it optional and is sent as ``default``.
Constraints come from ``Annotated``: ``annotated_types`` (``MinLen``, ``MaxLen``, ``Len``, ``Ge``,
``Le``, ``Gt``/``Lt`` on integers, ``Interval``), pydantic ``Field(...)``, and the markers in
``markers.py``.

Enum titles: an Enum class may map its values to display titles in a ``__titles__`` class
attribute; members it leaves out are titled with their value::

    class Room(Enum):
        __titles__ = {"std": "Standard room", "ste": "Suite"}
        STANDARD = "std"
        SUITE = "ste"

Results are cached per (type, revision): a repeated call is a dictionary lookup. The schema
returned is shared, so it is read-only: mutating it raises ``TypeError`` (copy it first).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from datetime import date, datetime
from typing import Annotated, Any, Literal, NoReturn, get_args, get_origin

import annotated_types as at
import pydantic
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from mcp_elicit.forms.fields import FORMAT_KINDS, Choice, Field, FieldKind, JSONValue
from mcp_elicit.forms.markers import Description, Format, Pattern, Title
from mcp_elicit.forms.problems import ConversionError, SchemaBuildError
from mcp_elicit.forms.rendering import render_schema
from mcp_elicit.forms.revisions import schema_rules
from mcp_elicit.forms.values import check_value
from mcp_elicit.i18n import language
from mcp_elicit.i18n.catalogs import SOURCE_LANGUAGE
from mcp_elicit.revisions import LATEST, Revision

_SCHEMAS: dict[tuple[Any, Any], dict[str, Any]] = {}
_FIELDS: dict[Any, tuple[Field, ...]] = {}
_LIST_ORIGINS = (list, set, frozenset)
_REQUIRED_WRAPPERS = (typing.Required, typing.NotRequired)


def schema_of(tp: Any, *, revision: Revision | str = LATEST) -> dict[str, Any]:
    """The ``requestedSchema`` for ``tp`` in ``revision``'s shapes (read-only, cached).

    Raises ``SchemaBuildError`` (a ``TypeError``) naming the field and the reason when the
    revision cannot express the type.
    """
    key = (tp, revision)
    try:
        return _SCHEMAS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable "type": build it, uncached, to report the error
        return _FrozenDict.of(_build(tp, Revision.parse(revision)))
    schema = _FrozenDict.of(_build(tp, Revision.parse(revision)))
    _SCHEMAS[key] = schema
    return schema


def fields_of(tp: Any) -> tuple[Field, ...]:
    """The form fields for ``tp`` (cached), independent of any revision."""
    try:
        return _FIELDS[tp]
    except KeyError:
        pass
    found = tuple(_read_type(tp))
    _FIELDS[tp] = found
    return found


def _build(tp: Any, revision: Revision) -> dict[str, Any]:
    fields = fields_of(tp)
    try:
        # A SchemaBuildError is for the type's author (a developer): in English, whatever
        # language the process shows people.
        with language(SOURCE_LANGUAGE):
            return render_schema(fields, schema_rules(revision))
    except ConversionError as exc:
        raise SchemaBuildError(exc.field, exc.reason, owner=_name(tp)) from None


def _name(tp: Any) -> str:
    return str(getattr(tp, "__qualname__", None) or getattr(tp, "__name__", None) or repr(tp))


# -- containers -----------------------------------------------------------------------------


@dataclasses.dataclass
class _Entry:
    name: str
    annotation: Any
    metadata: list[Any]
    default: Any = PydanticUndefined
    required: bool = True


def _read_type(tp: Any) -> list[Field]:
    owner = _name(tp)
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        entries = [_pydantic_entry(name, info) for name, info in tp.model_fields.items()]
    elif isinstance(tp, type) and dataclasses.is_dataclass(tp):
        entries = _dataclass_entries(tp)
    elif typing.is_typeddict(tp):
        entries = _typeddict_entries(tp)
    else:
        raise SchemaBuildError(
            None,
            f"cannot build a form from {owner}: expected a dataclass, a TypedDict or a "
            "pydantic model (one field per question)",
        )
    return [_field(entry, owner) for entry in entries]


def _pydantic_entry(name: str, info: FieldInfo) -> _Entry:
    metadata: list[Any] = list(info.metadata)
    if info.title is not None:
        metadata.append(Title(info.title))
    if info.description is not None:
        metadata.append(Description(info.description))
    default: Any = info.default
    if default is PydanticUndefined and info.default_factory is not None:
        default = info.default_factory()  # type: ignore[call-arg]
    return _Entry(info.alias or name, info.annotation, metadata, default, info.is_required())


def _dataclass_entries(tp: type) -> list[_Entry]:
    hints = typing.get_type_hints(tp, include_extras=True)
    entries = []
    for item in dataclasses.fields(tp):
        metadata: list[Any] = []
        if "title" in item.metadata:
            metadata.append(Title(str(item.metadata["title"])))
        if "description" in item.metadata:
            metadata.append(Description(str(item.metadata["description"])))
        default: Any = PydanticUndefined
        if item.default is not dataclasses.MISSING:
            default = item.default
        elif item.default_factory is not dataclasses.MISSING:
            default = item.default_factory()
        required = default is PydanticUndefined
        entries.append(_Entry(item.name, hints[item.name], metadata, default, required))
    return entries


def _typeddict_entries(tp: Any) -> list[_Entry]:
    hints = typing.get_type_hints(tp, include_extras=True)
    required_keys: frozenset[str] = tp.__required_keys__
    entries = []
    for name, hint in hints.items():
        # With string annotations (``from __future__ import annotations``) the class cannot see
        # ``NotRequired`` when it computes ``__required_keys__``; the resolved hint can.
        origin = get_origin(hint)
        required = name in required_keys
        if origin is typing.NotRequired:
            required = False
        elif origin is typing.Required:
            required = True
        entries.append(_Entry(name, hint, [], PydanticUndefined, required))
    return entries


# -- one field ------------------------------------------------------------------------------


class _FieldSpec:
    """Everything gathered about one field while unwrapping its annotation."""

    def __init__(self, entry: _Entry, owner: str) -> None:
        self.name = entry.name
        self.owner = owner
        self.optional = False
        self.title: str | None = None
        self.description: str | None = None
        self.format: str | None = None
        self.pattern: str | None = None
        self.low: int | float | None = None
        self.high: int | float | None = None
        self.low_exclusive = False
        self.high_exclusive = False
        self.min_len: int | None = None
        self.max_len: int | None = None

    def fail(self, reason: str) -> NoReturn:
        raise SchemaBuildError(self.name, reason, owner=self.owner)

    def take(self, item: Any) -> None:
        if isinstance(item, at.GroupedMetadata) and not isinstance(item, FieldInfo):
            for part in item:
                self.take(part)
        elif isinstance(item, FieldInfo):
            if item.title is not None:
                self.title = item.title
            if item.description is not None:
                self.description = item.description
            for part in item.metadata:
                self.take(part)
        elif isinstance(item, Title):
            self.title = item.text
        elif isinstance(item, Description):
            self.description = item.text
        elif isinstance(item, Format):
            if item.name not in FORMAT_KINDS:
                self.fail(f"format {item.name!r} is not allowed: use email, uri, date or date-time")
            self.format = item.name
        elif isinstance(item, Pattern):
            self.pattern = item.regex
        elif isinstance(item, at.Ge):
            self.low, self.low_exclusive = _bound(item.ge), False
        elif isinstance(item, at.Gt):
            self.low, self.low_exclusive = _bound(item.gt), True
        elif isinstance(item, at.Le):
            self.high, self.high_exclusive = _bound(item.le), False
        elif isinstance(item, at.Lt):
            self.high, self.high_exclusive = _bound(item.lt), True
        elif isinstance(item, at.MinLen):
            self.min_len = item.min_length
        elif isinstance(item, at.MaxLen):
            self.max_len = item.max_length
        elif isinstance(item, at.MultipleOf):
            self.fail("multiple_of cannot be expressed: the schema has no multipleOf")
        elif getattr(item, "pattern", None) is not None:  # pydantic's Field(pattern=...)
            self.pattern = str(item.pattern)
        # Anything else (validators, serializers, strictness) is the server's business.


def _bound(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"a numeric bound must be a number, not {value!r}")
    return value


def _field(entry: _Entry, owner: str) -> Field:
    spec = _FieldSpec(entry, owner)
    for item in entry.metadata:
        spec.take(item)
    tp = _unwrap(entry.annotation, spec)
    kind, choices = _kind_of(tp, spec)
    built = _constrained(kind, choices, spec, required=entry.required and not spec.optional)
    if entry.default is PydanticUndefined or entry.default is None:
        return built
    default = _json_default(entry.default, spec)
    candidate = dataclasses.replace(built, default=default)
    with language(SOURCE_LANGUAGE):  # the reason goes into a SchemaBuildError: English
        problem = check_value(candidate, default)
    if problem is not None:
        spec.fail(f"the default {entry.default!r} is not a valid answer: {problem.message}")
    return candidate


def _unwrap(tp: Any, spec: _FieldSpec) -> Any:
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            base, *extra = get_args(tp)
            for item in extra:
                spec.take(item)
            tp = base
        elif origin in _REQUIRED_WRAPPERS:
            tp = get_args(tp)[0]
        elif origin is typing.Union or origin is types.UnionType:
            members = [arg for arg in get_args(tp) if arg is not type(None)]
            if len(members) < len(get_args(tp)):
                spec.optional = True
            if len(members) != 1:
                spec.fail(
                    "unions cannot be expressed: a field has exactly one type "
                    "(X | None is fine, it makes the field optional)"
                )
            tp = members[0]
        else:
            return tp


def _kind_of(tp: Any, spec: _FieldSpec) -> tuple[FieldKind, tuple[Choice, ...]]:
    origin = get_origin(tp)
    if spec.format is not None and tp is not str:
        spec.fail(f"format {spec.format!r} applies to str fields only")
    if tp is bool:
        return FieldKind.BOOLEAN, ()
    if tp is int:
        return FieldKind.INTEGER, ()
    if tp is float:
        return FieldKind.NUMBER, ()
    if tp is str:
        return (FORMAT_KINDS[spec.format] if spec.format else FieldKind.TEXT), ()
    if tp is datetime:
        return FieldKind.DATETIME, ()
    if tp is date:
        return FieldKind.DATE, ()
    if isinstance(tp, type) and issubclass(tp, pydantic.EmailStr):
        return FieldKind.EMAIL, ()
    if isinstance(tp, type) and issubclass(tp, pydantic.AnyUrl):
        return FieldKind.URI, ()
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return FieldKind.SINGLE_CHOICE, _enum_choices(tp, spec)
    if origin is Literal:
        return FieldKind.SINGLE_CHOICE, _literal_choices(tp, spec)
    if origin in _LIST_ORIGINS:
        (item,) = get_args(tp) or (Any,)
        item_spec = _FieldSpec(_Entry(spec.name, item, []), spec.owner)
        item = _unwrap(item, item_spec)
        if item_spec.optional:
            spec.fail("a multi-select's options cannot include None")
        if isinstance(item, type) and issubclass(item, enum.Enum):
            return FieldKind.MULTI_CHOICE, _enum_choices(item, spec)
        if get_origin(item) is Literal:
            return FieldKind.MULTI_CHOICE, _literal_choices(item, spec)
        spec.fail(
            f"a free list ({_type_text(tp)}) cannot be expressed: a list field must be a "
            "multi-select of an Enum or a Literal"
        )
    if _is_container(tp):
        spec.fail(f"nested objects ({_type_text(tp)}) cannot be expressed: the schema is flat")
    spec.fail(f"type {_type_text(tp)} cannot be expressed in a requestedSchema")


def _is_container(tp: Any) -> bool:
    return (
        (
            isinstance(tp, type)
            and (issubclass(tp, pydantic.BaseModel) or dataclasses.is_dataclass(tp))
        )
        or typing.is_typeddict(tp)
        or get_origin(tp) in (dict, tuple)
        or tp in (dict, tuple)
    )


def _type_text(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp).replace("typing.", "")


def _enum_choices(tp: type[enum.Enum], spec: _FieldSpec) -> tuple[Choice, ...]:
    members = list(tp)
    if not members:
        spec.fail(f"enum {tp.__name__} has no members")
    bad = [m.name for m in members if not isinstance(m.value, str)]
    if bad:
        spec.fail(
            f"enum {tp.__name__} has non-string values ({', '.join(bad)}): options are strings"
        )
    titles = getattr(tp, "__titles__", None)
    if titles is None:
        return tuple(Choice(m.value) for m in members)
    if not isinstance(titles, dict):
        spec.fail(f"{tp.__name__}.__titles__ must be a dict of value → title")
    values = {m.value for m in members}
    unknown = [key for key in titles if key not in values]
    if unknown:
        spec.fail(f"{tp.__name__}.__titles__ names values that are not members: {unknown}")
    return tuple(Choice(m.value, str(titles.get(m.value, m.value))) for m in members)


def _literal_choices(tp: Any, spec: _FieldSpec) -> tuple[Choice, ...]:
    values = get_args(tp)
    if not all(isinstance(v, str) for v in values):
        spec.fail(f"{_type_text(tp)} has non-string values: options are strings")
    return tuple(Choice(v) for v in dict.fromkeys(values))


def _constrained(
    kind: FieldKind, choices: tuple[Choice, ...], spec: _FieldSpec, *, required: bool
) -> Field:
    low, high = spec.low, spec.high
    if kind is FieldKind.INTEGER:
        if spec.low_exclusive and low is not None:
            low = int(low) + 1 if float(low).is_integer() else int(low // 1) + 1
        if spec.high_exclusive and high is not None:
            high = int(high) - 1 if float(high).is_integer() else int(high // 1)
    elif (spec.low_exclusive and low is not None) or (spec.high_exclusive and high is not None):
        spec.fail("exclusive bounds (gt/lt) on a number cannot be expressed: use ge/le")
    numeric = kind in (FieldKind.INTEGER, FieldKind.NUMBER)
    if not numeric and (low is not None or high is not None):
        spec.fail("numeric bounds (ge/le) apply to int and float fields only")
    if spec.pattern is not None and not kind.is_text:
        spec.fail("a pattern applies to str fields only")
    lengths = spec.min_len, spec.max_len
    if kind.is_text:
        min_length, max_length, min_items, max_items = *lengths, None, None
    elif kind is FieldKind.MULTI_CHOICE:
        min_length, max_length, min_items, max_items = None, None, *lengths
    else:
        if lengths != (None, None):
            spec.fail("length bounds apply to str and multi-select fields only")
        min_length = max_length = min_items = max_items = None
    for a, b, what in (
        (low, high, "minimum"),
        (min_length, max_length, "length"),
        (min_items, max_items, "item count"),
    ):
        if a is not None and b is not None and a > b:
            spec.fail(f"the {what} bounds are inverted ({a} > {b})")
    return Field(
        spec.name,
        kind,
        required,
        spec.title,
        spec.description,
        choices=choices,
        min_length=min_length,
        max_length=max_length,
        minimum=low,
        maximum=high,
        min_items=min_items,
        max_items=max_items,
        pattern=spec.pattern,
    )


def _json_default(value: Any, spec: _FieldSpec) -> JSONValue:
    if isinstance(value, enum.Enum):
        return _json_default(value.value, spec)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            spec.fail("a datetime default needs a time zone (date-time answers carry an offset)")
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, pydantic.AnyUrl):
        return str(value)
    if isinstance(value, set | frozenset):
        return sorted(str(_json_default(v, spec)) for v in value)
    if isinstance(value, list | tuple):
        return [str(_json_default(v, spec)) for v in value]
    if isinstance(value, str | int | float | bool):
        return value
    spec.fail(f"the default {value!r} is not a JSON value")


# -- read-only results ----------------------------------------------------------------------


def _read_only(*_: Any, **__: Any) -> NoReturn:
    raise TypeError("schemas returned by schema_of are shared and read-only: copy them first")


class _FrozenDict(dict[str, Any]):
    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:  # copy/deepcopy/pickle give a plain, mutable dict
        return (dict, (dict(self),))

    @classmethod
    def of(cls, value: dict[str, Any]) -> dict[str, Any]:
        return cls({k: _freeze(v) for k, v in value.items()})

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only


class _FrozenList(list[Any]):
    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = remove = pop = clear = sort = reverse = _read_only


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return _FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return _FrozenList(_freeze(v) for v in value)
    return value
