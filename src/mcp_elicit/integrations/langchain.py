"""LangChain agents as hosts: ``langchain.mcp`` (1.5, beta) and its LangGraph interrupts,
with every check of :class:`~mcp_elicit.client.ElicitationHandler`.

``langchain.mcp.MCPAdapter(target)`` arms a fastmcp ``Client`` so that, on a 2026-07-28
server, a tool call that needs input raises a LangGraph ``interrupt`` carrying an
``MCPElicitationInterrupt`` (``{"type": "mcp_elicitation", "tool_name", "requests": [...]}``);
the run goes on with ``Command(resume=MCPElicitationResume(responses={key: {...}}))``.
LangChain checks nothing in between: not the schema, not the link, not the answer. Two ways
to put our checks there:

- **A paused run** (a web app, a person elsewhere, a run resumed in another process after a
  checkpointer restore): :func:`review_interrupt` reads the interrupt as the handler reads
  each request (the schema read and linted, the link's verdict, the message cleaned) into an
  :class:`InterruptReview` a page can show (:meth:`InterruptReview.to_json`);
  :func:`resume_from` checks the person's answers against it (form validation, no accept of
  a refused form or a blocked link, an answer for every key and none for another) and builds
  the resume, recording each step in an :class:`~mcp_elicit.client.AuditLog`. Both read the
  interrupt alone: nothing needs to be kept between them.
- **A person on this machine** (terminal, :class:`~mcp_elicit.client.web.WebRenderer`):
  :func:`answer_interrupt` answers an interrupt through the whole handler (consent, the
  link opened, validation, rate limit, audit, the person's language); or build the adapter on
  our fastmcp client, ``MCPAdapter(ElicitingFastMCPClient(server, handler))``: LangChain
  honors a client that already has an elicitation handler, and ours answers every request
  itself, on every revision ("open this link first", -32042, included), with no interrupt.

docs/frameworks.md says what LangChain does not let an adapter change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from mcp_elicit._extras import needs_extra
from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.form_requests import form_question
from mcp_elicit.client.handler import ElicitationHandler, answer_for_sdk, check_request
from mcp_elicit.client.link_requests import link_verdict
from mcp_elicit.client.policy import Policy
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.prompts import FormPrompt, UrlPrompt
from mcp_elicit.client.steps import Asking, ElicitationRefused
from mcp_elicit.client.web.views import form_view, url_view
from mcp_elicit.protocol import elicit_result
from mcp_elicit.revisions import Revision
from mcp_elicit.urls import UrlVerdict

with needs_extra("langchain", "langchain"):
    from langchain.mcp.elicitation import (
        ELICITATION_INTERRUPT_TYPE,
        MCPElicitationResponse,
        MCPElicitationResume,
    )

MODERN = Revision.V2026_07_28
"""The revision LangChain's interrupts come from: only a 2026-07-28 server returns the
``InputRequiredResult`` that ``langchain.mcp`` turns into an interrupt."""

_ACTIONS = ("accept", "decline", "cancel")

Interruptish = Any
"""An ``MCPElicitationInterrupt`` (the dict), or LangGraph's ``Interrupt`` carrying one in
``value`` (as ``result["__interrupt__"]`` and ``graph.aget_state()`` give it)."""


class InterruptAnswerError(ValueError):
    """The answers to an interrupt were refused; nothing was sent and the interrupt may be
    resumed again with better ones. :attr:`problems` lists each, as JSON: ``{"key", "field",
    "code", "message"}`` (``field`` ``None`` when the problem is the request's or the
    answer's as a whole; ``key`` ``None`` for the missing keys)."""

    def __init__(self, problems: Sequence[Mapping[str, Any]]) -> None:
        self.problems = [dict(p) for p in problems]
        said = "; ".join(_problem_text(p) for p in self.problems)
        super().__init__(f"The answers were not sent: {said}")


def _problem_text(problem: Mapping[str, Any]) -> str:
    where = []
    if problem.get("key") is not None:
        where.append(f"key {problem['key']!r}")
    if problem.get("field") is not None:
        where.append(f"field {problem['field']!r}")
    place = " ".join(where)
    return f"{place}: {problem['message']}" if place else str(problem["message"])


@dataclass(frozen=True, slots=True)
class RequestReview:
    """One request of an interrupt, checked as the handler checks it.

    ``prompt`` is what a renderer would be shown (:class:`FormPrompt` or :class:`UrlPrompt`;
    ``None`` for a request refused before it could be read). ``refused``: the handler would
    answer it with -32602 (``problems`` says why, as the error's ``data.problems``); nobody
    may accept it. ``verdict``: a link's, under the host's URL policy; a blocked link is never
    offered and may not be accepted either."""

    key: str
    mode: str
    message: str
    prompt: FormPrompt | UrlPrompt | None
    refused: bool = False
    problems: tuple[dict[str, Any], ...] = ()
    verdict: UrlVerdict | None = None
    answer_revision: Revision = MODERN
    event: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """What the audit records of the check step (the handler's event, before the outcome)."""

    @property
    def blocked(self) -> bool:
        """A link the host's URL policy blocks."""
        return self.verdict is not None and self.verdict.blocked

    @property
    def may_accept(self) -> bool:
        """Whether an ``accept`` is allowed: neither refused nor a blocked link."""
        return not self.refused and not self.blocked

    def to_json(self) -> dict[str, Any]:
        """This request for a page, everything a server wrote cleaned (``\\u{…}`` for a
        control, bidi or invisible character) as the web renderer cleans it:

        - every request: ``key``, ``mode`` (``"form"``/``"url"``), ``message``, ``refused``,
          ``problems`` (``[{"code", "message", "field"}]``: why it is refused);
        - a form (unless refused): ``fields`` (the web renderer's view of each field:
          ``name``, ``kind``, ``widget``, ``label``, ``help``, ``required``, ``hint``,
          ``initial``, ``placeholder``, ``inputmode``, ``choices``), ``findings`` (what the
          person should know, in words) and ``finding_codes``;
        - a link: ``verdict`` (``"allow"``, ``"warn"``, ``"block"``), ``reasons``
          (``[{"code", "message"}]``), ``host`` (as the person is shown it, punycode said),
          ``domain``, ``domain_note``, ``shown_url``, ``warnings``, and ``open_url``: the
          link to open, ``None`` when it is blocked."""
        shown: dict[str, Any] = {
            "key": self.key,
            "mode": self.mode,
            "message": self.message,
            "refused": self.refused,
            "problems": [dict(p) for p in self.problems],
        }
        if isinstance(self.prompt, FormPrompt):
            view = form_view(self.prompt)
            shown |= {
                "fields": view["fields"],
                "findings": view["findings"],
                "finding_codes": [p.code for p in self.prompt.findings],
            }
        elif isinstance(self.prompt, UrlPrompt) and self.verdict is not None:
            view = url_view(self.prompt)
            shown |= {
                "verdict": self.verdict.verdict.value,
                "reasons": [
                    {"code": str(r.code), "message": r.message} for r in self.verdict.reasons
                ],
                "host": view["host"],
                "domain": view["domain"],
                "domain_note": view["domain_note"],
                "shown_url": view["shown_url"],
                "warnings": view["warnings"],
                "open_url": None if self.blocked else self.prompt.url,
            }
        return shown


@dataclass(frozen=True, slots=True)
class InterruptReview:
    """An ``MCPElicitationInterrupt`` checked request by request (:func:`review_interrupt`).

    ``turned_away``: the host's policy refuses this server every question (``"server-denied"``)
    or says nobody is there (``"no-person"``); no request may then be accepted."""

    server: str
    revision: Revision
    tool_name: str
    requests: tuple[RequestReview, ...]
    turned_away: str | None = None

    def __getitem__(self, key: str) -> RequestReview:
        for request in self.requests:
            if request.key == key:
                return request
        raise KeyError(key)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(r.key for r in self.requests)

    def to_json(self) -> dict[str, Any]:
        """``{"type": "mcp_elicitation_review", "server", "revision", "tool_name",
        "turned_away", "requests": [...]}``, each request as :meth:`RequestReview.to_json`
        gives it; plain dicts, lists, strings, numbers, booleans and ``None``."""
        return {
            "type": "mcp_elicitation_review",
            "server": clean(self.server, newlines=False),
            "revision": self.revision.value,
            "tool_name": clean(self.tool_name, newlines=False),
            "turned_away": self.turned_away,
            "requests": [r.to_json() for r in self.requests],
        }


def review_interrupt(
    interrupt: Interruptish,
    *,
    server: str,
    policy: Policy | None = None,
    local: bool = False,
    revision: Revision | str = MODERN,
) -> InterruptReview:
    """Check every request of an ``MCPElicitationInterrupt`` as
    :class:`~mcp_elicit.client.ElicitationHandler` checks it on ``revision``: the request
    read (a malformed one, or one in a mode ``policy`` does not answer, is refused with its
    problems), a form's schema read and linted into the :class:`FormPrompt` a renderer would
    get, a link's verdict under ``policy``'s URL policy (``local``: the server runs on this
    machine as this user, as one started over stdio does; its ``http://127.0.0.1`` pages are
    then offered, with the warning). ``server`` is the server's name (``serverInfo.name``,
    ``adapter.client.server_info.name``): the policy's allow and deny lists
    match it, and the person is shown it. Pure: the same interrupt, read again in another
    process, gives the same review."""
    payload = _payload(interrupt)
    policy = policy if policy is not None else Policy()
    version = Revision.parse(revision)
    turned_away = None
    if not policy.person_available:
        turned_away = "no-person"
    elif not policy.allows_server(server):
        turned_away = "server-denied"
    asking = Asking(server, version, local=local)
    reviews = tuple(_review_one(request, asking, policy) for request in _requests_of(payload))
    return InterruptReview(server, version, str(payload.get("tool_name", "")), reviews, turned_away)


def _review_one(request: Mapping[str, Any], asking: Asking, policy: Policy) -> RequestReview:
    key = str(request.get("key"))
    mode = str(request.get("mode", "form"))
    message = request.get("message")
    event: dict[str, Any] = {
        "server": asking.server,
        "revision": asking.revision.value,
        "input_key": key,
    }
    shown = clean(message) if isinstance(message, str) else ""
    try:
        checked = check_request(_wire_params(request), asking.revision, policy.modes, event)
        if checked.mode == "url":
            assert checked.url is not None
            verdict = link_verdict(policy, checked.url, local=asking.local)
            # What link_question writes of it.
            event |= {"url": checked.url, "url_verdict": verdict.verdict.value}
            if verdict.reasons:
                event["url_reasons"] = list(verdict.codes)
            if verdict.blocked:
                event["why"] = "url-blocked"
            prompt = UrlPrompt(
                asking.server, checked.message, checked.url, verdict, None, asking.revision.value
            )
            return RequestReview(key, "url", shown, prompt, verdict=verdict, event=event)
        question = form_question(checked, asking, event)
        return RequestReview(
            key,
            "form",
            shown,
            question.prompt,
            answer_revision=question.answer_revision,
            event=event,
        )
    except ElicitationRefused as refused:
        event |= {"mode": mode, "error": refused.error}
        problems = tuple((refused.error.get("data") or {}).get("problems") or ())
        return RequestReview(key, mode, shown, None, True, problems, event=event)


def resume_from(
    interrupt: Interruptish,
    answers: Mapping[str, Mapping[str, Any]],
    *,
    server: str,
    policy: Policy | None = None,
    local: bool = False,
    revision: Revision | str = MODERN,
    audit: AuditLog | None = None,
) -> MCPElicitationResume:
    """The ``MCPElicitationResume`` for ``answers`` (``{key: {"action": "accept", "content":
    {...}}}``, ``{"action": "decline"}``, ``{"action": "cancel"}``: LangChain's
    ``MCPElicitationResponse``), checked against :func:`review_interrupt`'s review of the
    interrupt (same keyword arguments): every key answered and no other, a known action,
    a form's content valid for its form, no accept of a refused form, a blocked link or a
    turned-away server, no content on a link. Otherwise :class:`InterruptAnswerError` lists
    every problem, and nothing is resumed: the interrupt is still there to answer again.

    ``audit`` records each request's check and outcome as the handler does (the fields
    answered, never their values unless the log says so and the field does not look like a
    secret; links redacted), or, when the answers are refused, one ``"not-sent"`` entry with
    the problems."""
    review = review_interrupt(
        interrupt, server=server, policy=policy, local=local, revision=revision
    )
    problems = _answer_problems(review, answers)
    if problems:
        if audit is not None:
            audit.record(
                {
                    "server": review.server,
                    "revision": review.revision.value,
                    "tool": review.tool_name,
                    "outcome": "not-sent",
                    "problems": problems,
                }
            )
        raise InterruptAnswerError(problems)
    responses: dict[str, MCPElicitationResponse] = {}
    for request in review.requests:
        answer = answers[request.key]
        action = str(answer["action"])
        event = {**request.event, "tool": review.tool_name, "outcome": action}
        if review.turned_away is not None:
            event["why"] = review.turned_away
        if action == "accept" and isinstance(request.prompt, FormPrompt):
            content = dict(answer.get("content") or {})
            result = elicit_result("accept", content, revision=request.answer_revision)
            if audit is not None:
                labels = {f.name: f.label for f in request.prompt.form}
                event["content"] = audit.content(content, labels)
            responses[request.key] = _response(result)
        else:
            responses[request.key] = _response({"action": action})
        if audit is not None:
            audit.record(event)
    return MCPElicitationResume(responses=responses)


def _answer_problems(
    review: InterruptReview, answers: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    problems: list[dict[str, Any]] = []

    def problem(key: str | None, field: str | None, code: str, message: str) -> None:
        problems.append({"key": key, "field": field, "code": code, "message": message})

    keys = set(review.keys)
    for key in sorted(set(answers) - keys, key=str):
        problem(key, None, "unknown_key", "the interrupt asked nothing under this key")
    missing = [k for k in review.keys if k not in answers]
    if missing:
        problem(None, None, "missing_keys", f"no answer for {', '.join(repr(k) for k in missing)}")
    for request in review.requests:
        if request.key not in answers:
            continue
        answer = answers[request.key]
        action = answer.get("action") if isinstance(answer, Mapping) else None
        if action not in _ACTIONS:
            problem(
                request.key,
                None,
                "bad_action",
                f"action {action!r}: expected 'accept', 'decline' or 'cancel'",
            )
            continue
        if action != "accept":
            continue
        if review.turned_away is not None:
            problem(
                request.key,
                None,
                review.turned_away,
                "the host's policy lets nobody answer this server: decline or cancel",
            )
        elif request.refused:
            problem(request.key, None, "refused", "the request was refused: decline or cancel")
        elif request.blocked:
            problem(
                request.key,
                None,
                "url_blocked",
                "the link is blocked and must not be opened: decline or cancel",
            )
        elif isinstance(request.prompt, FormPrompt):
            content = answer.get("content")
            if not isinstance(content, Mapping):
                problem(request.key, None, "no_content", "an accepted form needs its content")
                continue
            for found in request.prompt.form.validate(dict(content)):
                problem(request.key, found.field, found.code, found.message)
        elif answer.get("content") is not None:
            problem(request.key, None, "content_on_link", "a link's accept carries no content")
    return problems


async def answer_interrupt(
    interrupt: Interruptish,
    handler: ElicitationHandler,
    *,
    server: str,
    local: bool = False,
    revision: Revision | str = MODERN,
) -> MCPElicitationResume:
    """Answer every request of an ``MCPElicitationInterrupt`` through ``handler``, one at a
    time in the interrupt's order, as its elicitation callback is called for a 2026-07-28
    input request (the SDK's ``ElicitRequestParams`` built from the request, the answer in
    the SDK's ``ElicitResult``): consent, verdicts, the link opened, validation, the rate
    limit, the audit, the person's language: all the handler's. A request the handler refuses
    (-32602: LangChain can send no error) is answered ``cancel``; so is one the handler
    cancels on its own (its reason stays in the audit: LangChain drops ``_meta``).

    ``local``: the server runs on this machine as this user. A link's answer is given as
    soon as the link is opened; the server holds the resumed call until its page is done."""
    payload = _payload(interrupt)
    version = Revision.parse(revision)
    responses: dict[str, MCPElicitationResponse] = {}
    for request in _requests_of(payload):
        key = str(request.get("key"))
        asking = Asking(server, version, local=local, input_key=key)
        raw = _wire_params(request)

        async def handle(params: dict[str, Any], asking: Asking = asking) -> dict[str, Any]:
            return await handler.handle(params, asking)

        params = _sdk_params(raw)
        if params is None:  # the SDK could not read it: the handler says why (and audits)
            try:
                result: dict[str, Any] = await handle(raw)
            except ElicitationRefused:
                result = {"action": "cancel"}
        else:
            answered = await answer_for_sdk(params, handle)
            result = (
                answered.model_dump(by_alias=True, mode="json", exclude_none=True)
                if hasattr(answered, "action")
                else {"action": "cancel"}
            )
        responses[key] = _response(result)
    return MCPElicitationResume(responses=responses)


def _sdk_params(raw: dict[str, Any]) -> Any:
    """The SDK's ``ElicitRequestParams`` for ``raw``, or ``None`` when the SDK refuses it."""
    import mcp_types
    from pydantic import ValidationError

    model: Any = (
        mcp_types.ElicitRequestURLParams
        if raw.get("mode") == "url"
        else mcp_types.ElicitRequestFormParams
    )
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


def _response(result: Mapping[str, Any]) -> MCPElicitationResponse:
    """LangChain's response for a result: the action, and a form accept's content."""
    action = result.get("action")
    if action == "accept":
        content = result.get("content")
        if content is not None:
            return cast(MCPElicitationResponse, {"action": "accept", "content": dict(content)})
        return cast(MCPElicitationResponse, {"action": "accept"})
    if action == "decline":
        return cast(MCPElicitationResponse, {"action": "decline"})
    return cast(MCPElicitationResponse, {"action": "cancel"})


def _payload(interrupt: Interruptish) -> Mapping[str, Any]:
    value = getattr(interrupt, "value", interrupt)
    if not isinstance(value, Mapping) or value.get("type") != ELICITATION_INTERRUPT_TYPE:
        raise ValueError(
            f"not an MCP elicitation interrupt (type {ELICITATION_INTERRUPT_TYPE!r}): "
            f"{type(value).__name__}"
        )
    return value


def _requests_of(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    requests = payload.get("requests")
    if not isinstance(requests, list):
        raise ValueError("an MCP elicitation interrupt without a list of requests")
    return [r if isinstance(r, Mapping) else {} for r in requests]


def _wire_params(request: Mapping[str, Any]) -> dict[str, Any]:
    """The ``elicitation/create`` params LangChain read the request from (its
    ``requested_schema`` is the wire's ``requestedSchema``)."""
    params: dict[str, Any] = {
        k: v for k, v in request.items() if k not in ("key", "requested_schema")
    }
    if "requested_schema" in request:
        params["requestedSchema"] = request["requested_schema"]
    return params


def is_elicitation_interrupt(interrupt: Interruptish) -> bool:
    """Whether ``interrupt`` (an ``Interrupt`` or its value) is ``langchain.mcp``'s."""
    value = getattr(interrupt, "value", interrupt)
    return isinstance(value, Mapping) and value.get("type") == ELICITATION_INTERRUPT_TYPE


__all__ = [
    "MODERN",
    "InterruptAnswerError",
    "InterruptReview",
    "RequestReview",
    "answer_interrupt",
    "is_elicitation_interrupt",
    "resume_from",
    "review_interrupt",
]
