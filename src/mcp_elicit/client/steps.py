"""What every kind of request shares on its way through the handler.

:class:`~mcp_elicit.client.handler.ElicitationHandler` runs one pipeline for every request
(check, policy, ask, validate, audit); what differs by kind of request (a form, a link) is in
:mod:`~mcp_elicit.client.form_requests` and :mod:`~mcp_elicit.client.link_requests`. Those
modules see the handler as :class:`HandlerSteps` (the steps they may use of it) and share,
from here, who is asking (:class:`Asking`), the error a request is refused with
(:class:`ElicitationRefused`), and the results the handler gives on its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.call_round import CallRound
from mcp_elicit.client.completions import CompletionWatch
from mcp_elicit.client.policy import OUTCOME_META, Policy
from mcp_elicit.client.prompts import Cancel, Decision, Decline, FormPrompt, Notice, UrlPrompt
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.revisions import Revision


@dataclass(frozen=True, slots=True)
class Asking:
    """Who is asking, on which revision, and (for the required-URL path) for which call.

    ``local`` is true for a server this host started itself over stdio: it runs on this
    machine as this user (see :attr:`Policy.loopback_for_local_servers`).

    On 2026-07-28, under :class:`~mcp_elicit.client.ElicitingClient`: ``input_key`` is the key
    of the input request being answered, and ``call_round`` the round state of the tool call it
    belongs to (:mod:`mcp_elicit.client.call_round`)."""

    server: str
    revision: Revision
    required_by: str | None = None
    local: bool = False
    input_key: str | None = None
    call_round: CallRound | None = None


class ElicitationRefused(Exception):
    """The request is answered with this JSON-RPC ``error`` object instead of a result."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message", "elicitation refused"))
        self.error = error


class HandlerSteps(Protocol):
    """The handler as a kind of request uses it: its parts, and the steps every kind shares."""

    renderer: Renderer | None
    policy: Policy
    audit: AuditLog | None
    completions: CompletionWatch

    async def ask_person(
        self, question: Awaitable[Decision], *, prompt: FormPrompt | UrlPrompt | None = None
    ) -> Decision:
        """One prompt before the person at a time, request timeouts paused; ``prompt`` (what
        ``question`` shows) is withdrawn from the renderer if the request is given up."""
        ...

    async def open_link(
        self,
        prompt: UrlPrompt,
        event: dict[str, Any],
        *,
        opener: Callable[[str], object] | None = None,
    ) -> Decision:
        """Open a link the person agreed to; ``Accept`` once it is open."""
        ...

    def record(self, event: dict[str, Any]) -> None:
        """Append ``event`` to the audit log, if there is one."""
        ...


async def tell(renderer: Renderer | None, notice: Notice) -> None:
    """Tell the person ``notice``, if anyone is there to tell."""
    if renderer is not None:
        await renderer.notify(notice)


def cancelled_by_us(why: str) -> dict[str, Any]:
    """A cancel the handler chose on its own, saying why in ``_meta`` (so a server can tell it
    from a person's cancel)."""
    return {"action": "cancel", "_meta": {OUTCOME_META: why}}


def declined_or_cancelled(decision: Decision) -> dict[str, Any]:
    """The result of anything but an accept."""
    if isinstance(decision, Decline):
        return {"action": "decline"}
    if isinstance(decision, Cancel) and decision.no_person:
        return cancelled_by_us(decision.reason or "no-person")
    return {"action": "cancel"}
