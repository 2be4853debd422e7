"""``mcp-elicit schema check|validate|convert``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mcp_elicit.cli._io import UsageError, print_json, read_json
from mcp_elicit.forms import (
    ConversionError,
    Form,
    InvalidSchema,
    Problem,
    Revision,
    check_schema,
    convert,
    lint_schema,
)
from mcp_elicit.forms.revisions import REVISION_NAMES

_REVISION_HELP = "protocol revision: " + ", ".join(REVISION_NAMES)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schema = commands.add_parser(
        "schema",
        help="check, validate against, or convert a requestedSchema",
        description="Work with elicitation requestedSchema documents. FILE may be - for stdin.",
    )
    actions = schema.add_subparsers(dest="action", metavar="ACTION", required=True)

    check = actions.add_parser(
        "check", help="check a schema against a revision (exit 1 with the problems)"
    )
    check.add_argument("file", metavar="FILE")
    check.add_argument("--revision", "-r", required=True, type=_revision, help=_REVISION_HELP)
    check.add_argument("--json", action="store_true", help="print findings as JSON")
    check.set_defaults(run=_check)

    validate = actions.add_parser(
        "validate", help="validate an answer (the content object) against a schema"
    )
    validate.add_argument("schema_file", metavar="SCHEMA_FILE")
    validate.add_argument("answer_file", metavar="ANSWER_FILE")
    validate.add_argument("--revision", "-r", type=_revision, help=_REVISION_HELP)
    validate.add_argument("--json", action="store_true", help="print findings as JSON")
    validate.set_defaults(run=_validate)

    conv = actions.add_parser("convert", help="print a schema in another revision's shapes")
    conv.add_argument("file", metavar="FILE")
    conv.add_argument("--to", required=True, type=_revision, help=_REVISION_HELP)
    conv.set_defaults(run=_convert)


def _revision(text: str) -> Revision:
    try:
        return Revision.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _read_schema(path: str) -> Any:
    """A requestedSchema, or the one inside an elicitation/create request or its params."""
    document = read_json(path, what="schema")
    if isinstance(document, dict) and "properties" not in document:
        for holder in (document, document.get("params")):
            if isinstance(holder, dict) and isinstance(holder.get("requestedSchema"), dict):
                return holder["requestedSchema"]
    return document


def _check(args: argparse.Namespace) -> int:
    schema = _read_schema(args.file)
    problems = check_schema(schema, revision=args.revision)
    notes = lint_schema(schema)
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
            print(f"invalid for {args.revision}: {_count(problems, 'problem')}")
            _print_lines(problems)
        else:
            print(f"valid for {args.revision}")
        if notes:
            print(f"{_count(notes, 'note')} to show a person:")
            _print_lines(notes)
    return 1 if problems else 0


def _validate(args: argparse.Namespace) -> int:
    if args.schema_file == "-" and args.answer_file == "-":
        raise UsageError("only one of SCHEMA_FILE and ANSWER_FILE can be - (standard input)")
    schema = _read_schema(args.schema_file)
    answer = read_json(args.answer_file, what="answer")
    try:
        form = Form.from_schema(schema, revision=args.revision)
    except InvalidSchema as exc:
        return _report_bad_schema(exc.problems, args)
    problems = form.validate(answer)
    if args.json:
        print_json({"valid": not problems, "problems": [p.to_json() for p in problems]})
    elif problems:
        print(f"invalid answer: {_count(problems, 'problem')}")
        _print_lines(problems)
    else:
        print("valid answer")
    return 1 if problems else 0


def _convert(args: argparse.Namespace) -> int:
    schema = _read_schema(args.file)
    try:
        converted: dict[str, Any] = convert(schema, to=args.to)
    except InvalidSchema as exc:
        print(
            f"the schema is not valid in any revision: {_count(exc.problems, 'problem')}",
            file=sys.stderr,
        )
        _print_lines(exc.problems, stream=sys.stderr)
        return 1
    except ConversionError as exc:
        print(f"cannot convert to {args.to}: {exc}", file=sys.stderr)
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
        print(f"the schema itself is invalid: {_count(problems, 'problem')}")
        _print_lines(problems)
    return 1


def _count(items: list[Problem], word: str) -> str:
    return f"{len(items)} {word}" + ("" if len(items) == 1 else "s")


def _print_lines(problems: list[Problem], *, stream: Any = None) -> None:
    out = stream or sys.stdout
    for problem in problems:
        where = problem.field if problem.field is not None else "(schema)"
        print(f"  {where}: {problem.message}  [{problem.code}]", file=out)
