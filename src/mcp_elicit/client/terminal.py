"""``TerminalRenderer``: elicitation prompts in a terminal, on prompt_toolkit.

Keys, shown on screen as well:

- **Enter** confirms the answer on the line. An answer that the form would refuse cannot be
  entered: the reason shows under the line (``Error: …``) as the person types.
- **Esc** or **Ctrl-C**, at any prompt, cancels the whole request (:class:`Cancel`); so does
  **Ctrl-D** on an empty line (end of input).
- A form starts with ``Answer this request? [a]nswer/[d]ecline/[c]ancel (Enter: answer)``
  and ends on a review screen: ``s`` submits, ``e`` (or ``e 2``, ``e age``, or just the number
  or name) re-asks one field, ``d`` declines (:class:`Decline`), ``c`` cancels.
- Empty input: an optional field stays unanswered, a field with a default takes it, a required
  field without one cannot be left empty. Booleans take y/n; a choice takes its number, value
  or title; several choices are separated by commas (``1,3``).
- A free-text question (the early draft's message-only ask, :attr:`FormPrompt.free_text`) is
  followed by ``Attach an image or audio file (a path; Enter when done)``, asked until Enter
  alone; Tab completes a path, ``~`` is the home folder. A file that cannot be attached (not
  there, not an image or audio, too large) is refused under the line, the path kept to fix.
  The answer needs text, a file or both. Its review also takes ``a`` (attach more) and ``r``
  (or ``r 2``, ``r cat.png``: remove a file).
- A question whose request is given up while it is on screen (the host's call timed out or
  was cancelled, the server cancelled it) stops taking input and is marked ``Withdrawn: …``;
  the next question follows at once.
- URL consent: ``y`` accepts, ``n`` declines, Esc cancels. While waiting for the server to
  confirm a URL-mode step: Enter means done, Esc cancels. When the browser did not open the
  link, it is shown whole to copy: Enter once opened by hand goes on, Esc cancels.

Screen text is plain and stable (tests scrape it): see ``_terminal_text`` and ``prompt_text``.
"""

from __future__ import annotations

import mimetypes
import os
import shlex
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
from prompt_toolkit import print_formatted_text
from prompt_toolkit.completion import PathCompleter
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from mcp_elicit.client import _terminal_text as text
from mcp_elicit.client import prompts
from mcp_elicit.client._terminal_input import Dismissed, LineCheck, read_line
from mcp_elicit.client.prompt_text import clean, finding_line, notice_line
from mcp_elicit.client.prompts import (
    Accept,
    Attachment,
    Cancel,
    Decision,
    Decline,
    FormPrompt,
    Notice,
    UrlPrompt,
)
from mcp_elicit.forms import Field, Form, JSONValue, Problem
from mcp_elicit.i18n import N_, _

Writer = Callable[[str], None]
"""Prints one block of plain text (may hold newlines), like ``print``."""

CHOSE_CANCEL = "the person chose cancel"

# What may be typed at the first question and on the review screen (any case).
_START = {
    **dict.fromkeys(("", "a", "answer"), "answer"),
    **dict.fromkeys(("d", "decline"), "decline"),
    **dict.fromkeys(("c", "cancel"), "cancel"),
}
_REVIEW = {
    **dict.fromkeys(("s", "submit"), "submit"),
    **dict.fromkeys(("e", "edit"), "edit"),
    **dict.fromkeys(("d", "decline"), "decline"),
    **dict.fromkeys(("c", "cancel"), "cancel"),
}
_FREE_REVIEW = {
    **_REVIEW,
    **dict.fromkeys(("a", "attach"), "attach"),
    **dict.fromkeys(("r", "remove"), "remove"),
}
_YES = frozenset({"y", "yes"})
_NO = frozenset({"n", "no"})

# What the person is told once a question is over, by their answer.
_FORM_OUTCOME = {Accept: N_("Submitted."), Decline: N_("Declined."), Cancel: N_("Cancelled.")}
# Consent to a link is not its end: it may yet fail to open ("Error: the link did not
# open …"), so a yes is said as what it is.
_URL_OUTCOME = {
    Accept: N_("You agreed to open the link."),
    Decline: N_("Declined."),
    Cancel: N_("Cancelled."),
}


class TerminalRenderer:
    """A :class:`~mcp_elicit.client.renderer.Renderer` for a person at a terminal.

    ``input`` and ``output`` default to the terminal (prompt_toolkit's current app session);
    tests pass a pipe input and a captured output. ``write`` prints plain text; by default it
    is prompt_toolkit's ``print_formatted_text`` to ``output``, which also keeps the text above
    a prompt that happens to be on screen (``notify`` during a question).
    """

    def __init__(
        self,
        *,
        input: Input | None = None,
        output: Output | None = None,
        write: Writer | None = None,
    ) -> None:
        self._input = input
        self._output = output
        self._write = write

    # -- the Renderer protocol ------------------------------------------------------------------

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        try:
            answer = await self._form(prompt)
        except Dismissed as gone:
            answer = Cancel(reason=gone.reason)
        self._say(_(_FORM_OUTCOME[type(answer)]))
        return answer

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        before, domain, after = text.url_screen(prompt)
        self._say("\n".join(before))
        # Set apart and emphasised: the registrable domain is who the person is really visiting.
        self._say("")
        self._say(domain, style="bold")
        self._say("")
        if after:
            self._say("\n".join(after))
        answer: Decision
        try:
            reply = await self._ask(_(text.URL_QUESTION), _yes_no_error)
        except Dismissed as gone:
            answer = Cancel(reason=gone.reason)
        else:
            answer = Accept() if reply.strip().lower() in _YES else Decline()
        self._say(_(_URL_OUTCOME[type(answer)]))
        return answer

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        self._say(text.waiting_line(prompt.server, held=prompt.held, sign_in=prompt.sign_in))
        answer: Decision = Accept()
        if not completed.is_set():
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    await completed.wait()
                    group.cancel_scope.cancel()  # the server's word is enough: stop asking

                group.start_soon(watch)
                try:
                    await self._ask(text.WAIT_QUESTION, None)  # any line: Enter means done
                except Dismissed as gone:
                    answer = Cancel(reason=gone.reason)
                group.cancel_scope.cancel()
        if isinstance(answer, Cancel):
            self._say(_("Cancelled."))
        elif completed.is_set():
            name = clean(prompt.server, newlines=False)
            done = _("Signed in to {server}.") if prompt.sign_in else _("{server} confirmed.")
            self._say(done.format(server=name))
        else:
            self._say(_("Done."))
        return answer

    async def link_not_opened(self, prompt: UrlPrompt, why: str) -> Decision:
        """The browser did not open the link: show it to copy; ``Accept`` once the person
        says they opened it themselves, ``Cancel`` on Esc."""
        self._say("\n".join(text.not_opened_lines(prompt, why)))
        answer: Decision
        try:
            await self._ask(_(text.OPENED_QUESTION), None)
        except Dismissed as gone:
            answer = Cancel(reason=gone.reason)
            self._say(_("Cancelled."))
        else:
            answer = Accept()
            self._say(_("Going on."))
        return answer

    async def notify(self, notice: Notice) -> None:
        self._say(notice_line(notice))

    def withdraw(self, prompt: FormPrompt | UrlPrompt) -> None:
        """The question on screen was given up (its request was cancelled or timed out): its
        line stops taking input, is marked withdrawn, and the next prompt follows below. A
        held retry's waiting screen is taken down when the server asks again: said so."""
        held = isinstance(prompt, UrlPrompt) and prompt.held
        self._say(text.withdrawn_line(prompt.server, held=held))

    # -- forms ----------------------------------------------------------------------------------

    async def _form(self, prompt: FormPrompt) -> Decision:
        form = prompt.form
        self._say("\n".join(text.form_intro(prompt)))
        start = _START[(await self._ask(_(text.START_QUESTION), _start_error)).strip().lower()]
        if start == "decline":
            return Decline()
        if start == "cancel":
            return Cancel(reason=CHOSE_CANCEL)
        values: dict[str, JSONValue] = {}
        # A free-text answer may come with files; None: this form takes none.
        files: list[Attachment] | None = [] if prompt.free_text else None
        while True:
            for index, field in enumerate(form, 1):
                await self._ask_field(prompt, field, index, values, editing=False)
            if files is None:
                break
            self._say(text.attach_intro(prompts.MAX_ATTACHMENT_BYTES))
            await self._ask_files(files)
            if _text_or_file(values, files):
                break
            self._say(_(text.TEXT_OR_FILE_ERROR))  # and the question once more
        while True:
            self._say("\n".join(text.review_lines(form, values, files)))
            question = text.review_question(free_text=files is not None, files=bool(files))
            reply = await self._ask(question, lambda t: _review_error(form, t, files))
            found = _review_action(form, reply, files)
            if found is None:  # the review check lets only actions through
                continue
            action, target = found
            if action == "submit":
                problems = form.validate(values)
                wrong = [finding_line(form, p, word="Error") for p in problems]
                if files is not None and not _text_or_file(values, files):
                    wrong.append(_(text.TEXT_OR_FILE_ERROR))
                if not wrong:
                    return Accept(content=dict(values), attachments=tuple(files or ()))
                # Never an invalid Accept: say what is wrong and go back to the review.
                self._say("\n".join(wrong))
                self._say(_("Nothing was sent: fix these, then submit again."))
            elif action == "edit":
                if target is None and files is not None and len(form) == 1:
                    target = form.fields[0]  # one question: nothing to choose
                if target is None:
                    reply = await self._ask(_(text.EDIT_QUESTION), lambda t: _edit_error(form, t))
                    target = _find_field(form, reply)
                assert isinstance(target, Field)  # the edit check let only a field through
                index = form.fields.index(target) + 1
                await self._ask_field(prompt, target, index, values, editing=True)
            elif action == "attach" and files is not None:
                await self._ask_files(files)
            elif action == "remove" and files is not None:
                if target is None and len(files) == 1:
                    target = 0
                if target is None:
                    self._say("\n".join(text.files_list(files)))
                    reply = await self._ask(
                        _(text.REMOVE_QUESTION), lambda t: _remove_error(files, t)
                    )
                    target = _find_file(files, reply)
                assert isinstance(target, int)  # the remove check let only a file through
                gone = files.pop(target)
                self._say(_("Removed: {name}").format(name=clean(gone.name, newlines=False)))
            elif action == "decline":
                return Decline()
            else:
                return Cancel(reason=CHOSE_CANCEL)

    async def _ask_files(self, files: list[Attachment]) -> None:
        """Ask for files until Enter alone, adding each one that can be attached to ``files``.

        The path is checked on Enter: a file that cannot go is refused under the line (the
        path stays, to fix); nothing already given is lost."""
        read: dict[str, Attachment] = {}

        def check(typed: str) -> str | None:
            if not typed.strip():
                return None
            if len(files) >= prompts.MAX_ATTACHMENTS:
                return text.error_line(prompts.too_many_attachments(len(files) + 1))
            found = _read_attachment(typed, sum(len(item.data) for item in files))
            if isinstance(found, str):
                return text.error_line(found)
            read[typed] = found
            return None

        completer = PathCompleter(expanduser=True, file_filter=_attachable_or_folder)
        while True:
            typed = await read_line(
                _(text.ATTACH_QUESTION),
                check,
                input=self._input,
                output=self._output,
                while_typing=False,
                completer=completer,
            )
            if not typed.strip():
                return
            found = read.pop(typed, None)
            if found is not None:  # the check read it on Enter
                files.append(found)
                self._say(f"  {text.attachment_line(found)}")

    async def _ask_field(
        self,
        prompt: FormPrompt,
        field: Field,
        index: int,
        values: dict[str, JSONValue],
        *,
        editing: bool,
    ) -> None:
        form = prompt.form
        heading = text.field_heading(field, index, len(form), free_text=prompt.free_text)
        lines = text.field_lines(
            field, values.get(field.name), editing=editing, free_text=prompt.free_text
        )
        self._say("\n".join([heading, *lines]))
        question = text.field_question(field, free_text=prompt.free_text)
        while True:
            answer = _interpret(form, field, await self._ask(question, _field_check(form, field)))
            if not isinstance(answer, Problem):
                break
            self._say(_error_text(answer))  # the check refuses this already; kept as a backstop
        if answer is None:
            values.pop(field.name, None)
        else:
            values[field.name] = answer

    # -- input and output -----------------------------------------------------------------------

    async def _ask(self, question: str, check: LineCheck | None) -> str:
        return await read_line(question, check, input=self._input, output=self._output)

    def _say(self, block: str, *, style: str = "") -> None:
        if self._write is not None:
            self._write(block)
        else:
            print_formatted_text(FormattedText([(style, block)]), output=self._output)


def _interpret(form: Form, field: Field, typed: str) -> JSONValue | Problem | None:
    """The value for what was typed; empty input takes the default when there is one."""
    value = form.coerce(field.name, typed)
    empty = value is None or (isinstance(value, Problem) and value.code == "required")
    if empty and field.default is not None:
        default = field.default
        return list(default) if isinstance(default, list) else default
    return value


def _error_text(problem: Problem) -> str:
    return text.error_line(problem.message)


def _field_check(form: Form, field: Field) -> LineCheck:
    def check(typed: str) -> str | None:
        value = _interpret(form, field, typed)
        return _error_text(value) if isinstance(value, Problem) else None

    return check


def _start_error(typed: str) -> str | None:
    if typed.strip().lower() in _START:
        return None
    return _("Error: type a to answer, d to decline or c to cancel")


def _yes_no_error(typed: str) -> str | None:
    if typed.strip().lower() in _YES | _NO:
        return None
    return _("Error: type y to open the link or n to decline (Esc cancels)")


def _find_field(form: Form, typed: str) -> Field | None:
    """A field by its number (1-based), name, or label (any case)."""
    wanted = typed.strip()
    if wanted.isdigit():
        number = int(wanted)
        return form.fields[number - 1] if 1 <= number <= len(form) else None
    folded = wanted.casefold()
    for field in form:
        if wanted == field.name:
            return field
    for field in form:
        if folded in (field.name.casefold(), field.label.casefold()):
            return field
    return None


def _review_action(
    form: Form, typed: str, files: Sequence[Attachment] | None = None
) -> tuple[str, Field | int | None] | None:
    """``s``, ``e``, ``d``, ``c``; ``e 2`` or ``edit age``; or a field's number or name.
    With ``files`` (a free-text answer) also ``a`` and ``r``, ``r 2`` or ``remove cat.png``
    (the target is then the file's index)."""
    word, _space, rest = typed.strip().partition(" ")
    action = (_REVIEW if files is None else _FREE_REVIEW).get(word.lower())
    if action is not None and not rest.strip():
        if action == "remove" and not files:
            return None
        return action, None
    if action == "remove":
        assert files is not None
        index = _find_file(files, rest)
        return None if index is None else ("remove", index)
    target = _find_field(form, rest if action == "edit" else typed)
    return None if target is None else ("edit", target)


def _review_error(form: Form, typed: str, files: Sequence[Attachment] | None = None) -> str | None:
    found = _review_action(form, typed, files)
    if found is None:
        if files is None:
            return _("Error: type s to submit, e to edit a field, d to decline or c to cancel")
        if files:
            return _(
                "Error: type s to submit, e to edit your answer, a to attach a file, "
                "r to remove a file, d to decline or c to cancel"
            )
        return _(
            "Error: type s to submit, e to edit your answer, a to attach a file, "
            "d to decline or c to cancel"
        )
    if found == ("edit", None) and not len(form):
        return _("Error: this form has no fields to edit")
    return None


def _find_file(files: Sequence[Attachment], typed: str) -> int | None:
    """A file's index by its number (1-based, as listed) or its name."""
    wanted = typed.strip()
    if wanted.isdigit():
        number = int(wanted)
        return number - 1 if 1 <= number <= len(files) else None
    for index, item in enumerate(files):
        if wanted == item.name:
            return index
    return None


def _remove_error(files: Sequence[Attachment], typed: str) -> str | None:
    if _find_file(files, typed) is not None:
        return None
    return _("Error: type a file's number (1\N{EN DASH}{last}) or its name").format(last=len(files))


def _text_or_file(values: dict[str, JSONValue], files: Sequence[Attachment]) -> bool:
    """A free-text answer holds something: text other than white space, or a file."""
    return bool(files) or any(isinstance(v, str) and v.strip() for v in values.values())


def _candidates(typed: str) -> list[Path]:
    """Where a typed path may point: as typed, then as a shell reads it (a path dropped onto
    a terminal comes quoted, ``'my cat.png'``, or escaped, ``my\\ cat.png``)."""
    stripped = typed.strip()
    try:
        words = shlex.split(stripped)
    except ValueError:
        words = []
    spellings = [stripped, *(words if len(words) == 1 and words[0] != stripped else ())]
    return [_expanded(Path(spelling)) for spelling in spellings]


def _expanded(path: Path) -> Path:
    """``~`` and ``~user`` expanded; as typed when there is no such user."""
    try:
        return path.expanduser()
    except RuntimeError:
        return path


def _read_attachment(typed: str, already: int) -> Attachment | str:
    """The file at the typed path as an :class:`Attachment`, or why it cannot be attached
    (``already``: the bytes attached before it). The kind and the size are checked before
    the file is read, so a large or wrong file is never read whole."""
    shown = typed.strip()
    paths = _candidates(typed)
    path = next((p for p in paths if _stat(p) is not None), paths[0])
    try:
        found = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return _("{path}: no such file").format(path=shown)
    except OSError as error:
        return f"{shown}: {error.strerror or error}"
    except ValueError:  # a NUL in the path
        return _("{path}: not a path a file can have").format(path=shown)
    if stat.S_ISDIR(found.st_mode):
        return _("{path} is a folder: type the path of a file in it").format(path=shown)
    if not stat.S_ISREG(found.st_mode):
        return _("{path} is not a regular file").format(path=shown)
    try:
        prompts.attachment(path.name, b"", already=already + found.st_size, content=False)
        data = path.read_bytes()
        return prompts.attachment(path.name, data, already=already)
    except OSError as error:
        return f"{shown}: {error.strerror or error}"
    except ValueError as error:  # not an image or audio file, or too large
        return str(error)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except (OSError, ValueError):
        return None


def _attachable_or_folder(name: str) -> bool:
    """What Tab offers: folders, and files named like an image or audio file."""
    if os.path.isdir(name):
        return True
    guessed = mimetypes.guess_type(name)[0] or ""
    return guessed.split("/", 1)[0] in prompts.ATTACHABLE


def _edit_error(form: Form, typed: str) -> str | None:
    if _find_field(form, typed) is not None:
        return None
    return _("Error: type a field's number (1\N{EN DASH}{last}) or its name").format(last=len(form))
