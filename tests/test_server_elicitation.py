"""Installing and running ``Elicitation``: refusals that protect users."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver import MCPServer

from mcp_elicit.server import DeploymentKey, Elicitation


@pytest.mark.anyio
@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "::"])
async def test_a_single_user_identity_is_never_served_beyond_loopback(host: str) -> None:
    elicitation = Elicitation(MCPServer("x"), key=DeploymentKey.generate(), store="memory://")
    with pytest.raises(ValueError, match="LocalIdentity is single-user"):
        await elicitation.run_async("streamable-http", host=host, port=1)


def test_installing_twice_on_one_server_is_refused() -> None:
    server = MCPServer("x")
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")
    with pytest.raises(RuntimeError, match="already installed"):
        Elicitation(server, key=DeploymentKey.generate(), store="memory://")
