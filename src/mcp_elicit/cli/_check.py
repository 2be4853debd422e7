"""``mcp-elicit check server`` and ``check client``, run (their command line:
:mod:`mcp_elicit.cli.check_command`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import anyio
from mcp.client.stdio import StdioServerParameters

from mcp_elicit.check import Outcome, Report, UnknownCheck, select
from mcp_elicit.check import check_client as run_client_checks
from mcp_elicit.check import check_server as run_checks
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
    ids = _ids(args, revisions=args.protocol, side="server")
    progress = _progress(args, describe(target))
    announce_log(target)
    # The checks run in English, whatever the person's language: what they see on the wire is
    # evidence, in the JSON report as in the human one (only the report's own words follow
    # the person's language, as it is printed).
    with language("en"):
        report = anyio.run(
            lambda: run_checks(
                target,
                ids=ids,
                revisions=args.protocol,
                headers=dict(args.header),
                other_headers=dict(args.other_header) if args.other_header else None,
                name=describe(target),
                progress=progress,
                timeout=args.timeout,
            )
        )
    return _finish(args, report)


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
        print(report.summary())
    return report.exit_status
