"""``ask``, ``confirm`` and ``choose``: one tool body, every protocol revision.

- 2025-06-18, the URL-mode draft and 2025-11-25: a pushed ``elicitation/create``, in the exact
  shape of the client's revision (no ``mode`` on 2025-06-18, the schema converted).
- 2026-07-28: an ``InputRequiredResult``, resumed when the client retries (``rounds``).

Before anything is sent, the question's wording is checked (``wording``: no URL outside a
URL-mode ``url`` field, no message asking for a secret), then the client's declared modes: a
mode it did not declare is never sent. Answers are validated with the form model; a bad one
becomes a tool error naming the field and the rule, or is asked again (``reask``).

Any request that may ask works the same: ``tools/call``, ``prompts/get`` and
``resources/read`` (a push on the 2025 revisions, an ``InputRequiredResult`` on 2026-07-28).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar, overload

import pydantic
from mcp.shared.exceptions import MCPError
from mcp_types import REQUEST_TIMEOUT

from mcp_elicit.forms import Problem
from mcp_elicit.i18n import N_, _, current_language
from mcp_elicit.protocol import form_request_params, parse_elicit_result, read_content_items
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.revisions import EARLY_DRAFT_VERSION, Revision
from mcp_elicit.server import rounds
from mcp_elicit.server.answers import Accepted, Answer, Cancelled, Declined
from mcp_elicit.server.errors import (
    CannotAsk,
    CapabilityRequired,
    InvalidAnswer,
    ModeUnavailable,
)
from mcp_elicit.server.peer import Peer
from mcp_elicit.server.questions import (
    Question,
    cached_question,
    question_for_raw_schema,
    question_for_schema,
    question_for_type,
)
from mcp_elicit.server.scope import RequestScope, current_scope
from mcp_elicit.server.wording import check_form_message

T = TypeVar("T")
Fallback = Answer[T] | Callable[[], Answer[T] | Awaitable[Answer[T]]]


async def ask(
    ctx: Any,
    tp: type[T] | Mapping[str, Any],
    message: str,
    *,
    timeout: float | None = None,
    fallback: Fallback[T] | None = None,
    reask: int = 0,
    key: str | None = None,
    not_secret: bool = False,
) -> Answer[T]:
    """Ask the person for a ``tp`` (a dataclass, TypedDict or pydantic model), or for the
    answers to a ``requestedSchema`` given as a mapping (the value is then the content dict).

    Returns ``Accepted(value)`` with a validated ``tp``, ``Declined()`` or ``Cancelled()``.
    ``timeout`` (seconds) cancels a question left unanswered that long. ``fallback`` is
    returned (or called) when the client cannot show forms, instead of an error. ``reask``:
    how many times an invalid answer is asked again before it becomes an ``InvalidAnswer``.
    ``key`` names the question in a 2026-07-28 ``InputRequiredResult`` (default: its order
    in the tool body, ``q1``, ``q2``, ...). ``not_secret``: the author's word that a message
    which mentions a password, token or key does not ask for one (otherwise such a message
    is a ``SecretInForm`` error, as a secret-looking field is).

    A URL in the message or the form's text is a ``LinkInText`` error: links go in URL mode.
    """
    question: Question[Any] = (
        question_for_raw_schema(tp) if isinstance(tp, Mapping) else question_for_type(tp)  # type: ignore[arg-type]
    )
    return await ask_question(
        ctx,
        question,
        message,
        timeout=timeout,
        fallback=fallback,
        reask=reask,
        key=key,
        not_secret=not_secret,
    )


async def confirm(
    ctx: Any,
    message: str,
    *,
    timeout: float | None = None,
    fallback: bool | None = None,
) -> bool:
    """``True`` only when the person accepted and ticked the confirmation.

    A ``bool``, not an ``Answer``, on purpose: ``if await confirm(...)`` must never be true
    for a decline, a cancel or a timeout. ``fallback`` is the value to use when the client
    cannot show forms (otherwise that is an error).
    """
    answer = await ask_question(
        ctx,
        _confirm_question(),
        message,
        timeout=timeout,
        fallback=None if fallback is None else Accepted(fallback),
        reask=0,
    )
    return isinstance(answer, Accepted) and answer.value is True


@overload
async def choose(
    ctx: Any,
    message: str,
    options: Sequence[str] | Mapping[str, str],
    *,
    label: str | None = None,
    multiple: bool = False,
    default: str | None = None,
    timeout: float | None = None,
    fallback: Fallback[str] | None = None,
) -> Answer[str]: ...


@overload
async def choose(
    ctx: Any,
    message: str,
    options: Sequence[str] | Mapping[str, str],
    *,
    label: str | None = None,
    multiple: bool,
    default: Sequence[str] | None = None,
    min_items: int | None = None,
    max_items: int | None = None,
    timeout: float | None = None,
    fallback: Fallback[list[str]] | None = None,
) -> Answer[list[str]]: ...


async def choose(
    ctx: Any,
    message: str,
    options: Sequence[str] | Mapping[str, str],
    *,
    label: str | None = None,
    multiple: bool = False,
    default: str | Sequence[str] | None = None,
    min_items: int | None = None,
    max_items: int | None = None,
    timeout: float | None = None,
    fallback: Any = None,
) -> Answer[Any]:
    """Ask the person to pick one option (``Answer[str]``) or several (``multiple=True``,
    ``Answer[list[str]]``). ``options`` is a list of values, or a mapping of value → title.
    ``label`` names the field (default "Choice" or "Choices", in the language in effect).
    Multi-select needs 2025-11-25 or later: on 2025-06-18 it is a ``NotExpressible`` error."""
    titled = dict(options) if isinstance(options, Mapping) else {o: o for o in options}
    if not titled:
        raise ValueError("choose() needs at least one option")
    for value in titled:
        if not isinstance(value, str) or not value:
            raise ValueError(f"option values must be non-empty strings, not {value!r}")
    with_titles = isinstance(options, Mapping)
    key = (
        tuple(titled.items()),
        with_titles,
        label,
        multiple,
        _hashable(default),
        min_items,
        max_items,
        current_language(),  # the default label is in it
    )

    def build() -> Question[Any]:
        prop = _choice_property(titled, with_titles, multiple, default, min_items, max_items)
        if label is not None:
            prop["title"] = label
        schema = {"type": "object", "properties": {"choice": prop}, "required": ["choice"]}
        return question_for_schema(
            schema, lambda content: content["choice"], title="choice", where="choose()"
        )

    question = cached_question(key, build, cache=_CHOICES)
    return await ask_question(ctx, question, message, timeout=timeout, fallback=fallback, reask=0)


async def ask_question(
    ctx: Any,
    question: Question[T],
    message: str,
    *,
    timeout: float | None,
    fallback: Fallback[T] | None,
    reask: int,
    key: str | None = None,
    not_secret: bool = False,
) -> Answer[T]:
    """The one path every question takes."""
    if not isinstance(message, str) or not message.strip():
        raise ValueError("the message must say what is asked and why")
    if reask < 0:
        raise ValueError("reask must be 0 or more")
    # Authoring errors, whoever the client is (even one a fallback would answer for).
    check_form_message(message, question.form, not_secret=not_secret)
    scope = current_scope(ctx)
    peer = scope.peer
    if peer.early_draft and question.from_items is not None:
        return await _push(scope, None, question, message, None, timeout, reask)
    if peer.revision is None or not peer.modes.form:
        if fallback is not None:
            return await _run_fallback(fallback)
        raise _no_form_mode(peer)
    schema = question.schema_for(peer.revision.value)
    if scope.asks_by_push:
        return await _push(scope, peer.revision, question, message, schema, timeout, reask)
    return _in_rounds(scope, question, message, schema, timeout, reask, key)


# -- 2025 revisions: a request to the client ----------------------------------------------------


async def _push(
    scope: RequestScope,
    revision: Revision | None,
    question: Question[T],
    message: str,
    schema: Mapping[str, Any] | None,
    timeout: float | None,
    reask: int,
) -> Answer[T]:
    """Ask with ``elicitation/create`` in ``revision``'s shape; ``revision`` ``None`` is the
    early draft: the message only, answered with content items (read as 2025-06-18 reads
    them, which takes that shape too)."""
    text = message
    for attempt in range(reask + 1):
        if revision is None or schema is None:
            params: dict[str, Any] = {"message": text}
        else:
            params = form_request_params(text, schema, revision=revision)
        try:
            raw = await scope.send_elicitation(params, timeout=timeout)
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                return Cancelled("timeout")
            raise CannotAsk(f"the client refused the question: {exc.message}") from exc
        answer = _read_answer(question, message, raw, revision or Revision.V2025_06_18)
        if not isinstance(answer, list):
            return answer
        if attempt == reask:
            raise InvalidAnswer(message, answer)
        text = retry_message(message, answer)
    raise AssertionError("unreachable")


# -- 2026-07-28: a result, then a retry ---------------------------------------------------------


def _in_rounds(
    scope: RequestScope,
    question: Question[T],
    message: str,
    schema: Mapping[str, Any],
    timeout: float | None,
    reask: int,
    key: str | None,
) -> Answer[T]:
    """One form question on 2026-07-28, by the round's rules (``rounds``)."""
    round_ = scope.require_round()
    key = round_.next_key(key)
    revision = Revision.V2026_07_28
    # The same digest as of form_request_params(...) for this revision, without its deep
    # copy of the schema: this runs for every ask on every round, answered ones included.
    pin = rounds.digest({"mode": "form", "message": message, "requestedSchema": schema})
    now = time.time()
    tries, note = 0, None
    match round_.resolve(key, pin, now=now, timeout=timeout):
        case rounds.Restored(recorded):
            return recorded.answer(question.to_value)
        case rounds.TimedOut():
            timed_out = Cancelled("timeout")
            round_.record(key, rounds.Recorded.of(pin, timed_out))
            return timed_out
        case rounds.Responded(response) as responded:
            answer = _read_answer(question, message, response, revision)
            if not isinstance(answer, list):
                round_.record(key, rounds.Recorded.of(pin, answer, response.get("content")))
                return answer
            if responded.tries >= reask:
                raise InvalidAnswer(message, answer)
            tries, note = responded.tries + 1, retry_message(message, answer)
        case rounds.Unanswered() as unanswered:
            tries, note = unanswered.tries, unanswered.note
    params = form_request_params(message if note is None else note, schema, revision=revision)
    request = {"method": ELICITATION_CREATE, "params": params}
    raise round_.ask(key, request, rounds.Asked(pin, now, tries, note))


# -- shared ---------------------------------------------------------------------------------------


def _read_answer(
    question: Question[T], message: str, raw: Any, revision: Revision
) -> Answer[T] | list[Problem]:
    """The answer, or the problems with it (a malformed result is an ``InvalidAnswer``)."""
    parsed = parse_elicit_result(raw, revision=revision)
    if isinstance(parsed, list):
        raise InvalidAnswer(message, [Problem(p.field, p.code, p.message) for p in parsed])
    if parsed.action == "decline":
        return Declined()
    if parsed.action == "cancel":
        return Cancelled(parsed.outcome)
    if parsed.early_content is not None:
        return _read_items(question, message, parsed.early_content)
    content = dict(parsed.content or {})
    problems = question.form.validate(content)
    if problems:
        return problems
    try:
        return Accepted(question.to_value(content))
    except pydantic.ValidationError as exc:
        return [
            Problem(".".join(str(p) for p in err["loc"]) or None, err["type"], err["msg"])
            for err in exc.errors()
        ]


def _read_items(
    question: Question[T], message: str, raw: Sequence[Mapping[str, Any]]
) -> Answer[T] | list[Problem]:
    """An answer in the early draft's ``content`` items: for a question that takes them
    (``ask_text``), else an error that says what came back."""
    if question.from_items is None:
        raise InvalidAnswer(
            message,
            [
                Problem(
                    "content",
                    "early_draft_answer",
                    # Translators: {question} is what the server's author asked for, as the
                    # author named it (a type's name such as Booking): keep it as is.
                    _(
                        "the client answered {question} with the early draft's content "
                        "items, which hold no form fields"
                    ).format(question=question.title),
                )
            ],
        )
    items = read_content_items(raw)
    if isinstance(items, list):
        raise InvalidAnswer(message, [Problem(p.field, p.code, p.message) for p in items])
    value = question.from_items(items)
    return value if isinstance(value, list) else Accepted(value)


def retry_message(message: str, problems: Sequence[Problem]) -> str:
    """The question asked again: the server's ``message``, then what was wrong (in the
    language in effect)."""
    details = _("; ").join(
        _("{field}: {problem}").format(field=p.field, problem=p.message) if p.field else p.message
        for p in problems
    )
    return message + "\n\n" + _("Please correct your answer ({details}).").format(details=details)


def _no_form_mode(peer: Peer) -> ModeUnavailable:
    if peer.early_draft:
        return ModeUnavailable(
            f"the client speaks the early content-array draft ({EARLY_DRAFT_VERSION}), which "
            "asks with a message only: it cannot show this form; ask_text() can ask it for free "
            "text",
            mode="form",
            revision=None,
        )
    if peer.revision is None:
        return ModeUnavailable(
            f"the client speaks MCP {peer.version}, which has no elicitation: it cannot show "
            "this question",
            mode="form",
            revision=None,
        )
    if peer.push_era:
        return ModeUnavailable(
            "the client cannot show this question: it did not declare the elicitation "
            "capability for forms",
            mode="form",
            revision=peer.revision.value,
        )
    return CapabilityRequired(
        "form", "This tool asks the user a question: declare the elicitation form capability"
    )


async def _run_fallback(fallback: Fallback[T]) -> Answer[T]:
    if isinstance(fallback, Accepted | Declined | Cancelled):
        return fallback
    result = fallback()
    if inspect.isawaitable(result):
        result = await result
    return result


def _choice_property(
    titled: dict[str, str],
    with_titles: bool,
    multiple: bool,
    default: str | Sequence[str] | None,
    min_items: int | None,
    max_items: int | None,
) -> dict[str, Any]:
    options = [{"const": value, "title": title} for value, title in titled.items()]
    if multiple:
        items: dict[str, Any] = (
            {"anyOf": options} if with_titles else {"type": "string", "enum": list(titled)}
        )
        prop: dict[str, Any] = {"type": "array", "title": _(_CHOICES_TITLE), "items": items}
        if min_items is not None:
            prop["minItems"] = min_items
        if max_items is not None:
            prop["maxItems"] = max_items
    else:
        prop = {"type": "string", "title": _(_CHOICE_TITLE)}
        if with_titles:
            prop["oneOf"] = options
        else:
            prop["enum"] = list(titled)
    if default is not None:
        prop["default"] = default if isinstance(default, str) else list(default)
    return prop


def _hashable(value: str | Sequence[str] | None) -> Any:
    return value if value is None or isinstance(value, str) else tuple(value)


def _confirm_question() -> Question[bool]:
    """``confirm``'s one-checkbox question, its label in the language in effect."""

    def build() -> Question[bool]:
        return question_for_schema(
            {
                "type": "object",
                "properties": {
                    "confirm": {"type": "boolean", "title": _(_CONFIRM_TITLE), "default": False}
                },
                "required": ["confirm"],
            },
            lambda content: content["confirm"] is True,
            title="confirmation",
            where="confirm()",
        )

    return cached_question(("confirm", current_language()), build, cache=_CONFIRMS)


# The labels of the fields that ``choose`` and ``confirm`` make (the person reads them).
_CHOICE_TITLE = N_("Choice")
_CHOICES_TITLE = N_("Choices")
_CONFIRM_TITLE = N_("Confirm")
_CONFIRMS: dict[Any, Question[Any]] = {}
_CHOICES: dict[Any, Question[Any]] = {}
