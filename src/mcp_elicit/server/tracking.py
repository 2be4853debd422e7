"""The URL-mode draft's ``elicitation/track``: the client asks to be told when an elicitation
is done; the server sends ``notifications/progress`` while it is pending and answers
``{"status": "complete"}`` when it is. An unknown id and another user's id get the same error,
so that an id cannot be probed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import RequestParams
from pydantic import Field

from mcp_elicit.protocol.codes import ELICITATION_TRACK, INVALID_PARAMS
from mcp_elicit.stores import FlowStatus

if TYPE_CHECKING:
    from mcp_elicit.server.elicitation import Elicitation

PROGRESS_EVERY = 5.0  # seconds between "still pending" notices


class TrackParams(RequestParams):
    elicitation_id: str = Field(alias="elicitationId")


def track_handler(elicitation: Elicitation) -> tuple[str, type[TrackParams], Any]:
    async def track(ctx: ServerRequestContext[Any, Any], params: TrackParams) -> dict[str, Any]:
        flow = await elicitation.flows.get(params.elicitation_id)
        user = elicitation.identity.user_of_request(ctx)
        if flow is None or not user or flow.user != user:
            raise MCPError(INVALID_PARAMS, f"unknown elicitation {params.elicitation_id!r}")
        step = 0
        while not flow.status.finished:
            step += 1
            await ctx.session.report_progress(step, None, f"Waiting: {flow.status.value}")
            flow = await elicitation.flows.wait(flow.id, timeout=PROGRESS_EVERY)
        if flow.status is not FlowStatus.COMPLETED:
            raise MCPError(
                INVALID_PARAMS, f"elicitation {flow.id!r} ended without completing: {flow.status}"
            )
        return {"status": "complete"}

    return ELICITATION_TRACK, TrackParams, track
