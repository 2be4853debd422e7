"""A request that may ask (``tools/call``, ``prompts/get``, ``resources/read``), carried
through the gateway whatever era each side speaks.

=================  ================================  =======================================
upstream asks by   downstream answers by             what the gateway does
=================  ================================  =======================================
push (2025)        push (2025)                       :meth:`Calls.relay_push`: each question
                                                     pushed on, on the call's own stream
push (2025)        retry (2026-07-28)                :meth:`Calls.hold`: the upstream call is
                                                     held open (``held``) between retries
retry (2026)       push (2025)                       :meth:`Calls.push_rounds`: each round's
                                                     questions pushed, answers sent back with
                                                     the server's ``requestState`` untouched
retry (2026)       retry (2026-07-28)                :meth:`Calls.relay_rounds`: relayed, the
                                                     answers checked against the questions
=================  ================================  =======================================

URL mode keeps its link, its ``elicitationId`` and its completion: -32042 / -32604 pass to a
push-era client with their data (converted between the two codes when the revisions differ);
to a 2026-07-28 client they become URL-mode input requests, and its retry calls the server
again once the link is finished. A 2025-11-25 client is sent the completion notice the
upstream sends, or, when the upstream is 2026-07-28, one the gateway writes once the server
stops asking for that link.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
import anyio.abc
from mcp.server.context import ServerRequestContext
from mcp.server.request_state import authenticated_principal
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST

from mcp_elicit import _sdk
from mcp_elicit.gateway.bridge import (
    CANCEL,
    BadAnswer,
    Bridge,
    Refused,
    answer_for,
    read_question,
)
from mcp_elicit.gateway.held import Asking, Finished, HeldCall, HeldCalls, Stale
from mcp_elicit.gateway.links import Links
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol import (
    ElicitationRequest,
    ElicitResult,
    InputRequired,
    input_required_result,
    parse_input_required_result,
    parse_url_required_error,
    retry_params,
    rules_for,
    url_required_error,
)
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.protocol.peers import Peer, peer_of
from mcp_elicit.revisions import Revision

logger = logging.getLogger(__name__)

_OURS_IN_META = ("io.modelcontextprotocol/", "progressToken")
LINK_WAIT = 120.0
"""How long a 2026-07-28 client's retry after a -32042 link waits for the upstream's
completion notice before the call is tried again anyway (a server that sends no notice costs
the person this long; one that does is called again as soon as it arrives)."""
ROUND_MEMORY = 4096
"""Relayed 2026-07-28 rounds remembered (to check answers against their questions): a round
the gateway no longer remembers is relayed unchecked (the server checks its own)."""


def forwarded(params: Mapping[str, Any] | None, *keep: str) -> dict[str, Any]:
    """The client's params as they go upstream: without the client's own protocol ``_meta``
    (the gateway's session stamps its own), without the round fields unless kept."""
    out = {
        key: value
        for key, value in (params or {}).items()
        if key not in ("inputResponses", "requestState") or key in keep
    }
    meta = out.pop("_meta", None)
    if isinstance(meta, Mapping):
        kept = {k: v for k, v in meta.items() if not k.startswith(_OURS_IN_META)}
        if kept:
            out["_meta"] = kept
    return out


def error_of(error: MCPError) -> dict[str, Any]:
    return error.error.model_dump(by_alias=True, mode="json", exclude_none=True)


@dataclass
class Calls:
    """The four ways through (see the module docstring)."""

    upstream: Upstream
    bridge: Bridge
    held: HeldCalls
    links: Links
    tasks: anyio.abc.TaskGroup
    input_time_limit: float
    link_wait: float = LINK_WAIT
    url_draft: bool = False  # take a 2025-06-18 client declaring `elicitation.url` as the draft
    _rounds: dict[str, dict[str, ElicitationRequest]] = field(default_factory=dict)

    async def call(self, ctx: ServerRequestContext[Any, Any], method: str) -> dict[str, Any]:
        down = peer_of(ctx.protocol_version, declared(ctx), url_draft=self.url_draft)
        if self.upstream.rounds:
            if down.revision is Revision.V2026_07_28:
                return await self.relay_rounds(ctx, down, method)
            return await self.push_rounds(ctx, down, method)
        if down.revision is Revision.V2026_07_28:
            return await self.hold(ctx, down, method)
        return await self.relay_push(ctx, down, method)

    @property
    def _up_revision(self) -> Revision:
        return Revision(self.upstream.version)

    # -- asking the person on a push-era client ------------------------------------------

    async def _ask_pushed(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, request: ElicitationRequest
    ) -> ElicitResult | None:
        """Push ``request`` to the client and return its checked answer (``None``: a blocked
        link, which the gateway cancels). ``BadAnswer`` when the answer does not fit."""
        assert down.revision is not None
        if self._blocked(request):
            return None
        params = self.bridge.question_for(request, down.revision, down.modes)
        if request.mode == "url" and request.elicitation_id:
            self._watch(request.elicitation_id, ctx, down, ctx.request_id)
        raw = await _sdk.send_raw_request(ctx.session, ELICITATION_CREATE, params, timeout=None)
        answer = self._checked(raw, request, down.revision)
        return answer

    def _watch(
        self, elicitation_id: str, ctx: ServerRequestContext[Any, Any], down: Peer, request_id: Any
    ) -> None:
        """Remember a link sent to a push-era client: to pass its completion notice on
        (2025-11-25), or to answer its ``elicitation/track`` (the URL-mode draft)."""
        assert down.revision is not None
        notified = rules_for(down.revision).completion == "notification"
        session = ctx.session if notified else None
        self.links.watch(elicitation_id, session, request_id, owner=owner_of(ctx))

    def _blocked(self, request: ElicitationRequest) -> bool:
        if not self.bridge.blocked(request):
            return False
        self.bridge.record(
            {"mode": "url", "url": request.url, "action": "cancel", "why": "url-blocked"}
        )
        return True

    def _checked(self, raw: Any, request: ElicitationRequest, revision: Revision) -> ElicitResult:
        try:
            answer = self.bridge.read_answer(raw, request, revision)
        except BadAnswer as bad:
            self.bridge.record(
                {
                    "mode": request.mode,
                    "message": request.message,
                    "action": "invalid",
                    "why": str(bad),
                }
            )
            raise
        self.bridge.audit_answer(request, answer)
        return answer

    # -- push upstream, push downstream --------------------------------------------------

    async def relay_push(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        up = self._up_revision
        bad_answers: list[BadAnswer] = []
        scope = anyio.CancelScope()

        async def asked(raw: dict[str, Any]) -> dict[str, Any]:
            try:
                request = read_question(raw, up)
                if down.revision is None:
                    raise Refused(
                        {"code": INVALID_REQUEST, "message": "The client has no elicitation"}
                    )
                answer = await self._ask_pushed(ctx, down, request)
            except Refused as refused:
                raise _mcp_error(refused.error) from None
            except BadAnswer as bad:  # never sent upstream: the call ends here
                bad_answers.append(bad)
                scope.cancel()
                raise MCPError(INVALID_PARAMS, str(bad)) from None
            return CANCEL if answer is None else answer_for(answer, request, up)

        async with self.upstream.lease(down.modes, asked) as connection:
            with scope:
                try:
                    return await connection.request(method, forwarded(ctx.params))
                except MCPError as error:
                    raise self._url_error_for(error, down, ctx) from None
            connection.spoiled = True  # given up mid-call
        return bad_answers[0].result_for(method)

    def _url_error_for(
        self, error: MCPError, down: Peer, ctx: ServerRequestContext[Any, Any]
    ) -> MCPError:
        """-32042 / -32604 for a push-era client: as it came when the revisions agree, in the
        client's code otherwise; an error the client cannot be given (no URL mode) says so."""
        raw = error_of(error)
        requests = parse_url_required_error(raw)
        if requests is None:
            return error
        if down.revision is None or not rules_for(down.revision).required_error_code:
            return _mcp_error(
                {
                    "code": INVALID_REQUEST,
                    "message": "The server needs a link opened (URL mode), and this "
                    "client's revision has no URL mode",
                }
            )
        for request in requests:
            if request.elicitation_id:
                self._watch(request.elicitation_id, ctx, down, None)
        if raw.get("code") == rules_for(down.revision).required_error_code:
            return error
        converted = url_required_error(
            requests, revision=down.revision, message=str(raw.get("message") or "")
        )
        return _mcp_error(converted)

    # -- push upstream, retry downstream: held calls -------------------------------------

    async def hold(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        params = ctx.params or {}
        state = _state_of(params.get("requestState"))
        responses = params.get("inputResponses")
        responses = responses if isinstance(responses, Mapping) else {}
        if "links" in state:
            return await self._after_links(ctx, down, method, state["links"], responses)
        held = self.held.get(state.get("call")) if state else None
        if state and held is None:
            raise MCPError(
                INVALID_PARAMS,
                "This call is no longer held by the gateway (it "
                "expired, or was held by another instance): call "
                "it again",
            )
        if held is None:
            held = self._start_held(down, method, forwarded(params))
        else:
            key = state.get("key")
            current = held.current
            if current is not None and current.key == key and key in responses:
                try:
                    answer = self._checked(responses[key], current.request, Revision.V2026_07_28)
                except BadAnswer as bad:  # never sent upstream: the held call is given up
                    held.expire()
                    self.held.forget(held)
                    return bad.result_for(method)
                held.answer(key, answer_for(answer, current.request, self._up_revision))
            elif current is None or current.key != key:
                raise MCPError(
                    INVALID_PARAMS,
                    "This retry answers a question the call is no "
                    "longer waiting on (it was answered already)",
                )
        return await self._next_step(held, down, method)

    async def _next_step(self, held: HeldCall, down: Peer, method: str) -> dict[str, Any]:
        """What the client's request ends with: the held call's next question, or its
        outcome (and the call is forgotten)."""
        try:
            step = await held.next_step()
        except Stale as stale:  # it expired while the request waited
            self.held.forget(held)
            raise MCPError(INVALID_PARAMS, str(stale)) from None
        if isinstance(step, Asking):
            state = json.dumps({"call": held.id, "key": step.key})
            return input_required_result(
                {step.key: {"method": ELICITATION_CREATE, "params": step.shown}}, state
            )
        self.held.forget(held)
        return self._finished_result(step, down, method)

    def _finished_result(self, step: Finished, down: Peer, method: str) -> dict[str, Any]:
        if step.result is not None:
            return step.result
        error = step.error
        if not isinstance(error, MCPError):
            raise MCPError(INTERNAL_ERROR, f"The upstream call failed: {error}")
        requests = parse_url_required_error(error_of(error))
        if requests is None:
            raise error
        links: dict[str, str] = {}
        asked: dict[str, Any] = {}
        for number, request in enumerate(requests, start=1):
            key = f"link{number}"
            asked[key] = {
                "method": ELICITATION_CREATE,
                "params": self.bridge.question_for(request, Revision.V2026_07_28, down.modes),
            }
            links[key] = request.elicitation_id or ""
            if request.elicitation_id:
                self.links.watch(request.elicitation_id, None, None)
        return input_required_result(asked, json.dumps({"links": links}))

    async def _after_links(
        self,
        ctx: ServerRequestContext[Any, Any],
        down: Peer,
        method: str,
        links: Any,
        responses: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The retry after -32042 made into URL input requests: once every link is finished,
        the call goes upstream again, from the start."""
        if not isinstance(links, Mapping) or not links:
            raise MCPError(INVALID_PARAMS, "Invalid requestState")
        actions = {
            key: (responses.get(key) or {}).get("action")
            if isinstance(responses.get(key), Mapping)
            else None
            for key in links
        }
        if any(action != "accept" for action in actions.values()):
            text = "The person did not open the link the server needs, so it cannot go on."
            if method == "tools/call":
                return {"content": [{"type": "text", "text": text}], "isError": True}
            raise MCPError(INVALID_REQUEST, text)
        with anyio.move_on_after(self.link_wait):
            for elicitation_id in links.values():
                if elicitation_id:
                    await self.links.finished(elicitation_id)
        held = self._start_held(down, method, forwarded(ctx.params))
        return await self._next_step(held, down, method)

    def _start_held(self, down: Peer, method: str, params: dict[str, Any]) -> HeldCall:
        held = self.held.new()
        self.tasks.start_soon(self._run_held, held, down, method, params)
        self.tasks.start_soon(self._expire, held)
        return held

    async def _run_held(
        self, held: HeldCall, down: Peer, method: str, params: dict[str, Any]
    ) -> None:
        up = self._up_revision

        async def asked(raw: dict[str, Any]) -> dict[str, Any]:
            try:
                request = read_question(raw, up)
                if self._blocked(request):
                    return CANCEL
                shown = self.bridge.question_for(
                    request, Revision.V2026_07_28, down.modes
                )  # refused here
            except Refused as refused:
                raise _mcp_error(refused.error) from None
            answer: dict[str, Any] = await held.ask(request, shown)
            return answer

        with anyio.CancelScope() as scope:
            held.cancel = scope.cancel  # an expired call is cancelled upstream
            try:
                async with self.upstream.lease(down.modes, asked) as connection:
                    result = await connection.request(method, params)
                held.finish(Finished(result=result))
            except MCPError as error:
                held.finish(Finished(error=error))
            except Exception as error:  # the upstream went away: the client is told
                logger.warning("a held call failed: %s", error)
                held.finish(Finished(error=MCPError(INTERNAL_ERROR, "The upstream call failed")))
        held.cancel = None

    async def _expire(self, held: HeldCall) -> None:
        """Expire ``held`` (its upstream call is cancelled) once nobody has come back for it
        within its limit; return when it is forgotten (its outcome was taken)."""
        while self.held.get(held.id) is held:
            at = held.expired_at()
            now = held.clock()
            if at is not None and now >= at:
                held.expire()
                self.held.forget(held)
                return
            await anyio.sleep(min(held.limit, 5.0) if at is None else max(at - now, 0.01))

    # -- retry upstream, push downstream -------------------------------------------------

    async def push_rounds(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        params = forwarded(ctx.params)
        links = _RoundLinks()
        pause = 0.5
        with anyio.fail_after(self.input_time_limit):
            while True:
                result = await self.upstream.request(method, params, down.modes)
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
                    responses, new = await self._answer_round(ctx, down, parsed, links)
                except BadAnswer as bad:  # never sent upstream: the rounds end here
                    return bad.result_for(method)
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
    ) -> tuple[dict[str, Any], bool]:
        responses: dict[str, Any] = {}
        new = False
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
                request = links.named(key, request)
            new = True
            try:
                answer = await self._ask_pushed(ctx, down, request)
            except Refused as refused:
                raise _mcp_error(refused.error) from None
            if answer is None:
                responses[key] = CANCEL
                continue
            if request.mode == "url" and answer.action == "accept":
                links.accept(key, request)
            responses[key] = answer_for(answer, request, Revision.V2026_07_28)
        return responses, new

    async def _complete_downstream(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, elicitation_id: str
    ) -> None:
        """The 2026-07-28 server stopped asking for the link, so its flow is done: a 2025-11-25
        client is sent the notice (written by the gateway), a draft client's track returns."""
        self.links.resolved(elicitation_id)
        if down.revision is not None and rules_for(down.revision).completion == "notification":
            await ctx.session.send_elicit_complete(
                elicitation_id, related_request_id=ctx.request_id
            )

    # -- retry upstream, retry downstream ------------------------------------------------

    async def relay_rounds(
        self, ctx: ServerRequestContext[Any, Any], down: Peer, method: str
    ) -> dict[str, Any]:
        params = forwarded(ctx.params, "inputResponses", "requestState")
        state = params.get("requestState")
        responses = params.get("inputResponses")
        asked = self._rounds.pop(_digest(state), None) if isinstance(state, str) else None
        if asked is not None and isinstance(responses, Mapping):
            checked = dict(responses)
            for key, request in asked.items():
                if key in responses:
                    try:
                        answer = self._checked(responses[key], request, Revision.V2026_07_28)
                    except BadAnswer as bad:  # never sent upstream: the rounds end here
                        return bad.result_for(method)
                    checked[key] = answer_for(answer, request, Revision.V2026_07_28)
            params["inputResponses"] = checked
        result = await self.upstream.request(method, params, down.modes)
        parsed = parse_input_required_result(result)
        if parsed is None or isinstance(parsed, list):
            return result
        shown = dict(result.get("inputRequests") or {})
        questions: dict[str, ElicitationRequest] = {}
        for key, request in parsed.elicitations.items():
            if self._blocked(request):
                raise MCPError(
                    INVALID_REQUEST,
                    "The server asked the person to open a link this gateway's policy blocks",
                )
            try:
                params_shown = self.bridge.question_for(request, Revision.V2026_07_28, down.modes)
            except Refused as refused:
                raise _mcp_error(refused.error) from None
            shown[key] = {"method": ELICITATION_CREATE, "params": params_shown}
            questions[key] = request
        if isinstance(parsed.request_state, str) and questions:
            self._remember(parsed.request_state, questions)
        return {**result, "inputRequests": shown}

    def _remember(self, state: str, questions: dict[str, ElicitationRequest]) -> None:
        if len(self._rounds) >= ROUND_MEMORY:
            self._rounds.pop(next(iter(self._rounds)))
        self._rounds[_digest(state)] = questions


class _RoundLinks:
    """The links of one call to a 2026-07-28 server, as a push-era client knows them.

    2026-07-28 has no ``elicitationId``: a link stays open for as long as the server keeps
    asking for it (the same key, the same URL), and is done when it stops. A 2025-11-25
    client needs an id to be told of completion, so the gateway names each link once.
    """

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


def declared(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any] | None:
    """The client capabilities a downstream request's session declared, as JSON."""
    capabilities = ctx.session.client_capabilities
    if capabilities is None:
        return None
    return capabilities.model_dump(by_alias=True, exclude_none=True, mode="json")


def owner_of(ctx: ServerRequestContext[Any, Any]) -> object:
    """Who a link sent in answer to ``ctx`` belongs to: the signed-in user, else the session."""
    return authenticated_principal(ctx) or _sdk.connection_of(ctx.session)


def _digest(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


def _state_of(state: Any) -> dict[str, Any]:
    """The gateway's own requestState (already unsealed by the SDK's boundary)."""
    if state is None:
        return {}
    try:
        found = json.loads(state) if isinstance(state, str) else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise MCPError(INVALID_PARAMS, "Invalid requestState")
    return found


def _mcp_error(error: Mapping[str, Any]) -> MCPError:
    return MCPError(int(error["code"]), str(error["message"]), error.get("data"))
