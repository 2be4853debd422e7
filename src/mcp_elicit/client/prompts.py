"""What a renderer is shown, and what it answers.

The handler turns every elicitation, whatever revision it came in, into one of two prompts:
:class:`FormPrompt` (fill these fields) or :class:`UrlPrompt` (may I open this link?). A
renderer returns the person's :data:`Decision` (:class:`Accept`, :class:`Decline` or
:class:`Cancel`), and knows nothing of JSON-RPC, revisions or the SDK.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field
from typing import TypeAlias

from mcp_elicit.client.file_types import SVG, content_problem, same_type, svg_refusal
from mcp_elicit.forms import Form, JSONValue, Problem
from mcp_elicit.i18n import _, ngettext
from mcp_elicit.protocol.content import mime_problem
from mcp_elicit.urls import UrlVerdict


@dataclass(frozen=True, slots=True)
class FormPrompt:
    """Ask the person to fill in a form.

    ``findings`` are what the person should know about the request before answering (a URL
    outside the ``url`` field, fields that look like secrets, a ``pattern`` that will be
    enforced): renderers show them, they never hide them. ``free_text`` marks the early draft's
    message-only ask, shown as one free-text question (the form then has one field) to which
    the person may attach image or audio files (:class:`Attachment`, answered in
    :attr:`Accept.attachments`).
    """

    server: str
    message: str
    form: Form
    findings: tuple[Problem, ...] = ()
    revision: str = ""
    free_text: bool = False


@dataclass(frozen=True, slots=True)
class UrlPrompt:
    """Ask the person whether to open a link (URL mode).

    ``verdict`` is :func:`mcp_elicit.urls.check_url`'s; a blocked URL never reaches a
    renderer. ``required_by`` names the tool call that needs this first (the -32042 path).
    ``held`` is set only in ``wait_for_completion`` on 2026-07-28: the person agreed, the call
    was retried with that answer, and the server may hold the retry until the page is
    finished; ``completed`` is then set when the server answers it, and an ``Accept``
    (done) makes the client ask the server again at once. ``sign_in`` marks the server's own
    sign-in (MCP authorization, :mod:`mcp_elicit.client.sign_in`), not a question from a
    tool: renderers say so; in ``wait_for_completion`` ``completed`` is set when the browser
    has come back.
    """

    server: str
    message: str
    url: str
    verdict: UrlVerdict
    elicitation_id: str | None = None
    revision: str = ""
    required_by: str | None = None
    held: bool = False
    sign_in: bool = False


Prompt: TypeAlias = FormPrompt | UrlPrompt


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file the person attached to a free-text answer: the early draft's image or audio
    item. Build it with :func:`attachment`, which checks the kind and the size."""

    name: str
    mime_type: str
    data: bytes

    @property
    def kind(self) -> str:
        """``"image"`` or ``"audio"``."""
        return self.mime_type.split("/", 1)[0].lower()


_LEGACY_TYPES = {"audio/x-wav": "audio/wav", "audio/wave": "audio/wav"}


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return _("{size} MB").format(size=f"{count / (1024 * 1024):g}")
    if count >= 1024:
        return _("{size} KB").format(size=f"{count / 1024:g}")
    return ngettext("{count} byte", "{count} bytes", count).format(count=count)


ATTACHABLE = ("image", "audio")
"""What a person may attach to a free-text answer: what the early draft's items can carry."""

MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
"""The most one answer's attachments may hold together. The whole answer travels in one
JSON-RPC message, base64 (a third larger); servers set their own limit too."""


MAX_ATTACHMENTS = 10
"""The most files one answer may carry."""


def too_many_attachments(count: int) -> str:
    """What to tell the person who attached ``count`` files, more than :data:`MAX_ATTACHMENTS`."""
    return ngettext(
        "{count} files attached: at most {most} file can go with one answer",
        "{count} files attached: at most {most} files can go with one answer",
        MAX_ATTACHMENTS,
    ).format(count=count, most=MAX_ATTACHMENTS)


def attachment(
    name: str,
    data: bytes,
    mime_type: str | None = None,
    *,
    already: int = 0,
    content: bool = True,
) -> Attachment:
    """An :class:`Attachment` of ``data`` read from the file ``name``, or ``ValueError`` with
    what to tell the person. ``mime_type`` is what the browser said, else guessed from the
    name; ``already`` counts the bytes attached before this one. ``content``: ``data`` is the
    whole file, whose bytes must be what the type says
    (:func:`mcp_elicit.client.file_types.content_problem`); ``False`` checks the rest only,
    before the file is read (``data`` then is empty, its size counted in ``already``). SVG
    is refused either way."""
    kind_of = mime_type or mimetypes.guess_type(name)[0] or ""
    # Python's table (and many systems') still says audio/x-wav; the registered name is
    # audio/wav (RFC 2361's successor, IANA), which is what a server expects.
    kind_of = _LEGACY_TYPES.get(kind_of.lower(), kind_of)
    if same_type(kind_of) == SVG:
        raise ValueError(svg_refusal(name))
    top = kind_of.split("/", 1)[0].lower()
    if top not in ATTACHABLE or mime_problem(top, kind_of) is not None:
        raise ValueError(
            _(
                "{name} is not an image or audio file ({type}): only images and audio can be "
                "attached"
            ).format(name=name, type=kind_of or _("unknown type"))
        )
    if already + len(data) > MAX_ATTACHMENT_BYTES:
        raise ValueError(
            _("{name} is too large: attachments may hold {size} in all").format(
                name=name, size=_size(MAX_ATTACHMENT_BYTES)
            )
        )
    if content and (problem := content_problem(name, data, kind_of)) is not None:
        raise ValueError(problem)
    return Attachment(name, kind_of, data)


@dataclass(frozen=True, slots=True)
class Accept:
    """The person answered (form mode: ``content``) or consented (URL mode: no content).

    ``attachments``: files attached to a free-text answer (:attr:`FormPrompt.free_text`)."""

    content: dict[str, JSONValue] = field(default_factory=dict)
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True, slots=True)
class Decline:
    """The person said no."""


@dataclass(frozen=True, slots=True)
class Cancel:
    """The person dismissed the question without choosing (Esc, Ctrl-C), or nobody could.

    ``no_person`` is set when no person was asked at all (no renderer, answers exhausted,
    rate limit); the result then says so in ``_meta``, so a server can tell it from a
    person's choice.
    """

    reason: str | None = None
    no_person: bool = False


Decision: TypeAlias = Accept | Decline | Cancel
"""The person's decision on a prompt: what a renderer returns."""


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the person should be told that is not a question (rate limit, blocked URL)."""

    server: str
    text: str
    level: str = "warning"  # "info", "warning" or "error"
