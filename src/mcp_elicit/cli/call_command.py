"""``mcp-elicit call TOOL [--args JSON] [--answers FILE] [--json] [--resume TASK_ID] TARGET``:
one tool call.

TOOL and an ``http(s)://`` TARGET may come anywhere among the options; a server's command
comes after ``--``, last. A server started that way writes its stderr to its log file (named
on stderr as the call starts, and in the error if the server stops).

Elicitations on the way are answered from ``--answers`` (a JSON list, used in order), else by
the person at the terminal, else (no terminal) cancelled and marked "no person", which is said
on stderr before the call. Exit status: 0 for a result that is not an error, 1 otherwise, 2 for
bad usage.

A call the server runs as a task (2026-07-28) is followed to its end; its id is said on stderr
as it starts, and so is its status as it goes. ``--resume TASK_ID`` follows such a task again
(after the first ``call`` was stopped); ``--no-tasks`` takes no task.

This module is the command line only, cheap to import; the call is made by
:mod:`mcp_elicit.cli._call`, imported when the command runs.
"""

from __future__ import annotations

import argparse

from mcp_elicit.cli._host import add_host_options, add_no_tasks_option
from mcp_elicit.i18n import _


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    call = commands.add_parser(
        "call",
        usage="%(prog)s [options] TOOL (URL | -- COMMAND [ARGS...])",
        help=_("call one tool, answering its elicitations from a file or the terminal"),
        description=(
            _(
                "Call one tool on a server and print its result. TARGET is an http(s):// URL, "
                "before or after the options, or '-- command args...' last on the line to start "
                "the server over stdio (its stderr goes to a log file, named on stderr). "
                "A call the server runs as a task prints the task's id and status on stderr. "
                "Exit status: 0 a result that is not an error, 1 an error, 2 bad usage."
            )
        ),
    )
    call.add_argument("tool", metavar="TOOL", help=_("the tool to call"))
    call.add_argument("--args", metavar="JSON", help=_("the tool's arguments, a JSON object"))
    call.add_argument(
        "--answers",
        metavar="FILE",
        help=_(
            'answers to elicitations, in order: a JSON list of {"action": "accept", '
            '"content": {...}} / {"action": "accept", "defaults": true} / {"action": "decline"} '
            '/ {"action": "cancel"}'
        ),
    )
    call.add_argument("--json", action="store_true", help=_("print the tool result as JSON"))
    call.add_argument(
        "--resume",
        metavar="TASK_ID",
        help=_(
            "follow the task TASK_ID to its end instead of calling TOOL again: the task a "
            "call of TOOL started (its id is said on stderr as it starts), if that call was "
            "stopped. Its questions are answered as a call's are"
        ),
    )
    add_host_options(call)
    add_no_tasks_option(call)
    call.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mcp_elicit.cli._call import run_call

    return run_call(args)
