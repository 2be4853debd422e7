"""A request that may ask (``tools/call``, ``prompts/get``, ``resources/read``), carried
through the gateway whatever era each side speaks: :meth:`Calls.call` picks the way through by
the two peers' eras, and each way has a module of its own, with its rules at its top.

=================  ================================  =======================================
upstream asks by   downstream answers by             the way through
=================  ================================  =======================================
push (2025)        push (2025)                       :class:`.PushToPush`: each question
                                                     pushed on, on the call's own stream
push (2025)        retry (2026-07-28)                :class:`.PushToRounds`: the upstream
                                                     call is held open (:mod:`.held`)
                                                     between retries
retry (2026)       push (2025)                       :class:`.RoundsToPush`: each round's
                                                     questions pushed, answers sent back with
                                                     the server's ``requestState`` untouched
retry (2026)       retry (2026-07-28)                :class:`.RoundsToRounds`: relayed, the
                                                     answers checked against the questions
=================  ================================  =======================================

Whichever way, a question and its answer each cross the :class:`.Bridge` once (checked,
converted, audited), and URL mode keeps its link, its ``elicitationId`` and its completion:
-32042 / -32604 pass to a push-era client with their data (converted between the two codes
when the revisions differ); to a 2026-07-28 client they become URL-mode input requests, and
its retry calls the server again once the link is finished. A 2025-11-25 client is sent the
completion notice the upstream sends, or, when the upstream is 2026-07-28, one the gateway
writes once the server stops asking for that link.

With a person of the gateway's own (:mod:`.asking_here`), what the client cannot be asked is
asked here, whichever way; a 2026-07-28 client with no elicitation (or every client, with
``always``) has a 2026-07-28 server's rounds answered by the gateway, as
:class:`.RoundsToPush` answers them for a push-era client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import anyio.abc
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from mcp_elicit.gateway.asking_here import AskingHere, upstream_modes
from mcp_elicit.gateway.bridge import Bridge
from mcp_elicit.gateway.context import client_of, downstream_peer
from mcp_elicit.gateway.held import HeldCalls
from mcp_elicit.gateway.links import Links
from mcp_elicit.gateway.no_tasks import refusal_of
from mcp_elicit.gateway.push_to_push import PushToPush
from mcp_elicit.gateway.push_to_rounds import LINK_WAIT, PushToRounds
from mcp_elicit.gateway.pushing import PushedQuestions
from mcp_elicit.gateway.rounds_to_push import RoundsToPush
from mcp_elicit.gateway.rounds_to_rounds import RoundsToRounds
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision


class WayThrough(Protocol):
    """One way through: carries a request of ``down`` (the client) upstream and back."""

    async def call(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Calls:
    """The four ways through, by (the upstream asks by retry, the client answers by retry)."""

    upstream: Upstream
    ways: dict[tuple[bool, bool], WayThrough]
    url_draft: bool = False  # take a 2025-06-18 client declaring `elicitation.url` as the draft
    here: AskingHere | None = None  # the gateway's own person, for what a client cannot ask

    @classmethod
    def build(
        cls,
        upstream: Upstream,
        bridge: Bridge,
        held: HeldCalls,
        links: Links,
        tasks: anyio.abc.TaskGroup,
        *,
        input_time_limit: float,
        link_wait: float = LINK_WAIT,
        url_draft: bool = False,
        here: AskingHere | None = None,
    ) -> Calls:
        pushed = PushedQuestions(bridge, links, here)
        ways: dict[tuple[bool, bool], WayThrough] = {
            (False, False): PushToPush(upstream, pushed),
            (False, True): PushToRounds(upstream, bridge, held, links, tasks, link_wait, here),
            (True, False): RoundsToPush(upstream, pushed, input_time_limit),
            (True, True): RoundsToRounds(upstream, bridge),
        }
        return cls(upstream, ways, url_draft, here)

    async def call(self, ctx: ServerRequestContext[Any, Any], method: str) -> dict[str, Any]:
        down = downstream_peer(ctx, url_draft=self.url_draft)
        way = self.ways[(self.upstream.rounds, self._rounds_answered_by_client(down))]
        try:
            return await way.call(ctx, down, method)
        except MCPError as error:
            if method != "tools/call":
                raise
            tool = str((ctx.params or {}).get("name", ""))

            async def list_tools(params: dict[str, Any]) -> dict[str, Any]:
                return await self.upstream.request(
                    "tools/list", params, self.modes_for(down), owner=client_of(ctx)
                )

            refusal = await refusal_of(
                error, tool, rounds=self.upstream.rounds, list_tools=list_tools
            )
            if refusal is error:
                raise
            raise refusal from None

    def modes_for(self, down: Peer) -> ElicitationModes:
        """The modes declared upstream on behalf of ``down``."""
        if self.upstream.rounds and self._rounds_answered_by_client(down):
            return down.modes  # relayed rounds: only the client can answer them
        return upstream_modes(self.here, down)

    def _rounds_answered_by_client(self, down: Peer) -> bool:
        """``down`` answers by retrying (2026-07-28), not the gateway's person for it."""
        if down.revision is not Revision.V2026_07_28:
            return False
        return not (self.upstream.rounds and self.here is not None and self.here.takes_all(down))
