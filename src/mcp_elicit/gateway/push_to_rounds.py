"""A push-era server (2025-06-18, 2025-11-25) to a 2026-07-28 client: the upstream call is held
open while the client answers by retrying.

Rules:

- A first call (no ``requestState``) starts the upstream call, held (:mod:`.held`, where its
  state machine and its reasons are), in a task of the gateway's: the client's request
  returns as soon as the server asks (an ``InputRequiredResult`` whose ``requestState`` is a
  :class:`~.state.HeldQuestion`) or the call ends (its result, or its error).
- A retry carries that ``requestState`` (unsealed by the boundary) and, under the question's
  key, the answer. Only the question the call waits on is answered, once: a replay, or a
  second retry racing the first, is refused (-32602) and the call goes on. The answer is
  checked and written for the upstream (:meth:`.Bridge.answer`); one that does not fit is
  never sent: the held call is given up and the client's call ends there. A retry without
  the answer is shown the same question again.
- A retry for a call no longer held (it expired, or another gateway instance held it) is
  refused (-32602): held calls live in this process's memory. A retry from another client
  than the call's (:func:`~.context.client_of`) gets the very error a forged state gets
  (the SDK's boundary's), so that a state cannot tell one that is not yours from none.
- Caps and limits (:mod:`.limits`): a first call past the held-call cap is refused before
  anything starts upstream; a question too large, or one past the call's count, ends the
  call (the upstream call cancelled) with the error naming the limit, and so do too many
  links in a -32042; a retry with too many answers, or one too large, is refused and the
  call goes on.
- A question the client cannot be asked (a mode it did not declare, a schema its revision
  cannot express) is refused to the server, which decides what its call does then. A link
  the gateway's policy blocks ends the call (the upstream call cancelled) with an error
  saying it was blocked, and why (:class:`~.bridge.LinkBlocked`).
- A question the client cannot be asked goes to the gateway's own person when there is one
  (:mod:`.asking_here`): the call goes on upstream while the client's request waits.
- -32042 / -32604 end the call with the links the server needs, as URL-mode input requests
  (the ``requestState`` a :class:`~.state.RequiredLinks`). The retry's answer to each is
  checked and audited (:meth:`.Bridge.answer`). Once the person accepted them all, the
  retry waits for each link's completion (at most ``link_wait`` seconds: a server may send
  no notice) and calls the server again, from the start. The same retry sent again is the
  person saying they are done (:class:`~.links.LinkRetries`): it ends the first one's wait,
  and the server is called again now. A client with no URL mode
  has them opened by the gateway's own person, when there is one
  (:meth:`.AskingHere.after_links`), while its request waits for the call's result.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST

from mcp_elicit.gateway.asking_here import AskingHere, links_not_opened, upstream_modes
from mcp_elicit.gateway.bridge import BadAnswer, Bridge, LinkBlocked
from mcp_elicit.gateway.context import client_of, forwarded
from mcp_elicit.gateway.held import CallEnded, Foreign, HeldCall, HeldCalls, OpenQuestion, Stale
from mcp_elicit.gateway.limits import OverLimit
from mcp_elicit.gateway.links import Links
from mcp_elicit.gateway.state import (
    HeldQuestion,
    InvalidState,
    RequiredLink,
    RequiredLinks,
    read_state,
    write_state,
)
from mcp_elicit.gateway.upstream import Upstream, error_json
from mcp_elicit.protocol import (
    ElicitationRequest,
    input_required_result,
    parse_url_required_error,
)
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision

logger = logging.getLogger(__name__)

LINK_WAIT = 120.0
"""How long a 2026-07-28 client's retry after a -32042 link waits for the upstream's
completion notice before the call is tried again anyway (a server that sends no notice costs
the person this long; one that does is called again as soon as it arrives)."""


@dataclass(frozen=True, slots=True)
class PushToRounds:
    """Holds a push-era server's calls for a 2026-07-28 client (the module's rules)."""

    upstream: Upstream
    bridge: Bridge
    held: HeldCalls
    links: Links
    tasks: anyio.abc.TaskGroup
    link_wait: float = LINK_WAIT
    here: AskingHere | None = None  # the gateway's own person, for what the client cannot ask

    async def call(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        params = ctx.params or {}
        try:
            state = read_state(params.get("requestState"))
        except InvalidState as invalid:
            raise MCPError(INVALID_PARAMS, f"Invalid requestState: {invalid}") from None
        responses = params.get("inputResponses")
        responses = responses if isinstance(responses, Mapping) else {}
        self.bridge.responses(responses)
        owner = client_of(ctx)
        if isinstance(state, RequiredLinks):
            return await self._after_links(ctx, down, method, state, responses)
        if state is None:
            held = self._start(down, method, forwarded(params), owner)
            return await self._next_step(held, down, method)
        found = self.held.get(state.call)
        if found is None:
            raise MCPError(
                INVALID_PARAMS,
                "This call is no longer held by the gateway (it expired, or was held by "
                "another instance): call it again",
            )
        try:
            question = found.question(state.key, owner)
        except Foreign:
            raise foreign_state() from None
        except Stale:
            raise MCPError(
                INVALID_PARAMS,
                "This retry answers a question the call is no longer waiting on (it was "
                "answered already)",
            ) from None
        if state.key in responses:
            try:
                carried = self.bridge.answer(
                    responses[state.key],
                    question.request,
                    read_in=Revision.V2026_07_28,
                    write_in=Revision(self.upstream.version),
                )
            except BadAnswer as bad:  # never sent upstream: the held call is given up
                self.held.give_up(found)
                return bad.result_for(method)
            found.answer(state.key, carried.sent, owner)
        return await self._next_step(found, down, method)

    async def _next_step(self, held: HeldCall, down: Peer, method: str) -> dict[str, Any]:
        """What the client's request ends with: the held call's next question, or its
        outcome (and the call is forgotten)."""
        try:
            step = await held.next_step()
        except Stale as stale:  # it expired while the request waited
            self.held.forget(held)
            raise MCPError(INVALID_PARAMS, str(stale)) from None
        if isinstance(step, OpenQuestion):
            asked = {step.key: {"method": ELICITATION_CREATE, "params": step.shown}}
            return input_required_result(asked, write_state(HeldQuestion(held.id, step.key)))
        self.held.forget(held)
        return self._ended(step, down, method)

    def _ended(self, step: CallEnded, down: Peer, method: str) -> dict[str, Any]:
        """The result of an upstream call that ended: as it came, or its -32042 / -32604
        made into URL-mode input requests."""
        if step.result is not None:
            return step.result
        error = step.error
        if isinstance(error, LinkBlocked):
            return error.result_for(method)
        if not isinstance(error, MCPError):
            raise MCPError(INTERNAL_ERROR, f"The upstream call failed: {error}")
        requests = parse_url_required_error(error_json(error))
        if requests is None:
            raise error
        self.bridge.links(requests)
        links: dict[str, RequiredLink] = {}
        asked: dict[str, Any] = {}
        for number, request in enumerate(requests, start=1):
            key = f"link{number}"
            shown = self.bridge.written(request, Revision.V2026_07_28, down.modes)
            asked[key] = {"method": ELICITATION_CREATE, "params": shown}
            links[key] = RequiredLink(request.elicitation_id, request.url or "", request.message)
            if request.elicitation_id:
                self.links.watch(request.elicitation_id, None, None)
        record = RequiredLinks(secrets.token_urlsafe(16), links)
        return input_required_result(asked, write_state(record))

    async def _after_links(
        self,
        ctx: ServerRequestContext[Any, Any],
        down: Peer,
        method: str,
        required: RequiredLinks,
        responses: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The retry after -32042 made into URL input requests: each answer checked and
        audited; once every link is finished (or the person says so, by sending the retry
        again), the call goes upstream again, from the start."""
        retries = self.links.retries
        first, superseded = retries.arrived(required.id)
        accepted = True
        for key, link in required.links.items():
            if key not in responses:
                accepted = False
                continue
            request = ElicitationRequest(
                "url", link.message, url=link.url, elicitation_id=link.elicitation_id
            )
            try:
                carried = self.bridge.answer(
                    responses[key],
                    request,
                    read_in=Revision.V2026_07_28,
                    write_in=Revision(self.upstream.version),
                    required=True,
                )
            except BadAnswer as bad:
                return bad.result_for(method)
            accepted = accepted and carried.answer.action == "accept"
        if not accepted:
            return links_not_opened(method)
        if first:

            async def finished() -> None:
                for link in required.links.values():
                    if link.elicitation_id:
                        await self.links.finished(link.elicitation_id)

            await retries.waiting_for(superseded, finished, self.link_wait)
            if superseded.is_set():  # its client dropped it and sent it again
                raise MCPError(INVALID_REQUEST, "This retry was sent again; the later one goes on")
        held = self._start(down, method, forwarded(ctx.params), client_of(ctx))
        return await self._next_step(held, down, method)

    def _start(self, down: Peer, method: str, params: dict[str, Any], owner: object) -> HeldCall:
        held = self.held.new(owner)  # OverLimit past a cap: nothing started
        self.tasks.start_soon(self._run, held, down, method, params)
        self.tasks.start_soon(self.held.expire_when_idle, held)
        return held

    async def _run(self, held: HeldCall, down: Peer, method: str, params: dict[str, Any]) -> None:
        """The upstream call, from start to end; what the server asks is held for the
        client."""
        over: list[OverLimit | LinkBlocked] = []  # why the gateway ended the call
        asked_here = 0  # questions the gateway's own person answered (held.asked: the client)

        async def asked(request: ElicitationRequest) -> dict[str, Any]:
            nonlocal asked_here
            here = self.here if self.here is not None and self.here.answers(request, down) else None
            try:
                self.bridge.asked(held.asked + asked_here + 1)
                # Asked here, the call goes on while the client's request waits for its end.
                shown = None if here is not None else self.bridge.question(request, down)
            except (OverLimit, LinkBlocked) as ended:  # the call ends here, the client told why
                over.append(ended)
                scope.cancel()
                # An error response to the server, not an exception out of the SDK's handler
                # (logged there as a crash, with a traceback, for a designed outcome).
                raise MCPError(INVALID_PARAMS, str(ended)) from None
            if here is not None:
                asked_here += 1
                return (await here.ask(request, revision=Revision(self.upstream.version))).sent
            assert shown is not None
            answer: dict[str, Any] = await held.ask(request, shown)
            return answer

        with anyio.CancelScope() as scope:
            held.cancel = scope.cancel  # an expired call is cancelled upstream
            try:
                modes = upstream_modes(self.here, down)
                lease = self.upstream.lease(modes, asked, owner=held.owner)
                async with lease as connection:
                    if self.here is not None and self.here.takes_links(down):
                        # The links the server requires are the gateway's person's to open.
                        result = await self.here.after_links(
                            lambda: connection.request(method, params),
                            method=method,
                            params=params,
                            revision=Revision(self.upstream.version),
                            check_links=self.bridge.links,
                        )
                    else:
                        result = await connection.request(method, params)
                held.finish(CallEnded(result=result))
            except MCPError as error:
                held.finish(CallEnded(error=error))
            except Exception as error:  # the upstream went away: the client is told
                logger.warning("a held call failed: %s", error)
                held.finish(CallEnded(error=MCPError(INTERNAL_ERROR, "The upstream call failed")))
        held.cancel = None
        if over:
            held.finish(CallEnded(error=over[0]))


def foreign_state() -> MCPError:
    """What a retry carrying another client's state is told: word for word what the SDK's
    ``RequestStateBoundary`` tells a forged or expired one (``mcp.server.request_state``)."""
    return MCPError(
        INVALID_PARAMS, "Invalid or expired requestState", {"reason": "invalid_request_state"}
    )
