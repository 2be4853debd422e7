"""What the page sent for a form, read into the answer's content with the form model.

The page does no checking of its own: it sends what the person typed or picked, and this
module reads it with the same code the terminal uses (:meth:`Form.coerce` for typed text, then
:meth:`Form.validate`), so the page shows the terminal's messages, word for word.

What the page sends for each field:

- text, email, URI, date, date-time, integer, number: the text in the box, as typed;
- a checkbox (boolean): ``true`` or ``false``; ``null`` for an optional one without a
  default that the person left alone (no answer: left out, as at the terminal);
- a single choice: the option's value, or ``""`` for none;
- several choices: the list of checked values.

As at the terminal, an empty box takes the field's default when it has one (the page shows the
default in the box to begin with, and says what an empty box means).

A free-text question (the early draft's message-only ask, :attr:`FormPrompt.free_text`) may
come with files: ``attachments``, a list of ``{"name", "mimeType", "data"}`` (``data`` in
base64), each read by :func:`mcp_elicit.client.prompts.attachment`, which decides what may be
attached. While the person is still choosing, the page sends ``size`` instead of ``data``
and the same rules are checked before it reads a single file (:func:`read_free_text`).
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from mcp_elicit.client.prompt_text import clean, value_text
from mcp_elicit.client.prompts import (
    MAX_ATTACHMENTS,
    Attachment,
    attachment,
    too_many_attachments,
)
from mcp_elicit.forms import Field, FieldKind, Form, JSONValue, Problem
from mcp_elicit.i18n import N_, _

# Fields the person types into; the rest are ticked or picked.
TYPED_KINDS = frozenset(
    {
        FieldKind.TEXT,
        FieldKind.EMAIL,
        FieldKind.URI,
        FieldKind.DATE,
        FieldKind.DATETIME,
        FieldKind.INTEGER,
        FieldKind.NUMBER,
    }
)

# A problem with no field (the whole answer) is keyed by this in ``Submission.problems``.
WHOLE_FORM = ""

ATTACHMENTS = "attachments"
"""Where the page sends the files attached to a free-text answer, and the key of their
message in ``Submission.problems`` (a free-text form's one field is ``response``: no clash)."""

TEXT_OR_FILE = N_("Type an answer or attach a file")


class Malformed(Exception):
    """The page sent something in a shape it never sends: a bad request, not a message for
    the person."""


@dataclass
class Submission:
    """The content to send, the files attached, and one message per field that is wrong
    (``Error: …``)."""

    content: dict[str, JSONValue] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    attachments: list[Attachment] = field(default_factory=list)


def read_values(form: Form, sent: Mapping[str, Any]) -> Submission:
    reading = Submission()
    for item in form:
        value = _read_one(form, item, sent.get(item.name))
        if isinstance(value, Problem):
            reading.problems[item.name] = error_text(value)
        elif value is not None:
            reading.content[item.name] = value
    # The whole answer once more, as the handler will: bounds on several choices, a value the
    # page should not have been able to send, a required field left without one.
    for problem in form.validate(reading.content):
        key = WHOLE_FORM if problem.field is None else problem.field
        reading.problems.setdefault(key, error_text(problem))
    return reading


def read_free_text(
    form: Form, sent: Mapping[str, Any], files: object, *, with_data: bool
) -> Submission:
    """A free-text answer: the text read as any form's (:func:`read_values`), and the files.

    ``with_data``: the files as sent with the answer (``data``, base64); else as sent while
    checking (``size``), when :attr:`Submission.attachments` stays empty. Text of only white
    space, or none, is an answer only with a file (:data:`TEXT_OR_FILE`).
    """
    reading = read_values(form, sent)
    count = 0
    if files is not None:
        if not isinstance(files, list):
            raise Malformed(f"{ATTACHMENTS} must be a list")
        count = len(files)
        reading.attachments, wrong = _read_files(files, with_data=with_data)
        if wrong:
            reading.problems[ATTACHMENTS] = "\n".join(wrong)
    typed = [v for v in reading.content.values() if isinstance(v, str) and v.strip()]
    if not typed and not count:
        for item in form:  # the one text box: the message goes under it
            reading.problems.setdefault(
                item.name, _("Error: {message}").format(message=_(TEXT_OR_FILE))
            )
            break
    return reading


def _read_files(files: list[Any], *, with_data: bool) -> tuple[list[Attachment], list[str]]:
    """Each file as an :class:`Attachment`, and for each one that cannot go, the message that
    names it (``Error: photo.bmp is too large: …``). The size allowed is for all together,
    counted in the order the person attached them; more than :data:`MAX_ATTACHMENTS` files
    are one message, and none is read."""
    attached: list[Attachment] = []
    wrong: list[str] = []
    total = 0
    if len(files) > MAX_ATTACHMENTS:
        message = too_many_attachments(len(files))
        return [], [_("Error: {message}").format(message=message)]
    for index, entry in enumerate(files):
        where = f"{ATTACHMENTS}[{index}]"
        if not isinstance(entry, Mapping):
            raise Malformed(f"{where} must be an object")
        name, mime_type = entry.get("name"), entry.get("mimeType", "")
        if not isinstance(name, str) or not isinstance(mime_type, str):
            raise Malformed(f"{where} needs a name and a mimeType, both strings")
        try:
            if with_data:
                data = _decoded(name, entry.get("data"), where)
                attached.append(attachment(name, data, mime_type or None, already=total))
                size = len(data)
            else:
                said = entry.get("size")
                if not isinstance(said, int) or isinstance(said, bool) or said < 0:
                    raise Malformed(f"{where}.size must be a whole number of bytes")
                size = said
                # The very same rules before the page reads the file: its bytes are counted
                # with those before it, as attachment() would count them.
                attachment(name, b"", mime_type or None, already=total + size, content=False)
        except ValueError as problem:
            wrong.append(_("Error: {message}").format(message=clean(str(problem), newlines=False)))
            continue
        total += size
    return attached, wrong


def _decoded(name: str, data: object, where: str) -> bytes:
    """Strict base64: only its alphabet, padded exactly, nothing after the padding."""
    if not isinstance(data, str):
        raise Malformed(f"{where}.data must be base64 text")
    try:
        return binascii.a2b_base64(data.encode("ascii"), strict_mode=True)
    except (UnicodeEncodeError, binascii.Error):
        raise ValueError(
            _("{name} did not arrive whole (its data is not valid base64): attach it again").format(
                name=name
            )
        ) from None


def _read_one(form: Form, item: Field, value: Any) -> JSONValue | Problem | None:
    if item.kind in TYPED_KINDS:
        if value is None:
            value = ""
        if not isinstance(value, str):
            return Problem(item.name, "type", _("send the text as typed"))
        return _typed(form, item, value)
    if value is None or value == "":
        return _default(item)
    # A boolean, an option or a list of options: the form's validation checks it.
    return cast(JSONValue, value)


def _typed(form: Form, item: Field, text: str) -> JSONValue | Problem | None:
    """The terminal's rule: what was typed, coerced; an empty box takes the default."""
    value = form.coerce(item.name, text)
    empty = value is None or (isinstance(value, Problem) and value.code == "required")
    if empty and item.default is not None:
        return _default(item)
    return value


def _default(item: Field) -> JSONValue | None:
    default = item.default
    return list(default) if isinstance(default, list) else default


def error_text(problem: Problem) -> str:
    """As the terminal shows it under the line."""
    return _("Error: {message}").format(message=clean(problem.message, newlines=False))


def review(form: Form, content: Mapping[str, JSONValue]) -> list[dict[str, Any]]:
    """The review step's lines: each field's label and its answer (:func:`review_value`),
    with the field's kind and the answer as sent (``answer``), from which the page writes a
    date or a number the way its language does (``Intl``); the answer itself keeps its form."""
    return [
        {
            "name": item.name,
            "label": clean(item.label, newlines=False),
            "value": review_value(item, content.get(item.name)),
            "kind": item.kind.value,
            "answer": content.get(item.name),
        }
        for item in form
    ]


def review_value(item: Field, value: JSONValue | None) -> str:
    """One answer on the review step, as the terminal's review shows it (``yes``/``no``, ``2``
    for 2.0, choices by title, lists joined by commas, ``(no answer)``), except text.

    Text (dates, email addresses and links too) is shown as the person typed it: the page
    gives each answer a line of its own, so it needs none of the JSON quotes the terminal
    puts round text to make an empty answer visible. An empty or blank one says so in words.
    """
    if not isinstance(value, str) or item.kind is FieldKind.SINGLE_CHOICE:
        return value_text(item, value)
    if not value:
        return _("(empty)")
    if not value.strip():
        return _("(only white space)")
    return clean(value)
