"""``Problem``: one thing wrong with a schema or an answer, for a person and for a program."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_elicit.i18n import _


@dataclass(frozen=True, slots=True)
class Problem:
    """A finding about one field (or the whole object when ``field`` is None).

    ``code`` is stable: programs branch on it. ``message`` is for a person: it says what was
    wrong and what is allowed.
    """

    field: str | None
    code: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "code": self.code, "message": self.message}

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field is not None else self.message


class InvalidSchema(ValueError):
    """A ``requestedSchema`` that a revision does not allow; ``problems`` says why."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        lines = "; ".join(str(p) for p in problems)
        super().__init__(f"invalid requestedSchema: {lines}")


class SchemaBuildError(TypeError):
    """A Python type that a revision's ``requestedSchema`` cannot express."""

    def __init__(self, field: str | None, reason: str, *, owner: str | None = None) -> None:
        self.field = field
        self.reason = reason
        where = f"field {field!r}" if field is not None else "the type"
        if owner is not None:
            where = f"{owner}.{field}" if field is not None else owner
        super().__init__(f"{where}: {reason}")


class ConversionError(ValueError):
    """A schema that has no form in the target revision (its text is for a person: the
    ``schema convert`` command shows it)."""

    def __init__(self, field: str | None, reason: str) -> None:
        self.field = field
        self.reason = reason
        if field is None:
            super().__init__(reason)
        else:
            super().__init__(_("field {name}: {reason}").format(name=repr(field), reason=reason))
