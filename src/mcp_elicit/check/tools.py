"""The check tools, for your own server: what ``mcp-elicit check server`` calls to see how a
server asks (docs/check.md, "Checking your own server").

A check can only watch a server ask a question when some tool asks one. Your tools ask
questions of their own, at moments of their own, so the checks call these instead: a form in
each revision's way, a URL-mode question, "open this link first", and the task tools. Add
them when you run the checks, never in production (they ask people nothing useful)::

    from mcp_elicit.check.tools import CHECK_TASK_SUPPORT, add_check_tools

    elicitation = Elicitation(tasks=TaskSettings(default="forbidden", tools=CHECK_TASK_SUPPORT))
    server = MCPServer("booking", **elicitation.server_options())
    if os.environ.get("MYAPP_CHECK_TOOLS") == "1":  # off unless asked for
        add_check_tools(server, elicitation)

Their names and shapes are the ones :mod:`mcp_elicit.check.catalog` names (``FORM_TOOL``,
``URL_TOOL``, ...); the official conformance suite's own fixtures
(``examples/conformance_server.py``) are not here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from mcp_elicit.check import catalog
from mcp_elicit.forms import Description, Email
from mcp_elicit.protocol.tasks import TaskSupport
from mcp_elicit.server import (
    Accepted,
    Elicitation,
    UrlRequired,
    ask,
    ask_url,
    task_status,
)
from mcp_elicit.stores import FlowStatus

CHECK_PAGE = "https://check.invalid/done"
"""The check tools' link: nothing is to be done there, and the checker never opens it."""

CHECK_TASK_SUPPORT: Mapping[str, TaskSupport] = {
    catalog.TASK_SLOW_TOOL: "optional",
    catalog.TASK_ASK_TOOL: "optional",
    catalog.TASK_TWO_TOOL: "optional",
    catalog.TASK_BOTH_TOOL: "optional",
    catalog.TASK_TOOL_ERROR_TOOL: "optional",
    catalog.TASK_PROTOCOL_ERROR_TOOL: "optional",
    catalog.TASK_REQUIRED_TOOL: "required",
    catalog.TASK_FORBIDDEN_TOOL: "forbidden",
    catalog.TASK_LINK_TOOL: "optional",
}
"""What ``taskSupport`` each task tool needs: give it to ``TaskSettings(tools=...)`` (with
your own tools' entries) for the task checks to apply."""

# How long the link of URL_REQUIRED_TOOL takes to be "opened" (its flow finished).
_FINISH_AFTER = 0.5


@dataclass
class UserInfo:
    username: Annotated[str, Description("User's response")]
    email: Annotated[Email, Description("User's email address")]


@dataclass
class Name:
    name: str


@dataclass
class Ok:
    ok: bool


@dataclass
class Traveller:
    name: Annotated[str, Description("Who travels")]


ENUMS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}
"""Every enum shape (SEP-1330), as the official suite's enum fixture asks."""


def add_check_tools(server: MCPServer, elicitation: Elicitation) -> tuple[str, ...]:
    """Add the check tools to ``server`` (whose elicitation is ``elicitation``); returns
    their names. Call it only when you run the checks (behind a setting of yours).

    ``test_url_elicitation_required`` remembers its open links in this process: run the
    checks against one instance (or with sessions kept to one)."""
    required: dict[tuple[str, str], str] = {}  # (user, the call's key) -> its flow's id
    finishing: set[asyncio.Task[None]] = set()

    async def finish_soon(flow_id: str, user: str) -> None:
        await asyncio.sleep(_FINISH_AFTER)
        await elicitation.flows.complete(flow_id, user=user)

    async def link_done_at_once(ctx: Context, message: str) -> str:
        user = elicitation.user_of(ctx)
        flow = await elicitation.flows.start(user=user, purpose="mcp-elicit check")
        await elicitation.flows.complete(flow.id, user=user)
        answer = await ask_url(ctx, CHECK_PAGE, message, flow=flow)
        return type(answer).__name__

    @server.tool(name=catalog.FORM_TOOL)
    async def form(message: str, ctx: Context) -> str:
        """Check tool: asks for a username and an email address (pushed on the 2025
        revisions, an input request on 2026-07-28)."""
        return f"User response: {await ask(ctx, UserInfo, message)}"

    @server.tool(name=catalog.ENUMS_TOOL)
    async def enums(ctx: Context) -> str:
        """Check tool: asks with every enum shape (SEP-1330)."""
        return f"Elicitation completed: {await ask(ctx, ENUMS, 'Please pick some options')}"

    @server.tool(name=catalog.ROUND_TOOL)
    async def in_rounds(ctx: Context) -> str:
        """Check tool: asks for a name under the key ``user_name``."""
        answer = await ask(ctx, Name, "What is your name?", key="user_name")
        if isinstance(answer, Accepted):
            return f"Hello, {answer.value.name}!"
        return f"No name: {answer}"

    @server.tool(name=catalog.STATE_TOOL)
    async def with_state(ctx: Context) -> str:
        """Check tool: asks for a confirmation; on 2026-07-28 the answer travels back in the
        sealed requestState."""
        return f"state-ok: {await ask(ctx, Ok, 'Please confirm', key='confirm')}"

    @server.tool(name=catalog.URL_TOOL)
    async def url_question(ctx: Context) -> str:
        """Check tool: one URL-mode question; its interaction counts as done once accepted."""
        return f"URL elicitation: {await link_done_at_once(ctx, 'Open the check page.')}"

    @server.tool(name=catalog.URL_REQUIRED_TOOL)
    async def url_required(ctx: Context, key: str) -> str:
        """Check tool: "open this link first" (-32042, -32604 on the draft, an input request
        on 2026-07-28); the link's interaction finishes half a second later; then the same
        call (the same ``key``) works."""
        user = elicitation.user_of(ctx)
        flow = await elicitation.flows.get(required.get((user, key), ""))
        if flow is not None and flow.status is FlowStatus.COMPLETED:
            del required[user, key]
            return "The link was opened: done."
        if flow is None or flow.status.finished:
            flow = await elicitation.flows.start(user=user, purpose="mcp-elicit check")
            required[user, key] = flow.id
            task = asyncio.create_task(finish_soon(flow.id, user))
            finishing.add(task)
            task.add_done_callback(finishing.discard)
        raise UrlRequired(
            elicitation.flow_url(flow.id), "Open the check page first.", flow_id=flow.id
        )

    @server.tool(name=catalog.TASK_SLOW_TOOL)
    async def slow(ctx: Context, seconds: float) -> str:
        """Check tool: works for ``seconds`` (as a task when the call asks for one), saying
        so in the task's status message."""
        task_status(f"Working for {seconds:g} s")
        await anyio.sleep(seconds)
        return f"Worked for {seconds:g} s."

    @server.tool(name=catalog.TASK_ASK_TOOL)
    async def task_ask(ctx: Context) -> str:
        """Check tool: asks one form, then ends with what was answered."""
        answer = await ask(ctx, Traveller, "Who travels?")
        return f"Travelling: {answer.value.name}" if isinstance(answer, Accepted) else str(answer)

    @server.tool(name=catalog.TASK_TWO_TOOL)
    async def task_two(ctx: Context) -> str:
        """Check tool: asks one form, then (once answered) another."""
        first = await ask(ctx, Traveller, "Who travels?")
        second = await ask(ctx, Traveller, "Who travels with them?")
        names = [a.value.name for a in (first, second) if isinstance(a, Accepted)]
        return "Travelling: " + ", ".join(names)

    @server.tool(name=catalog.TASK_BOTH_TOOL)
    async def task_both(ctx: Context) -> str:
        """Check tool: asks two forms at the same time (two keys outstanding at once)."""
        answers: dict[str, Any] = {}

        async def one(message: str) -> None:
            answers[message] = await ask(ctx, Traveller, message)

        async with anyio.create_task_group() as both:
            both.start_soon(one, "Who travels?")
            both.start_soon(one, "Who pays?")
        return "; ".join(f"{message} {answer}" for message, answer in sorted(answers.items()))

    @server.tool(name=catalog.TASK_TOOL_ERROR_TOOL)
    async def tool_error(ctx: Context) -> str:
        """Check tool: ends with a tool error (isError: a result, so a completed task)."""
        raise ToolError("The check tool failed on purpose.")

    @server.tool(name=catalog.TASK_PROTOCOL_ERROR_TOOL)
    async def protocol_error(ctx: Context) -> str:
        """Check tool: ends with a JSON-RPC error (a failed task)."""
        raise MCPError(-32603, "The check tool's call failed on purpose.")

    @server.tool(name=catalog.TASK_REQUIRED_TOOL)
    async def task_only(ctx: Context) -> str:
        """Check tool: runs only as a task (-32021 for a 2026-07-28 call that does not
        declare the extension; -32601 for a 2025-11-25 call without ``task``)."""
        return "Ran as a task."

    @server.tool(name=catalog.TASK_FORBIDDEN_TOOL)
    async def never_a_task(ctx: Context) -> str:
        """Check tool: never runs as a task (-32601 for a 2025-11-25 call with ``task``)."""
        return "Ran without a task."

    @server.tool(name=catalog.TASK_LINK_TOOL)
    async def task_link(ctx: Context) -> str:
        """Check tool: one URL-mode question (in a 2025-11-25 task: asked on tasks/result),
        done once accepted; its completion notice names the task."""
        answer = await link_done_at_once(ctx, "Open the check page.")
        return f"URL elicitation in a task: {answer}"

    return CHECK_TOOLS


CHECK_TOOLS: tuple[str, ...] = (
    catalog.FORM_TOOL,
    catalog.ENUMS_TOOL,
    catalog.ROUND_TOOL,
    catalog.STATE_TOOL,
    catalog.URL_TOOL,
    catalog.URL_REQUIRED_TOOL,
    *CHECK_TASK_SUPPORT,
)
"""Every tool :func:`add_check_tools` adds, by name."""

__all__ = ["CHECK_PAGE", "CHECK_TASK_SUPPORT", "CHECK_TOOLS", "add_check_tools"]
