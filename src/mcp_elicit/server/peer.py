"""Who is asking through this request, read from the SDK's request context on every call
(:func:`mcp_elicit.protocol.peers.peer_of` has the rules)."""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext

from mcp_elicit.protocol.peers import Peer, peer_of

__all__ = ["Peer", "peer_of_request"]


def peer_of_request(ctx: ServerRequestContext[Any, Any], *, url_draft: bool = False) -> Peer:
    """The peer of the request ``ctx`` serves (``url_draft``: see ``peer_of``)."""
    capabilities = ctx.session.client_capabilities
    declared = (
        capabilities.model_dump(by_alias=True, exclude_none=True, mode="json")
        if capabilities is not None
        else None
    )
    return peer_of(ctx.protocol_version, declared, url_draft=url_draft)
