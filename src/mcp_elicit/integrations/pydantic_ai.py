"""pydantic-ai agents as hosts: an ``MCPToolset`` whose client is our fastmcp adapter.

pydantic-ai (2.x) reaches MCP servers through ``pydantic_ai.mcp.MCPToolset``, built on fastmcp's
``Client``, and takes a pre-built client. :class:`ElicitingMCPToolset` is that toolset with an
:class:`~mcp_elicit.integrations.fastmcp.ElicitingFastMCPClient` as its client, so everything
that adapter does holds under an agent:

- every elicitation goes through the :class:`~mcp_elicit.client.ElicitationHandler`;
- a server started over stdio is local (its ``http://127.0.0.1`` pages are offered);
- "open this link first" (-32042, -32604) is taken through consent, completion and the call
  again inside the client, below the toolset, so it never becomes the model's ``ModelRetry``;
- the tool call's ``timeout`` stops while the person answers, and fastmcp gets no read timeout
  (``MCPToolset``'s own client would have 300 s running while the person answers).
  ``Agent(tool_timeout=...)`` bounds the agent's function tools only, never an MCP call.

What a pre-built client costs in pydantic-ai is given back here: the toolset's tool, resource
and prompt caches are still dropped on ``list_changed`` notices, and ``sampling_model`` still
works. What pydantic-ai does not let an adapter change (docs/frameworks.md):

- A link the person declines leaves the server's -32042, which ``MCPToolset`` turns into
  ``ModelRetry`` (unless ``tool_error_behavior="error"``): the model reads the server's message.
- ``auth`` or ``headers`` as functions of the run context (one session per run) are refused
  beside a pre-built client; give the HTTP settings to the transport instead.
- Toolsets built by pydantic-ai itself (``load_mcp_toolsets``, ``MCP(url=...)``) get its own
  client; pass this toolset (``MCP(local=toolset)``) instead. A provider's native MCP
  (``MCP(native=True)``) reaches the server from the provider: nobody here is asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from mcp_elicit._extras import needs_extra
from mcp_elicit.client.handler import ElicitationHandler
from mcp_elicit.integrations.fastmcp import ElicitingFastMCPClient

with needs_extra("pydantic_ai", "pydantic-ai", shown="pydantic-ai"):
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.mcp import _build_message_handler as _toolset_message_handler
    from pydantic_ai.tools import AgentDepsT


class ElicitingMCPToolset(MCPToolset[AgentDepsT]):
    """``pydantic_ai.mcp.MCPToolset`` whose elicitations ``handler`` answers.

    ``Agent(model, toolsets=[ElicitingMCPToolset(server, handler)])``. ``server`` is anything
    ``fastmcp.Client`` takes (a script path, a ``StdioTransport``, an ``http(s)://`` URL, a
    ``FastMCP`` server in-process). ``local``, ``timeout`` and ``max_url_retries`` are
    :class:`~mcp_elicit.integrations.fastmcp.ElicitingFastMCPClient`'s; ``client_options``
    are the other ``fastmcp.Client`` arguments (``mode``, ``init_timeout``, ``auth``,
    ``log_handler``, ``roots``, ...). Every other keyword is ``MCPToolset``'s (``id``,
    ``tool_error_behavior``, ``process_tool_call``, ``cache_tools``, ``sampling_model``, ...).
    ``message_handler`` is called for every server message after the handler and the toolset
    have read it. The client is :attr:`client`."""

    client: ElicitingFastMCPClient

    def __init__(
        self,
        server: Any,
        handler: ElicitationHandler,
        *,
        local: bool | None = None,
        timeout: float | None = None,
        max_url_retries: int = 3,
        message_handler: Callable[[Any], Awaitable[None]] | None = None,
        client_options: Mapping[str, Any] | None = None,
        **toolset_options: Any,
    ) -> None:
        sampling_model = toolset_options.pop("sampling_model", None)
        # The toolset's own handler (its caches) needs the toolset: built once it exists.
        self._on_toolset_message: Callable[[Any], Awaitable[None]] | None = None
        client = ElicitingFastMCPClient(
            server,
            handler,
            local=local,
            timeout=timeout,
            max_url_retries=max_url_retries,
            message_handler=self._on_message,
            **dict(client_options or {}),
        )
        super().__init__(client, **toolset_options)
        # Theirs is typed as the SDK's handler: any awaitable callable of a message is one.
        self._on_toolset_message = _toolset_message_handler(self, cast(Any, message_handler))
        if sampling_model is not None:
            self.set_sampling_model(sampling_model)

    @property
    def handler(self) -> ElicitationHandler:
        """The handler that answers this toolset's elicitations."""
        return self.client.handler

    async def _on_message(self, message: Any) -> None:
        if self._on_toolset_message is not None:
            await self._on_toolset_message(message)


__all__ = ["ElicitingMCPToolset"]
