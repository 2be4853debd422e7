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
- **Links required before a call** (-32042 / -32604 from a push-era server): when the host
  cannot be given a link (:meth:`AskingHere.takes_links`), the gateway's person is taken
  through them by the client's own path (:func:`~mcp_elicit.client.required_links.
  call_after_links`: consent, the link opened, the server's completion notice or the person's
  word) and the call is made again, once per set of links; the host gets the result, never
  the error. If the person does not open them, a tool call ends with a tool error saying so.
- The handler's answer is checked by the handler (an invalid answer never leaves it) and
  recorded in the handler's audit log; a request it refuses (-32602) is the upstream's error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST

from mcp_elicit.client.handler import ElicitationHandler
from mcp_elicit.client.required_links import UrlElicitationLoop, call_after_links
from mcp_elicit.client.steps import Asking, ElicitationRefused
from mcp_elicit.gateway.bridge import Carried
from mcp_elicit.protocol import (
    ElicitationModes,
    ElicitationRequest,
    parse_elicit_result,
    parse_url_required_error,
    rules_for,
)
from mcp_elicit.protocol.messages import Mode
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision

MAX_LINK_RETRIES = 3
"""The most sets of links one call may require of the gateway's person (as
``ElicitingClient``'s ``max_url_retries``)."""

LINKS_NOT_OPENED = "The person did not open the link the server needs, so it cannot go on."


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
        return self._takes(request.mode, down)

    def takes_links(self, down: Peer) -> bool:
        """Links a push-era server requires before a call (-32042) are the gateway's person's
        to open, not ``down``'s: it cannot be asked in URL mode."""
        return self._takes("url", down)

    def _takes(self, mode: Mode, down: Peer) -> bool:
        if self.takes_all(down) or down.revision is None:
            return True
        if not down.modes.allows(mode):
            return True
        return mode == "url" and not rules_for(down.revision).has_url_mode

    async def after_links(
        self,
        call: Callable[[], Awaitable[dict[str, Any]]],
        *,
        method: str,
        params: dict[str, Any] | None,
        revision: Revision,
        check_links: Callable[[list[ElicitationRequest]], None],
    ) -> dict[str, Any]:
        """``call()``'s result (a request of ``method`` to a server of ``revision``), the
        person taken through every set of links it requires on the way, and the call made
        again after each (:func:`call_after_links`). A tool call whose links the person did
        not open ends with a tool error; any other request with ``INVALID_REQUEST``.
        ``check_links`` (the bridge's ``links``: the gateway's limits) sees each set before
        the person does; what it raises ends the call, the person asked nothing."""
        name = (params or {}).get("name") if method == "tools/call" else None
        required_by = name if isinstance(name, str) else method
        asking = Asking(self.server, revision, required_by=required_by, local=self.local)
        try:
            return await call_after_links(
                call, self.handler, asking, max_retries=MAX_LINK_RETRIES, check=check_links
            )
        except UrlElicitationLoop as loop:
            raise MCPError(INVALID_REQUEST, str(loop)) from None
        except MCPError as error:
            raw = error.error.model_dump(by_alias=True, mode="json", exclude_none=True)
            if parse_url_required_error(raw) is None:
                raise
            return links_not_opened(method)

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


def links_not_opened(method: str) -> dict[str, Any]:
    """What a request ends with when the person did not open the links it requires: a tool
    error for ``tools/call``; ``MCPError`` for any other request."""
    if method == "tools/call":
        return {"content": [{"type": "text", "text": LINKS_NOT_OPENED}], "isError": True}
    raise MCPError(INVALID_REQUEST, LINKS_NOT_OPENED)


def upstream_modes(here: AskingHere | None, down: Peer) -> ElicitationModes:
    """What the gateway declares upstream for ``down`` (the host's modes without ``here``)."""
    return down.modes if here is None else here.declared(down)


def answered_here(here: AskingHere | None, request: ElicitationRequest, down: Peer) -> bool:
    return here is not None and here.answers(request, down)


__all__ = ["AskingHere", "answered_here", "links_not_opened", "upstream_modes"]
