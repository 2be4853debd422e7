"""mcp-elicit: Model Context Protocol elicitation, both sides, every revision.

The layers (imports go downward only):

- :mod:`mcp_elicit.forms` — the ``requestedSchema`` subset, form model, validation (no I/O)
- :mod:`mcp_elicit.protocol` — wire shapes and rules per revision (no I/O)
- :mod:`mcp_elicit.urls` — URL safety verdicts (no I/O unless resolution is asked for)
- :mod:`mcp_elicit.stores` — one store contract, several engines
- :mod:`mcp_elicit.flows` — out-of-band URL-mode flows
- :mod:`mcp_elicit.server` / :mod:`mcp_elicit.client` — on top of the official ``mcp`` SDK
- :mod:`mcp_elicit.gateway`, :mod:`mcp_elicit.check`, :mod:`mcp_elicit.cli`
"""

__version__ = "0.1.0"
