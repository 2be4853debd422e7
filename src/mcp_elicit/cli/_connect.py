"""``mcp-elicit connect``, run (its command line: :mod:`mcp_elicit.cli.connect_command`): an
interactive terminal host for any MCP server, and the ``mcp>`` prompt ``demo`` ends with."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

import anyio
from mcp.shared.exceptions import MCPError

from mcp_elicit.cli._running import (
    announce_log,
    connection_options,
    describe_failure,
    handler_of,
    server_of,
    stopped_server,
)
from mcp_elicit.client import ElicitingClient, RefusedInputLoop, TaskError, UrlElicitationLoop
from mcp_elicit.i18n import N_, _, aligned

if TYPE_CHECKING:
    from mcp_elicit.client.web import WebRenderer

# The prompt's commands (typed as they are, in any language) and what each does.
COMMANDS = (
    ("tools", N_("list the server's tools")),
    ("call TOOL [JSON]", N_("call TOOL with a JSON object of arguments (default {{}})")),
    ("help", N_("show this help")),
    ("quit", N_("disconnect (also Ctrl-D)")),
)


def help_text() -> str:
    """What ``help`` prints at the ``mcp>`` prompt, in the language in effect."""
    rows = [(f"{command} ", _(does).format()) for command, does in COMMANDS]
    return "\n".join([_("Commands:"), *aligned(rows, indent="  ")])


def run_connect(args: argparse.Namespace) -> int:
    server = server_of(args)
    if args.ui == "web":
        from mcp_elicit.client.web import WebRenderer

        page = WebRenderer()
        # The page opens a link itself, from the person's click on it: not the handler.
        handler = handler_of(args, page)
        client = ElicitingClient(
            server,
            handler,
            protocol=args.protocol,
            read_timeout=args.timeout,
            tasks=not args.no_tasks,
            **connection_options(args, server),
        )
        return anyio.run(_web_session, page, client)

    from mcp_elicit.client.terminal import TerminalRenderer

    handler = handler_of(args, TerminalRenderer())
    client = ElicitingClient(
        server,
        handler,
        protocol=args.protocol,
        read_timeout=args.timeout,
        tasks=not args.no_tasks,
        **connection_options(args, server),
    )
    return anyio.run(_session, client)


async def _web_session(page: WebRenderer, client: ElicitingClient) -> int:
    try:
        async with page:
            return await _session(client)
    except OSError as error:  # no loopback socket to serve the page on
        print(
            "mcp-elicit: "
            + _("cannot serve the answer page on 127.0.0.1: {why}").format(why=error),
            flush=True,
        )
        return 1


async def _session(client: ElicitingClient) -> int:
    from prompt_toolkit import PromptSession

    announce_log(client.server)
    try:
        async with client:
            return await repl(client, PromptSession())
    except Exception as error:
        print(f"mcp-elicit: {describe_failure(error, server=client.server)}", flush=True)
        return 1


async def repl(client: ElicitingClient, session: Any) -> int:
    print(
        _("Connected to {server} (protocol {protocol}). Type 'help' for commands.").format(
            server=client.server_name, protocol=client.protocol_version
        ),
        flush=True,
    )
    while True:
        try:
            line = (await session.prompt_async("mcp> ")).strip()
        except KeyboardInterrupt:
            continue
        except EOFError:
            return 0
        if not line:
            continue
        command, _space, rest = line.partition(" ")
        if command in ("quit", "exit"):
            return 0
        if command == "help":
            print(help_text())
        elif command == "tools":
            await _tools(client)
        elif command == "call":
            await _call(client, rest.strip())
        else:
            print(
                _("Unknown command {command}. Type 'help' for commands.").format(
                    command=repr(command)
                )
            )
        if stopped_server(client.server) is not None:
            return 1  # nothing more can be asked of it; the error said where its log is


async def _tools(client: ElicitingClient) -> None:
    tools = await client.list_tools()
    if not tools:
        print(_("No tools."))
    for tool in tools:
        summary = (tool.description or "").strip().splitlines()
        print(f"  {tool.name}" + (f" — {summary[0]}" if summary else ""))


async def _call(client: ElicitingClient, rest: str) -> None:
    name, _space, text = rest.partition(" ")
    if not name:
        print(_("Usage: call TOOL [JSON]"))
        return
    try:
        arguments = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as error:
        print(
            _("Arguments are not JSON: {why} at column {column}").format(
                why=error.msg, column=error.colno
            )
        )
        return
    if not isinstance(arguments, dict):
        print(
            _("Arguments must be a JSON object, e.g. {example}").format(example='{"city": "Paris"}')
        )
        return
    try:
        result = await client.call_tool(name, arguments)
    except (MCPError, UrlElicitationLoop, RefusedInputLoop, TaskError, TimeoutError) as error:
        print(
            _("Error: {message}").format(
                message=describe_failure(error, tool=name, server=client.server)
            )
        )
        return
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    print(_("Result (error):") if result.is_error else _("Result:"))
    for item in dumped.get("content", []):
        text_item = item.get("text") if item.get("type") == "text" else json.dumps(item)
        print(f"  {text_item}")
    if not dumped.get("content") and "structuredContent" in dumped:
        print("  " + json.dumps(dumped["structuredContent"], ensure_ascii=False))
