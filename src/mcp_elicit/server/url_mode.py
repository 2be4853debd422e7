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
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import REQUEST_TIMEOUT
from pydantic import SecretStr

from mcp_elicit.flows import FlowNotFound
from mcp_elicit.protocol import (
    ProtocolVersion,
    missing_capability_error,
    parse_elicit_result,
    url_request_params,
)
from mcp_elicit.protocol.codes import ELICITATION_CREATE, URL_ELICITATION_REQUIRED
from mcp_elicit.server import rounds
from mcp_elicit.server.answers import Accepted, Answer, Cancelled, Declined
from mcp_elicit.server.asking import send_elicitation
from mcp_elicit.server.errors import CannotAsk
from mcp_elicit.server.installed import installed_on, settings_of
from mcp_elicit.server.pages import SECRET_PURPOSE
from mcp_elicit.server.peer import Peer, peer_of
from mcp_elicit.stores import FlowRecord, FlowStatus

if TYPE_CHECKING:
    from mcp_elicit.server.elicitation import Elicitation


class UrlRequired(MCPError):
    """Raise from a tool: "open this link, then call me again".

    Becomes -32042 with ``data.elicitations`` on 2025-11-25, -32604 on the URL-mode draft
    (when ``Elicitation(url_draft=True)``), and an ``InputRequiredResult`` with a URL request
    on 2026-07-28, which retired the error. ``flow_id``: when the link completes a flow,
    the client is told when it does (2025-11-25: ``notifications/elicitation/complete``).
    """

    # 2026-07-28: the key of the input request the link becomes.
    INPUT_KEY = "url"

    def __init__(
        self,
        url: str,
        message: str,
        *,
        elicitation_id: str | None = None,
        flow_id: str | None = None,
        error_message: str = "This request needs you to open a link first.",
    ) -> None:
        self.url = url
        self.prompt = message
        self.flow_id = flow_id
        self.elicitation_id = elicitation_id or flow_id or _secrets.token_urlsafe(16)
        params = url_request_params(
            message, url, elicitation_id=self.elicitation_id, revision="2025-11-25"
        )
        super().__init__(URL_ELICITATION_REQUIRED, error_message, {"elicitations": [params]})


async def ask_url(
    ctx: Context[Any, Any],
    url: str,
    message: str,
    *,
    flow: FlowRecord | None = None,
    timeout: float | None = None,
) -> Answer[FlowRecord | None]:
    """Ask the person to open ``url``.

    Without ``flow``: ``Accepted(None)`` once the person agreed to open it (what happens there
    is the author's to track). With ``flow`` (from ``Elicitation.flows.start``, completed by
    the author's page): ``Accepted(flow)`` when it completed, ``Declined()`` when the person
    declined (in the client or on the page), ``Cancelled("expired" | "timeout")`` otherwise.
    """
    flow_id = flow.id if flow is not None else None

    async def same_flow(existing: str | None) -> FlowRecord | None:
        return flow

    return await url_question(
        ctx,
        message,
        pin=f"url:{url}",
        flow_for=same_flow if flow_id is not None else None,
        url_of=lambda _: url,
        timeout=timeout,
    )


async def secret(
    ctx: Context[Any, Any],
    name: str,
    message: str,
    *,
    timeout: float | None = None,
    reuse: bool = True,
) -> Answer[SecretStr]:
    """The user's secret ``name`` (an API key, say), entered on the server's own page.

    With ``reuse`` a secret already in the vault for this user is returned at once. Otherwise
    a flow bound to the user is started and the person is sent to its page through URL mode;
    the value goes from their browser to the vault, never through the client.
    """
    elicitation = _installed(ctx)
    user = elicitation.user_of(ctx)
    if reuse:
        stored = await elicitation.vault.get(user, name)
        if stored is not None:
            return Accepted(stored)

    async def flow_for(existing: str | None) -> FlowRecord | None:
        if existing is not None:
            found = await elicitation.flows.get(existing)
            if found is not None and found.user == user:
                return found
        return await elicitation.flows.start(
            user=user, purpose=SECRET_PURPOSE, details={"name": name, "message": message}
        )

    answer = await url_question(
        ctx,
        message,
        pin=f"secret:{name}",
        flow_for=flow_for,
        url_of=lambda flow: elicitation.flow_url(flow.id if flow is not None else ""),
        timeout=timeout,
    )
    if not isinstance(answer, Accepted):
        return answer
    value = await elicitation.vault.get(user, name)
    return Accepted(value) if value is not None else Cancelled("the secret was not stored")


async def secret_required(ctx: Context[Any, Any], name: str, message: str) -> UrlRequired:
    """A :class:`UrlRequired` for the secret ``name``, for a tool that must not block::

    key = await stored_secret(ctx, "OPENAI_API_KEY")
    if key is None:
        raise await secret_required(ctx, "OPENAI_API_KEY", "Your OpenAI key, to …")
    """
    elicitation = _installed(ctx)
    user = elicitation.user_of(ctx)
    # 2026-07-28: the retry after the link runs the tool again. While the flow the link
    # leads to is still open, send the same link, not a new flow per retry.
    flow = await _linked_flow(elicitation, rounds.current_round())
    if flow is None or flow.user != user or flow.details.get("name") != name:
        flow = await elicitation.flows.start(
            user=user, purpose=SECRET_PURPOSE, details={"name": name, "message": message}
        )
    return UrlRequired(elicitation.flow_url(flow.id), message, flow_id=flow.id)


async def stored_secret(ctx: Context[Any, Any], name: str) -> SecretStr | None:
    """The user's secret ``name`` from the vault, or ``None``; never asks."""
    elicitation = _installed(ctx)
    return await elicitation.vault.get(elicitation.user_of(ctx), name)


async def forget_secret(ctx: Context[Any, Any], name: str) -> bool:
    """Delete the user's secret ``name`` (say, after the third party rejected it)."""
    elicitation = _installed(ctx)
    return await elicitation.vault.forget(elicitation.user_of(ctx), name)


FlowFor = Callable[[str | None], Awaitable[FlowRecord | None]]


async def url_question(
    ctx: Context[Any, Any],
    message: str,
    *,
    pin: str,
    flow_for: FlowFor | None,
    url_of: Callable[[FlowRecord | None], str],
    timeout: float | None,
) -> Answer[Any]:
    """The one path of every URL-mode question. ``pin`` names the question across rounds
    (the URL may hold a fresh flow id each time, so it cannot)."""
    if not isinstance(message, str) or not message.strip():
        raise ValueError("the message must say where the link goes and why")
    peer = peer_of(ctx, url_draft=settings_of(ctx).url_draft)
    if peer.revision is None or not peer.modes.url:
        raise _no_url_mode(peer)
    if peer.push_era:
        return await _push(ctx, peer.revision, message, flow_for, url_of, timeout)
    return await _in_rounds(ctx, message, pin, flow_for, url_of)


async def _push(
    ctx: Context[Any, Any],
    revision: ProtocolVersion,
    message: str,
    flow_for: FlowFor | None,
    url_of: Callable[[FlowRecord | None], str],
    timeout: float | None,
) -> Answer[Any]:
    flow = await flow_for(None) if flow_for is not None else None
    elicitation_id = flow.id if flow is not None else _secrets.token_urlsafe(16)
    params = url_request_params(
        message, url_of(flow), elicitation_id=elicitation_id, revision=revision
    )
    try:
        raw = await send_elicitation(ctx, params, timeout=timeout)
    except MCPError as exc:
        if exc.code == REQUEST_TIMEOUT:
            return Cancelled("timeout")
        raise CannotAsk(f"the client refused the link: {exc.message}") from exc
    consent = _consent(raw, revision)
    if consent is not None or flow is None:
        return consent or Accepted(None)
    elicitation = _installed(ctx)
    finished = await elicitation.flows.wait(flow.id, timeout=timeout)
    answer = _flow_answer(finished, timed_out=not finished.status.finished)
    if isinstance(answer, Accepted) and revision is ProtocolVersion.V2025_11_25:
        await ctx.request_context.session.send_elicit_complete(
            elicitation_id, related_request_id=ctx.request_id
        )
    return answer


async def _in_rounds(
    ctx: Context[Any, Any],
    message: str,
    pin: str,
    flow_for: FlowFor | None,
    url_of: Callable[[FlowRecord | None], str],
) -> Answer[Any]:
    round_ = rounds.current_round()
    if round_ is None:
        raise RuntimeError(
            "asking a 2026-07-28 client needs mcp_elicit.server.Elicitation installed"
        )
    key = round_.next_key()
    pinned = rounds.digest({"pin": pin, "message": message})
    recorded = round_.answers.get(key)
    if recorded is not None and recorded.get("q") == pinned:
        return rounds.restore(recorded, lambda _: None)
    asked = round_.asked.get(key)
    same = asked is not None and asked.get("q") == pinned
    flow = None
    if flow_for is not None:
        flow = await flow_for(asked.get("flow") if same and asked is not None else None)
    response = round_.responses.get(key)
    if same and response is not None:
        consent = _consent(response, ProtocolVersion.V2026_07_28)
        if consent is not None:
            round_.answers[key] = rounds.record(pinned, consent)
            return consent
        if flow is None:
            accepted = Accepted(None)
            round_.answers[key] = rounds.record(pinned, accepted)
            return accepted
        flow = await held_until_finished(_installed(ctx), flow)
        if flow.status.finished:
            answer = _flow_answer(flow, timed_out=False)
            if not isinstance(answer, Accepted):
                round_.answers[key] = rounds.record(pinned, answer)
            return answer  # an accepted flow is looked up again each round, never copied
    params = url_request_params(message, url_of(flow), revision=ProtocolVersion.V2026_07_28)
    entry: dict[str, Any] = {"q": pinned, "at": time.time()}
    if flow is not None:
        entry["flow"] = flow.id
    raise rounds.AskPending(key, {"method": ELICITATION_CREATE, "params": params}, round_, entry)


async def held_until_finished(elicitation: Elicitation, flow: FlowRecord) -> FlowRecord:
    """2026-07-28: the client says the person opened the link and retries at once, while
    they are most likely still on the page. Asking for the link again right away would show
    them the same prompt a second time; hold the retry (``url_resume_wait``) instead."""
    wait = elicitation.settings.url_resume_wait
    if flow.status.finished or wait <= 0:
        return flow
    try:
        return await elicitation.flows.wait(flow.id, timeout=wait)
    except FlowNotFound:  # swept meanwhile: the caller asks again, with a fresh flow
        return flow


async def resume_linked_flow(elicitation: Elicitation, round_: rounds.Round) -> None:
    """Before a 2026-07-28 retry that follows a :class:`UrlRequired` link: if the person said
    they opened it, give its flow ``url_resume_wait`` to finish, so that the tool, run again,
    finds what the page stored (``stored_secret``) rather than sending the link again."""
    flow = await _linked_flow(elicitation, round_)
    response = round_.responses.get(UrlRequired.INPUT_KEY)
    if flow is None or response is None:
        return
    if _consent(response, ProtocolVersion.V2026_07_28) is None:
        await held_until_finished(elicitation, flow)


async def _linked_flow(elicitation: Elicitation, round_: rounds.Round | None) -> FlowRecord | None:
    """The flow a :class:`UrlRequired` link of the last round led to, while it is open."""
    asked = round_.asked.get(UrlRequired.INPUT_KEY) if round_ is not None else None
    flow_id = asked.get("flow") if isinstance(asked, dict) else None
    if not isinstance(flow_id, str):
        return None
    flow = await elicitation.flows.get(flow_id)
    return flow if flow is not None and not flow.status.finished else None


def _consent(raw: Any, revision: ProtocolVersion) -> Answer[Any] | None:
    """``None`` when the person agreed to open the link; their decline or cancel otherwise."""
    parsed = parse_elicit_result(raw, revision=revision, mode="url")
    if isinstance(parsed, list):
        raise CannotAsk("the client answered the link with a malformed result")
    if parsed.action == "decline":
        return Declined()
    if parsed.action == "cancel":
        return Cancelled()
    return None


def _flow_answer(flow: FlowRecord, *, timed_out: bool) -> Answer[Any]:
    if flow.status is FlowStatus.COMPLETED:
        return Accepted(flow)
    if flow.status is FlowStatus.DECLINED:
        return Declined()
    return Cancelled("timeout" if timed_out else "expired")


def _no_url_mode(peer: Peer) -> Exception:
    if peer.revision is not None and not peer.push_era:
        error = missing_capability_error(
            {"elicitation": {"url": {}}},
            message="This tool sends the user to a web page: declare elicitation URL mode",
        )
        return MCPError(error["code"], error["message"], error.get("data"))
    return CannotAsk(
        "the client cannot open links for the user (it did not declare elicitation URL "
        "mode), and this tool needs the user to enter something on a web page"
    )


def _installed(ctx: Context[Any, Any]) -> Elicitation:
    found = installed_on(ctx)
    if found is None:
        raise RuntimeError("secrets and flows need mcp_elicit.server.Elicitation installed")
    return found
