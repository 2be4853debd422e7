"""Form-mode requests, and the early draft's message-only ask, on their way through the handler.

:func:`form_question` is the check step for a form: the schema read (cached) into a form model
as the negotiated revision defines it, the findings a person should see with it, and the prompt.
:meth:`FormQuestion.conclude` is the validate step: an invalid answer is never sent, and the
answer leaves in the shape the server used.

The early draft asked with a message only: it is shown as one free-text question, to which the
person may attach image or audio files, and answered with ``content`` items.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mcp_elicit.client.file_types import content_problem
from mcp_elicit.client.policy import OUTCOME_META
from mcp_elicit.client.prompts import (
    MAX_ATTACHMENT_BYTES,
    MAX_ATTACHMENTS,
    Accept,
    Cancel,
    Decision,
    FormPrompt,
    Notice,
    too_many_attachments,
)
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.steps import (
    Asking,
    ElicitationRefused,
    HandlerSteps,
    cancelled_by_us,
    declined_or_cancelled,
    tell,
)
from mcp_elicit.forms import Form, InvalidSchema, Problem, lint_schema
from mcp_elicit.i18n import N_, _, current_language
from mcp_elicit.protocol import (
    ContentItem,
    ElicitationRequest,
    ProtocolProblem,
    early_result,
    elicit_result,
    invalid_params_error,
)
from mcp_elicit.protocol.revisions import EARLY_DRAFT
from mcp_elicit.revisions import Revision

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
class FormQuestion:
    """A form request, checked: what to show the person, and the revision to answer in (the
    server's, or 2025-11-25 when it used a later revision's keyword)."""

    prompt: FormPrompt
    answer_revision: Revision

    def ask(self, renderer: Renderer) -> Awaitable[Decision]:
        return renderer.ask_form(self.prompt)

    async def conclude(
        self, steps: HandlerSteps, decision: Decision, event: dict[str, Any]
    ) -> dict[str, Any]:
        """The result to send for the person's ``decision``; an invalid answer is not sent
        (the person is told why, and the request is cancelled)."""
        if self.prompt.free_text:
            return await self._early_answer(steps, decision, event)
        if isinstance(decision, Accept):
            form = self.prompt.form
            problems = form.validate(decision.content)
            if problems:
                await self._not_sent(steps, problems, event)
                return cancelled_by_us("invalid-answer")
            if steps.audit is not None:
                labels = {f.name: f.label for f in form}
                event["content"] = steps.audit.content(decision.content, labels)
            return elicit_result("accept", decision.content, revision=self.answer_revision)
        if isinstance(decision, Cancel) and decision.no_person:
            event["why"] = decision.reason or "no-person"
        return declined_or_cancelled(decision)

    async def _early_answer(
        self, steps: HandlerSteps, decision: Decision, event: dict[str, Any]
    ) -> dict[str, Any]:
        """A message-only request is answered in the early draft's shape: the text typed and
        the files attached as ``content`` items; a decline or cancel as ``cancelled`` (the
        draft has nothing else)."""
        if not isinstance(decision, Accept):
            if isinstance(decision, Cancel) and decision.no_person:
                event["why"] = decision.reason or "no-person"
                return early_result(cancelled=True, meta={OUTCOME_META: event["why"]})
            return early_result(cancelled=True)
        form = self.prompt.form
        problems = form.validate(decision.content)
        size = sum(len(item.data) for item in decision.attachments)
        if size > MAX_ATTACHMENT_BYTES:
            message = _("the attachments hold {size} bytes, more than allowed").format(size=size)
            problems.append(Problem(None, "too_large", message))
        if len(decision.attachments) > MAX_ATTACHMENTS:
            message = too_many_attachments(len(decision.attachments))
            problems.append(Problem(None, "too_many", message))
        # Whatever renderer built them: each file's bytes must be what its type says.
        for item in decision.attachments:
            if (wrong := content_problem(item.name, item.data, item.mime_type)) is not None:
                problems.append(Problem(None, "content_type", wrong))
        if problems:
            await self._not_sent(steps, problems, event)
            return early_result(cancelled=True, meta={OUTCOME_META: "invalid-answer"})
        text = decision.content.get(FREE_TEXT_FIELD)
        items = [ContentItem("text", text=text)] if isinstance(text, str) and text else []
        items += [
            ContentItem(
                "image" if a.kind == "image" else "audio", data=a.data, mime_type=a.mime_type
            )
            for a in decision.attachments
        ]
        if steps.audit is not None:
            labels = {f.name: f.label for f in form}
            event["content"] = steps.audit.content(decision.content, labels)
        if decision.attachments:
            # What was attached, never the bytes.
            event["attachments"] = [
                {"name": a.name, "mimeType": a.mime_type, "bytes": len(a.data)}
                for a in decision.attachments
            ]
        return early_result(items)

    async def _not_sent(
        self, steps: HandlerSteps, problems: Sequence[Problem], event: dict[str, Any]
    ) -> None:
        listed = "; ".join(str(p) for p in problems)
        text = _("The answer was not sent: {problems}").format(problems=listed)
        await tell(steps.renderer, Notice(self.prompt.server, text, "error"))
        event["problems"] = [p.to_json() for p in problems]


def form_question(
    request: ElicitationRequest, asking: Asking, event: dict[str, Any]
) -> FormQuestion:
    """Check a form request: read its schema (raising :class:`ElicitationRefused`, -32602
    with every problem, for a malformed one) and lint it and its message for the person;
    ``event`` gets what the audit records of it."""
    free_text = request.revision_hint == EARLY_DRAFT
    schema = free_text_schema() if free_text else request.requested_schema
    revision = None if free_text else asking.revision.value
    form, later, schema_findings = _read_and_lint(schema, revision)
    if later:
        # A later revision's keyword (a default on 2025-06-18, say): we can show it, so we
        # accept it, say so, and answer in the shapes the server used.
        event.setdefault("quirks", []).extend(later)
    # lint_schema's order: the message's findings first, then the schema's.
    findings = _for_people(lint_schema(None, message=request.message)) + schema_findings
    event["fields"] = [f.name for f in form]
    if findings:
        event["findings"] = [p.code for p in findings]
    prompt = FormPrompt(
        asking.server, request.message, form, findings, asking.revision.value, free_text
    )
    return FormQuestion(prompt, Revision.V2025_11_25 if later else asking.revision)


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
