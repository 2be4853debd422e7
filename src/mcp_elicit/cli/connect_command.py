"""``mcp-elicit connect TARGET``: an interactive terminal host for any MCP server.

At the ``mcp>`` prompt: ``tools`` lists the tools, ``call TOOL {json}`` calls one, ``help``,
``quit`` (or Ctrl-D). Elicitations are answered as they come: in the terminal, or with
``--ui web`` on a local page in the browser (:class:`mcp_elicit.client.web.WebRenderer`).
A call the server runs as a task (2026-07-28) shows its status as it goes ("working… 12 s");
``--no-tasks`` takes none.

This module is the command line only, cheap to import; the session is
:mod:`mcp_elicit.cli._connect`, imported when the command runs.
"""

from __future__ import annotations

import argparse

from mcp_elicit.cli._host import add_host_options, add_no_tasks_option, add_ui_option
from mcp_elicit.i18n import _


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    connect = commands.add_parser(
        "connect",
        usage="%(prog)s [options] (URL | -- COMMAND [ARGS...])",
        help=_("an interactive host: list tools, call them, answer elicitations"),
        description=(
            _(
                "Connect to a server and use it from the terminal: list tools, call one with JSON "
                "arguments, answer its elicitations (in the terminal, or in your browser with "
                "--ui web). TARGET is an http(s):// URL, before or after the options, or "
                "'-- command args...' last on the line to start the server over stdio (its stderr "
                "goes to a log file, named as the session starts)."
            )
        ),
    )
    add_host_options(connect)
    add_no_tasks_option(connect)
    add_ui_option(connect)
    connect.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mcp_elicit.cli._connect import run_connect

    return run_connect(args)
