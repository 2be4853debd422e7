"""The server the official conformance suite runs its elicitation scenarios against, and
``mcp-elicit check server`` its own (docs/check.md).

    python examples/conformance_server.py --port 3001     # http://127.0.0.1:3001/mcp
    python examples/conformance_server.py --stdio

Elicitation and request state go through mcp-elicit (``ask`` on every revision, with the
deployment-keyed ``requestState``); the sampling and roots scenarios use the SDK's own
resolvers, as the issue allows: mcp-elicit does not ask a model or list roots.

Tool names and question keys (``user_name``, ``confirm``, ``step1``...) are the suite's;
``test_url_elicitation`` and ``test_url_elicitation_required`` are the check tools of
``mcp-elicit check``, in the same style (URL mode, the completion notice, -32042).
"""

from __future__ import annotations

import argparse
import asyncio
import enum
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import ListRoots, Resolve, Sample
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)

from mcp_elicit.forms import Description, Email
from mcp_elicit.server import Accepted, Elicitation, UrlRequired, ask, ask_url, confirm
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.stores import FlowStatus

server = MCPServer("mcp-elicit-conformance")
# A fresh key and an in-memory store: this server keeps nothing between runs. The URL-mode
# draft too: a 2025-06-18 client that declares URL mode speaks it.
elicitation = Elicitation(server, key=DeploymentKey.generate(), store="memory://", url_draft=True)


# -- 2025-11-25: pushed elicitation ---------------------------------------------------------


@dataclass
class UserInfo:
    username: Annotated[str, Description("User's response")]
    email: Annotated[Email, Description("User's email address")]


@server.tool()
async def test_elicitation(message: str, ctx: Context) -> str:
    """Asks for a username and an email address."""
    answer = await ask(ctx, UserInfo, message)
    return f"User response: {answer}"


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


ENUMS = {
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


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Asks with every enum shape (SEP-1330), from a hand-written schema."""
    answer = await ask(ctx, ENUMS, "Please pick some options")
    return f"Elicitation completed: {answer}"


# -- 2026-07-28: InputRequiredResult ----------------------------------------------------------


@dataclass
class Name:
    name: str


@server.tool()
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks for a name under the key ``user_name``."""
    answer = await ask(ctx, Name, "What is your name?", key="user_name")
    return f"Hello, {answer.value.name}!" if isinstance(answer, Accepted) else f"No name: {answer}"


@server.tool()
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Asks for a confirmation; the answer travels back in the sealed requestState."""
    ok = await ask(ctx, Ok, "Please confirm", key="confirm")
    return f"state-ok: {ok}"


# A tampered state is refused (-32602) by the sealing boundary before the tool runs.
server.tool(name="test_input_required_result_tampered_state")(
    test_input_required_result_request_state
)


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


# -- the check tools (mcp-elicit check) -------------------------------------------------------
#
# A link's interaction is on the server's own hosted page; there the person would do something.
# Here nothing is to be done, so the tool finishes the flow itself: at once for
# test_url_elicitation (the person agreed: done), half a second after the -32042 for
# test_url_elicitation_required (the person went to the page and came back).

# The check tools' link: nothing is to be done there, and the checker never opens it.
CHECK_PAGE = "https://check.invalid/done"
# (user, the call's key) -> the flow a -32042 of test_url_elicitation_required sent
_REQUIRED: dict[tuple[str, str], str] = {}
_FINISHING: set[asyncio.Task[None]] = set()


@server.tool()
async def test_url_elicitation(ctx: Context) -> str:
    """Check tool: one URL-mode question; its interaction counts as done once accepted (a
    flow of its own per call, finished at once: its id is the request's elicitationId)."""
    user = elicitation.user_of(ctx)
    flow = await elicitation.flows.start(user=user, purpose="mcp-elicit check")
    await elicitation.flows.complete(flow.id, user=user)
    answer = await ask_url(ctx, CHECK_PAGE, "Open the check page.", flow=flow)
    return f"URL elicitation: {type(answer).__name__}"


@server.tool()
async def test_url_elicitation_required(ctx: Context, key: str) -> str:
    """Check tool: "open this link first" (-32042, -32604 on the draft, an input request on
    2026-07-28); the link's interaction finishes half a second later; then the same call
    (the same ``key``) works."""
    user = elicitation.user_of(ctx)
    flow = await elicitation.flows.get(_REQUIRED.get((user, key), ""))
    if flow is not None and flow.status is FlowStatus.COMPLETED:
        del _REQUIRED[user, key]
        return "The link was opened: done."
    if flow is None or flow.status.finished:
        flow = await elicitation.flows.start(user=user, purpose="mcp-elicit check")
        _REQUIRED[user, key] = flow.id
        finishing = asyncio.create_task(_finish_soon(flow.id, user))
        _FINISHING.add(finishing)
        finishing.add_done_callback(_FINISHING.discard)
    raise UrlRequired(elicitation.flow_url(flow.id), "Open the check page first.", flow_id=flow.id)


async def _finish_soon(flow_id: str, user: str) -> None:
    await asyncio.sleep(0.5)
    await elicitation.flows.complete(flow_id, user=user)


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
