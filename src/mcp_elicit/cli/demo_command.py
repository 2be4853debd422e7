"""``mcp-elicit demo``: the showcase. Hotel MCP (a real server process, on the embedded SQLite
store) and this terminal as its host: a form, a confirmation, a secret through URL mode and
the server's own page, then the ``mcp>`` prompt to try anything else. With ``--ui web`` the
questions are answered on a local page in the browser instead (the web renderer).

This module is the command line only, cheap to import; the demo is
:mod:`mcp_elicit.cli._demo`, imported when the command runs.
"""

from __future__ import annotations

import argparse
import sys

from mcp_elicit.cli._host import DEMO_PROTOCOLS, add_ui_option
from mcp_elicit.i18n import _
from mcp_elicit.revisions import LATEST


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser(
        "demo",
        help=_("the showcase: a demo server and this terminal (or your browser) as its host"),
        description=(
            _(
                "Run Hotel MCP, a demo server, and use it from this terminal: a booking form, a "
                "confirmation, and an API key entered on the server's own page (URL mode), on "
                "the protocol revision of your choice. Then the mcp> prompt, as in 'connect'."
            )
        ),
    )
    demo.add_argument(
        "--protocol",
        choices=DEMO_PROTOCOLS,
        default="auto",
        help=_("protocol revision to speak (default: auto, the newest: {revision})").format(
            revision=LATEST
        ),
    )
    demo.add_argument(
        "--store",
        metavar="URL",
        help=_("the server's store (default: sqlite:/// in $XDG_STATE_HOME/mcp-elicit/demo.db)"),
    )
    add_ui_option(demo)
    demo.add_argument(
        "--remote",
        action="store_true",
        help=_(
            "Hotel MCP as a remote server for many people: over Streamable HTTP, behind "
            "sign-in at a local OpenID provider (you sign in as alice), with one more step, "
            "'connect your calendar', by downstream OAuth at a second provider. Needs Node and "
            "the peers of a checkout (make peers; make demo ARGS=--remote runs it)"
        ),
    )
    demo.add_argument(
        "--tour",
        action="store_true",
        help=_("instead: a non-interactive tour of the forms core (no server)"),
    )
    demo.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.tour:  # the forms core only: no server, no client
        from mcp_elicit.demo import forms_tour

        forms_tour.print_tour(sys.stdout)
        return 0
    from mcp_elicit.cli._demo import demo

    return demo(args)
