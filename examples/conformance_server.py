"""The server the official conformance suite runs its elicitation scenarios against, and
``mcp-elicit check server`` its own (docs/check.md).

    python examples/conformance_server.py --port 3001     # http://127.0.0.1:3001/mcp
    python examples/conformance_server.py --stdio

Elicitation and request state go through mcp-elicit (``ask`` on every revision, with the
deployment-keyed ``requestState``); the sampling and roots scenarios use the SDK's own
resolvers, as the issue allows: mcp-elicit does not ask a model or list roots.

Tool names and question keys (``user_name``, ``confirm``, ``step1``...) are the suite's; the
check tools of ``mcp-elicit check`` (forms, URL mode, the completion notice, -32042, tasks)
come from ``mcp_elicit.check.tools.add_check_tools``, as your own server can add them.
"""

from __future__ import annotations

import argparse
import enum
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import ListRoots, Resolve, Sample
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)

from mcp_elicit.check.tools import CHECK_TASK_SUPPORT, add_check_tools
from mcp_elicit.forms import Description
from mcp_elicit.server import (
    Accepted,
    Elicitation,
    TaskSettings,
    ask,
    confirm,
)
from mcp_elicit.server.keys import DeploymentKey

server = MCPServer("mcp-elicit-conformance")
# A fresh key and an in-memory store: this server keeps nothing between runs. The URL-mode
# draft too: a 2025-06-18 client that declares URL mode speaks it.
# Tasks for the check tools of the tasks extension only (2026-07-28; on 2025-11-25 they are
# the core tasks): every other tool runs as it always did.
elicitation = Elicitation(
    server,
    key=DeploymentKey.generate(),
    store="memory://",
    url_draft=True,
    tasks=TaskSettings(
        default="forbidden",
        tools={
            **CHECK_TASK_SUPPORT,  # the check tools' (mcp_elicit.check.tools)
            # the official suite's tasks-* fixtures (greet stays forbidden: sync-only)
            "slow_compute": "optional",
            "failing_job": "required",  # tasks-required-task-error calls it undeclared
            "multi_input": "optional",
            "protocol_error_job": "optional",
            "confirm_delete": "optional",
            "test_tool_with_task": "required",
        },
    ),
)


# -- 2025-11-25: pushed elicitation ---------------------------------------------------------


class Status(enum.Enum):
    ACTIVE = "active"
    INACTIVE = "inactive"
    PENDING = "pending"


@dataclass
class Defaults:
    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: Status = Status.ACTIVE
    verified: bool = True


@server.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Asks with a default on every kind of field (SEP-1034)."""
    answer = await ask(ctx, Defaults, "Please review these details")
    return f"Elicitation completed: {answer}"


# -- 2026-07-28: InputRequiredResult ----------------------------------------------------------


@dataclass
class Name:
    name: str


# The suite's: a tampered state is refused (-32602) by the sealing boundary before the tool
# runs (the untampered tool, test_input_required_result_request_state, is a check tool).
@server.tool(name="test_input_required_result_tampered_state")
async def tampered_state(ctx: Context) -> str:
    ok = await ask(ctx, Ok, "Please confirm", key="confirm")
    return f"state-ok: {ok}"


@dataclass
class Ok:
    ok: bool


@dataclass
class Color:
    color: str


@server.tool()
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Two questions, two rounds: the first answer rides in the state of the second."""
    name = await ask(ctx, Name, "Step 1: What is your name?", key="step1")
    color = await ask(ctx, Color, "Step 2: What is your favorite color?", key="step2")
    if isinstance(name, Accepted) and isinstance(color, Accepted):
        return f"{name.value.name} likes {color.value.color}."
    return f"Stopped: {name}, {color}"


@dataclass
class PromptContext:
    context: str


@server.prompt()
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that asks before it renders (prompts/get carries InputRequiredResult too)."""
    answer = await ask(
        ctx, PromptContext, "What context should the prompt use?", key="user_context"
    )
    context = answer.value.context if isinstance(answer, Accepted) else "none"
    return f"Use the following context: {context}"


@server.tool()
async def test_confirm(ctx: Context) -> str:
    """Not a suite scenario: a confirmation, for our own tests of this server."""
    return "confirmed" if await confirm(ctx, "Go ahead?") else "not confirmed"


# -- sampling and roots: the SDK's resolvers -----------------------------------------------------


def _capital() -> Sample:
    question = SamplingMessage(
        role="user", content=TextContent(type="text", text="What is the capital of France?")
    )
    return Sample([question], max_tokens=100)


def _roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def test_input_required_result_sampling(
    answer: Annotated[CreateMessageResult, Resolve(_capital)],
) -> str:
    """Samples the client's model (SDK resolver)."""
    text = answer.content.text if isinstance(answer.content, TextContent) else "?"
    return f"Model said: {text}"


@server.tool()
async def test_input_required_result_list_roots(
    roots: Annotated[ListRootsResult, Resolve(_roots)],
) -> str:
    """Lists the client's roots (SDK resolver)."""
    return f"Client exposed {len(roots.roots)} root(s)."


@server.tool()
async def test_input_required_result_multiple_inputs(ctx: Context) -> InputRequiredResult | str:
    """Three requests in one result (elicitation, sampling, roots), hand-rolled on the SDK's
    types because ``ask`` asks one question per round."""
    responses = ctx.input_responses or {}
    if {"user_name", "greeting", "client_roots"} <= responses.keys() and ctx.request_state:
        return "All inputs received."
    return InputRequiredResult(
        input_requests={
            "user_name": _name_request(),
            "greeting": _greeting_request(),
            "client_roots": {"method": "roots/list", "params": {}},
        },
        request_state="multiple-inputs",
    )


@server.tool()
async def test_input_required_result_capabilities(ctx: Context) -> InputRequiredResult:
    """Asks only for what the request's capabilities allow."""
    declared = ctx.client_capabilities
    requests: dict[str, Any] = {}
    if declared is None or declared.sampling is not None:
        requests["sample"] = _greeting_request()
    if declared is None or declared.elicitation is not None:
        requests["ask"] = _name_request()
    return InputRequiredResult(input_requests=requests, request_state="capability-gated")


def _name_request() -> ElicitRequest:
    return ElicitRequest(
        params=ElicitRequestFormParams(
            message="What is your name?",
            requested_schema={
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        )
    )


def _greeting_request() -> dict[str, Any]:
    return {
        "method": "sampling/createMessage",
        "params": {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}
            ],
            "maxTokens": 50,
        },
    }


# -- the check tools of mcp-elicit check (docs/check.md): forms, URL mode, -32042, tasks -------

add_check_tools(server, elicitation)


# -- the official suite's tasks-* fixtures (its names and shapes) -------------------------------


@server.tool()
async def greet(ctx: Context, name: str) -> str:
    """Suite fixture: sync-only."""
    return f"Hello, {name}!"


@server.tool()
async def slow_compute(ctx: Context, seconds: float, label: str = "") -> str:
    """Suite fixture: a task when declared; sleeps ``seconds``, then a result."""
    await anyio.sleep(seconds)
    return f"Computed {label} in {seconds:g} s."


@server.tool()
async def failing_job(ctx: Context) -> str:
    """Suite fixture: a tool execution error after about a second."""
    await anyio.sleep(1)
    raise ToolError("The job failed.")


@server.tool()
async def protocol_error_job(ctx: Context) -> str:
    """Suite fixture: a protocol-level error."""
    raise MCPError(-32603, "The job's call failed.")


@server.tool()
async def confirm_delete(ctx: Context, filename: str) -> str:
    """Suite fixture: parks for a confirmation."""
    if await confirm(ctx, f"Delete {filename}?"):
        return f"Deleted {filename}."
    return f"Kept {filename}."


@dataclass
class NameAndConfirm:
    name: Annotated[str, Description("A name")]
    confirm: Annotated[bool, Description("Go ahead")]


@server.tool()
async def multi_input(ctx: Context) -> str:
    """Suite fixture: two questions at the same time."""
    answers: list[Any] = []
    async with anyio.create_task_group() as both:
        for message in ("First input?", "Second input?"):
            both.start_soon(lambda m: _collect(ctx, m, answers), message)
    return f"Got {len(answers)} inputs."


async def _collect(ctx: Context, message: str, answers: list[Any]) -> None:
    answers.append(await ask(ctx, NameAndConfirm, message))


@server.tool()
async def test_tool_with_task(ctx: Context) -> str:
    """Suite fixture: runs only as a task."""
    return "Ran as a task."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=3001)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--stdio", action="store_true", help="serve over stdio instead")
    args = parser.parse_args()
    if args.stdio:
        elicitation.run("stdio")
    else:
        elicitation.run("streamable-http", host=args.host, port=args.port)


if __name__ == "__main__":
    main()
