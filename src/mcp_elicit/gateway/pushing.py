"""Asking a push-era client (2025-06-18, 2025-11-25, the URL-mode draft): the gateway sends it
``elicitation/create`` on the call's own stream and waits for its answer. Both ways through
that end at a push-era client use it (:mod:`.push_to_push`, :mod:`.rounds_to_push`).

A question the client cannot be asked goes to the gateway's own person when there is one
(:mod:`.asking_here`).

A link sent to such a client is watched (:class:`~.links.Links`), so that its completion
reaches the client the way its revision has it: the notice passed on (2025-11-25), or its
``elicitation/track`` answered (the URL-mode draft, only for the client it was sent to).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext

from mcp_elicit import _sdk
from mcp_elicit.gateway.asking_here import AskingHere, answered_here
from mcp_elicit.gateway.bridge import Bridge, Carried
from mcp_elicit.gateway.context import owner_of
from mcp_elicit.gateway.links import Links
from mcp_elicit.protocol import ElicitationRequest, rules_for
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision


@dataclass(frozen=True, slots=True)
class PushedQuestions:
    """Questions pushed to the client of one request, and the links among them watched."""

    bridge: Bridge
    links: Links
    here: AskingHere | None = None  # the gateway's own person, for what the client cannot ask

    def answered_here(self, request: ElicitationRequest, down: Peer) -> bool:
        """``request`` goes to the gateway's own person, not to the client."""
        return answered_here(self.here, request, down)

    async def ask(
        self,
        ctx: ServerRequestContext[Any, Any],
        down: Peer,
        request: ElicitationRequest,
        *,
        answer_in: Revision,
    ) -> Carried:
        """Push ``request`` to the client behind ``ctx`` and return its answer, checked and
        written for a server of ``answer_in``. ``Refused`` when the client cannot be asked
        it, ``LinkBlocked`` for a link the policy blocks, ``BadAnswer`` when its answer does
        not fit: the caller ends the call with it."""
        if self.here is not None and self.here.answers(request, down):
            return await self.here.ask(request, revision=answer_in)
        params = self.bridge.question(request, down)
        assert down.revision is not None  # a client without elicitation is Refused
        if request.mode == "url" and request.elicitation_id:
            self.watch(request.elicitation_id, ctx, down, ctx.request_id)
        raw = await _sdk.send_raw_request(ctx.session, ELICITATION_CREATE, params, timeout=None)
        return self.bridge.answer(raw, request, read_in=down.revision, write_in=answer_in)

    def watch(
        self,
        elicitation_id: str,
        ctx: ServerRequestContext[Any, Any],
        down: Peer,
        request_id: Any,
    ) -> None:
        """Remember a link sent to the client behind ``ctx``: to pass its completion notice
        on (2025-11-25), or to answer its ``elicitation/track`` (the URL-mode draft)."""
        assert down.revision is not None
        notified = rules_for(down.revision).completion == "notification"
        session = ctx.session if notified else None
        self.links.watch(elicitation_id, session, request_id, owner=owner_of(ctx))
