"""Writing fields back as a ``requestedSchema`` in the exact shape a revision defines.

Strict in what we send: only the target revision's keywords. Two things have no exact form in
the 2025-06-18 family:

- titled single-select is written as ``enum`` + ``enumNames`` (lossless);
- a default on anything but a boolean is left out. Its field stays optional, and SEP-1034
  already lets clients ignore defaults, so the meaning of an answer does not change.

Multi-select has no form there at all: that raises ``ConversionError``.
"""

from __future__ import annotations

from typing import Any

from mcp_elicit.forms.fields import Field, FieldKind
from mcp_elicit.forms.problems import ConversionError
from mcp_elicit.forms.revisions import SchemaRules, first_revision_with
from mcp_elicit.i18n import _


def render_schema(
    fields: list[Field] | tuple[Field, ...], rules: SchemaRules, *, dollar_schema: str | None = None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    if dollar_schema is not None and rules.dollar_schema:
        schema["$schema"] = dollar_schema
    schema["properties"] = {f.name: render_property(f, rules) for f in fields}
    required = [f.name for f in fields if f.required]
    if required:
        schema["required"] = required
    return schema


def render_property(field: Field, rules: SchemaRules) -> dict[str, Any]:
    kind = field.kind
    prop: dict[str, Any]
    if kind is FieldKind.INTEGER or kind is FieldKind.NUMBER:
        prop = {"type": kind.value}
    elif kind is FieldKind.BOOLEAN:
        prop = {"type": "boolean"}
    elif kind is FieldKind.MULTI_CHOICE:
        prop = {"type": "array"}
    else:
        prop = {"type": "string"}
    if field.title is not None:
        prop["title"] = field.title
    if field.description is not None:
        prop["description"] = field.description
    if kind.is_text:
        _put(prop, "minLength", field.min_length)
        _put(prop, "maxLength", field.max_length)
        _put(prop, "format", field.format)
        _put(prop, "pattern", field.pattern)
    elif kind is FieldKind.INTEGER or kind is FieldKind.NUMBER:
        _put(prop, "minimum", field.minimum)
        _put(prop, "maximum", field.maximum)
    elif kind is FieldKind.SINGLE_CHOICE:
        if not field.titled:
            prop["enum"] = list(field.choice_values())
        elif rules.titled_single_select:
            prop["oneOf"] = [{"const": c.value, "title": c.label} for c in field.choices]
        else:
            prop["enum"] = list(field.choice_values())
            prop["enumNames"] = [c.label for c in field.choices]
    elif kind is FieldKind.MULTI_CHOICE:
        if not rules.multi_select:
            raise ConversionError(
                field.name,
                _("multi-select has no form in this revision (it arrived in {revision})").format(
                    revision=first_revision_with("multi_select")
                ),
            )
        _put(prop, "minItems", field.min_items)
        _put(prop, "maxItems", field.max_items)
        if field.titled:
            prop["items"] = {"anyOf": [{"const": c.value, "title": c.label} for c in field.choices]}
        else:
            prop["items"] = {"type": "string", "enum": list(field.choice_values())}
    if field.default is not None and (rules.defaults_on_all_types or kind is FieldKind.BOOLEAN):
        prop["default"] = list(field.default) if isinstance(field.default, list) else field.default
    return prop


def _put(prop: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        prop[key] = value
