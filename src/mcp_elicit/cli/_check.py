"""``mcp-elicit check server``, run (its command line: :mod:`mcp_elicit.cli.check_command`)."""

from __future__ import annotations

import argparse
import sys

import anyio
from mcp.client.stdio import StdioServerParameters

from mcp_elicit.check import Outcome, UnknownCheck, select
from mcp_elicit.check import check_server as run_checks
from mcp_elicit.cli._io import UsageError
from mcp_elicit.cli._running import announce_log, server_of
from mcp_elicit.client.server_log import LoggedStdioServer
from mcp_elicit.client.targets import describe


def check_server(args: argparse.Namespace) -> int:
    target = server_of(args)
    assert isinstance(target, str | StdioServerParameters | LoggedStdioServer)
    if not isinstance(target, str) and (args.header or args.other_header):
        raise UsageError("--header and --other-header are for a server given by its URL")
    ids = [part.strip() for text in args.scenario for part in text.split(",") if part.strip()]
    try:
        select(ids, args.protocol)
    except UnknownCheck as error:
        raise UsageError(str(error)) from None

    def progress(outcome: Outcome) -> None:
        if not args.json:
            print("\n".join(outcome.lines()), flush=True)

    if not args.json:
        print(f"Checking {describe(target)}", flush=True)
    announce_log(target)
    report = anyio.run(
        lambda: run_checks(
            target,
            ids=ids,
            revisions=args.protocol,
            headers=dict(args.header),
            other_headers=dict(args.other_header) if args.other_header else None,
            name=describe(target),
            progress=progress,
        )
    )
    if args.json:
        sys.stdout.write(report.json_text() + "\n")
    else:
        print()
        print(report.summary())
    return report.exit_status
