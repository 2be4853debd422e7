"""schema_of: Python types → requestedSchema."""

from __future__ import annotations

import copy
import dataclasses
import enum
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import cache
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import annotated_types as at
import jsonschema
import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_elicit.forms import (
    Description,
    Email,
    Form,
    Pattern,
    SchemaBuildError,
    Title,
    Url,
    check_schema,
    schema_of,
)
from tests.spec_data import official_json_schema


class Color(enum.Enum):
    RED = "r"
    GREEN = "g"


class Plan(enum.Enum):
    __titles__ = {"basic": "Basic (free)", "pro": "Pro"}
    BASIC = "basic"
    PRO = "pro"
    TEAM = "team"


@dataclass
class Everything:
    name: Annotated[str, at.MinLen(1), at.MaxLen(40), Title("Full name"), Description("As printed")]
    age: Annotated[int, at.Ge(0), at.Le(150)]
    email: Email
    homepage: Url
    born: date
    meeting: datetime
    color: Color
    plan: Plan = Plan.PRO
    size: Literal["s", "m", "l"] = "m"
    ratio: Annotated[float, at.Interval(ge=0, le=1)] = 0.5
    subscribe: bool = False
    count: int = 0
    note: str = ""
    tags: Annotated[list[Literal["a", "b", "c"]], at.MinLen(1), at.MaxLen(2)] = field(
        default_factory=lambda: ["a"]
    )
    colors: set[Color] = field(default_factory=set)
    nickname: str | None = None


def test_every_supported_type_and_constraint() -> None:
    schema = schema_of(Everything)
    props = schema["properties"]
    assert props["name"] == {
        "type": "string",
        "title": "Full name",
        "description": "As printed",
        "minLength": 1,
        "maxLength": 40,
    }
    assert props["age"] == {"type": "integer", "minimum": 0, "maximum": 150}
    assert props["email"] == {"type": "string", "format": "email"}
    assert props["homepage"] == {"type": "string", "format": "uri"}
    assert props["born"] == {"type": "string", "format": "date"}
    assert props["meeting"] == {"type": "string", "format": "date-time"}
    assert props["color"] == {"type": "string", "enum": ["r", "g"]}
    assert props["plan"] == {
        "type": "string",
        "oneOf": [
            {"const": "basic", "title": "Basic (free)"},
            {"const": "pro", "title": "Pro"},
            {"const": "team", "title": "team"},
        ],
        "default": "pro",
    }
    assert props["size"] == {"type": "string", "enum": ["s", "m", "l"], "default": "m"}
    assert props["ratio"] == {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5}
    # Falsy defaults are kept.
    assert props["subscribe"]["default"] is False
    assert props["count"]["default"] == 0
    assert props["note"]["default"] == ""
    assert props["tags"] == {
        "type": "array",
        "minItems": 1,
        "maxItems": 2,
        "items": {"type": "string", "enum": ["a", "b", "c"]},
        "default": ["a"],
    }
    assert props["colors"]["default"] == []
    assert props["nickname"] == {"type": "string"}
    assert schema["required"] == ["name", "age", "email", "homepage", "born", "meeting", "color"]
    assert check_schema(schema, revision="2026-07-28") == []


def test_pydantic_models_and_typeddicts() -> None:
    class Model(pydantic.BaseModel):
        name: str = pydantic.Field(min_length=2, title="Name", description="Who")
        email: pydantic.EmailStr
        site: pydantic.HttpUrl | None = None
        level: int = pydantic.Field(3, ge=1, lt=10)
        code: str = pydantic.Field("AB", pattern="^[A-Z]+$")

    schema = schema_of(Model)
    assert schema["properties"]["name"] == {
        "type": "string",
        "title": "Name",
        "description": "Who",
        "minLength": 2,
    }
    assert schema["properties"]["email"]["format"] == "email"
    assert schema["properties"]["site"] == {"type": "string", "format": "uri"}
    # lt=10 on an integer is "at most 9"
    assert schema["properties"]["level"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
        "default": 3,
    }
    assert schema["properties"]["code"]["pattern"] == "^[A-Z]+$"
    assert schema["required"] == ["name", "email"]

    class Person(TypedDict):
        name: str
        age: NotRequired[Annotated[int, at.Ge(0)]]

    assert schema_of(Person) == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
        "required": ["name"],
    }


def test_revision_shapes() -> None:
    @dataclass
    class Choice:
        plan: Plan = Plan.BASIC
        nights: int = 2
        breakfast: bool = True

    old = schema_of(Choice, revision="2025-06-18")
    # Titled options become enumNames; only the boolean keeps its default.
    assert old["properties"]["plan"] == {
        "type": "string",
        "enum": ["basic", "pro", "team"],
        "enumNames": ["Basic (free)", "Pro", "team"],
    }
    assert old["properties"]["nights"] == {"type": "integer"}
    assert old["properties"]["breakfast"] == {"type": "boolean", "default": True}
    assert check_schema(old, revision="2025-06-18") == []


def test_results_are_cached_and_read_only() -> None:
    first = schema_of(Everything)
    assert schema_of(Everything) is first
    with pytest.raises(TypeError, match="read-only"):
        first["properties"]["name"]["title"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        first["required"].append("x")
    mutable = copy.deepcopy(first)
    mutable["properties"]["name"]["title"] = "changed"
    assert type(mutable) is dict
    assert schema_of(Everything)["properties"]["name"]["title"] == "Full name"


@pytest.mark.parametrize(
    ("annotation", "default", "reason"),
    [
        (int | str, dataclasses.MISSING, "unions cannot be expressed"),
        (list[str], dataclasses.MISSING, "a free list"),
        (dict[str, int], dataclasses.MISSING, "nested objects"),
        (Everything, dataclasses.MISSING, "nested objects"),
        (tuple[int, int], dataclasses.MISSING, "nested objects"),
        (bytes, dataclasses.MISSING, "cannot be expressed"),
        (Literal[1, 2], dataclasses.MISSING, "non-string values"),
        (Annotated[float, at.Gt(0)], dataclasses.MISSING, "exclusive bounds"),
        (Annotated[int, at.MultipleOf(5)], dataclasses.MISSING, "multipleOf"),
        (Annotated[int, at.MinLen(2)], dataclasses.MISSING, "length bounds"),
        (Annotated[int, at.Ge(5), at.Le(1)], dataclasses.MISSING, "inverted"),
        (Literal["a", "b"], "c", "not a valid answer"),
        (Annotated[int, at.Le(3)], 5, "not a valid answer"),
        (datetime, datetime(2025, 1, 1), "time zone"),
        (list[Literal["a"] | None], dataclasses.MISSING, "cannot include None"),
    ],
)
def test_what_cannot_be_expressed_names_the_field_and_the_reason(
    annotation: Any, default: Any, reason: str
) -> None:
    spec: Any = (
        ("answer", annotation)
        if default is dataclasses.MISSING
        else ("answer", annotation, field(default=default))
    )
    model = dataclasses.make_dataclass("Bad", [spec])
    with pytest.raises(SchemaBuildError, match=reason) as caught:
        schema_of(model)
    assert caught.value.field == "answer"
    assert "Bad.answer" in str(caught.value)


def test_not_a_form_type() -> None:
    with pytest.raises(SchemaBuildError, match="dataclass, a TypedDict or a pydantic model"):
        schema_of(int)


def test_multi_select_has_no_2025_06_18_form() -> None:
    with pytest.raises(SchemaBuildError, match=r"Everything\.tags: multi-select .* 2025-11-25"):
        schema_of(Everything, revision="2025-06-18")


# -- property: every schema the builder emits is valid (ours, and the official schema.json) ---

SCALAR_SPECS: list[tuple[Any, Any]] = [
    (str, "x"),
    (Annotated[str, at.MinLen(2), at.MaxLen(5)], "abc"),
    (Annotated[str, Pattern("^[a-z]+$")], "abc"),
    (Annotated[int, at.Ge(-3), at.Le(7)], 0),
    (Annotated[int, at.Gt(0)], 1),
    (Annotated[float, at.Ge(0.5)], 0.5),
    (bool, False),
    (bool, True),
    (date, date(2020, 2, 29)),
    (datetime, datetime(2020, 1, 1, tzinfo=UTC)),
    (Email, None),
    (Url, None),
    (Literal["a", "b", "c"], "b"),
    (Color, Color.GREEN),
    (Plan, Plan.TEAM),
    (Annotated[list[Literal["a", "b", "c"]], at.MaxLen(2)], []),
    (set[Plan], None),
    (Annotated[str | None, Title("Maybe")], None),
]


@st.composite
def dataclass_types(draw: st.DrawFn) -> type:
    count = draw(st.integers(1, 8))
    specs: list[Any] = []
    optional_started = False
    for index in range(count):
        annotation, default = draw(st.sampled_from(SCALAR_SPECS))
        with_default = draw(st.booleans()) and default is not None
        if optional_started and not with_default:
            with_default, default = True, None
            annotation = annotation | None
        if with_default or (default is None and optional_started):
            optional_started = True
            factory = (lambda d=default: list(d)) if isinstance(default, list) else None
            specs.append(
                (
                    f"f{index}",
                    annotation,
                    field(default_factory=factory) if factory else field(default=default),
                )
            )
        else:
            specs.append((f"f{index}", annotation))
    return dataclasses.make_dataclass("Generated", specs)


@cache
def _official_validator(revision: str) -> jsonschema.protocols.Validator:
    document = official_json_schema(revision)
    defs = "definitions" if "definitions" in document else "$defs"
    root = {**document, "$ref": f"#/{defs}/ElicitRequest"}
    cls = jsonschema.validators.validator_for(document)
    return cls(root)  # type: ignore[no-any-return]


@given(dataclass_types(), st.sampled_from(["2025-06-18", "2025-11-25", "2026-07-28"]))
def test_every_built_schema_is_valid_for_its_revision(model: type, revision: str) -> None:
    try:
        schema = schema_of(model, revision=revision)
    except SchemaBuildError as exc:
        assert revision == "2025-06-18" and "multi-select" in str(exc)
        return
    assert check_schema(schema, revision=revision) == []
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "elicitation/create",
        "params": {"message": "Please answer", "requestedSchema": schema},
    }
    errors = list(_official_validator(revision).iter_errors(request))
    assert not errors, [e.message for e in errors]
    form = Form.from_schema(schema, revision=revision)
    assert form.validate(form.defaults()) == [] or any(f.required for f in form.fields)
