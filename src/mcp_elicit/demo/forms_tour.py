"""A walkthrough of the forms core on one example dataclass: a hotel booking."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import Annotated, Literal, TextIO

import annotated_types as at

from mcp_elicit.forms import (
    ConversionError,
    Description,
    Email,
    Form,
    Problem,
    Title,
    check_schema,
    convert,
    lint_schema,
    schema_of,
)
from mcp_elicit.i18n import _, ngettext, text_width
from mcp_elicit.revisions import RELEASED, Revision


class Room(Enum):
    __titles__ = {"std": "Standard room", "sea": "Sea view", "ste": "Suite"}
    STANDARD = "std"
    SEA_VIEW = "sea"
    SUITE = "ste"


@dataclass
class Booking:
    name: Annotated[str, at.MinLen(2), at.MaxLen(60), Title("Full name")]
    email: Email
    check_in: Annotated[date, Title("Check-in date")]
    nights: Annotated[int, at.Ge(1), at.Le(30), Description("How many nights")] = 1
    room: Room = Room.STANDARD
    breakfast: bool = False
    extras: Annotated[list[Literal["parking", "late checkout", "crib"]], at.MaxLen(2)] = field(
        default_factory=list
    )


def print_tour(out: TextIO) -> None:
    def say(text: str = "") -> None:
        print(text, file=out)

    def show(value: object) -> None:
        say(json.dumps(value, indent=2, ensure_ascii=False))

    def problems(found: list[Problem]) -> None:
        for problem in found:
            say(f"  ✗ {problem.field}: {problem.message}  [{problem.code}]")

    title = _("mcp-elicit — a tour of the forms core")
    say(title)
    say("=" * (text_width(title) + 1))
    say(
        "\n"
        + _("1. A Python dataclass becomes a requestedSchema ({revision} shapes):").format(
            revision=Revision.V2025_11_25
        )
        + "\n"
    )
    schema = schema_of(Booking, revision=Revision.V2025_11_25)
    show(schema)
    again = schema_of(Booking, revision=Revision.V2025_11_25)
    say(
        "\n   "
        + _("asked again, it is the same cached object: {same}").format(same=again is schema)
    )

    say("\n" + _("2. Checking it against each revision:"))
    for revision in RELEASED:
        found = check_schema(schema, revision=revision)
        verdict = (
            ngettext("{n} problem", "{n} problems", len(found)).format(n=len(found))
            if found
            else _("valid")
        )
        say(f"   {revision}: {verdict}")
        problems(found)

    say(
        "\n"
        + _(
            "3. Converting to {revision}: titled options become enumNames; multi-select cannot go:"
        ).format(revision=Revision.V2025_06_18)
    )
    try:
        convert(schema, to=Revision.V2025_06_18)
    except ConversionError as exc:
        say(f"   ConversionError: {exc}")
    without_extras = {
        **schema,
        "properties": {k: v for k, v in schema["properties"].items() if k != "extras"},
    }
    show(convert(without_extras, to=Revision.V2025_06_18)["properties"]["room"])

    say("\n" + _("4. The form model a renderer draws:"))
    form = Form.from_schema(schema)
    for f in form.fields:
        extra = []
        if f.required:
            extra.append(_("required"))
        if f.default is not None:
            extra.append(_("default {value}").format(value=json.dumps(f.default)))
        if f.choices:
            extra.append(
                _("choices: {choices}").format(choices=", ".join(c.label for c in f.choices))
            )
        if f.minimum is not None or f.maximum is not None:
            extra.append(
                _("range {minimum}..{maximum}").format(minimum=f.minimum, maximum=f.maximum)
            )
        say(f"   {f.label:<15} {f.kind.value:<14} {'; '.join(extra)}")
    say("   " + _("defaults (falsy ones kept): {defaults}").format(defaults=form.defaults()))

    say("\n" + _("5. What a person types, coerced to JSON values:"))
    for name, typed in (
        ("nights", "3"),
        ("room", "sea view"),
        ("breakfast", "yes"),
        ("extras", "1, 3"),
        ("nights", "three"),
    ):
        result = form.coerce(name, typed)
        shown = f"✗ {result.message}" if isinstance(result, Problem) else json.dumps(result)
        say(f"   {name} ← {typed!r:12} → {shown}")

    say("\n" + _("6. Validating a bad answer — one message per field:"))
    bad = {
        "name": "A",
        "email": "ann@",
        "check_in": "2025-02-29",
        "nights": "3",
        "room": "penthouse",
        "extras": ["crib", "crib"],
    }
    show(bad)
    problems(form.validate(bad))

    good = {
        **form.defaults(),
        "name": "Ann Lee",
        "email": "ann@example.com",
        "check_in": "2026-03-14",
    }
    say("\n   " + _("fixed: {answer}").format(answer=json.dumps(good)))
    say("   " + _("problems: {problems}").format(problems=form.validate(good)))

    say("\n" + _("7. Lint findings a client shows a person:"))
    risky = {
        "type": "object",
        "properties": {
            "apiKey": {"type": "string", "description": "Paste it from https://example.com/keys"}
        },
    }
    for note in lint_schema(risky):
        say(f"   ! {note.field}: {note.message}  [{note.code}]")
    say(
        "\n"
        + _("Next: `mcp-elicit schema --help` for the command line, docs/forms.md for the API.")
    )
