"""The elicitation handler: check the request, apply the policy, ask, validate, record.

One handler answers every revision's elicitations, through one pipeline, whichever way the
request came (pushed as ``elicitation/create``, or in a 2026-07-28 round): :meth:`handle`.

1. **Check** the request as the negotiated revision defines it (liberally: the url-draft's
   spelling, a missing ``mode``, the early draft's message-only ask are accepted and noted).
   A malformed request or schema is answered with -32602 listing every problem. Lint findings
   (a URL in the text, fields that look like secrets) go to the person with the form; a URL's
   verdict decides whether the link is offered at all.
2. **Policy**: server allow/deny, the rate limit, declared modes, whether a person is there.
   When the handler cancels on its own it says why in ``_meta`` (:data:`OUTCOME_META`).
3. **Ask** through the renderer, one prompt at a time, with request timeouts paused.
4. **Validate** the answer with the form model (an invalid answer is never sent); for a link,
   open it once the person consents.
5. **Audit** the request and its outcome.

What differs by kind of request is in :mod:`~mcp_elicit.client.form_requests` (forms, and the
early draft's free text) and :mod:`~mcp_elicit.client.link_requests` (URL mode, the
required-URL path :meth:`ElicitationHandler.obtain`, the 2026-07-28 held retry).
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import anyio

from mcp_elicit.client.attention import Attention
from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.call_round import CallRound
from mcp_elicit.client.completions import CompletionWatch
from mcp_elicit.client.form_requests import FormQuestion, form_question
from mcp_elicit.client.link_requests import (
    LinkQuestion,
    Tracker,
    link_question,
    open_agreed_link,
    wait_while_held,
)
from mcp_elicit.client.opening import open_privately
from mcp_elicit.client.policy import Policy, RateLimiter
from mcp_elicit.client.prompts import Decision, FormPrompt, Notice, UrlPrompt
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.steps import Asking, ElicitationRefused, cancelled_by_us, tell
from mcp_elicit.i18n import ngettext
from mcp_elicit.protocol import (
    ElicitationModes,
    ElicitationRequest,
    invalid_params_error,
    parse_elicitation_params,
    rules_for,
    undeclared_mode_problem,
)
from mcp_elicit.revisions import Revision, negotiated_revision

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientRequestContext, ClientSession

logger = logging.getLogger(__name__)


def open_in_browser(url: str) -> bool:
    """The default opener: a new tab of the system browser, given ``file://`` a redirect file
    only this user can read, never ``url`` itself, which other users could read on the
    browser's command line (:mod:`mcp_elicit.client.opening`). ``False`` when no browser
    could be started. Never called before the person consents."""
    return open_privately(url)


class ElicitationHandler:
    """Answers elicitations from any server on any revision; plugs into the SDK client.

    Use it as the SDK's ``elicitation_callback`` (``mcp.Client(..., elicitation_callback=
    handler)``), or give it to :class:`mcp_elicit.client.ElicitingClient`, which also declares
    exactly :attr:`modes`, handles the required-URL errors and the 2026-07-28 retry loop.
    """

    def __init__(
        self,
        renderer: Renderer | None = None,
        *,
        policy: Policy | None = None,
        audit: AuditLog | None = None,
        opener: Callable[[str], object] | Literal["default"] | None = "default",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.renderer = renderer
        self.policy = policy if policy is not None else Policy()
        self.audit = audit
        if opener == "default":
            # A script speaks for no one at a browser (ScriptedRenderer says so): a link it
            # consents to is opened only by an opener given on purpose.
            browser = getattr(renderer, "opens_browser_by_default", True)
            opener = open_in_browser if browser else None
        self.opener: Callable[[str], object] | None = opener
        self.attention = Attention()
        self.completions = CompletionWatch()
        self._clock = clock
        self._limiter = RateLimiter(self.policy.rate_limit) if self.policy.rate_limit else None
        self._screen: anyio.Lock | None = None

    @property
    def modes(self) -> ElicitationModes:
        """The modes this handler answers; what the client declares."""
        return self.policy.modes

    async def __call__(
        self,
        context: ClientRequestContext,
        params: mcp_types.ElicitRequestParams,
        *,
        local: bool = False,
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        """The SDK callback, for a plain ``mcp.Client``; ``local`` when the host started this
        server over stdio. (Under :class:`~mcp_elicit.client.ElicitingClient` requests reach
        :meth:`handle` its own way, with the state of the call they belong to.)"""
        asking = asking_of(context.session, local=local)
        return await answer_for_sdk(params, lambda raw: self.handle(raw, asking))

    # -- the pipeline -----------------------------------------------------------------------

    async def handle(self, params: Any, asking: Asking) -> dict[str, Any]:
        """Answer one ``elicitation/create``'s params with the result ``asking.revision``
        defines, or raise :class:`ElicitationRefused` with the error to send."""
        event: dict[str, Any] = {"server": asking.server, "revision": asking.revision.value}
        try:
            # 1. Check: the request, then what its kind of request checks.
            request = self._check(params, asking, event)
            question: FormQuestion | LinkQuestion | None
            if request.mode == "url":
                question = await link_question(self, request, asking, event)
            else:
                question = form_question(request, asking, event)
            if question is None:  # a blocked link: the person was told, nobody is asked
                result = cancelled_by_us("url-blocked")
            # 2. Policy.
            elif (turned_away := await self._turned_away(asking.server, event)) is not None:
                result = turned_away
            else:
                assert self.renderer is not None  # the policy step said a person is there
                # 3. Ask; 4. validate the answer (a link: open it once the person consents).
                decision = await self.ask_person(
                    question.ask(self.renderer), prompt=question.prompt
                )
                result = await question.conclude(self, decision, event)
        except ElicitationRefused as refused:
            self.record(event | {"outcome": "error", "error": refused.error})
            raise
        # 5. Audit.
        self.record(event | {"outcome": _outcome(result)})
        return result

    def _check(self, params: Any, asking: Asking, event: dict[str, Any]) -> ElicitationRequest:
        """The request as ``asking.revision`` reads it, in a mode this handler declared."""
        return check_request(params, asking.revision, self.policy.modes, event)

    async def _turned_away(self, server: str, event: dict[str, Any]) -> dict[str, Any] | None:
        """The policy step: the cancel to send when the person is not asked at all (``event``
        says why, and the person is told what they should know); ``None`` to ask."""
        notice: Notice | None = None
        if self.renderer is None or not self.policy.person_available:
            why = "no-person"
        elif not self.policy.allows_server(server):
            why = "server-denied"
        elif self._limiter is not None and not self._limiter.admit(server, self._clock()):
            why = "rate-limited"
            if self._limiter.first_refusal(server):
                limit = self._limiter.limit
                notice = Notice(
                    server,
                    ngettext(
                        "{server} sent more than {requests} request in {seconds} s; further "
                        "requests are cancelled until it slows down",
                        "{server} sent more than {requests} requests in {seconds} s; further "
                        "requests are cancelled until it slows down",
                        limit.requests,
                    ).format(
                        server=server, requests=limit.requests, seconds=f"{limit.per_seconds:g}"
                    ),
                )
        else:
            return None
        event["why"] = why
        if notice is not None:
            await tell(self.renderer, notice)
        return cancelled_by_us(why)

    # -- the required-URL path (-32042, -32604) ---------------------------------------------

    async def obtain(
        self,
        requests: Sequence[ElicitationRequest],
        asking: Asking,
        *,
        tracker: Tracker | None = None,
    ) -> bool:
        """Take the person through every URL elicitation a failed call needs: consent, open,
        wait for completion. ``True`` when all are done and the call may be retried."""
        for request in requests:
            event: dict[str, Any] = {
                "server": asking.server,
                "revision": asking.revision.value,
                "mode": request.mode,
                "message": request.message,
                "required_by": asking.required_by,
            }
            outcome = await self._obtain_one(request, asking, event, tracker)
            self.record(event | {"outcome": outcome})
            if outcome != "accept":
                return False
        return True

    async def _obtain_one(
        self,
        request: ElicitationRequest,
        asking: Asking,
        event: dict[str, Any],
        tracker: Tracker | None,
    ) -> str:
        if request.mode != "url":
            event["why"] = "not-url-mode"
            return "cancel"
        question = await link_question(self, request, asking, event)
        if question is None:
            return "cancel"
        if (turned_away := await self._turned_away(asking.server, event)) is not None:
            return str(turned_away["action"])
        return await question.obtain(self, event, tracker)

    # -- 2026-07-28: the retry after a link ---------------------------------------------------

    async def wait_while_held(
        self, prompt: UrlPrompt, finished: anyio.Event, *, server: str | None = None
    ) -> Decision:
        """2026-07-28, after the person agreed to open ``prompt``'s link: the call has been
        retried with that answer, and the server may hold the retry until the page is
        finished. Show the person that it waits, through the renderer's
        ``wait_for_completion`` (``prompt.held`` is set); ``finished`` is set when the server
        has answered the retry with its result. ``Accept``: the person says they are done
        (the caller asks the server again at once); ``Cancel``: they give up. The caller
        cancels this when the server answers by asking again."""
        return await wait_while_held(self, prompt, finished, server)

    # -- steps for the kinds of request, and for the host ---------------------------------------

    async def ask_person(
        self, question: Awaitable[Decision], *, prompt: FormPrompt | UrlPrompt | None = None
    ) -> Decision:
        """Put one renderer call before the person as elicitations are (one at a time unless
        the renderer is ``concurrent``, request timeouts paused): for steps that are not an
        elicitation, like signing in. ``prompt`` is what that call shows.

        A renderer that says ``concurrent = True`` gets every prompt as it comes instead: it
        queues them itself, and can show the person what is waiting (the web renderer's page
        lists them). Behind the lock they would be invisible until their turn.

        When the caller is cancelled (the request was cancelled, or timed out), the question
        is withdrawn: a call the person had is cancelled and the renderer told to take
        ``prompt`` away (:meth:`Renderer.withdraw`); a call still waiting its turn is dropped
        unstarted (never left unawaited). The next prompt is then shown at once."""
        try:
            if getattr(self.renderer, "concurrent", False):
                return await self._before_person(question, prompt)
            if self._screen is None:
                # fast_acquire: a free lock is taken without a trip round the event loop.
                self._screen = anyio.Lock(fast_acquire=True)
            async with self._screen:
                return await self._before_person(question, prompt)
        finally:
            _drop_unstarted(question)

    async def _before_person(
        self, question: Awaitable[Decision], prompt: FormPrompt | UrlPrompt | None
    ) -> Decision:
        with self.attention.person_answering():
            try:
                return await question
            except anyio.get_cancelled_exc_class():
                if prompt is not None:
                    withdraw = getattr(self.renderer, "withdraw", None)
                    if withdraw is not None:  # a renderer from before Renderer.withdraw
                        try:
                            withdraw(prompt)
                        except Exception:  # the cancellation goes on whatever the screen did
                            logger.debug("the renderer could not withdraw a prompt", exc_info=True)
                raise

    async def open_link(
        self,
        prompt: UrlPrompt,
        event: dict[str, Any],
        *,
        opener: Callable[[str], object] | None = None,
    ) -> Decision:
        """Open a link the person agreed to, as URL mode does (``opener`` instead of the
        handler's when given); ``Accept`` once it is open, or once the person says they
        opened it themselves."""
        return await open_agreed_link(
            self, prompt, event, opener if opener is not None else self.opener
        )

    def record(self, event: dict[str, Any]) -> None:
        """Append ``event`` to the audit log, if there is one."""
        if self.audit is not None:
            self.audit.record(event)


def check_request(
    params: Any, revision: Revision, modes: ElicitationModes, event: dict[str, Any]
) -> ElicitationRequest:
    """The handler's check step for one request's raw params: read as ``revision`` defines it
    (liberally, see the module), in one of ``modes``; ``event`` gets what the audit records of
    it. Raises :class:`ElicitationRefused` (-32602, every problem) otherwise. Public so that a
    host that shows requests some other way (a LangGraph interrupt:
    :mod:`mcp_elicit.integrations.langchain`) reads them exactly as the handler does."""
    request = _parse(params, revision)
    event |= {"mode": request.mode, "message": request.message}
    if request.accepted_quirks:
        event["quirks"] = list(request.accepted_quirks)
    if (undeclared := undeclared_mode_problem(request, modes)) is not None:
        raise ElicitationRefused(invalid_params_error([undeclared]))
    return request


def _parse(params: Any, revision: Revision) -> ElicitationRequest:
    parsed = parse_elicitation_params(params, revision=revision)
    if (
        isinstance(parsed, list)
        and isinstance(params, Mapping)
        and params.get("mode") == "url"
        and not rules_for(revision).has_url_mode
    ):
        # A server from the URL-mode draft era, on a session that negotiated 2025-06-18.
        draft = parse_elicitation_params(params, revision=Revision.URL_DRAFT)
        if not isinstance(draft, list):
            quirk = f"URL mode on {revision.value}: read as the URL-mode draft"
            return replace(draft, accepted_quirks=(*draft.accepted_quirks, quirk))
    if isinstance(parsed, list):
        raise ElicitationRefused(invalid_params_error(parsed))
    return parsed


async def answer_for_sdk(
    params: mcp_types.ElicitRequestParams,
    answer: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
) -> mcp_types.ElicitResult | mcp_types.ErrorData:
    """``answer`` (the result for a request's raw params, or :class:`ElicitationRefused`) in
    the SDK callback's types."""
    import mcp_types  # the SDK's types, only once the SDK calls

    try:
        result = await answer(params.model_dump(by_alias=True, mode="json", exclude_none=True))
    except ElicitationRefused as refused:
        return mcp_types.ErrorData.model_validate(refused.error)
    return mcp_types.ElicitResult.model_validate(result)


def asking_of(
    session: ClientSession,
    required_by: str | None = None,
    *,
    local: bool = False,
    input_key: str | None = None,
    call_round: CallRound | None = None,
) -> Asking:
    """Who asks, read off an SDK client session; ``local`` for a server started over stdio
    (``input_key`` and ``call_round``: :class:`Asking`)."""
    info = session.server_info
    name = info.name if info is not None else "server"
    return Asking(
        name, revision_of(session.protocol_version), required_by, local, input_key, call_round
    )


def _drop_unstarted(question: Awaitable[Decision]) -> None:
    """Close a renderer's coroutine that never ran (its request was given up while it waited
    for its turn): Python would otherwise warn at exit that it was never awaited."""
    if (
        inspect.iscoroutine(question)
        and inspect.getcoroutinestate(question) == inspect.CORO_CREATED
    ):
        question.close()


def revision_of(version: str | None) -> Revision:
    """The elicitation revision whose rules apply to a negotiated protocol version (the SDK
    reads a session without one as 2025-11-25). Liberal: a version older than elicitation is
    read as its first revision."""
    if version is None:
        return Revision.V2025_11_25
    return negotiated_revision(version) or Revision.V2025_06_18


def _outcome(result: Mapping[str, Any]) -> str:
    """The action a result reports; an early-draft result has none, only ``cancelled``."""
    if "action" in result:
        return str(result["action"])
    return "cancel" if result.get("cancelled") else "accept"
