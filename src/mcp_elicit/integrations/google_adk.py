"""Google ADK agents as hosts: an ``McpToolset`` whose elicitations our handler answers.

ADK (``google-adk`` 2.x) reaches MCP servers through ``google.adk.tools.mcp_tool.McpToolset``,
which takes the official SDK's ``elicitation_callback``. An
:class:`~mcp_elicit.client.ElicitationHandler` is one, and given bare it answers forms with
every check. What ADK does around it, measured with google-adk 2.13.0 (docs/frameworks.md):

- a server ADK starts over stdio is not known to be local, so its ``http://127.0.0.1`` pages
  (a stdio server's hosted pages) are blocked;
- "open this link first" (-32042) reaches the model as the tool's
  ``{"error": "MCP tool execution failed: ..."}``: nobody is asked;
- the session's read timeout (``StdioConnectionParams.timeout``, 5 s by default; for HTTP
  ``sse_read_timeout``) bounds every tool call and runs while the person answers: a person
  slower than 5 s makes the model read ``Request 'tools/call' timed out``;
- ADK gives the SDK session no ``message_handler``, so the server's
  ``notifications/elicitation/complete`` never reaches the handler.

:class:`ElicitingMcpToolset` is ``McpToolset`` with all four put right: the callback set with
``local`` read off the connection (stdio: local), and each session ADK opens given two things
as it is created — its ``call_tool`` goes through :func:`~mcp_elicit.client.required_links.
call_after_links` (consent, the link, completion, the call again) under a timeout paused while
the person answers, and its notices reach the handler first. What ADK does not let an adapter
change: the SDK session declares both modes (form and URL) for any callback; the policy still
decides what is answered.

Private names of ADK and the SDK are used in two functions only, each pinned by a test:
:func:`_use_session_manager` (the toolset's ``_mcp_session_manager``) and
:func:`mcp_elicit._sdk.hear_session_messages` (the SDK session's ``_message_handler``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError

from mcp_elicit._extras import needs_extra
from mcp_elicit._sdk import hear_session_messages
from mcp_elicit.client.handler import ElicitationHandler, answer_for_sdk, asking_of
from mcp_elicit.client.required_links import call_after_links
from mcp_elicit.client.steps import ElicitationRefused

with needs_extra("google", "google-adk", shown="google-adk"):
    from google.adk.tools.mcp_tool.mcp_session_manager import (
        MCPSessionManager,
        SseConnectionParams,
        StdioConnectionParams,
        StreamableHTTPConnectionParams,
    )
    from google.adk.tools.mcp_tool.mcp_toolset import McpToolset
    from mcp import StdioServerParameters

logger = logging.getLogger(__name__)

ConnectionParams = (
    StdioServerParameters
    | StdioConnectionParams
    | SseConnectionParams
    | StreamableHTTPConnectionParams
)
"""What ``McpToolset(connection_params=...)`` takes."""

_HOOKED = "_mcp_elicit_hooked"
"""Set on a session once :meth:`_ElicitingSessionManager.create_session` has hooked it (ADK
hands the same pooled session out again)."""


class AdkElicitation:
    """``handler`` as ADK's ``elicitation_callback`` (the SDK's), with ``local`` set: the
    server runs on this machine as this user (one ADK started over stdio), so its
    ``http://127.0.0.1`` links are offered (``Policy.loopback_for_local_servers``).

    ``McpToolset(connection_params=..., elicitation_callback=AdkElicitation(handler,
    local=True))`` gives every check of the handler, with none of the three other rows of
    :class:`ElicitingMcpToolset` (-32042, the paused timeout, completion notices)."""

    def __init__(self, handler: ElicitationHandler, *, local: bool = False) -> None:
        self.handler = handler
        self.local = local

    async def __call__(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        asking = asking_of(context.session, local=self.local)

        async def answer(raw: dict[str, Any]) -> dict[str, Any]:
            try:
                return await self.handler.handle(raw, asking)
            except ElicitationRefused as refused:
                raise ElicitationRefused(_said_truthfully(refused.error)) from None

        return await answer_for_sdk(params, answer)

    async def on_message(self, message: Any) -> None:
        """A completion notice (``notifications/elicitation/complete``) ends the wait for
        that link's page."""
        if isinstance(message, mcp_types.ElicitCompleteNotification):
            self.handler.completions.complete(message.params.elicitation_id)


def _said_truthfully(error: dict[str, Any]) -> dict[str, Any]:
    """The SDK session under ADK declares both modes: a mode the policy leaves out was
    declared, so the refusal says the policy refused it, never "did not declare"."""
    data = error.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("problems"), list):
        return error
    problems = [
        {**p, "message": "this client's policy does not answer this mode (ADK declares both)"}
        if isinstance(p, dict) and p.get("code") == "mode_undeclared"
        else p
        for p in data["problems"]
    ]
    return {**error, "data": {**data, "problems": problems}}


def is_local(connection_params: ConnectionParams) -> bool:
    """Whether ADK starts this server itself over stdio (it then runs here, as this user)."""
    return isinstance(connection_params, StdioServerParameters | StdioConnectionParams)


def session_timeout(connection_params: ConnectionParams) -> float:
    """The read timeout ADK gives the session of ``connection_params``, which bounds every
    tool call: ``timeout`` over stdio (5 s for bare ``StdioServerParameters``),
    ``sse_read_timeout`` over HTTP."""
    if isinstance(connection_params, StdioServerParameters):
        return 5.0
    if isinstance(connection_params, StdioConnectionParams):
        return float(connection_params.timeout)
    return float(connection_params.sse_read_timeout)


class ElicitingMcpToolset(McpToolset):
    """``google.adk.tools.mcp_tool.McpToolset`` whose elicitations ``handler`` answers.

    ``LlmAgent(..., tools=[ElicitingMcpToolset(connection_params, handler)])``.
    ``connection_params`` is what ``McpToolset`` takes; every other keyword is its own
    (``tool_filter``, ``header_provider``, ``require_confirmation``, ...), except
    ``elicitation_callback``, which this class sets. What it adds:

    - ``local``: whether the server runs on this machine as this user; by default true for
      stdio connection parameters (ADK starts the server) and false otherwise.
    - A tool call that fails with "open this link first" (-32042, -32604) is taken through
      consent, the link, completion and the call again, at most ``max_url_retries`` times,
      before ADK or the model sees anything. If the person declines, the server's error is
      what ADK gets (the model reads ``MCP tool execution failed: <its message>``).
    - ``timeout`` bounds each tool call by time nobody spent answering; by default it is the
      session's own read timeout (:func:`session_timeout`: 5 s over stdio), now paused while
      the person answers. When it runs out the call fails with -32001.
    - The server's notices reach the handler (completion of a link's page), then
      ``message_handler`` if given.
    """

    def __init__(
        self,
        connection_params: ConnectionParams,
        handler: ElicitationHandler,
        *,
        local: bool | None = None,
        timeout: float | None = None,
        max_url_retries: int = 3,
        message_handler: Callable[[Any], Awaitable[None]] | None = None,
        **toolset_options: Any,
    ) -> None:
        if "elicitation_callback" in toolset_options:
            raise TypeError("ElicitingMcpToolset sets elicitation_callback itself (handler)")
        self.elicitation = AdkElicitation(
            handler, local=is_local(connection_params) if local is None else local
        )
        self.call_timeout = session_timeout(connection_params) if timeout is None else timeout
        self.max_url_retries = max_url_retries
        self._their_message_handler = message_handler
        super().__init__(
            connection_params=connection_params,
            elicitation_callback=self.elicitation,
            **toolset_options,
        )
        _use_session_manager(
            self,
            _ElicitingSessionManager(
                self,
                connection_params=connection_params,
                errlog=self.errlog,
                sampling_callback=toolset_options.get("sampling_callback"),
                sampling_capabilities=toolset_options.get("sampling_capabilities"),
                elicitation_callback=self.elicitation,
            ),
        )

    @property
    def handler(self) -> ElicitationHandler:
        """The handler that answers this toolset's elicitations."""
        return self.elicitation.handler

    @property
    def local(self) -> bool:
        """Whether the server is treated as running on this machine as this user."""
        return self.elicitation.local

    async def on_message(self, message: Any) -> None:
        """Every server message of its sessions: the handler reads it, then yours."""
        await self.elicitation.on_message(message)
        if self._their_message_handler is not None:
            await self._their_message_handler(message)

    def hook(self, session: ClientSession) -> None:
        """Give a session ADK opened the toolset's ``call_tool`` and notices (once)."""
        if getattr(session, _HOOKED, False):
            return
        call_tool = session.call_tool

        async def eliciting_call_tool(
            name: str,
            arguments: dict[str, Any] | None = None,
            read_timeout_seconds: float | None = None,
            progress_callback: Any = None,
            **options: Any,
        ) -> mcp_types.CallToolResult:
            budget = read_timeout_seconds or self.call_timeout

            async def once() -> mcp_types.CallToolResult:
                # The SDK's clock would run while the person answers: it gets none, ours
                # stops while anyone answers.
                with self.handler.attention.deadline(budget) as scope:
                    result: mcp_types.CallToolResult = await call_tool(
                        name, arguments, math.inf, progress_callback, **options
                    )
                    return result
                assert scope.cancelled_caught  # only reached when the deadline ran out
                raise MCPError(
                    mcp_types.REQUEST_TIMEOUT,
                    f"tools/call {name} timed out after {budget:g} s "
                    "(time spent answering not counted)",
                )

            asking = asking_of(session, required_by=name, local=self.local)
            return await call_after_links(
                once, self.handler, asking, max_retries=self.max_url_retries
            )

        session.call_tool = eliciting_call_tool  # type: ignore[method-assign]
        hear_session_messages(session, self.on_message)
        setattr(session, _HOOKED, True)


class _ElicitingSessionManager(MCPSessionManager):
    """ADK's session pool; each session it opens is hooked by the toolset."""

    def __init__(self, toolset: ElicitingMcpToolset, **options: Any) -> None:
        super().__init__(**options)
        self._toolset = toolset

    async def create_session(self, headers: dict[str, str] | None = None) -> ClientSession:
        session = await super().create_session(headers)
        self._toolset.hook(session)
        return session


def _use_session_manager(toolset: McpToolset, manager: MCPSessionManager) -> None:
    """Private in ADK 2.13: the toolset keeps its session pool in ``_mcp_session_manager``,
    which every tool it lists uses (pinned by tests/integrations/test_google_adk.py)."""
    toolset._mcp_session_manager = manager


__all__ = ["AdkElicitation", "ElicitingMcpToolset", "is_local", "session_timeout"]
