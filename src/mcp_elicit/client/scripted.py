"""Answers from a list, for scripts and tests: ``mcp-elicit call --answers FILE``.

One way to build it: ``ScriptedRenderer([...])`` with the entries as dicts in code, or
``ScriptedRenderer(load_answers(path))`` for a JSON file. Either way every entry is checked
before the first question (:class:`AnswersError` names the first bad one).

Each entry answers the next request, in order:

- ``{"action": "accept", "content": {...}}`` — these values
- ``{"action": "accept", "defaults": true}`` — the schema's defaults (with ``content`` too: the
  given values over the defaults)
- ``{"action": "accept", "content": {"response": "..."}, "attach": ["photo.png"]}`` — for a
  free-text question (the early draft's message-only ask): the text, and image or audio files
  read when the list is checked (a path relative to the working directory)
- ``{"action": "decline"}``, ``{"action": "cancel"}``

In URL mode one ``accept`` is both consent and "I am done". A server's sign-in (MCP
authorization) takes no entry: it is declined, and the notices say to consent ahead
(``SignIn(ask=False)``, ``mcp-elicit call --sign-in yes``), which covers only a sign-in link
without warnings (``consents_to_sign_in = False``: a sign-in link with warnings is refused
rather than put to the answers). When the list runs out, the next
request is cancelled (marked ``no-person``) and the ``exhausted`` callback says so. On
2026-07-28 the retry that carries a link's ``accept`` is left to the server: a script never
says "done" early, and if the page is still not finished the next entry answers the link
asked again. If the handler's opener fails to open a link, the ``accept`` stands (the
entries speak for the person) and ``notices`` is told.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.prompts import (
    MAX_ATTACHMENTS,
    Accept,
    Attachment,
    Cancel,
    Decision,
    Decline,
    FormPrompt,
    Notice,
    UrlPrompt,
    attachment,
    too_many_attachments,
)
from mcp_elicit.forms import JSONValue
from mcp_elicit.i18n import _
from mcp_elicit.protocol import rules_for
from mcp_elicit.revisions import Revision

_KEYS = {"action", "content", "defaults", "attach"}
# Revisions in which the server signals completion of a URL elicitation.
_SIGNALLED = frozenset(r for r in Revision if rules_for(r).completion in ("notification", "track"))


class AnswersError(ValueError):
    """An answers list that cannot be used; the message names the entry and the rule."""


@dataclass(frozen=True, slots=True)
class ScriptedAnswer:
    action: str
    content: dict[str, JSONValue] | None = None
    defaults: bool = False
    attachments: tuple[Attachment, ...] = ()


def parse_answers(data: Any) -> list[ScriptedAnswer]:
    """Check an answers list as loaded from JSON; raise :class:`AnswersError` on the first
    entry that breaks a rule. ``ScriptedRenderer`` does this itself: call it only to check a
    list before there is a renderer."""
    if not isinstance(data, list):
        raise AnswersError(_("answers must be a JSON list of objects"))
    return [_parse_entry(entry, f"answers[{index}]") for index, entry in enumerate(data)]


def _parse_entry(entry: Any, where: str) -> ScriptedAnswer:
    if not isinstance(entry, Mapping):
        raise AnswersError(
            _("{where}: must be an object, not {type}").format(
                where=where, type=type(entry).__name__
            )
        )
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise AnswersError(
            _("{where}: unknown key {key} (allowed: {allowed})").format(
                where=where, key=repr(unknown[0]), allowed=sorted(_KEYS)
            )
        )
    action = entry.get("action")
    if action not in ("accept", "decline", "cancel"):
        raise AnswersError(
            _("{where}: must be accept, decline or cancel, not {value}").format(
                where=f"{where}.action", value=repr(action)
            )
        )
    content = entry.get("content")
    if content is not None and not isinstance(content, Mapping):
        raise AnswersError(_("{where}: must be an object").format(where=f"{where}.content"))
    defaults = entry.get("defaults", False)
    if not isinstance(defaults, bool):
        raise AnswersError(_("{where}: must be true or false").format(where=f"{where}.defaults"))
    if action != "accept" and (content is not None or defaults or "attach" in entry):
        raise AnswersError(
            _("{where}: only accept takes content, defaults or attach").format(where=where)
        )
    attached = _read_attachments(entry.get("attach", []), f"{where}.attach")
    return ScriptedAnswer(
        action, dict(content) if content is not None else None, defaults, attached
    )


def _read_attachments(paths: Any, where: str) -> tuple[Attachment, ...]:
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise AnswersError(_("{where}: must be a list of file paths").format(where=where))
    if len(paths) > MAX_ATTACHMENTS:
        raise AnswersError(f"{where}: {too_many_attachments(len(paths))}")
    read: list[Attachment] = []
    for index, name in enumerate(paths):
        path = Path(name).expanduser()
        try:
            data = path.read_bytes()
            read.append(attachment(path.name, data, already=sum(len(a.data) for a in read)))
        except OSError as error:
            raise AnswersError(f"{where}[{index}]: {name}: {error.strerror or error}") from None
        except ValueError as error:
            raise AnswersError(f"{where}[{index}]: {error}") from None
    return tuple(read)


def load_answers(path: str | Path) -> list[ScriptedAnswer]:
    """Read and check an answers file (a JSON list, as ``mcp-elicit call --answers`` takes);
    raise :class:`AnswersError` naming the file, or the first entry that breaks a rule."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise AnswersError(f"{path}: {error.strerror or error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise AnswersError(_("{path}: not JSON: {error}").format(path=path, error=error)) from None
    return parse_answers(data)


class ScriptedRenderer:
    """A renderer that answers from a list instead of asking a person.

    ``answers`` holds dicts as in an answers file (``{"action": "accept", "content": {...}}``)
    or what :func:`load_answers` returns; each is checked here, and a bad one raises
    :class:`AnswersError` naming its index. ``exhausted`` is told (one line) when a request
    finds the list used up and is cancelled; ``notices`` gets what the handler tells the
    person. ``completion_wait``: seconds to give a 2025-11-25 server to say a URL-mode step
    is done before the accept stands for "done". :attr:`used` and :attr:`remaining` count
    the entries.
    """

    consents_to_sign_in = False
    """The entries answer a tool's questions, never a server's sign-in (see the module)."""
    opens_browser_by_default = False
    """``ElicitationHandler(ScriptedRenderer(...))`` opens no browser for a link the entries
    consent to, as ``mcp-elicit call --answers`` opens none; give ``opener=`` to open or
    record it."""

    def __init__(
        self,
        answers: Sequence[ScriptedAnswer | Mapping[str, Any]],
        *,
        exhausted: Callable[[str], None] | None = None,
        notices: Callable[[Notice], None] | None = None,
        completion_wait: float = 2.0,
    ) -> None:
        self.completion_wait = completion_wait
        self._answers = [
            a if isinstance(a, ScriptedAnswer) else _parse_entry(a, f"answers[{index}]")
            for index, a in enumerate(answers)
        ]
        self._exhausted = exhausted
        self._notices = notices
        self.used = 0

    @property
    def remaining(self) -> int:
        """Entries not used yet."""
        return len(self._answers) - self.used

    def _next(self, server: str, message: str) -> ScriptedAnswer | None:
        if self.used >= len(self._answers):
            if self._exhausted is not None:
                self._exhausted(
                    _("no answer left for {server}'s request {message}: cancelled").format(
                        server=server, message=repr(message)
                    )
                )
            return None
        answer = self._answers[self.used]
        self.used += 1
        return answer

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        answer = self._next(prompt.server, prompt.message)
        if answer is None:
            return Cancel("answers-exhausted", no_person=True)
        if answer.action == "decline":
            return Decline()
        if answer.action == "cancel":
            return Cancel()
        content: dict[str, JSONValue] = dict(prompt.form.defaults()) if answer.defaults else {}
        content.update(answer.content or {})
        if answer.attachments and not prompt.free_text:
            await self.notify(
                Notice(
                    prompt.server,
                    _(
                        "{where} attaches files, but {server}'s request is a form, which takes "
                        "none: not answered"
                    ).format(where=f"answers[{self.used - 1}]", server=prompt.server),
                    "error",
                )
            )
            return Cancel("invalid-answer", no_person=True)
        return Accept(content, answer.attachments)

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        if prompt.sign_in:
            # Signing in is not a question from a tool, and the entries answer those only:
            # a script consents ahead instead (SignIn(ask=False), `--sign-in yes`).
            await self.notify(
                Notice(
                    prompt.server,
                    _("requires sign-in, which answers do not consent to: give --sign-in yes"),
                    "error",
                )
            )
            return Decline()
        answer = self._next(prompt.server, prompt.message)
        if answer is None:
            return Cancel("answers-exhausted", no_person=True)
        if answer.action == "accept":
            if prompt.verdict.reasons:
                # What announces the link's opening says what the entry consented despite.
                warnings = "; ".join(
                    clean(reason.message, newlines=False) for reason in prompt.verdict.reasons
                )
                await self.notify(
                    Notice(
                        prompt.server,
                        _("{where} consents to a link with warnings: {url}: {warnings}").format(
                            where=f"answers[{self.used - 1}]",
                            url=clean(prompt.url, newlines=False),
                            warnings=warnings,
                        ),
                        "warning",
                    )
                )
            return Accept()
        return Decline() if answer.action == "decline" else Cancel()

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        if prompt.held or prompt.sign_in:
            # A sign-in ends when the browser comes back. 2026-07-28: the server holds the
            # retry while the page is open, and answers it
            # (or asks for the link again: the next entry answers that). Never "done" early.
            await completed.wait()
            return Accept()
        # The accept that gave consent also stands for "I am done". Where the server will say
        # when it is done (2025-11-25, by elicitationId), give it time to, as a person would.
        if prompt.elicitation_id is not None and prompt.revision in _SIGNALLED:
            with anyio.move_on_after(self.completion_wait):
                await completed.wait()
        return Accept()

    async def link_not_opened(self, prompt: UrlPrompt, why: str) -> Decision:
        """The entry that consented stands for the person: go on, and say so in ``notices``."""
        await self.notify(
            Notice(
                prompt.server,
                _("the link did not open ({why}): {url}").format(why=why, url=prompt.url),
                "warning",
            )
        )
        return Accept()

    async def notify(self, notice: Notice) -> None:
        if self._notices is not None:
            self._notices(notice)

    def withdraw(self, prompt: FormPrompt | UrlPrompt) -> None:
        """Nothing is on a screen to take away; the entry the request used stays used."""
