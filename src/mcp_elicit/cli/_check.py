"""``mcp-elicit check server`` and ``check client``, run (their command line:
:mod:`mcp_elicit.cli.check_command`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import anyio
from mcp.client.stdio import StdioServerParameters

from mcp_elicit.check import Outcome, Report, ServerRefused, UnknownCheck, select
from mcp_elicit.check import check_client as run_client_checks
from mcp_elicit.check import check_server as run_checks
from mcp_elicit.cli._check_sign_in import signed_in_headers
from mcp_elicit.cli._io import UsageError
from mcp_elicit.cli._running import announce_log, server_of
from mcp_elicit.client.server_log import LoggedStdioServer
from mcp_elicit.client.targets import describe
from mcp_elicit.i18n import _, current_language, language


def run_check_server(args: argparse.Namespace) -> int:
    target = server_of(args)
    assert isinstance(target, str | StdioServerParameters | LoggedStdioServer)
    if not isinstance(target, str) and (args.header or args.other_header):
        raise UsageError(_("--header and --other-header are for a server given by its URL"))
    if not isinstance(target, str) and args.sign_in is not None:
        raise UsageError(_("--sign-in is for a server given by its URL"))
    ids = _ids(args, revisions=args.protocol, side="server")
    headers = dict(args.header)
    if args.sign_in is not None:
        assert isinstance(target, str)
        # Before "Checking ...": a sign-in refused is one error, and no check runs.
        headers = signed_in_headers(args, target, headers)
    progress = _progress(args, describe(target))
    announce_log(target)
    # The checks run in English, whatever the person's language: what they see on the wire is
    # evidence, in the JSON report as in the human one (only the report's own words follow
    # the person's language, as it is printed).
    try:
        with language("en"):
            report = anyio.run(
                lambda: run_checks(
                    target,
                    ids=ids,
                    revisions=args.protocol,
                    headers=headers,
                    other_headers=dict(args.other_header) if args.other_header else None,
                    name=describe(target),
                    progress=progress,
                    timeout=args.timeout,
                )
            )
    except ServerRefused as refused:  # said in the person's language
        raise UsageError(_refusal(refused)) from None
    return _finish(args, report)


def _refusal(refused: ServerRefused) -> str:
    """One error instead of every check failing alike: what the server said, and the fix."""
    if refused.with_headers:
        said = _("the server refused the credentials given (HTTP {status})")
    else:
        said = _("the server requires sign-in (HTTP {status})")
    fix = _(
        "sign in with --sign-in ask (yes in a script), or give an access token for it with "
        "--header 'Authorization: Bearer <token>', or "
        "--header 'Authorization: @token.txt' (a file holding 'Bearer <token>'); see "
        "docs/check.md"
    )
    return f"{said.format(status=refused.status)}: {fix}"


def run_check_client(args: argparse.Namespace) -> int:
    if args.server_command == [] or args.server_command is None:
        raise UsageError(_("no client: give its command after '--', last on the line"))
    command = list(args.server_command)
    ids = _ids(args, revisions=(), side="client")
    progress = _progress(args, " ".join(command))
    with language("en"):
        report = anyio.run(
            lambda: run_client_checks(command, ids=ids, progress=progress, timeout=args.timeout)
        )
    return _finish(args, report)


def _ids(args: argparse.Namespace, *, revisions: Sequence[str], side: str) -> list[str]:
    ids = [part.strip() for text in args.scenario for part in text.split(",") if part.strip()]
    try:
        select(ids, revisions, side=side)
    except UnknownCheck as error:
        raise UsageError(str(error)) from None
    return ids


def _progress(args: argparse.Namespace, target: str) -> Callable[[Outcome], None]:
    person = current_language()
    if not args.json:
        print(_("Checking {target}").format(target=target), flush=True)

    def progress(outcome: Outcome) -> None:
        if not args.json:
            with language(person):
                print("\n".join(outcome.lines()), flush=True)

    return progress


def _finish(args: argparse.Namespace, report: Report) -> int:
    if args.json:
        sys.stdout.write(report.json_text() + "\n")
    else:
        print()
        print("\n".join([report.summary(), *report.advice()]))
    return report.exit_status
