"""``ask_text``: a free-text question, answered with text and, where the client can, files.

The early content-array draft (2025-03-26) asked with a message only and took the answer as
``content`` items: text, and images or audio as base64 with their MIME type. A client that
speaks the draft is asked exactly that way; every released revision is asked a form with one
text field (``Your answer``, in the language in effect), so the same tool works with any
client. A client that answers a form with the draft's items anyway is read liberally.

Images and audio reach the tool as bytes with their MIME type (:class:`Reply`), checked
before the tool sees them: every item well-formed, and all files together no larger than
``max_bytes``. A bad answer is asked again (``reask``) or becomes an ``InvalidAnswer`` naming
the item and the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_elicit.forms import Problem
from mcp_elicit.i18n import N_, _, current_language
from mcp_elicit.protocol import ContentItem
from mcp_elicit.server.answers import Answer
from mcp_elicit.server.asking import Fallback, ask_question
from mcp_elicit.server.questions import Question, cached_question, question_for_schema

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
"""The most the files of one answer may hold together, decoded (10 MiB)."""

ANSWER_FIELD = "response"
_ANSWER_TITLE = N_("Your answer")


def _schema() -> dict[str, Any]:
    """The one-field form, its label in the language in effect."""
    return {
        "type": "object",
        "properties": {ANSWER_FIELD: {"type": "string", "title": _(_ANSWER_TITLE)}},
        "required": [ANSWER_FIELD],
    }


@dataclass(frozen=True, slots=True)
class Reply:
    """A free-text answer: what the person typed, and the files they attached (each a
    :class:`~mcp_elicit.protocol.ContentItem` of kind ``"image"`` or ``"audio"``, with
    ``data`` as bytes and ``mime_type``). Several text items are joined by new lines."""

    text: str
    attachments: tuple[ContentItem, ...] = ()

    @property
    def images(self) -> tuple[ContentItem, ...]:
        return tuple(item for item in self.attachments if item.kind == "image")

    @property
    def audio(self) -> tuple[ContentItem, ...]:
        return tuple(item for item in self.attachments if item.kind == "audio")


async def ask_text(
    ctx: Any,
    message: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout: float | None = None,
    fallback: Fallback[Reply] | None = None,
    reask: int = 0,
    key: str | None = None,
    not_secret: bool = False,
) -> Answer[Reply]:
    """Ask the person a free-text question; ``Accepted(Reply(text, attachments))``,
    ``Declined()`` or ``Cancelled()``.

    A client speaking the early content-array draft gets the message only and may answer
    with images and audio; other clients get a form with one text field. ``max_bytes`` caps
    the attached files together (decoded); the other arguments are ``ask``'s.
    """
    if not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError(f"max_bytes must be a whole number of bytes, not {max_bytes!r}")
    question = cached_question(
        ("ask_text", max_bytes, current_language()),
        lambda: _question(max_bytes),
        cache=_BY_LIMIT,
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


def _question(max_bytes: int) -> Question[Reply]:
    question = question_for_schema(
        _schema(),
        lambda content: Reply(str(content[ANSWER_FIELD])),
        title="a free-text question",
        where="ask_text()",
    )
    question.from_items = lambda items: _reply(items, max_bytes)
    return question


def _reply(items: tuple[ContentItem, ...], max_bytes: int) -> Reply | list[Problem]:
    files = tuple(item for item in items if item.kind != "text")
    size = sum(len(item.data) for item in files)
    if size > max_bytes:
        return [
            Problem(
                "content",
                "too_large",
                _("the attached files hold {size} bytes; at most {max_bytes} are accepted").format(
                    size=size, max_bytes=max_bytes
                ),
            )
        ]
    text = "\n".join(item.text for item in items if item.kind == "text")
    return Reply(text, files)


_BY_LIMIT: dict[Any, Question[Any]] = {}
