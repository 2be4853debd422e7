"""URL mode: send the person to a page, out of band, so that what they enter there never passes
through the client.

- :func:`ask_url` — a URL the author controls; with a ``flow`` it waits for the flow to finish.
- :func:`secret` — the common case: a flow bound to the user, a hosted page where the person
  enters the secret, the vault, and the value returned to the tool.
- :class:`UrlRequired` — raise it when the tool should not block: the client opens the link,
  then calls the tool again.

Per revision: 2025-11-25 pushes ``elicitation/create`` (``mode: "url"``, ``elicitationId`` =
the flow id), waits, then sends ``notifications/elicitation/complete``; the URL-mode draft
pushes the same and answers ``elicitation/track``; 2026-07-28 returns an
``InputRequiredResult`` with the flow id in the sealed state and, on each retry, resumes if
the flow is complete or asks again if it is not.
"""

from __future__ import annotations

import secrets as _secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import REQUEST_TIMEOUT
from pydantic import SecretStr

from mcp_elicit.flows import Flows, TooManyOpenFlows
from mcp_elicit.protocol import parse_elicit_result, rules_for, url_request_params
from mcp_elicit.protocol.codes import ELICITATION_CREATE, URL_ELICITATION_REQUIRED
from mcp_elicit.revisions import Revision
from mcp_elicit.server import rounds
from mcp_elicit.server.answers import Accepted, Answer, Cancelled, Declined
from mcp_elicit.server.completions import Completions
from mcp_elicit.server.errors import CannotAsk, CapabilityRequired, ModeUnavailable
from mcp_elicit.server.link_rules import refuse_unsafe_link
from mcp_elicit.server.links import SECRET_PURPOSE
from mcp_elicit.server.peer import Peer
from mcp_elicit.server.runtime import Services
from mcp_elicit.server.scope import RequestScope, current_scope
from mcp_elicit.server.wording import refuse_links_in_text
from mcp_elicit.stores import FlowRecord, FlowStatus


class UrlRequired(MCPError):
    """Raise from a tool: "open this link, then call me again".

    Becomes -32042 with ``data.elicitations`` on 2025-11-25, -32604 on the URL-mode draft
    (when ``Elicitation(url_draft=True)``), and an ``InputRequiredResult`` with a URL request
    on 2026-07-28, which retired the error. ``flow_id``: when the link completes a flow,
    the client is told when it does (2025-11-25: ``notifications/elicitation/complete``).

    ``url`` is held to the rules of the hosted pages (:mod:`~mcp_elicit.server.link_rules`):
    :class:`~mcp_elicit.server.errors.UnsafeLink` is raised here for plain ``http://`` on a
    host that is not loopback, unless ``allow_insecure_http`` (for development), and for what
    looks like sensitive information about the user in the URL (a password, a token, an email
    address), unless ``allow_sensitive_data``.
    """

    # 2026-07-28: the key of the input request the link becomes.
    INPUT_KEY = rounds.LINK_KEY

    def __init__(
        self,
        url: str,
        message: str,
        *,
        elicitation_id: str | None = None,
        flow_id: str | None = None,
        error_message: str = "This request needs you to open a link first.",
        allow_insecure_http: bool = False,
        allow_sensitive_data: bool = False,
    ) -> None:
        refuse_links_in_text(message, where="UrlRequired message")
        refuse_unsafe_link(
            url,
            where="UrlRequired",
            allow_insecure_http=allow_insecure_http,
            allow_sensitive_data=allow_sensitive_data,
        )
        self.url = url
        self.prompt = message
        self.flow_id = flow_id
        self.elicitation_id = elicitation_id or flow_id or _secrets.token_urlsafe(16)
        params = url_request_params(
            message, url, elicitation_id=self.elicitation_id, revision=Revision.V2025_11_25
        )
        super().__init__(URL_ELICITATION_REQUIRED, error_message, {"elicitations": [params]})


async def ask_url(
    ctx: Any,
    url: str,
    message: str,
    *,
    flow: FlowRecord | None = None,
    timeout: float | None = None,
    allow_insecure_http: bool = False,
    allow_sensitive_data: bool = False,
) -> Answer[FlowRecord | None]:
    """Ask the person to open ``url``.

    Without ``flow``: ``Accepted(None)`` once the person agreed to open it (what happens there
    is the author's to track). With ``flow`` (from ``Elicitation.flows.start``, completed by
    the author's page): ``Accepted(flow)`` when it completed, ``Declined()`` when the person
    declined (in the client or on the page), ``Cancelled("expired" | "timeout")`` otherwise.

    ``url`` is held to the rules of the hosted pages (:mod:`~mcp_elicit.server.link_rules`),
    before anything is sent: :class:`~mcp_elicit.server.errors.UnsafeLink` for plain
    ``http://`` on a host that is not loopback, unless ``allow_insecure_http`` (for
    development), and for what looks like sensitive information about the user in the URL
    (a password, a token, an email address), unless ``allow_sensitive_data``.
    """
    refuse_links_in_text(message, where="the link's message")
    refuse_unsafe_link(
        url,
        where="ask_url()",
        allow_insecure_http=allow_insecure_http,
        allow_sensitive_data=allow_sensitive_data,
    )
    scope = current_scope(ctx)
    flow_link = None
    if flow is not None:
        runtime = scope.require_runtime("URL flows")

        async def same_flow(existing: str | None) -> FlowRecord | None:
            return flow

        flow_link = FlowLink(same_flow, runtime.flows, runtime.completions)
    return await ask_link(
        scope, message, pin=f"url:{url}", url_of=lambda _: url, flow_link=flow_link, timeout=timeout
    )


async def secret(
    ctx: Any,
    name: str,
    message: str,
    *,
    timeout: float | None = None,
    reuse: bool = True,
) -> Answer[SecretStr]:
    """The user's secret ``name`` (an API key, say), entered on the server's own page.

    With ``reuse`` a secret already in the vault for this user is returned at once. Otherwise
    a flow bound to the user is started and the person is sent to its page through URL mode;
    the value goes from their browser to the vault, never through the client. What is
    returned then is exactly what was typed on this call's own page (kept with its flow),
    even when other calls ask the same user for the same name at the same time.
    """
    # Before the vault: a stored secret returns early, and the author must still hear of it.
    refuse_links_in_text(message, where="secret() message")
    scope = current_scope(ctx)
    services = scope.services("secrets")
    # 2026-07-28 runs the body again each round: once this question has been sent, its answer
    # is its own flow's value, not whatever the vault holds for the name by now.
    if reuse and not _sent_in_an_earlier_round(scope, f"secret:{name}", message):
        stored = await services.vault.get(services.user, name)
        if stored is not None:
            return Accepted(stored)

    async def flow_for(existing: str | None) -> FlowRecord | None:
        found = await services.own_flow(existing)
        return found or await _start_secret_flow(services, name, message)

    answer = await ask_link(
        scope,
        message,
        pin=f"secret:{name}",
        url_of=lambda flow: services.flow_url(flow.id if flow is not None else ""),
        flow_link=FlowLink(flow_for, services.flows, services.completions),
        timeout=timeout,
    )
    if not isinstance(answer, Accepted):
        return answer
    flow = answer.value
    value = await _value_of_flow(services, flow, name) if flow is not None else None
    return Accepted(value) if value is not None else Cancelled("not-stored")


async def secret_required(ctx: Any, name: str, message: str) -> UrlRequired:
    """A :class:`UrlRequired` for the secret ``name``, for a tool that must not block::

    key = await stored_secret(ctx, "OPENAI_API_KEY")
    if key is None:
        raise await secret_required(ctx, "OPENAI_API_KEY", "Your OpenAI key, to …")

    A client that cannot open links gets what :class:`UrlRequired` would give it (-32021 on
    2026-07-28, else a tool error saying why), raised here: no flow is started for it.
    """
    refuse_links_in_text(message, where="secret_required() message")
    scope = current_scope(ctx)
    if scope.peer.revision is None or not scope.peer.modes.url:
        raise no_url_mode(scope.peer)  # no flow for a link that cannot be sent
    services = scope.services("secrets")
    # 2026-07-28: the retry after the link runs the tool again. While the flow the link
    # leads to is still open, send the same link, not a new flow per retry.
    flow = await services.completions.linked_flow(scope.round)
    if flow is None or flow.user != services.user or flow.details.get("name") != name:
        flow = await _start_secret_flow(services, name, message)
    # Our own page: its public_url was held to https off loopback (pages.hosts.check_transport,
    # with the operator's opt-out), and its URL carries the flow's id only.
    return UrlRequired(
        services.flow_url(flow.id), message, flow_id=flow.id, allow_insecure_http=True
    )


async def stored_secret(ctx: Any, name: str) -> SecretStr | None:
    """The user's secret ``name`` from the vault, or ``None``; never asks.

    On 2026-07-28, in the retry that follows a :func:`secret_required` link for ``name``, the
    value typed on that link's page (kept with its flow), not the vault's latest for the
    name: another call's page may have stored another value meanwhile."""
    scope = current_scope(ctx)
    services = scope.services("secrets")
    linked = scope.round.linked_flow() if scope.round is not None else None
    if linked is not None:
        flow = await services.flows.get(linked)
        if flow is not None and flow.status is FlowStatus.COMPLETED:
            own = await _value_of_flow(services, flow, name)
            if own is not None:
                return own
    return await services.vault.get(services.user, name)


async def forget_secret(ctx: Any, name: str) -> bool:
    """Delete the user's secret ``name`` (say, after the third party rejected it)."""
    services = current_scope(ctx).services("secrets")
    return await services.vault.forget(services.user, name)


# -- every URL-mode question -------------------------------------------------------------------

FlowFor = Callable[[str | None], Awaitable[FlowRecord | None]]


@dataclass(frozen=True, slots=True)
class FlowLink:
    """The flow behind a link: ``find`` gives it (given the id an earlier round sent, when
    there is one: the same flow, while it is still the user's; else a new one), ``flows``
    reads it again, and ``completions`` waits for it to finish, the revision's way."""

    find: FlowFor
    flows: Flows
    completions: Completions


async def ask_link(
    scope: RequestScope,
    message: str,
    *,
    pin: str,
    url_of: Callable[[FlowRecord | None], str],
    flow_link: FlowLink | None,
    timeout: float | None,
) -> Answer[Any]:
    """The one path of every URL-mode question, once its caller has checked the message for
    links. ``pin`` names the question across rounds (the URL may hold a fresh flow id each
    time, so it cannot); ``url_of`` is the URL, given the flow behind it (``flow_link``)."""
    if not isinstance(message, str) or not message.strip():
        raise ValueError("the message must say where the link goes and why")
    peer = scope.peer
    if peer.revision is None or not peer.modes.url:
        raise no_url_mode(peer)
    if scope.asks_by_push:
        return await _push(scope, peer.revision, message, url_of, flow_link, timeout)
    return await _in_rounds(scope, message, pin, url_of, flow_link)


async def _push(
    scope: RequestScope,
    revision: Revision,
    message: str,
    url_of: Callable[[FlowRecord | None], str],
    flow_link: FlowLink | None,
    timeout: float | None,
) -> Answer[Any]:
    flow = await flow_link.find(None) if flow_link is not None else None
    elicitation_id = flow.id if flow is not None else _secrets.token_urlsafe(16)
    params = url_request_params(
        message,
        url_of(flow),
        # 2026-07-28 (a link inside an extension task) has no elicitationId: no notice is
        # sent there, the task itself waits for the flow.
        elicitation_id=elicitation_id if rules_for(revision).has_elicitation_id else None,
        revision=revision,
    )
    try:
        raw = await scope.send_elicitation(params, timeout=timeout)
    except MCPError as exc:
        if exc.code == REQUEST_TIMEOUT:
            return Cancelled("timeout")
        raise CannotAsk(f"the client refused the link: {exc.message}") from exc
    consent = consent_of(raw, revision)
    if consent is not None or flow_link is None or flow is None:
        return consent or Accepted(None)
    # In a task the call was answered already: the task says it waits for the page, and its
    # completion notice names the task (on its open tasks/result stream, if any).
    with scope.waiting_for_page(params["url"]):
        finished = await flow_link.completions.after_link(
            revision,
            flow,
            session=scope.completion_client(),
            elicitation_id=elicitation_id,
            request_id=scope.request.request_id if scope.task is None else None,
            timeout=timeout,
        )
    return _flow_answer(finished, timed_out=not finished.status.finished)


async def _in_rounds(
    scope: RequestScope,
    message: str,
    pin_of: str,
    url_of: Callable[[FlowRecord | None], str],
    flow_link: FlowLink | None,
) -> Answer[Any]:
    """One link on 2026-07-28, by the round's rules (``rounds``)."""
    round_ = scope.require_round()
    key = round_.next_key()
    pin = _pin(pin_of, message)
    now = time.time()
    standing = round_.resolve(key, pin, now=now)
    if isinstance(standing, rounds.Restored):
        return await _restored(standing.recorded, flow_link)
    # A link's answer counts only against the link that was sent (not on its merits).
    asked = standing.asked if isinstance(standing, rounds.Responded) else None
    if isinstance(standing, rounds.Unanswered):
        asked = standing.last
    flow = None
    if flow_link is not None:
        flow = await flow_link.find(asked.flow if asked is not None else None)
    if isinstance(standing, rounds.Responded) and asked is not None:
        consent = consent_of(standing.response, Revision.V2026_07_28)
        if consent is not None:
            round_.record(key, rounds.Recorded.of(pin, consent))
            return consent
        if flow_link is None or flow is None:
            accepted: Answer[Any] = Accepted(None)
            round_.record(key, rounds.Recorded.of(pin, accepted))
            return accepted
        flow = await flow_link.completions.hold(flow)
        if flow.status.finished:
            answer = _flow_answer(flow, timed_out=False)
            # Recorded with the flow's id (never what its page received), so that the rounds
            # that follow, for the questions after this one, find this same flow again.
            round_.record(key, rounds.Recorded.of(pin, answer, {"flow": flow.id}))
            return answer
    params = url_request_params(message, url_of(flow), revision=Revision.V2026_07_28)
    request = {"method": ELICITATION_CREATE, "params": params}
    raise round_.ask(key, request, rounds.Asked(pin, now, flow=flow.id if flow else None))


async def _restored(recorded: rounds.Recorded, flow_link: FlowLink | None) -> Answer[Any]:
    """An answer recorded in an earlier round; a completed flow's is the flow, read again."""
    flow_id = (recorded.content or {}).get("flow") if recorded.action == "accept" else None
    if not isinstance(flow_id, str) or flow_link is None:
        return recorded.answer(lambda _: None)
    flow = await flow_link.flows.get(flow_id)
    return _flow_answer(flow, timed_out=False) if flow is not None else Cancelled("expired")


def consent_of(raw: Any, revision: Revision) -> Answer[Any] | None:
    """``None`` when the person agreed to open the link; their decline or cancel otherwise."""
    parsed = parse_elicit_result(raw, revision=revision, mode="url")
    if isinstance(parsed, list):
        raise CannotAsk("the client answered the link with a malformed result")
    if parsed.action == "decline":
        return Declined()
    if parsed.action == "cancel":
        return Cancelled(parsed.outcome)
    return None


def _flow_answer(flow: FlowRecord, *, timed_out: bool) -> Answer[Any]:
    if flow.status is FlowStatus.COMPLETED:
        return Accepted(flow)
    if flow.status is FlowStatus.DECLINED:
        return Declined()
    return Cancelled("timeout" if timed_out else "expired")


def no_url_mode(peer: Peer) -> ModeUnavailable:
    """What a client that cannot open links gets instead of one: on 2026-07-28 -32021 naming
    the capability, before it a tool error saying why (the revision, or the declaration)."""
    if peer.revision is not None and not peer.push_era:
        return CapabilityRequired(
            "url", "This tool sends the user to a web page: declare elicitation URL mode"
        )
    if peer.revision is None or not rules_for(peer.revision).has_url_mode:
        return ModeUnavailable(
            f"this tool needs the user to enter something on a web page, and the client "
            f"speaks MCP {peer.version}, which has no URL mode: connect with "
            f"{Revision.V2025_11_25} or later",
            mode="url",
            revision=peer.revision.value if peer.revision is not None else None,
        )
    return ModeUnavailable(
        "the client cannot open links for the user (it did not declare elicitation URL "
        "mode), and this tool needs the user to enter something on a web page",
        mode="url",
        revision=peer.revision.value,
    )


async def _start_secret_flow(services: Services, name: str, message: str) -> FlowRecord:
    try:
        return await services.flows.start(
            user=services.user, purpose=SECRET_PURPOSE, details={"name": name, "message": message}
        )
    except TooManyOpenFlows as full:
        raise CannotAsk(
            f"this tool cannot send another link: {full.limit} open links of this user are "
            f"waiting on this server already, the most allowed (Elicitation(max_open_flows="
            f"...)). Finish or decline one of them, or let it expire, then try again"
        ) from full


async def _value_of_flow(services: Services, flow: Any, name: str) -> SecretStr | None:
    """What was typed on ``flow``'s page, when it is this user's secret flow for ``name``."""
    if not isinstance(flow, FlowRecord) or flow.purpose != SECRET_PURPOSE:
        return None
    if flow.user != services.user or flow.details.get("name") != name:
        return None
    return await services.vault.of_flow(flow.id, services.user, name)


def _pin(pin_of: str, message: str) -> str:
    """What names a URL question across 2026-07-28 rounds (see :func:`ask_link`)."""
    return rounds.digest({"pin": pin_of, "message": message})


def _sent_in_an_earlier_round(scope: RequestScope, pin_of: str, message: str) -> bool:
    """This URL question was sent, or answered, in an earlier round of this call."""
    round_ = scope.round
    if round_ is None:
        return False
    pin = _pin(pin_of, message)
    return any(a.pin == pin for a in round_.asked.values()) or any(
        r.pin == pin for r in round_.answers.values()
    )
