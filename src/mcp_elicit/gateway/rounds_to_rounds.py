"""A 2026-07-28 server to a 2026-07-28 client: the rounds relayed, the server's
``requestState`` untouched.

Rules:

- Each request goes upstream with the client's ``inputResponses`` and ``requestState`` as
  they came; an ``InputRequiredResult`` comes back with each question written for the
  client (:meth:`.Bridge.question`: its modes, its revision's schema, the link's verdict).
- A round's questions are remembered by a digest of the ``requestState`` that went with
  them, so that the retry's answers are checked against them (:meth:`.Bridge.answer`) before
  they go upstream; one that does not fit ends the call there (a tool error for
  ``tools/call``). At most :data:`ROUND_MEMORY` rounds are remembered, the oldest forgotten
  first: an answer to a round no longer remembered is relayed unchecked (the server checks
  its own), and each round is checked once (a replay goes unchecked, to a server that keeps
  its own state sealed).
- A link the gateway's policy blocks never reaches the client (which answers the server
  itself): the call ends with an error saying the gateway blocked it, and why.
- Limits (:mod:`.limits`): a retry's answers are counted and measured before anything goes
  upstream, and a round's questions after it comes back; over a limit, the request ends with
  the error naming it. The client drives the rounds itself, so the count is per round.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext

from mcp_elicit.gateway.bridge import BadAnswer, Bridge, LinkBlocked
from mcp_elicit.gateway.context import forwarded
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol import ElicitationRequest, parse_input_required_result
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision

ROUND_MEMORY = 4096
"""Relayed 2026-07-28 rounds remembered (to check answers against their questions): a round
the gateway no longer remembers is relayed unchecked (the server checks its own)."""


@dataclass
class RoundsToRounds:
    """Relays a 2026-07-28 server's rounds to a 2026-07-28 client (the module's rules)."""

    upstream: Upstream
    bridge: Bridge
    _rounds: dict[str, dict[str, ElicitationRequest]] = field(default_factory=dict)

    async def call(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        params = forwarded(ctx.params, "inputResponses", "requestState")
        state = params.get("requestState")
        responses = params.get("inputResponses")
        if isinstance(responses, Mapping):
            self.bridge.responses(responses)
        asked = self._rounds.pop(_digest(state), None) if isinstance(state, str) else None
        if asked is not None and isinstance(responses, Mapping):
            checked = dict(responses)
            for key, request in asked.items():
                if key in responses:
                    try:
                        carried = self.bridge.answer(
                            responses[key],
                            request,
                            read_in=Revision.V2026_07_28,
                            write_in=Revision.V2026_07_28,
                        )
                    except BadAnswer as bad:  # never sent upstream: the rounds end here
                        return bad.result_for(method)
                    checked[key] = carried.sent
            params["inputResponses"] = checked
        result = await self.upstream.request(method, params, down.modes)
        parsed = parse_input_required_result(result)
        if parsed is None or isinstance(parsed, list):
            return result
        self.bridge.asked(len(parsed.input_requests))
        for key, raw in parsed.input_requests.items():
            if key not in parsed.elicitations:  # relayed as they are: measured as they are
                self.bridge.limits.question_size(raw)
        shown = dict(result.get("inputRequests") or {})
        questions: dict[str, ElicitationRequest] = {}
        for key, request in parsed.elicitations.items():
            try:
                written = self.bridge.question(request, down)
            except LinkBlocked as blocked:
                return blocked.result_for(method)
            shown[key] = {"method": ELICITATION_CREATE, "params": written}
            questions[key] = request
        if isinstance(parsed.request_state, str) and questions:
            self._remember(parsed.request_state, questions)
        return {**result, "inputRequests": shown}

    def _remember(self, state: str, questions: dict[str, ElicitationRequest]) -> None:
        if len(self._rounds) >= ROUND_MEMORY:
            self._rounds.pop(next(iter(self._rounds)))
        self._rounds[_digest(state)] = questions


def _digest(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()
