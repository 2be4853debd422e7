"""The elicitation handler: check the request, apply the policy, ask, validate, record.

One handler answers every revision's elicitations. Its pipeline, for each request:

1. **Check** the request as the negotiated revision defines it (liberally: the url-draft's
   spelling, a missing ``mode``, the early draft's message-only ask are accepted and noted).
   A malformed request or schema is answered with -32602 listing every problem. Lint findings
   (a URL in the text, fields that look like secrets) go to the person with the form.
2. **Policy**: server allow/deny, the rate limit, declared modes, whether a person is there.
   When the handler cancels on its own it says why in ``_meta`` (:data:`OUTCOME_META`).
3. **Ask** through the renderer, one prompt at a time, with request timeouts paused.
4. **Validate** the answer with the form model: an invalid answer is never sent.
5. **Audit** the request and its outcome.

URL mode shows a consent screen first; a blocked URL never reaches the person, and a URL is
opened only after consent and never fetched by the client. A link the browser did not open is
not reported as accepted until the person says they opened it themselves
(:meth:`ElicitationHandler` asks the renderer's ``link_not_opened``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import anyio

from mcp_elicit.client.attention import Attention
from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.completions import CompletionWatch
from mcp_elicit.client.opening import open_privately
from mcp_elicit.client.policy import OUTCOME_META, Policy, RateLimiter
from mcp_elicit.client.prompts import (
    MAX_ATTACHMENT_BYTES,
    Accept,
    Cancel,
    Decision,
    Decline,
    FormPrompt,
    Notice,
    UrlPrompt,
)
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.forms import Form, InvalidSchema, Problem, lint_schema
from mcp_elicit.i18n import N_, _, current_language, ngettext
from mcp_elicit.protocol import (
    ContentItem,
    ElicitationModes,
    ElicitationRequest,
    ProtocolProblem,
    early_result,
    elicit_result,
    invalid_params_error,
    parse_elicitation_params,
    rules_for,
    undeclared_mode_problem,
)
from mcp_elicit.protocol.revisions import EARLY_DRAFT
from mcp_elicit.revisions import Revision, negotiated_revision
from mcp_elicit.urls import Verdict, check_url

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientRequestContext, ClientSession

# What a person gains nothing from: schema hygiene for the server's author, and a note that
# clients may skip `pattern` (this one applies it).
_NOT_FOR_PEOPLE = frozenset({"ignored_keyword", "pattern_ignored"})

# The early draft asked with a message only; it is shown as one free-text question.
FREE_TEXT_FIELD = "response"
FREE_TEXT_TITLE = N_("Your answer")
FREE_TEXT_SCHEMA = {
    "type": "object",
    "properties": {FREE_TEXT_FIELD: {"type": "string", "title": FREE_TEXT_TITLE}},
}
# Not required: an answer may be only attached files. Renderers ask for text or a file.


def free_text_schema() -> dict[str, Any]:
    """:data:`FREE_TEXT_SCHEMA`, its question titled in the language in effect."""
    return {
        "type": "object",
        "properties": {FREE_TEXT_FIELD: {"type": "string", "title": _(FREE_TEXT_TITLE)}},
    }


@dataclass(frozen=True, slots=True)
class Asking:
    """Who is asking, on which revision, and (for the required-URL path) for which call.

    ``local`` is true for a server this host started itself over stdio: it runs on this
    machine as this user (see :attr:`Policy.loopback_for_local_servers`)."""

    server: str
    revision: Revision
    required_by: str | None = None
    local: bool = False


class ElicitationRefused(Exception):
    """The request is answered with this JSON-RPC ``error`` object instead of a result."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message", "elicitation refused"))
        self.error = error


logger = logging.getLogger(__name__)

NOT_OPENED = N_("no browser could be started from here")
"""Why a link did not open, as the audit log records it (shown to the person translated)."""


def open_in_browser(url: str) -> bool:
    """The default opener: a new tab of the system browser, given ``file://`` a redirect file
    only this user can read, never ``url`` itself, which other users could read on the
    browser's command line (:mod:`mcp_elicit.client.opening`). ``False`` when no browser
    could be started. Never called before the person consents."""
    return open_privately(url)


RETRY_LINKS: ContextVar[dict[str, UrlPrompt] | None] = ContextVar(
    "mcp_elicit_retry_links", default=None
)
"""2026-07-28: where :class:`ElicitingClient` collects, for one call, the links the person
agreed to open in the round being answered, by input key. The retry that carries those
accepts is the one a server may hold until the page is finished
(:meth:`ElicitationHandler.wait_while_held`)."""

# The key of the 2026-07-28 input request being answered (the SDK passes it as the request id).
_INPUT_KEY: ContextVar[str | None] = ContextVar("mcp_elicit_input_key", default=None)


Tracker = Callable[[ElicitationRequest], Awaitable[None]]
"""Waits until a URL elicitation completes by the revision's own means (url-draft: track)."""


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
        opener: Callable[[str], object] | None = open_in_browser,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.renderer = renderer
        self.policy = policy if policy is not None else Policy()
        self.audit = audit
        self.opener = opener
        self.attention = Attention()
        self.completions = CompletionWatch()
        self._clock = clock
        self._limiter = RateLimiter(self.policy.rate_limit) if self.policy.rate_limit else None
        self._screen: anyio.Lock | None = None

    @property
    def modes(self) -> ElicitationModes:
        """The modes this handler answers; what the client declares."""
        return self.policy.modes

    # -- the SDK callback -------------------------------------------------------------------

    async def __call__(
        self,
        context: ClientRequestContext,
        params: mcp_types.ElicitRequestParams,
        *,
        local: bool = False,
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        """The SDK callback; ``local`` when the host started this server over stdio."""
        import mcp_types

        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        # 2026-07-28's input requests reach here with their key as the request id.
        key = _INPUT_KEY.set(str(context.request_id) if context.request_id is not None else None)
        try:
            result = await self.handle(raw, asking_of(context.session, local=local))
        except ElicitationRefused as refused:
            return mcp_types.ErrorData.model_validate(refused.error)
        finally:
            _INPUT_KEY.reset(key)
        return mcp_types.ElicitResult.model_validate(result)

    # -- one request ------------------------------------------------------------------------

    async def handle(self, params: Any, asking: Asking) -> dict[str, Any]:
        """Answer one ``elicitation/create``'s params with the result ``asking.revision``
        defines, or raise :class:`ElicitationRefused` with the error to send."""
        event: dict[str, Any] = {"server": asking.server, "revision": asking.revision.value}
        try:
            request = self._parse(params, asking)
            event |= {"mode": request.mode, "message": request.message}
            if request.accepted_quirks:
                event["quirks"] = list(request.accepted_quirks)
            if (undeclared := undeclared_mode_problem(request, self.policy.modes)) is not None:
                raise ElicitationRefused(invalid_params_error([undeclared]))
            if request.mode == "url":
                result = await self._handle_url(request, asking, event)
            else:
                result = await self._handle_form(request, asking, event)
        except ElicitationRefused as refused:
            self._record(event | {"outcome": "error", "error": refused.error})
            raise
        self._record(event | {"outcome": _outcome(result)})
        return result

    def _parse(self, params: Any, asking: Asking) -> ElicitationRequest:
        parsed = parse_elicitation_params(params, revision=asking.revision)
        if (
            isinstance(parsed, list)
            and isinstance(params, Mapping)
            and params.get("mode") == "url"
            and not rules_for(asking.revision).has_url_mode
        ):
            # A server from the URL-mode draft era, on a session that negotiated 2025-06-18.
            draft = parse_elicitation_params(params, revision=Revision.URL_DRAFT)
            if not isinstance(draft, list):
                quirk = f"URL mode on {asking.revision.value}: read as the URL-mode draft"
                return _with_quirk(draft, quirk)
        if isinstance(parsed, list):
            raise ElicitationRefused(invalid_params_error(parsed))
        return parsed

    def _gate(self, server: str) -> tuple[str, Notice | None] | None:
        """Why the person is not asked at all, and what to tell them; ``None`` to ask."""
        if self.renderer is None or not self.policy.person_available:
            return "no-person", None
        if not self.policy.allows_server(server):
            return "server-denied", None
        if self._limiter is not None and not self._limiter.admit(server, self._clock()):
            notice = None
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
            return "rate-limited", notice
        return None

    async def _handle_form(
        self, request: ElicitationRequest, asking: Asking, event: dict[str, Any]
    ) -> dict[str, Any]:
        free_text = request.revision_hint == EARLY_DRAFT
        schema = free_text_schema() if free_text else request.requested_schema
        revision = None if free_text else asking.revision.value
        form, later, schema_findings = _read_and_lint(schema, revision)
        if later:
            # A later revision's keyword (a default on 2025-06-18, say): we can show it, so we
            # accept it, say so, and answer in the shapes the server used.
            event.setdefault("quirks", []).extend(later)
        answer_revision = Revision.V2025_11_25 if later else asking.revision
        # lint_schema's order: the message's findings first, then the schema's.
        findings = _for_people(lint_schema(None, message=request.message)) + schema_findings
        event["fields"] = [f.name for f in form]
        if findings:
            event["findings"] = [p.code for p in findings]
        if (gate := self._gate(asking.server)) is not None:
            return await self._cancelled_for(gate, event)
        assert self.renderer is not None  # _gate said a person is there
        prompt = FormPrompt(
            asking.server, request.message, form, findings, asking.revision.value, free_text
        )
        answer = await self._ask(self.renderer.ask_form(prompt))
        if free_text:
            return await self._early_answer(answer, form, asking, event)
        if isinstance(answer, Accept):
            problems = form.validate(answer.content)
            if problems:
                await self._tell(Notice(asking.server, _not_sent(problems), "error"))
                event["problems"] = [p.to_json() for p in problems]
                return _cancel("invalid-answer")
            if self.audit is not None:
                labels = {f.name: f.label for f in form}
                event["content"] = self.audit.content(answer.content, labels)
            return elicit_result("accept", answer.content, revision=answer_revision)
        if isinstance(answer, Cancel) and answer.no_person:
            event["why"] = answer.reason or "no-person"
        return _declined_or_cancelled(answer)

    async def _early_answer(
        self, answer: Decision, form: Form, asking: Asking, event: dict[str, Any]
    ) -> dict[str, Any]:
        """A message-only request is answered in the early draft's shape: the text typed and
        the files attached as ``content`` items; a decline or cancel as ``cancelled`` (the
        draft has nothing else)."""
        if not isinstance(answer, Accept):
            if isinstance(answer, Cancel) and answer.no_person:
                event["why"] = answer.reason or "no-person"
                return early_result(cancelled=True, meta={OUTCOME_META: event["why"]})
            return early_result(cancelled=True)
        problems = form.validate(answer.content)
        size = sum(len(item.data) for item in answer.attachments)
        if size > MAX_ATTACHMENT_BYTES:
            message = _("the attachments hold {size} bytes, more than allowed").format(size=size)
            problems.append(Problem(None, "too_large", message))
        if problems:
            await self._tell(Notice(asking.server, _not_sent(problems), "error"))
            event["problems"] = [p.to_json() for p in problems]
            return early_result(cancelled=True, meta={OUTCOME_META: "invalid-answer"})
        text = answer.content.get(FREE_TEXT_FIELD)
        items = [ContentItem("text", text=text)] if isinstance(text, str) and text else []
        items += [
            ContentItem(
                "image" if a.kind == "image" else "audio", data=a.data, mime_type=a.mime_type
            )
            for a in answer.attachments
        ]
        if self.audit is not None:
            labels = {f.name: f.label for f in form}
            event["content"] = self.audit.content(answer.content, labels)
        if answer.attachments:
            # What was attached, never the bytes.
            event["attachments"] = [
                {"name": a.name, "mimeType": a.mime_type, "bytes": len(a.data)}
                for a in answer.attachments
            ]
        return early_result(items)

    async def _handle_url(
        self, request: ElicitationRequest, asking: Asking, event: dict[str, Any]
    ) -> dict[str, Any]:
        prompt = await self._url_prompt(request, asking, event)
        if prompt is None:
            return _cancel("url-blocked")
        if (gate := self._gate(asking.server)) is not None:
            return await self._cancelled_for(gate, event)
        assert self.renderer is not None
        answer = await self._ask(self.renderer.ask_url(prompt))
        if isinstance(answer, Accept):
            answer = await self._open(prompt, event)
        if not isinstance(answer, Accept):
            return _declined_or_cancelled(answer)
        # Nothing waits here for completion: the server goes on once it has the answer. On
        # 2026-07-28 the answer rides on a retry the server may hold while the page is open;
        # ElicitingClient shows the person that wait (RETRY_LINKS, wait_while_held).
        retry_links = RETRY_LINKS.get()
        input_key = _INPUT_KEY.get()
        if (
            retry_links is not None
            and input_key is not None
            and rules_for(asking.revision).completion == "retry"
        ):
            retry_links[input_key] = replace(prompt, held=True)
        return elicit_result("accept", revision=asking.revision, mode="url")

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
            self._record(event | {"outcome": outcome})
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
        prompt = await self._url_prompt(request, asking, event)
        if prompt is None:
            return "cancel"
        if (gate := self._gate(asking.server)) is not None:
            return str((await self._cancelled_for(gate, event))["action"])
        assert self.renderer is not None
        # Watched from before the consent screen: the server may say it is complete while the
        # person is still reading it. An id nobody watches is ignored (CompletionWatch).
        completed = (
            self.completions.expect(request.elicitation_id)
            if request.elicitation_id is not None
            else anyio.Event()
        )
        try:
            answer = await self._ask(self.renderer.ask_url(prompt))
            if isinstance(answer, Accept):
                answer = await self._open(prompt, event)
            if not isinstance(answer, Accept):
                return "decline" if isinstance(answer, Decline) else "cancel"
            async with anyio.create_task_group() as tasks:
                if tracker is not None:

                    async def track() -> None:
                        await tracker(request)
                        completed.set()

                    tasks.start_soon(track)
                done = await self._ask(self.renderer.wait_for_completion(prompt, completed))
                tasks.cancel_scope.cancel()
        finally:
            if request.elicitation_id is not None:
                self.completions.forget(request.elicitation_id)
        event["completed_by"] = "server" if completed.is_set() else "person"
        return "accept" if isinstance(done, Accept) else "cancel"

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
        if self.renderer is None:
            await finished.wait()
            return Accept()
        answer = await self._ask(self.renderer.wait_for_completion(prompt, finished))
        if not finished.is_set():
            self._record(
                {
                    "server": server or prompt.server,
                    "revision": prompt.revision,
                    "mode": "url",
                    "message": prompt.message,
                    "url": prompt.url,
                    "outcome": "done" if isinstance(answer, Accept) else "cancel",
                    "while_held": True,
                }
            )
        return answer

    # -- shared steps -----------------------------------------------------------------------

    async def _url_prompt(
        self, request: ElicitationRequest, asking: Asking, event: dict[str, Any]
    ) -> UrlPrompt | None:
        """The consent prompt, or ``None`` (and the person told) when the URL is blocked."""
        assert request.url is not None
        verdict = check_url(request.url, self.policy.url_policy_for(local=asking.local))
        event |= {"url": request.url, "url_verdict": verdict.verdict.value}
        if verdict.reasons:
            event["url_reasons"] = list(verdict.codes)
        if verdict.verdict is Verdict.BLOCK:
            reasons = "; ".join(r.message for r in verdict.reasons)
            event["why"] = "url-blocked"
            await self._tell(
                Notice(
                    asking.server,
                    _("Blocked a link it asked you to open: {reasons}").format(reasons=reasons),
                    "error",
                )
            )
            return None
        return UrlPrompt(
            asking.server,
            request.message,
            request.url,
            verdict,
            request.elicitation_id,
            asking.revision.value,
            asking.required_by,
        )

    async def ask_person(self, question: Awaitable[Decision]) -> Decision:
        """Put one renderer call before the person as elicitations are (one at a time unless
        the renderer is ``concurrent``, request timeouts paused): for steps that are not an
        elicitation, like signing in."""
        return await self._ask(question)

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
        return await self._open(prompt, event, opener)

    def record(self, event: dict[str, Any]) -> None:
        """Append ``event`` to the audit log, if there is one."""
        self._record(event)

    async def _ask(self, question: Awaitable[Decision]) -> Decision:
        """One prompt at a time on the screen, with every request timeout paused meanwhile.

        A renderer that says ``concurrent = True`` gets every prompt as it comes instead: it
        queues them itself, and can show the person what is waiting (the web renderer's page
        lists them). Behind this lock they would be invisible until their turn."""
        if getattr(self.renderer, "concurrent", False):
            with self.attention.person_answering():
                return await question
        if self._screen is None:
            # fast_acquire: a free lock is taken without a trip round the event loop.
            self._screen = anyio.Lock(fast_acquire=True)
        async with self._screen:
            with self.attention.person_answering():
                return await question

    async def _tell(self, notice: Notice) -> None:
        if self.renderer is not None:
            await self.renderer.notify(notice)

    async def _cancelled_for(
        self, gate: tuple[str, Notice | None], event: dict[str, Any]
    ) -> dict[str, Any]:
        why, notice = gate
        event["why"] = why
        if notice is not None:
            await self._tell(notice)
        return _cancel(why)

    async def _open(
        self,
        prompt: UrlPrompt,
        event: dict[str, Any],
        opener: Callable[[str], object] | None = None,
    ) -> Decision:
        """Open the link the person agreed to. When the browser did not open it, the person
        is told, shown the link, and asked: ``Accept`` only once they say they opened it
        themselves."""
        opener = opener if opener is not None else self.opener
        if opener is None or getattr(self.renderer, "opens_links", False):
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
        answer = await self._ask(self._link_not_opened(prompt, shown))
        if isinstance(answer, Accept):
            event["opened_by"] = "person"
        return answer

    async def _link_not_opened(self, prompt: UrlPrompt, why: str) -> Decision:
        renderer = self.renderer
        assert renderer is not None
        ask = getattr(renderer, "link_not_opened", None)
        if ask is not None:
            answer: Decision = await ask(prompt, why)
            return answer
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

    def _record(self, event: dict[str, Any]) -> None:
        if self.audit is not None:
            self.audit.record(event)


def asking_of(
    session: ClientSession, required_by: str | None = None, *, local: bool = False
) -> Asking:
    """Who asks, read off an SDK client session; ``local`` for a server started over stdio."""
    info = session.server_info
    name = info.name if info is not None else "server"
    return Asking(name, revision_of(session.protocol_version), required_by, local)


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


def _cancel(why: str) -> dict[str, Any]:
    return {"action": "cancel", "_meta": {OUTCOME_META: why}}


def _declined_or_cancelled(answer: Decision) -> dict[str, Any]:
    if isinstance(answer, Decline):
        return {"action": "decline"}
    if isinstance(answer, Cancel) and answer.no_person:
        return _cancel(answer.reason or "no-person")
    return {"action": "cancel"}


def _with_quirk(request: ElicitationRequest, quirk: str) -> ElicitationRequest:
    return replace(request, accepted_quirks=(*request.accepted_quirks, quirk))


def _read_and_lint(
    schema: Any, revision: str | None
) -> tuple[Form, tuple[str, ...], tuple[Problem, ...]]:
    """:func:`_read_form` and the schema's findings for people, cached per schema, revision
    and language (the findings' messages are in the person's language): a server asks the
    same form again and again, and reading and linting it again cost more than the rest of a
    request together. A malformed schema raises every time (uncached)."""
    try:
        # The key keeps the key order (the order of the questions), as Form.from_schema's does.
        key = json.dumps(schema, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):  # not JSON: read it uncached, to report the problems
        return _read_and_lint_now(schema, revision)
    return _read_and_lint_cached(key, revision, current_language())


@lru_cache(maxsize=256)
def _read_and_lint_cached(
    key: str, revision: str | None, language: str
) -> tuple[Form, tuple[str, ...], tuple[Problem, ...]]:
    """``language`` is only part of the key: the findings are read in the language in effect,
    which is ``language``."""
    return _read_and_lint_now(json.loads(key), revision)


def _read_and_lint_now(
    schema: Any, revision: str | None
) -> tuple[Form, tuple[str, ...], tuple[Problem, ...]]:
    form, later = _read_form(schema, revision)
    return form, tuple(later), _for_people(lint_schema(schema))


def _for_people(findings: list[Problem]) -> tuple[Problem, ...]:
    return tuple(p for p in findings if p.code not in _NOT_FOR_PEOPLE)


def _read_form(schema: Any, revision: str | None) -> tuple[Form, list[str]]:
    """The form, and the later-revision features accepted to read it; raises
    :class:`ElicitationRefused` (-32602, every problem) for a schema that is malformed."""
    try:
        return Form.from_schema(schema, revision=revision), []
    except InvalidSchema as invalid:
        problems = invalid.problems
    if revision is not None and all(p.code == "not_in_revision" for p in problems):
        try:
            form = Form.from_schema(schema)
        except InvalidSchema:
            pass
        else:
            return form, [f"{_schema_field(p)}: {p.message}" for p in problems]
    found = [ProtocolProblem(p.code, p.message, _schema_field(p)) for p in problems]
    raise ElicitationRefused(invalid_params_error(found, message="Invalid requestedSchema"))


def _schema_field(problem: Problem) -> str:
    return f"requestedSchema.properties.{problem.field}" if problem.field else "requestedSchema"


def _listed(problems: Sequence[Problem]) -> str:
    return "; ".join(str(p) for p in problems)


def _not_sent(problems: Sequence[Problem]) -> str:
    return _("The answer was not sent: {problems}").format(problems=_listed(problems))
