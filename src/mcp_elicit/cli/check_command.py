"""``mcp-elicit check server TARGET [--protocol R] [--scenario ID] [--json]`` and
``mcp-elicit check client [--scenario ID] [--json] -- COMMAND args...``: the checks the
official conformance suite leaves out, run against a server or a client (docs/check.md).

TARGET as for ``call``: an ``http(s)://`` URL, or ``-- command args...`` last on the line.
Exit status: 0 nothing failed, 1 a check failed, 2 bad usage, 3 nothing was checked (every
check skipped or not applicable).

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
# ``call``'s ``--sign-in`` without "no": not signing in is leaving the option out.
CHECK_SIGN_IN_CHOICES = ("ask", "yes")


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
                "Exit status: 0 nothing failed, 1 a check failed, 2 bad usage, 3 nothing was "
                "checked."
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
                "log file). A check that needs a tool the server does not list is skipped: add "
                "the check tools to your own server with mcp_elicit.check.tools (docs/check.md). "
                "Exit status: 0 nothing failed, 1 a check failed, 2 bad usage, 3 nothing was "
                "checked."
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
            "NAME:@FILE reads the value from FILE. For a token, --sign-in is simpler"
        ),
    )
    server.add_argument(
        "--sign-in",
        choices=CHECK_SIGN_IN_CHOICES,
        default=None,
        help=_(
            "a server given by URL that requires MCP authorization: sign in first, as "
            "'mcp-elicit call --sign-in' does, and send the token with every check: ask "
            "before opening the sign-in page in your browser (ask), or consent ahead for a "
            "script (yes: the browser must still finish the sign-in). A token kept from "
            "before is used without a browser. Not with an Authorization --header"
        ),
    )
    server.add_argument(
        "--allow-http-loopback",
        action="store_true",
        help=_(
            "with --sign-in: also accept a sign-in link over http:// to this machine (an "
            "authorization server for development on 127.0.0.1)"
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
            "(server-track-foreign-id); NAME:@FILE reads the value from FILE (--sign-in "
            "signs in one user only: give the second user's token here)"
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
                "Exit status: 0 nothing failed, 1 a check failed, 2 bad usage, 3 nothing was "
                "checked."
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
