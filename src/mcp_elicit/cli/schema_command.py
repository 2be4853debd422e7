"""``mcp-elicit schema check|validate|convert``.

This module is the command line only, cheap to import; the work is done by
:mod:`mcp_elicit.cli._schema`, imported (with :mod:`mcp_elicit.forms`) when the command runs.
"""

from __future__ import annotations

import argparse

from mcp_elicit.i18n import _
from mcp_elicit.revisions import REVISION_NAMES, Revision


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    revision_help = _("protocol revision: {revisions}").format(revisions=", ".join(REVISION_NAMES))
    schema = commands.add_parser(
        "schema",
        help=_("check, validate against, or convert a requestedSchema"),
        description=_("Work with elicitation requestedSchema documents. FILE may be - for stdin."),
    )
    actions = schema.add_subparsers(dest="action", metavar="ACTION", required=True)

    check = actions.add_parser(
        "check",
        help=_("check a schema against a revision (exit 1 with the problems)"),
        description=(
            _(
                "Check a requestedSchema against a protocol revision, and list what a person "
                "should be told about it (URLs, secret-looking fields...). FILE is the schema, or "
                "a whole elicitation/create request or its params, whose message is checked too."
            )
        ),
    )
    check.add_argument("file", metavar="FILE")
    check.add_argument("--revision", "-r", required=True, type=_revision, help=revision_help)
    check.add_argument("--json", action="store_true", help=_("print findings as JSON"))
    check.set_defaults(run=run)

    validate = actions.add_parser(
        "validate", help=_("validate an answer (the content object) against a schema")
    )
    validate.add_argument("schema_file", metavar="SCHEMA_FILE")
    validate.add_argument("answer_file", metavar="ANSWER_FILE")
    validate.add_argument("--revision", "-r", type=_revision, help=revision_help)
    validate.add_argument("--json", action="store_true", help=_("print findings as JSON"))
    validate.set_defaults(run=run)

    conv = actions.add_parser("convert", help=_("print a schema in another revision's shapes"))
    conv.add_argument("file", metavar="FILE")
    conv.add_argument("--to", required=True, type=_revision, help=revision_help)
    conv.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``args.action`` (``check``, ``validate`` or ``convert``)."""
    from mcp_elicit.cli import _schema

    return _schema.run(args)


def _revision(text: str) -> Revision:
    """A ``--revision`` as a :class:`mcp_elicit.revisions.Revision`."""
    try:
        return Revision.parse(text)
    except ValueError:  # its message is the library's, for a program's author
        raise argparse.ArgumentTypeError(
            _("unknown revision {revision}: expected one of {revisions}").format(
                revision=repr(text), revisions=", ".join(sorted(REVISION_NAMES))
            )
        ) from None
