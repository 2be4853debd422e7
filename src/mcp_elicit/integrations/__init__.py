"""Agent frameworks as hosts: one thin module per framework, each keeping every check of
:class:`~mcp_elicit.client.ElicitationHandler` (docs/frameworks.md).

- :mod:`mcp_elicit.integrations.fastmcp` — fastmcp's ``Client`` (4.x), the base of
  pydantic-ai's ``MCPToolset``: ``ElicitingFastMCPClient``, ``FastMCPHandler``.
- :mod:`mcp_elicit.integrations.pydantic_ai` — pydantic-ai's ``MCPToolset`` (2.x) with that
  client: ``ElicitingMCPToolset``.
- :mod:`mcp_elicit.integrations.google_adk` — Google ADK's ``McpToolset`` (2.x):
  ``ElicitingMcpToolset``, and ``AdkElicitation`` for a toolset you build yourself.
- :mod:`mcp_elicit.integrations.langchain` — LangChain's ``langchain.mcp`` (1.5, beta), whose
  elicitations pause the run with a LangGraph interrupt: ``review_interrupt`` and
  ``resume_from`` check the interrupt and the answers as the handler would (a paused run, a
  person elsewhere), ``answer_interrupt`` answers it through the handler itself; or
  ``MCPAdapter(ElicitingFastMCPClient(...))`` leaves the handler in charge.

Each module imports its framework when it is imported itself, never this package: a framework
is an optional extra (``pip install 'mcp-elicit[fastmcp]'``, ``'mcp-elicit[pydantic-ai]'``,
``'mcp-elicit[google-adk]'``, ``'mcp-elicit[langchain]'``).
"""

__all__: list[str] = []
