"""A Google ADK agent with no LLM behind it, for the tests of
:mod:`mcp_elicit.integrations.google_adk`.

- :class:`CallsOnce` — a ``google.adk.models.BaseLlm`` that calls one tool, then answers with
  what the tool returned; it keeps every request the agent sent it (what "the model saw"). No
  network, no key: ADK reaches Google only through its own ``Gemini`` model, never used here.
- :func:`run_agent` — a real ``LlmAgent`` with the toolset, run by an ``InMemoryRunner``.
- :func:`stdio_params` — the fastmcp tests' server processes, as ADK's ``StdioConnectionParams``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from fastmcp.client.transports import StdioTransport
from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
from google.genai import types
from mcp import StdioServerParameters
from pydantic import Field


class CallsOnce(BaseLlm):
    """Calls ``tool`` once with no arguments, then says ``tool said: <its response>``.

    ``requests`` keeps each ``LlmRequest`` the agent sent: what the model was shown."""

    tool: str
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        last = llm_request.contents[-1]
        for part in last.parts or []:
            if part.function_response is not None:
                said = json.dumps(part.function_response.response, sort_keys=True)
                yield LlmResponse(
                    content=types.Content(
                        role="model", parts=[types.Part(text=f"tool said: {said}")]
                    )
                )
                return
        call = types.FunctionCall(name=self.tool, args={})
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(function_call=call)])
        )

    def responses(self) -> list[dict[str, Any]]:
        """Every tool response the model was sent."""
        return [
            dict(part.function_response.response or {})
            for request in self.requests
            for content in request.contents
            for part in content.parts or []
            if part.function_response is not None
        ]


async def run_agent(toolset: McpToolset, tool: str) -> tuple[str, CallsOnce]:
    """A real ``LlmAgent`` with ``toolset`` asked to use ``tool``: its final text, and the
    model (what it was shown). The toolset is closed afterwards."""
    model = CallsOnce(model="calls-once", tool=tool)
    agent = LlmAgent(name="host", model=model, instruction="Use the tools.", tools=[toolset])
    runner = InMemoryRunner(agent=agent, app_name="adk-test")
    try:
        session = await runner.session_service.create_session(app_name="adk-test", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text=f"use {tool}")])
        final = ""
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            if event.is_final_response() and event.content and event.content.parts:
                final = "".join(p.text or "" for p in event.content.parts)
    finally:
        await runner.close()
        await toolset.close()
    return final, model


def stdio_params(transport: StdioTransport, *, timeout: float = 5.0) -> StdioConnectionParams:
    """ADK's connection parameters for one of the fastmcp tests' server processes
    (``quick_start``, ``secret_server``); ``timeout`` is ADK's (default 5 s)."""
    server = StdioServerParameters(
        command=transport.command, args=transport.args, env=transport.env, cwd=transport.cwd
    )
    return StdioConnectionParams(server_params=server, timeout=timeout)
