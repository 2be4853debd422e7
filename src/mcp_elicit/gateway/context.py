"""What the gateway reads off a downstream client's request: who the client is (its revision
and declared modes, and whose caps it counts against), who a link sent to it belongs to, and
its params as they go upstream."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.request_state import authenticated_principal
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp_elicit import _sdk
from mcp_elicit.protocol.peers import Peer, peer_of

_OURS_IN_META = ("io.modelcontextprotocol/", "progressToken")


def downstream_peer(ctx: ServerRequestContext[Any, Any], *, url_draft: bool) -> Peer:
    """The client behind ``ctx``: what it negotiated and declared (``url_draft``: a
    2025-06-18 client declaring ``elicitation.url`` speaks the URL-mode draft)."""
    return peer_of(ctx.protocol_version, declared(ctx), url_draft=url_draft)


def declared(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any] | None:
    """The client capabilities a downstream request's session declared, as JSON."""
    capabilities = ctx.session.client_capabilities
    if capabilities is None:
        return None
    return capabilities.model_dump(by_alias=True, exclude_none=True, mode="json")


def owner_of(ctx: ServerRequestContext[Any, Any]) -> object:
    """Who a link sent in answer to ``ctx`` belongs to: the signed-in user, else the session."""
    return authenticated_principal(ctx) or _sdk.connection_of(ctx.session)


ANONYMOUS = "anonymous"
"""The client of a 2026-07-28 request with nobody signed in: such a request carries no session
(the SDK builds a ``Connection`` for each one), so all of them are one client to the caps."""


def client_of(ctx: ServerRequestContext[Any, Any]) -> object:
    """Whom ``ctx`` counts against, for the per-client caps (:mod:`.limits`) and the held
    calls it may answer (:mod:`.held`): the signed-in user (a bearer token of the gateway's,
    or the SDK's OAuth) when there is one; else, for a handshake-era client, its session; else
    :data:`ANONYMOUS`."""
    principal = authenticated_principal(ctx)
    if principal is not None:
        return ("user", principal)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return ANONYMOUS
    return ("session", _sdk.connection_of(ctx.session))


def forwarded(params: Mapping[str, Any] | None, *keep: str) -> dict[str, Any]:
    """The client's params as they go upstream: without the client's own protocol ``_meta``
    (the gateway's session stamps its own), without the round fields unless kept, and
    without ``task``: the gateway declares no tasks, so a host's ``task`` is ignored
    (:mod:`.no_tasks` rule 2), and upstream must not answer it with a task nobody keeps."""
    out = {
        key: value
        for key, value in (params or {}).items()
        if key not in ("inputResponses", "requestState", "task") or key in keep
    }
    meta = out.pop("_meta", None)
    if isinstance(meta, Mapping):
        kept = {k: v for k, v in meta.items() if not k.startswith(_OURS_IN_META)}
        if kept:
            out["_meta"] = kept
    return out
