"""``mcp-elicit url check URL``: the URL-mode safety verdict, for people or (``--json``) programs.

Exit status: 0 when the link may be offered (allow or warn), 1 when it is blocked, 2 for bad
usage (argparse).

This module is the command line only, cheap to import; the check is made by
:mod:`mcp_elicit.cli._url`, imported (with :mod:`mcp_elicit.urls`) when the command runs.
"""

from __future__ import annotations

import argparse

from mcp_elicit.i18n import _


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``url`` (and its ``check`` subcommand) on the main parser's subcommands."""
    url = subparsers.add_parser(
        "url",
        help=_("check a URL a server asks a person to open (URL mode)"),
        description=_("Check URLs a server asks a person to open (URL-mode elicitation)."),
    )
    # required=True: a bare `mcp-elicit url` prints usage and exits 2.
    commands = url.add_subparsers(dest="url_command", metavar="SUBCOMMAND", required=True)
    check = commands.add_parser(
        "check",
        help=_("say whether a URL may be offered to a person, and why"),
        description=(
            _(
                "Say whether a URL may be offered to a person to open: allow, warn or block, "
                "with the reasons. Nothing is fetched; with --resolve the host name is looked up "
                "in DNS. Exit status: 0 allow or warn, 1 block, 2 bad usage."
            )
        ),
    )
    check.add_argument("url", metavar="URL", help=_("the URL to check (quote it for the shell)"))
    check.add_argument(
        "--json",
        action="store_true",
        help=_("print {verdict, reasons, display_host, registrable_domain} as JSON"),
    )
    check.add_argument(
        "--resolve",
        action="store_true",
        help=_("also resolve the host name and check the addresses it resolves to (DNS I/O)"),
    )
    check.add_argument(
        "--allow-http-loopback",
        action="store_true",
        help=_("local development: accept http:// (and https://) to 127.0.0.1, ::1 and localhost"),
    )
    check.add_argument(
        "--allow-private",
        action="store_true",
        help=_(
            "an intranet: private addresses and local names (.local, single labels) warn "
            "instead of block"
        ),
    )
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mcp_elicit.cli._url import run_url_check

    return run_url_check(args)
