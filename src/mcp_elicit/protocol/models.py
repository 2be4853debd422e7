"""Our methods' params as the SDK's pydantic models, for its method bindings (a server's
``MethodBinding``, ``add_request_handler``): the shapes of :mod:`mcp_elicit.protocol`'s
dicts, typed. Not imported by ``mcp_elicit.protocol`` itself: the models need ``mcp_types``
(the SDK's types, no I/O), which the sans-IO layers otherwise do without.
"""

from __future__ import annotations

from mcp_types import RequestParams
from pydantic import Field


class TrackParams(RequestParams):
    """``elicitation/track`` (the URL-mode draft): which elicitation the client follows."""

    elicitation_id: str = Field(alias="elicitationId")
