"""``mcp-elicit call TOOL [--args JSON] [--answers FILE] [--json] TARGET``: one tool call.

TOOL and an ``http(s)://`` TARGET may come anywhere among the options; a server's command
comes after ``--``, last. A server started that way writes its stderr to its log file (named
on stderr as the call starts, and in the error if the server stops).

Elicitations on the way are answered from ``--answers`` (a JSON list, used in order), else by
the person at the terminal, else (no terminal) cancelled and marked "no person". Exit status:
0 for a result that is not an error, 1 otherwise, 2 for bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import anyio

from mcp_elicit.cli._host import add_host_options, announce_log, handler_of, say, server_of
from mcp_elicit.cli._io import UsageError, print_json
from mcp_elicit.cli._running import describe_failure
from mcp_elicit.client import AnswersError, ElicitingClient, ScriptedRenderer, load_answers
from mcp_elicit.client.handler import open_in_browser
from mcp_elicit.client.prompts import Notice
from mcp_elicit.client.renderer import Renderer


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    call = commands.add_parser(
        "call",
        help="call one tool, answering its elicitations from a file or the terminal",
        description=(
            "Call one tool on a server and print its result. TARGET is an http(s):// URL, "
            "before or after the options, or '-- command args...' last on the line to start "
            "the server over stdio (its stderr goes to a log file, named on stderr). "
            "Exit status: 0 a result that is not an error, 1 an error, 2 bad usage."
        ),
    )
    call.add_argument("tool", metavar="TOOL", help="the tool to call")
    call.add_argument("--args", metavar="JSON", help="the tool's arguments, a JSON object")
    call.add_argument(
        "--answers",
        metavar="FILE",
        help='answers to elicitations, in order: a JSON list of {"action": "accept", '
        '"content": {...}} / {"action": "accept", "defaults": true} / {"action": "decline"} '
        '/ {"action": "cancel"}',
    )
    call.add_argument("--json", action="store_true", help="print the tool result as JSON")
    add_host_options(call)
    call.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    arguments = _arguments(args.args)
    server = server_of(args)
    renderer: Renderer | None
    opener: Callable[[str], object] = open_in_browser
    if args.answers is not None:
        try:
            answers = load_answers(args.answers)
        except AnswersError as error:
            raise UsageError(f"--answers: {error}") from None
        renderer = ScriptedRenderer(answers, exhausted=say, notices=_say_notice)
        # Scripted consent opens nothing: the answers file stands for the person.
        opener = _say_consent
    elif sys.stdin.isatty():
        from mcp_elicit.client.terminal import TerminalRenderer

        renderer = TerminalRenderer()
    else:
        renderer = None
    handler = handler_of(args, renderer, opener=opener)
    client = ElicitingClient(server, handler, protocol=args.protocol, read_timeout=args.timeout)
    return anyio.run(_call, client, args, arguments)


async def _call(
    client: ElicitingClient, args: argparse.Namespace, arguments: dict[str, Any]
) -> int:
    announce_log(client.server)
    try:
        async with client:
            result = await client.call_tool(args.tool, arguments)
    except Exception as error:  # every failure is a message and exit 1, never a traceback
        say(describe_failure(error, tool=args.tool, server=client.server))
        return 1
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    if args.json:
        print_json(dumped)
    else:
        _print_result(dumped)
    return 1 if result.is_error else 0


def _arguments(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"--args: not JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(value, dict):
        raise UsageError("--args: must be a JSON object of the tool's arguments")
    return value


def _print_result(result: dict[str, Any]) -> None:
    shown = False
    for item in result.get("content", []):
        if item.get("type") == "text":
            print(item.get("text", ""))
        else:
            print(json.dumps(item, ensure_ascii=False))
        shown = True
    if not shown and "structuredContent" in result:
        print(json.dumps(result["structuredContent"], ensure_ascii=False, indent=2))


def _say_consent(url: str) -> None:
    say(f"consented to open {url}")


def _say_notice(notice: Notice) -> None:
    say(f"{notice.level}: {notice.server}: {notice.text}")
