"""The middleware ``Elicitation`` installs: where a tool's question or link leaves as a result.

It runs inside the SDK's ``RequestStateBoundary``, which seals the ``requestState`` we return
and unseals the one the client echoes before we see it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from mcp_elicit.protocol import ProtocolVersion, url_required_error
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.server import rounds
from mcp_elicit.server.peer import peer_of_request
from mcp_elicit.server.url_mode import UrlRequired, resume_linked_flow

if TYPE_CHECKING:
    from mcp_elicit.server.elicitation import Elicitation


class ElicitationMiddleware:
    """Turns ``AskPending`` into an ``InputRequiredResult`` and ``UrlRequired`` into the
    error (or, on 2026-07-28, the result) of the client's revision."""

    def __init__(self, elicitation: Elicitation) -> None:
        self._elicitation = elicitation

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method not in rounds.METHODS:
            return await call_next(ctx)
        round_ = rounds.Round.from_params(ctx.params)
        if round_.responses:
            await resume_linked_flow(self._elicitation, round_)
        token = rounds.enter_round(round_)
        try:
            return await call_next(ctx)
        except rounds.AskPending as pending:
            return pending.result()
        except UrlRequired as required:
            return self._url_required(ctx, required, round_)
        except BaseExceptionGroup as group:
            pending_in = rounds.find_pending(group)
            if pending_in is None:
                raise
            return pending_in.result()
        finally:
            rounds.leave_round(token)

    def _url_required(
        self, ctx: ServerRequestContext[Any, Any], required: UrlRequired, round_: rounds.Round
    ) -> HandlerResult:
        peer = peer_of_request(ctx, url_draft=self._elicitation.settings.url_draft)
        revision = peer.revision
        if revision is None or not peer.modes.url:
            return {
                "content": [{"type": "text", "text": _NO_URL_MODE}],
                "isError": True,
            }
        if revision is ProtocolVersion.V2026_07_28:
            # -32042 is retired: the link becomes an input request, and the retry after it
            # runs the tool again, which checks its own precondition.
            params = {"mode": "url", "message": required.prompt, "url": required.url}
            request = {"method": ELICITATION_CREATE, "params": params}
            key = round_.next_key(UrlRequired.INPUT_KEY)
            asked: dict[str, Any] = {"at": time.time()}
            if required.flow_id is not None:
                asked["flow"] = required.flow_id  # sealed: the retry waits on it, reuses it
            return rounds.AskPending(key, request, round_, asked).result()
        error = url_required_error(
            [
                {
                    "mode": "url",
                    "message": required.prompt,
                    "url": required.url,
                    "elicitationId": required.elicitation_id,
                }
            ],
            revision=revision,
            message=required.message,
        )
        if required.flow_id is not None and revision is ProtocolVersion.V2025_11_25:
            # The notice must carry the elicitationId this error carries, which an author
            # may have chosen apart from the flow id.
            self._elicitation.notify_when_complete(
                ctx.session, required.flow_id, required.elicitation_id
            )
        raise MCPError(error["code"], error["message"], error["data"])


_NO_URL_MODE = (
    "This tool needs the user to open a web page, but the client cannot show links "
    "(it did not declare elicitation URL mode)."
)
