"""The fastmcp adapter: ``ask``, ``secret``, ``UrlRequired`` and the rest inside the tools of a
fastmcp ``FastMCP`` server, through the same core as an ``MCPServer``'s
(:func:`mcp_elicit.server.middleware.serve`).

fastmcp's public seams carry it: the ``FastMCP(middleware=..., request_state_security=...)``
arguments (``Elicitation.fastmcp_options()``), its ``Middleware.on_call_tool``, and
``InputRequiredToolResult`` for a 2026-07-28 question. One private name is read (through
``mcp_elicit._sdk``): the SDK request context fastmcp wraps, for the client's revision and
capabilities and for the identity. What fastmcp cannot carry is written in docs/fastmcp.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import InputRequiredToolResult, ToolResult
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.server.request_state import RequestStateSecurity

from mcp_elicit import _sdk
from mcp_elicit.server.middleware import Finished, InputRequested, ToolFailed, serve
from mcp_elicit.server.runtime import Runtime
from mcp_elicit.server.url_mode import UrlRequired

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from starlette.applications import Starlette


class FastMCPElicitation(Middleware):
    """Elicitation for the tools of a ``FastMCP`` server (put it first in ``middleware``:
    a question must leave before other middleware reads the tool's result)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def on_call_tool(
        self,
        context: MiddlewareContext[types.CallToolRequestParams],
        call_next: CallNext[types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        fastmcp_context = context.fastmcp_context
        request_context = fastmcp_context.request_context if fastmcp_context else None
        if request_context is None:  # not an MCP request (a direct call in-process)
            return await call_next(context)
        request = _sdk.sdk_context_of(request_context)

        async def run() -> ToolResult:
            # fastmcp turns what a tool raises into its own ToolError (the text masked when
            # mask_error_details is on). Ours are meant for the client: a link to send is
            # taken back out, and our tool errors keep their words.
            try:
                return await call_next(context)
            except ToolError as error:
                cause = error.__cause__
                if isinstance(cause, UrlRequired):
                    raise cause from None
                if isinstance(cause, SdkToolError):
                    raise ToolError(str(cause)) from cause
                raise

        outcome = await serve(self.runtime, request, run)
        match outcome:
            case Finished(result):
                return result  # type: ignore[no-any-return]
            case InputRequested(result):
                return InputRequiredToolResult(types.InputRequiredResult.model_validate(result))
            case ToolFailed(text):
                raise ToolError(text)


class FastMCPServer:
    """How ``Elicitation`` installs on and runs a ``FastMCP`` server."""

    def __init__(self, server: FastMCP[Any]) -> None:
        self.server = server

    @property
    def name(self) -> str:
        return self.server.name or "This server"

    def adopt(self, runtime: Runtime, security: RequestStateSecurity) -> None:
        if runtime.settings.url_draft:
            raise ValueError(
                "the URL-mode draft (url_draft=True) is not offered on fastmcp servers "
                "(docs/fastmcp.md)"
            )
        ours = [m for m in self.server.middleware if isinstance(m, FastMCPElicitation)]
        if any(m.runtime is runtime for m in ours):
            return  # built with fastmcp_options()
        if ours:
            raise RuntimeError("Elicitation is already installed on this server")
        # First, so a question leaves before other middleware sees the tool's result.
        self.server.middleware.insert(0, FastMCPElicitation(runtime))
        _sdk.replace_request_state_security(_sdk.lowlevel_server_of(self.server), security)

    async def run_stdio(self) -> None:
        await self.server.run_stdio_async(show_banner=False)

    def http_app(self) -> Starlette:
        return self.server.http_app(path="/mcp")
