"""A push-era server (2025-06-18, 2025-11-25) to a push-era client: the same era on both sides,
relayed.

Rules:

- The call runs on an upstream session leased for it (:meth:`.Upstream.lease`), so every
  question the server pushes on that session belongs to this call: each is read in the
  upstream's revision, pushed to the client in the client's (:class:`.PushedQuestions`), and
  its answer goes back in the upstream's.
- An answer that does not fit never goes upstream: the call ends there (a tool error for
  ``tools/call``), and the leased session, cut short mid-call, is closed. So does a link the
  gateway's policy blocks (the error says it was blocked, and why), and a question
  or an answer over a limit (:mod:`.limits`: too large, or past the call's count), the client
  told which; the lease itself is refused past its caps.
- -32042 / -32604 (the server needs links opened first) reach the client with their data:
  as they came when the two revisions agree, in the client's code when they do not (the
  URL-mode draft's -32604 and 2025-11-25's -32042), and, for a client whose revision has no
  URL mode, as an error saying so. Their links are watched for completion, and audited as
  passed on (the client answers the server itself). A client that
  cannot be given them has them opened by the gateway's own person, when there is one
  (:meth:`.AskingHere.after_links`): the call is made again after, and the client gets its
  result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from mcp_elicit.gateway.asking_here import upstream_modes
from mcp_elicit.gateway.bridge import BadAnswer, LinkBlocked, Refused
from mcp_elicit.gateway.context import client_of, forwarded
from mcp_elicit.gateway.limits import OverLimit
from mcp_elicit.gateway.pushing import PushedQuestions
from mcp_elicit.gateway.upstream import Upstream, error_json
from mcp_elicit.protocol import (
    ElicitationRequest,
    parse_url_required_error,
    rules_for,
    url_required_error,
)
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision


@dataclass(frozen=True, slots=True)
class PushToPush:
    """Relays a push-era server's questions to a push-era client (the module's rules)."""

    upstream: Upstream
    pushed: PushedQuestions

    async def call(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        up = Revision(self.upstream.version)
        ended: list[BadAnswer | LinkBlocked | OverLimit] = []
        scope = anyio.CancelScope()
        count = 0

        async def asked(request: ElicitationRequest) -> dict[str, Any]:
            nonlocal count
            count += 1
            try:
                self.pushed.bridge.asked(count)
                carried = await self.pushed.ask(ctx, down, request, answer_in=up)
            except (BadAnswer, LinkBlocked, OverLimit) as why:  # the call ends here
                ended.append(why)
                scope.cancel()
                raise MCPError(INVALID_PARAMS, str(why)) from None
            return carried.sent

        modes = upstream_modes(self.pushed.here, down)
        here = self.pushed.here
        params = forwarded(ctx.params)
        async with self.upstream.lease(modes, asked, owner=client_of(ctx)) as connection:
            with scope:
                try:
                    if here is not None and here.takes_links(down):
                        # The links the server requires are the gateway's person's to open.
                        return await here.after_links(
                            lambda: connection.request(method, params),
                            method=method,
                            params=params,
                            revision=up,
                            check_links=self.pushed.bridge.links,
                        )
                    return await connection.request(method, params)
                except MCPError as error:
                    raise self.url_error_for(error, down, ctx) from None
            connection.spoiled = True  # given up mid-call
        why = ended[0]
        if isinstance(why, OverLimit):
            raise why
        return why.result_for(method)

    def url_error_for(
        self, error: MCPError, down: Peer, ctx: ServerRequestContext[Any, Any]
    ) -> MCPError:
        """-32042 / -32604 for a push-era client: as it came when the revisions agree, in the
        client's code otherwise; an error the client cannot be given (no URL mode) says so."""
        raw = error_json(error)
        requests = parse_url_required_error(raw)
        if requests is None:
            return error
        self.pushed.bridge.links(requests)  # OverLimit: raised in its place
        if down.revision is None or not rules_for(down.revision).required_error_code:
            return Refused(
                INVALID_REQUEST,
                "The server needs a link opened (URL mode), and this client's revision has "
                "no URL mode",
            )
        self.pushed.bridge.passed_on(requests)
        for request in requests:
            if request.elicitation_id:
                self.pushed.watch(request.elicitation_id, ctx, down, None)
        if raw.get("code") == rules_for(down.revision).required_error_code:
            return error
        converted = url_required_error(
            requests, revision=down.revision, message=str(raw.get("message") or "")
        )
        return MCPError(converted["code"], converted["message"], converted.get("data"))
