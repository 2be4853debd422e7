"""``mcp-elicit schema check|validate|convert``, run (its command line:
:mod:`mcp_elicit.cli.schema_command`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mcp_elicit.cli._io import UsageError, for_programs, print_json, read_json
from mcp_elicit.forms import (
    ConversionError,
    Form,
    InvalidSchema,
    Problem,
    check_schema,
    convert,
    lint_schema,
)
from mcp_elicit.i18n import _, ngettext


def run(args: argparse.Namespace) -> int:
    """Run ``args.action``: ``check``, ``validate`` or ``convert``."""
    actions = {"check": _check, "validate": _validate, "convert": _convert}
    return actions[args.action](args)


def _read_schema(path: str) -> Any:
    """A requestedSchema, or the one inside an elicitation/create request or its params."""
    return _read_request(path)[0]


def _read_request(path: str) -> tuple[Any, str | None]:
    """The requestedSchema in ``path`` and, when ``path`` is a whole elicitation/create
    request or its params, the request's ``message`` (else None)."""
    document = read_json(path, what=_("schema"))
    if isinstance(document, dict) and "properties" not in document:
        for holder in (document, document.get("params")):
            if isinstance(holder, dict) and isinstance(holder.get("requestedSchema"), dict):
                message = holder.get("message")
                return holder["requestedSchema"], message if isinstance(message, str) else None
    return document, None


def _check(args: argparse.Namespace) -> int:
    schema, message = _read_request(args.file)
    with for_programs(args.json):
        problems = check_schema(schema, revision=args.revision)
        # A URL in a whole request's message is a finding like one in a field's title.
        notes = lint_schema(schema, message=message)
    if args.json:
        print_json(
            {
                "valid": not problems,
                "revision": args.revision.value,
                "problems": [p.to_json() for p in problems],
                "notes": [p.to_json() for p in notes],
            }
        )
    else:
        if problems:
            print(
                _("invalid for {revision}: {count}").format(
                    revision=args.revision, count=_problems(problems)
                )
            )
            _print_lines(problems)
        else:
            print(_("valid for {revision}").format(revision=args.revision))
        if notes:
            print(
                ngettext(
                    "{n} note to show a person:", "{n} notes to show a person:", len(notes)
                ).format(n=len(notes))
            )
            _print_lines(notes)
    return 1 if problems else 0


def _validate(args: argparse.Namespace) -> int:
    if args.schema_file == "-" and args.answer_file == "-":
        raise UsageError(_("only one of SCHEMA_FILE and ANSWER_FILE can be - (standard input)"))
    schema = _read_schema(args.schema_file)
    answer = read_json(args.answer_file, what=_("answer"))
    with for_programs(args.json):
        try:
            problems = Form.from_schema(schema, revision=args.revision).validate(answer)
        except InvalidSchema as exc:
            return _report_bad_schema(exc.problems, args)
    if args.json:
        print_json({"valid": not problems, "problems": [p.to_json() for p in problems]})
    elif problems:
        print(_("invalid answer: {count}").format(count=_problems(problems)))
        _print_lines(problems)
    else:
        print(_("valid answer"))
    return 1 if problems else 0


def _convert(args: argparse.Namespace) -> int:
    schema = _read_schema(args.file)
    try:
        converted: dict[str, Any] = convert(schema, to=args.to)
    except InvalidSchema as exc:
        print(
            _("the schema is not valid in any revision: {count}").format(
                count=_problems(exc.problems)
            ),
            file=sys.stderr,
        )
        _print_lines(exc.problems, stream=sys.stderr)
        return 1
    except ConversionError as exc:
        print(
            _("cannot convert to {revision}: {why}").format(revision=args.to, why=exc),
            file=sys.stderr,
        )
        return 1
    json.dump(converted, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _report_bad_schema(problems: list[Problem], args: argparse.Namespace) -> int:
    if args.json:
        print_json(
            {
                "valid": False,
                "problems": [],
                "schema_problems": [p.to_json() for p in problems],
            }
        )
    else:
        print(_("the schema itself is invalid: {count}").format(count=_problems(problems)))
        _print_lines(problems)
    return 1


def _problems(items: list[Problem]) -> str:
    return ngettext("{n} problem", "{n} problems", len(items)).format(n=len(items))


def _print_lines(problems: list[Problem], *, stream: Any = None) -> None:
    out = stream or sys.stdout
    for problem in problems:
        where = problem.field if problem.field is not None else _whole(problem)
        print(f"  {where}: {problem.message}  [{problem.code}]", file=out)


def _whole(problem: Problem) -> str:
    """Where a finding that is about no field is: the request's message (the only text of its
    own that ``lint_schema`` reads for a URL), or the schema as a whole."""
    return _("(message)") if problem.code == "url_in_text" else _("(schema)")
