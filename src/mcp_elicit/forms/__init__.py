"""The forms core: the restricted ``requestedSchema`` subset of every revision. No I/O.

- :func:`schema_of` — a dataclass, TypedDict or pydantic model → ``requestedSchema``
- :func:`check_schema` — the problems a revision has with a schema; :func:`lint_schema` —
  what a person should be told about it (URLs, secret-looking fields, ``pattern``)
- :func:`convert` — a schema in another revision's shapes
- :class:`Form` — fields to render, answers to validate and coerce, defaults

Every finding is a :class:`Problem` with ``field``, a stable ``code`` and a ``message``.
"""

from mcp_elicit.forms.building import fields_of, schema_of
from mcp_elicit.forms.checking import check_schema
from mcp_elicit.forms.converting import convert
from mcp_elicit.forms.fields import Choice, Field, FieldKind, JSONValue
from mcp_elicit.forms.form import Form
from mcp_elicit.forms.linting import lint_schema
from mcp_elicit.forms.markers import Description, Email, Format, NotSecret, Pattern, Title, Url
from mcp_elicit.forms.problems import ConversionError, InvalidSchema, Problem, SchemaBuildError
from mcp_elicit.revisions import LATEST, Revision

__all__ = [
    "LATEST",
    "Choice",
    "ConversionError",
    "Description",
    "Email",
    "Field",
    "FieldKind",
    "Form",
    "Format",
    "InvalidSchema",
    "JSONValue",
    "NotSecret",
    "Pattern",
    "Problem",
    "Revision",
    "SchemaBuildError",
    "Title",
    "Url",
    "check_schema",
    "convert",
    "fields_of",
    "lint_schema",
    "schema_of",
]
