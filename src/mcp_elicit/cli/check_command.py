"""``mcp-elicit check server TARGET [--protocol R] [--scenario ID] [--json]`` and
``mcp-elicit check client [--scenario ID] [--json] -- COMMAND args...``: the checks the
official conformance suite leaves out, run against a server or a client (docs/check.md).

TARGET as for ``call``: an ``http(s)://`` URL, or ``-- command args...`` last on the line.
Exit status: 0 nothing failed, 1 a check failed, 2 bad usage.

This module is the command line only, cheap to import; the checks run in
:mod:`mcp_elicit.cli._check`, imported when the command runs.
"""

from __future__ import annotations

import argparse

from mcp_elicit.cli._host import _header
from mcp_elicit.i18n import _
from mcp_elicit.revisions import EARLY_DRAFT_VERSION, Revision

# ``mcp_elicit.check.REVISIONS``, made here from the revisions alone so that building the
# parser imports nothing heavy (a test keeps the two the same).
CHECK_REVISIONS: tuple[str, ...] = (EARLY_DRAFT_VERSION, *Revision)
# ``mcp_elicit.check.running.DEFAULT_TIMEOUT``, likewise.
CHECK_TIMEOUT = 300.0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "check",
        usage="%(prog)s (server | client) [options] ...",
        help=_("check a server or a client on what the official conformance suite leaves out"),
        description=(
            _(
                "Check an MCP server's elicitation on what the official conformance suite leaves "
                "out: URL mode, the completion notice, -32042, the URL-mode draft, capability "
                "gating, answer validation, requestState. docs/check.md explains every check. "
                "Exit status: 0 nothing failed, 1 a check failed, 2 bad usage."
            )
        ),
    )
    sides = check.add_subparsers(dest="side", metavar="SIDE", required=True)
    server = sides.add_parser(
        "server",
        prog="mcp-elicit check server",
        usage="%(prog)s [options] (URL | -- COMMAND [ARGS...])",
        help=_("drive a server as a client and check every message it sends"),
        description=(
            _(
                "Drive a server as a client on every revision with elicitation and check what it "
                "sends. TARGET is an http(s):// URL, or '-- command args...' last on the line to "
                "start the server over stdio (a fresh process per check; its stderr goes to a "
                "log file). A check that needs a tool the server does not list is skipped. "
                "Exit status: 0 nothing failed, 1 a check failed, 2 bad usage."
            )
        ),
    )
    server.add_argument(
        "target", metavar="TARGET", nargs="?", help=_("the server's http(s):// URL")
    )
    server.add_argument(
        "--protocol",
        action="append",
        default=[],
        choices=CHECK_REVISIONS,
        metavar="REVISION",
        help=_("run only on this revision (repeatable): {revisions}").format(
            revisions=", ".join(CHECK_REVISIONS)
        ),
    )
    _add_selection(server)
    server.add_argument(
        "--header",
        action="append",
        default=[],
        type=_header,
        metavar="NAME:VALUE",
        help=_(
            "send this HTTP header (repeatable), e.g. 'Authorization: Bearer TOKEN'; "
            "NAME:@FILE reads the value from FILE"
        ),
    )
    server.add_argument(
        "--other-header",
        action="append",
        default=[],
        type=_header,
        metavar="NAME:VALUE",
        help=_(
            "a second user's header, for the checks that need two users "
            "(server-track-foreign-id); NAME:@FILE reads the value from FILE"
        ),
    )
    server.set_defaults(run=run, command_parser=server)
    client = sides.add_parser(
        "client",
        prog="mcp-elicit check client",
        usage="%(prog)s [options] -- COMMAND [ARGS...]",
        help=_("run a client against a scripted server and check what it does"),
        description=(
            _(
                "Run a client against a scripted server on 127.0.0.1, once per check, as the "
                "official conformance suite runs clients: COMMAND ARGS... SERVER_URL (the URL "
                "last), the check's ID in MCP_CONFORMANCE_SCENARIO. The client should call every "
                "tool the server lists and answer as it answers a person. "
                "Exit status: 0 nothing failed, 1 a check failed, 2 bad usage."
            )
        ),
    )
    _add_selection(client)
    client.set_defaults(run=run, command_parser=client)


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="ID",
        help=_("run only this check (repeatable, or comma separated); IDs in docs/check.md"),
    )
    parser.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=CHECK_TIMEOUT,
        metavar="SECONDS",
        help=_(
            "end the whole run after this many seconds (default {default:g}): the check that "
            "was running fails, saying so, and the rest are not run"
        ).format(default=CHECK_TIMEOUT),
    )


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(
            _("expected a number of seconds above 0, not {text}").format(text=repr(text))
        )
    return seconds


def run(args: argparse.Namespace) -> int:
    from mcp_elicit.cli._check import run_check_client, run_check_server

    return run_check_server(args) if args.side == "server" else run_check_client(args)
