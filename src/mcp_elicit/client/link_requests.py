"""Links on their way through the handler: URL mode, the required-URL path, the held retry.

- **URL mode** (``elicitation/create`` with ``mode: "url"``, or a 2026-07-28 input request):
  :func:`link_question` is the check step (the URL's verdict; a blocked URL never reaches the
  person), :meth:`LinkQuestion.conclude` opens the link once the person consents. Nothing waits
  for completion: the server goes on once it has the answer.
- **The required-URL path** (-32042, -32604: "open this link first"):
  :meth:`LinkQuestion.obtain` takes the person through consent, opening and completion, so that
  the failed call may be retried.
- **The held retry** (2026-07-28): the answer to a link rides on a retry the server may hold
  until the page is finished; :func:`wait_while_held` shows the person that wait.

A link is opened only after consent, never fetched by the client; one the browser did not open
is not reported as accepted until the person says they opened it themselves
(:func:`open_agreed_link`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from mcp_elicit.client.policy import Policy
from mcp_elicit.client.prompts import Accept, Decision, Decline, Notice, UrlPrompt
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.steps import Asking, HandlerSteps, declined_or_cancelled, tell
from mcp_elicit.i18n import N_, _
from mcp_elicit.protocol import ElicitationRequest, elicit_result, rules_for
from mcp_elicit.urls import UrlVerdict, Verdict, check_url

logger = logging.getLogger(__name__)

Tracker = Callable[[ElicitationRequest], Awaitable[None]]
"""Waits until a URL elicitation completes by the revision's own means (url-draft: track)."""

NOT_OPENED = N_("no browser could be started from here")
"""Why a link did not open, as the audit log records it (shown to the person translated)."""


@dataclass(frozen=True, slots=True)
class LinkQuestion:
    """A URL-mode request, checked: the consent prompt for a link that may be offered."""

    prompt: UrlPrompt
    request: ElicitationRequest
    asking: Asking

    def ask(self, renderer: Renderer) -> Awaitable[Decision]:
        return renderer.ask_url(self.prompt)

    async def conclude(
        self, steps: HandlerSteps, decision: Decision, event: dict[str, Any]
    ) -> dict[str, Any]:
        """URL mode: open the link once the person consents; the result to send."""
        if isinstance(decision, Accept):
            decision = await steps.open_link(self.prompt, event)
        if not isinstance(decision, Accept):
            return declined_or_cancelled(decision)
        # Nothing waits here for completion: the server goes on once it has the answer. On
        # 2026-07-28 the answer rides on a retry the server may hold while the page is open;
        # ElicitingClient shows the person that wait (CallRound, wait_while_held).
        asking = self.asking
        if (
            asking.call_round is not None
            and asking.input_key is not None
            and rules_for(asking.revision).completion == "retry"
        ):
            asking.call_round.link_accepted(asking.input_key, self.prompt)
        return elicit_result("accept", revision=asking.revision, mode="url")

    async def obtain(
        self, steps: HandlerSteps, event: dict[str, Any], tracker: Tracker | None
    ) -> str:
        """The required-URL path: consent, open, wait for completion (by ``tracker``, the
        server's notification, or the person's word); the outcome for the audit."""
        renderer = steps.renderer
        assert renderer is not None  # the policy step said a person is there
        elicitation_id = self.request.elicitation_id
        # Watched from before the consent screen: the server may say it is complete while the
        # person is still reading it. An id nobody watches is ignored (CompletionWatch).
        completed = (
            steps.completions.expect(elicitation_id)
            if elicitation_id is not None
            else anyio.Event()
        )
        try:
            decision = await steps.ask_person(renderer.ask_url(self.prompt), prompt=self.prompt)
            if isinstance(decision, Accept):
                decision = await steps.open_link(self.prompt, event)
            if not isinstance(decision, Accept):
                return "decline" if isinstance(decision, Decline) else "cancel"
            async with anyio.create_task_group() as tasks:
                if tracker is not None:

                    async def track() -> None:
                        await tracker(self.request)
                        completed.set()

                    tasks.start_soon(track)
                done = await steps.ask_person(
                    renderer.wait_for_completion(self.prompt, completed), prompt=self.prompt
                )
                tasks.cancel_scope.cancel()
        finally:
            if elicitation_id is not None:
                steps.completions.forget(elicitation_id)
        event["completed_by"] = "server" if completed.is_set() else "person"
        return "accept" if isinstance(done, Accept) else "cancel"


def link_verdict(policy: Policy, url: str, *, local: bool) -> UrlVerdict:
    """The verdict :func:`link_question` gives ``url`` under the host's ``policy`` (``local``:
    a server this host started over stdio). A public seam so that a host which shows a link
    some other way (a LangGraph interrupt: :mod:`mcp_elicit.integrations.langchain`) judges it
    exactly as the handler does."""
    return check_url(url, policy.url_policy_for(local=local))


async def link_question(
    steps: HandlerSteps, request: ElicitationRequest, asking: Asking, event: dict[str, Any]
) -> LinkQuestion | None:
    """Check a link: its verdict under the host's URL policy goes to ``event``; ``None`` (and
    the person told) when the URL is blocked."""
    assert request.url is not None
    verdict = link_verdict(steps.policy, request.url, local=asking.local)
    event |= {"url": request.url, "url_verdict": verdict.verdict.value}
    if verdict.reasons:
        event["url_reasons"] = list(verdict.codes)
    if verdict.verdict is Verdict.BLOCK:
        reasons = "; ".join(r.message for r in verdict.reasons)
        event["why"] = "url-blocked"
        text = _("Blocked a link it asked you to open: {reasons}").format(reasons=reasons)
        await tell(steps.renderer, Notice(asking.server, text, "error"))
        return None
    prompt = UrlPrompt(
        asking.server,
        request.message,
        request.url,
        verdict,
        request.elicitation_id,
        asking.revision.value,
        asking.required_by,
    )
    return LinkQuestion(prompt, request, asking)


async def open_agreed_link(
    steps: HandlerSteps,
    prompt: UrlPrompt,
    event: dict[str, Any],
    opener: Callable[[str], object] | None,
) -> Decision:
    """Open the link the person agreed to. When the browser did not open it, the person is
    told, shown the link, and asked: ``Accept`` only once they say they opened it
    themselves."""
    if opener is None or getattr(steps.renderer, "opens_links", False):
        return Accept()
    try:
        opened = opener(prompt.url)
    except Exception as error:  # the opener's failure is the person's to hear about
        logger.debug("the link could not be opened: %s", error, exc_info=True)
        failure = f"{type(error).__name__}: {error}"
        why = f"the browser could not be started ({failure})"
        shown = _("the browser could not be started ({error})").format(error=failure)
    else:
        if opened is not False:
            return Accept()
        why, shown = NOT_OPENED, _(NOT_OPENED)
    event["open_failed"] = why  # the record stays English; the person reads ``shown``
    decision = await steps.ask_person(
        _link_not_opened(steps.renderer, prompt, shown), prompt=prompt
    )
    if isinstance(decision, Accept):
        event["opened_by"] = "person"
    return decision


async def _link_not_opened(renderer: Renderer | None, prompt: UrlPrompt, why: str) -> Decision:
    assert renderer is not None
    ask = getattr(renderer, "link_not_opened", None)
    if ask is not None:
        decision: Decision = await ask(prompt, why)
        return decision
    # A renderer without it: the link in a notice, then its "done / cancel" step.
    await renderer.notify(
        Notice(
            prompt.server,
            _("The link did not open ({why}). Open it yourself: {url}").format(
                why=why, url=prompt.url
            ),
        )
    )
    return await renderer.wait_for_completion(prompt, anyio.Event())


async def wait_while_held(
    steps: HandlerSteps, prompt: UrlPrompt, finished: anyio.Event, server: str | None
) -> Decision:
    """The waiting screen while the server holds the retry that carries ``prompt``'s accept
    (:meth:`~mcp_elicit.client.handler.ElicitationHandler.wait_while_held` says how it ends);
    recorded when the person ends it."""
    if steps.renderer is None:
        await finished.wait()
        return Accept()
    decision = await steps.ask_person(
        steps.renderer.wait_for_completion(prompt, finished), prompt=prompt
    )
    if not finished.is_set():
        steps.record(
            {
                "server": server or prompt.server,
                "revision": prompt.revision,
                "mode": "url",
                "message": prompt.message,
                "url": prompt.url,
                "outcome": "done" if isinstance(decision, Accept) else "cancel",
                "while_held": True,
            }
        )
    return decision
