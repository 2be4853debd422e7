"""A 2026-07-28 server to a push-era client: each round's questions pushed, the answers sent
back as the retry's ``inputResponses``.

Rules:

- The gateway retries on the client's behalf: it calls the server, pushes each input request
  of an ``InputRequiredResult`` to the client (:class:`.PushedQuestions`), and calls again
  with the answers and the server's ``requestState``, untouched, until the server returns a
  result. The whole exchange is bounded by ``input_time_limit``.
- An answer that does not fit never goes upstream: the call ends there (a tool error for
  ``tools/call``); so does a link the gateway's policy blocks (the error says it was
  blocked, and why: the server is not called again). A question too large, or one past
  the call's count (every question pushed, over all its rounds), ends the call with the
  error naming the limit (:mod:`.limits`); so does an answer too large. An input request that is not
  ``elicitation/create`` (the gateway carries no other) is an error.
- 2026-07-28 has no ``elicitationId`` and no completion notice: a link stays open for as long
  as the server keeps asking for it (the same key, the same URL), and is done when it stops.
  So the gateway names each link once (:class:`_RoundLinks`) for a 2025-11-25 client, does
  not ask the person again for a link they accepted, and, when the server stops asking for
  it, writes the completion notice itself (a URL-mode draft client's ``elicitation/track``
  returns then). While the server asks only for links the person is still on, the gateway
  calls it again later, backing off from 0.5 s to 5 s.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST

from mcp_elicit.gateway.asking_here import upstream_modes
from mcp_elicit.gateway.bridge import BadAnswer, LinkBlocked
from mcp_elicit.gateway.context import forwarded
from mcp_elicit.gateway.pushing import PushedQuestions
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol import (
    ElicitationRequest,
    InputRequired,
    parse_input_required_result,
    retry_params,
    rules_for,
)
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision


@dataclass(frozen=True, slots=True)
class RoundsToPush:
    """Answers a 2026-07-28 server's rounds by asking a push-era client (the module's rules)."""

    upstream: Upstream
    pushed: PushedQuestions
    input_time_limit: float

    async def call(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        params = forwarded(ctx.params)
        links = _RoundLinks()
        pushed = 0  # questions pushed to the person in this call, over all its rounds
        pause = 0.5
        with anyio.fail_after(self.input_time_limit):
            while True:
                modes = upstream_modes(self.pushed.here, down)
                result = await self.upstream.request(method, params, modes)
                parsed = parse_input_required_result(result)
                if isinstance(parsed, list):
                    raise MCPError(
                        INTERNAL_ERROR,
                        "The upstream sent an invalid result: "
                        + "; ".join(p.message for p in parsed),
                    )
                asked = {} if parsed is None else parsed.elicitations
                for finished in links.finished(asked):
                    await self._complete_downstream(ctx, down, finished)
                if parsed is None:
                    return result
                try:
                    responses, new = await self._answer_round(ctx, down, parsed, links, pushed)
                except (BadAnswer, LinkBlocked) as ended:  # nothing sent: the rounds end
                    return ended.result_for(method)
                pushed += new
                if not new:  # only links the person is still on: ask the server later
                    await anyio.sleep(pause)
                    pause = min(pause * 2, 5.0)
                params = retry_params(params, responses, parsed.request_state)

    async def _answer_round(
        self,
        ctx: ServerRequestContext[Any, Any],
        down: Peer,
        parsed: InputRequired,
        links: _RoundLinks,
        pushed: int,
    ) -> tuple[dict[str, Any], int]:
        """The round's answers, and how many new questions the person was asked (``pushed``
        before this round)."""
        responses: dict[str, Any] = {}
        new = 0
        for key, raw in parsed.input_requests.items():
            if raw.get("method") != ELICITATION_CREATE:
                raise MCPError(
                    INVALID_REQUEST,
                    f"The server asked for {raw.get('method')!r}, "
                    "which this gateway does not carry",
                )
            request = parsed.elicitations.get(key)
            if request is None:
                raise MCPError(INTERNAL_ERROR, f"The upstream sent an invalid question {key!r}")
            if request.mode == "url":
                if links.accepted(key, request):
                    responses[key] = {"action": "accept"}
                    continue
                if not self.pushed.answered_here(request, down):  # the client is told of it
                    request = links.named(key, request)
            new += 1
            self.pushed.bridge.asked(pushed + new)  # OverLimit: the rounds end here
            carried = await self.pushed.ask(ctx, down, request, answer_in=Revision.V2026_07_28)
            if request.mode == "url" and carried.answer.action == "accept":
                links.accept(key, request)
            responses[key] = carried.sent
        return responses, new

    async def _complete_downstream(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, elicitation_id: str
    ) -> None:
        """The 2026-07-28 server stopped asking for the link, so its flow is done: a 2025-11-25
        client is sent the notice (written by the gateway), a draft client's track returns."""
        self.pushed.links.resolved(elicitation_id)
        if down.revision is not None and rules_for(down.revision).completion == "notification":
            await ctx.session.send_elicit_complete(
                elicitation_id, related_request_id=ctx.request_id
            )


class _RoundLinks:
    """The links of one call to a 2026-07-28 server, as a push-era client knows them: named
    once each (a 2025-11-25 client needs an id to be told of completion)."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str | None], str] = {}
        self._accepted: set[tuple[str, str | None]] = set()

    def named(self, key: str, request: ElicitationRequest) -> ElicitationRequest:
        if request.elicitation_id is not None:
            return request
        name = self._ids.setdefault((key, request.url), secrets.token_urlsafe(16))
        return replace(request, elicitation_id=name)

    def accept(self, key: str, request: ElicitationRequest) -> None:
        self._accepted.add((key, request.url))

    def accepted(self, key: str, request: ElicitationRequest) -> bool:
        return (key, request.url) in self._accepted

    def finished(self, asked: Mapping[str, ElicitationRequest]) -> list[str]:
        """The ids of accepted links the server no longer asks for."""
        still = {(key, r.url) for key, r in asked.items() if r.mode == "url"}
        done = self._accepted - still
        self._accepted -= done
        return [self._ids[link] for link in done if link in self._ids]
