"""The gateway asks the person itself, for hosts that cannot (docs/gateway.md, "Asking for
hosts that cannot").

Many hosts declare no elicitation (the OpenAI Agents SDK has no hook for it), or no URL mode.
Given an :class:`~mcp_elicit.client.ElicitationHandler` (``Gateway(..., ask=handler)``), the
gateway answers the upstream's questions itself, through that handler: its renderer (the
terminal, the web page), its policy (URL verdicts, consent before a link opens, blocked links
never offered), its validation, its audit log, the person's language.

Rules:

- **What the upstream is told.** The gateway declares upstream the modes the host declared
  *and* the handler's: a host with no elicitation, or no URL mode, looks to the server like
  one that has them. The upstream never learns the host could not ask.
- **Who answers.** A question the host can be asked (its revision has the mode, it declared
  it) goes to the host, as without ``ask``; any other goes to the gateway's person. With
  ``ask_always`` every question goes to the gateway's person and the host is asked nothing.
- **2026-07-28 on both sides.** The host drives the rounds itself, so the gateway can only
  answer them all or none: when the host declared no elicitation (or ``ask_always``) the
  gateway drives the rounds on its behalf (the host's call returns the final result); a host
  with some modes has its rounds relayed, and only its own modes are declared upstream.
- The handler's answer is checked by the handler (an invalid answer never leaves it) and
  recorded in the handler's audit log; a request it refuses (-32602) is the upstream's error.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from mcp_elicit.client.handler import ElicitationHandler
from mcp_elicit.client.steps import Asking, ElicitationRefused
from mcp_elicit.gateway.bridge import Carried
from mcp_elicit.protocol import (
    ElicitationModes,
    ElicitationRequest,
    parse_elicit_result,
    rules_for,
)
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision


@dataclass(frozen=True, slots=True)
class AskingHere:
    """The gateway's own person: ``handler`` asks them; ``always``: every question, not only
    the ones the host cannot be asked. ``server`` names the upstream to the person; ``local``:
    the gateway started it over stdio (``Policy.loopback_for_local_servers``)."""

    handler: ElicitationHandler
    always: bool = False
    server: str = "server"
    local: bool = False

    def declared(self, down: Peer) -> ElicitationModes:
        """The modes declared upstream for ``down``: the host's and the person's."""
        mine = self.handler.modes
        if self.always:
            return mine
        theirs = down.modes
        return ElicitationModes(form=theirs.form or mine.form, url=theirs.url or mine.url)

    def takes_all(self, down: Peer) -> bool:
        """Every question of ``down``'s calls is the person's (the host has no mode)."""
        return self.always or not down.modes.any

    def answers(self, request: ElicitationRequest, down: Peer) -> bool:
        """``request`` is the gateway's person's to answer, not the host's."""
        if self.takes_all(down) or down.revision is None:
            return True
        if not down.modes.allows(request.mode):
            return True
        return request.mode == "url" and not rules_for(down.revision).has_url_mode

    async def ask(self, request: ElicitationRequest, *, revision: Revision) -> Carried:
        """Ask the person ``request`` (the upstream's, of ``revision``): the answer as the
        upstream reads it. ``MCPError`` when the handler refuses the request."""
        params = request.to_params(revision)
        asking = Asking(self.server, revision, local=self.local)
        try:
            sent = await self.handler.handle(params, asking)
        except ElicitationRefused as refused:
            error = refused.error
            raise MCPError(
                int(error.get("code", INTERNAL_ERROR)),
                str(error.get("message", "refused")),
                error.get("data"),
            ) from None
        answer = parse_elicit_result(sent, revision=revision, mode=request.mode)
        if isinstance(answer, list):  # pragma: no cover - the handler writes valid results
            raise MCPError(INTERNAL_ERROR, "the gateway's person gave no valid answer")
        return Carried(answer, sent)


def upstream_modes(here: AskingHere | None, down: Peer) -> ElicitationModes:
    """What the gateway declares upstream for ``down`` (the host's modes without ``here``)."""
    return down.modes if here is None else here.declared(down)


def answered_here(here: AskingHere | None, request: ElicitationRequest, down: Peer) -> bool:
    return here is not None and here.answers(request, down)


__all__ = ["AskingHere", "answered_here", "upstream_modes"]
