"""``mcp-elicit call``, run (its command line: :mod:`mcp_elicit.cli.call_command`): one tool
call, its elicitations answered from ``--answers``, else by the person at the terminal, else
cancelled as "no person" (said once on stderr, before the call).

A call the server runs as a task (2026-07-28) is followed to its end; what is said of it goes
to stderr, as every other word to the person does (stdout carries the result alone): its id as
it starts, so that ``--resume`` can follow it again if this call is stopped, then its status
(cleaned: the server's words)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError

from mcp_elicit.cli._host import say
from mcp_elicit.cli._io import UsageError, print_json
from mcp_elicit.cli._running import (
    announce_log,
    connection_options,
    describe_failure,
    handler_of,
    screen,
    server_of,
)
from mcp_elicit.client import (
    AnswersError,
    ElicitingClient,
    ScriptedRenderer,
    TaskStatus,
    load_answers,
)
from mcp_elicit.client.handler import open_in_browser
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.prompts import Notice
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.i18n import N_, _
from mcp_elicit.protocol import parse_missing_capability_error
from mcp_elicit.protocol.codes import TASKS_EXTENSION

NO_PERSON = N_(
    "no terminal and no --answers file: any question the server asks will be cancelled (no-person)"
)


def run_call(args: argparse.Namespace) -> int:
    arguments = _arguments(args.args)
    if args.resume is not None and (args.args is not None or args.no_tasks):
        # The arguments went with the call that started the task; a task needs tasks.
        raise UsageError(_("--resume follows a task already started: no --args, no --no-tasks"))
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

        renderer = TerminalRenderer(output=screen())
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
        tasks=not args.no_tasks,
        task_status=_status_teller(resuming=args.resume is not None),
        **connection_options(args, server),
    )
    return anyio.run(_call, client, args, arguments)


async def _call(
    client: ElicitingClient, args: argparse.Namespace, arguments: dict[str, Any]
) -> int:
    announce_log(client.server)
    try:
        async with client:
            if args.resume is not None:
                result = await client.resume_task(args.resume, tool=args.tool)
            else:
                result = await client.call_tool(args.tool, arguments)
    except Exception as error:  # every failure is a message and exit 1, never a traceback
        say(describe_failure(error, tool=args.tool, server=client.server))
        if args.no_tasks and _needs_tasks(error):
            say(
                _("the server runs {tool} only as a task: call it without --no-tasks").format(
                    tool=args.tool
                )
            )
        return 1
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    if args.json:
        print_json(dumped)
    else:
        _print_result(dumped)
    return 1 if result.is_error else 0


def _status_teller(*, resuming: bool) -> Callable[[TaskStatus], Awaitable[None]]:
    """What ``call`` says of a task on stderr: its whole id once (the handle to resume it),
    then each status report under the id's first characters."""

    async def tell(report: TaskStatus) -> None:
        task = clean(report.task_id, newlines=False)  # the server's words, as any other
        # "--resume=ID", not "--resume ID": an id may begin with "-" (token_urlsafe's alphabet
        # has it), and argparse would read that as an option; quoted for any server's id.
        if report.first and not resuming:
            say(
                _(
                    "task {task} started; if this call is stopped, follow it again with "
                    "--resume={quoted}"
                ).format(task=task, quoted=shlex.quote(task))
            )
        say(_("task {task}…: {status}").format(task=task[:6], status=report.line()))

    return tell


def _needs_tasks(error: BaseException) -> bool:
    """``error`` is the server's -32021 naming the tasks extension."""
    if not isinstance(error, MCPError):
        return False
    raw = {"code": error.code, "data": error.error.data}
    required = parse_missing_capability_error(raw) or {}
    extensions = required.get("extensions")
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions


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
