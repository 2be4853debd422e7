"""``mcp-elicit call``, run (its command line: :mod:`mcp_elicit.cli.call_command`): one tool
call, its elicitations answered from ``--answers``, else by the person at the terminal, else
cancelled as "no person" (said once on stderr, before the call)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import anyio

from mcp_elicit.cli._host import say
from mcp_elicit.cli._io import UsageError, print_json
from mcp_elicit.cli._running import (
    announce_log,
    connection_options,
    describe_failure,
    handler_of,
    server_of,
)
from mcp_elicit.client import AnswersError, ElicitingClient, ScriptedRenderer, load_answers
from mcp_elicit.client.handler import open_in_browser
from mcp_elicit.client.prompts import Notice
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.i18n import N_, _

NO_PERSON = N_(
    "no terminal and no --answers file: any question the server asks will be cancelled (no-person)"
)


def run_call(args: argparse.Namespace) -> int:
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

        renderer = TerminalRenderer(output=_screen())
    else:
        renderer = None
    handler = handler_of(args, renderer, opener=opener)
    if renderer is None:
        # Nobody to ask: the handler cancels every question (the audit log says "no-person").
        # Said once, up front, rather than found out afterwards from a cancelled result.
        say(_(NO_PERSON))
    client = ElicitingClient(
        server,
        handler,
        protocol=args.protocol,
        read_timeout=args.timeout,
        **connection_options(args, server),
    )
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
        raise UsageError(
            _("--args: not JSON: {why} at column {column}").format(
                why=error.msg, column=error.colno
            )
        ) from None
    if not isinstance(value, dict):
        raise UsageError(_("--args: must be a JSON object of the tool's arguments"))
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
    say(_("consented to open {url}").format(url=url))


# A notice's level, as a person reads it.
_LEVELS = {"info": N_("info"), "warning": N_("warning"), "error": N_("error")}


def _say_notice(notice: Notice) -> None:
    level = _LEVELS.get(notice.level)
    say(f"{_(level) if level else notice.level}: {notice.server}: {notice.text}")


def _screen() -> Any:
    """Where the questions are drawn: the terminal. stdout when it is one; when stdout goes
    to a file or a pipe (`call ... --json > result.json`), stdout carries the result alone and
    the questions go to stderr, the terminal the person sees (``None`` when neither is one:
    prompt_toolkit's default)."""
    if sys.stdout.isatty() or not sys.stderr.isatty():
        return None
    from prompt_toolkit.output import create_output

    return create_output(stdout=sys.stderr)
