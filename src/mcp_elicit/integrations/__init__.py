"""Agent frameworks as hosts: one thin module per framework, each keeping every check of
:class:`~mcp_elicit.client.ElicitationHandler` (docs/frameworks.md).

- :mod:`mcp_elicit.integrations.fastmcp` — fastmcp's ``Client`` (4.x), the base of
  pydantic-ai's ``MCPToolset``: ``ElicitingFastMCPClient``, ``FastMCPHandler``.
- :mod:`mcp_elicit.integrations.pydantic_ai` — pydantic-ai's ``MCPToolset`` (2.x) with that
  client: ``ElicitingMCPToolset``.

Each module imports its framework when it is imported itself, never this package: a framework
is an optional extra (``pip install 'mcp-elicit[fastmcp]'``, ``'mcp-elicit[pydantic-ai]'``).
"""

__all__: list[str] = []
