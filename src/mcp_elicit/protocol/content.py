"""The early content-array draft's answers: ``content`` items of text, image or audio.

The draft (April 2025, stamped 2025-03-26; ``../spec/drafts`` in the design notes) asked with
a message only and was answered with ``{"content": [items]}``, or ``{"content": [],
"cancelled": true}``. No released revision kept it, but clients and servers written against
it exist, so both sides speak it when the other does:

- :func:`read_content_items` turns the raw items into :class:`ContentItem`\\ s, decoding
  image and audio ``data`` from base64, or lists every problem with the item it is in.
- :func:`early_result` builds the result exactly as the draft shows it.

Sizes are the caller's to limit (a client's renderer, a server's ``ask_text``): the protocol
layer decodes, it does not decide what is too big.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mcp_elicit.i18n import _
from mcp_elicit.protocol.problems import ProtocolProblem

ItemKind = Literal["text", "image", "audio"]
MediaKind = Literal["image", "audio"]
ITEM_KINDS: tuple[ItemKind, ...] = ("text", "image", "audio")

# RFC 6838 §4.2: type "/" subtype, restricted-name characters; parameters are not allowed in
# the draft's mimeType (it names the data, it does not describe an HTTP body).
_MIME = re.compile(
    r"(?P<top>[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126})/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
)


@dataclass(frozen=True, slots=True)
class ContentItem:
    """One item of an early-draft answer: ``text``, or decoded ``data`` with its MIME type."""

    kind: ItemKind
    text: str = ""
    data: bytes = b""
    mime_type: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ITEM_KINDS:
            raise ValueError(f"kind must be one of {', '.join(ITEM_KINDS)}, not {self.kind!r}")
        if self.kind != "text" and mime_problem(self.kind, self.mime_type) is not None:
            raise ValueError(f"{self.mime_type!r} is not an {self.kind} MIME type")

    def to_json(self) -> dict[str, Any]:
        if self.kind == "text":
            return {"type": "text", "text": self.text}
        return {
            "type": self.kind,
            "data": base64.b64encode(self.data).decode("ascii"),
            "mimeType": self.mime_type,
        }


def mime_problem(kind: MediaKind | str, mime_type: object) -> str | None:
    """Why ``mime_type`` cannot label ``kind`` data (``image/…`` for image, ``audio/…`` for
    audio), or ``None`` when it can."""
    if not isinstance(mime_type, str) or not (found := _MIME.fullmatch(mime_type)):
        return _("must be a MIME type such as image/png or audio/wav")
    if found["top"].lower() != kind:
        # Translators: {kind} is "image" or "audio" (a MIME top-level type: keep it as is).
        return _("must be an {kind}/… MIME type for an {kind} item, not {mime_type}").format(
            kind=kind, mime_type=repr(mime_type)
        )
    return None


def read_content_items(items: object) -> tuple[ContentItem, ...] | list[ProtocolProblem]:
    """The draft's ``content`` array as :class:`ContentItem`\\ s, or every problem in it, each
    naming its item (``content[1].data``)."""
    if not isinstance(items, Sequence) or isinstance(items, str | bytes):
        return [ProtocolProblem("content_type", _("content must be an array of items"), "content")]
    read: list[ContentItem] = []
    problems: list[ProtocolProblem] = []
    for index, item in enumerate(items):
        where = f"content[{index}]"
        if not isinstance(item, Mapping):
            problems.append(ProtocolProblem("item_type", _("an item must be an object"), where))
            continue
        kind = item.get("type")
        if kind == "text":
            text = item.get("text")
            if isinstance(text, str):
                read.append(ContentItem("text", text=text))
            else:
                problems.append(
                    ProtocolProblem(
                        "item_text", _("a text item needs text (a string)"), f"{where}.text"
                    )
                )
        elif kind in ("image", "audio"):
            media = _read_media(kind, item, where)
            if isinstance(media, ContentItem):
                read.append(media)
            else:
                problems.extend(media)
        else:
            problems.append(
                ProtocolProblem(
                    "item_kind",
                    _("type must be text, image or audio, not {kind}").format(kind=repr(kind)),
                    f"{where}.type",
                )
            )
    return problems if problems else tuple(read)


def _read_media(
    kind: MediaKind, item: Mapping[str, Any], where: str
) -> ContentItem | list[ProtocolProblem]:
    problems: list[ProtocolProblem] = []
    mime = item.get("mimeType")
    if (why := mime_problem(kind, mime)) is not None:
        problems.append(ProtocolProblem("item_mime_type", why, f"{where}.mimeType"))
    raw = item.get("data")
    data = b""
    if not isinstance(raw, str):
        problems.append(
            ProtocolProblem("item_data", _("data must be base64 text"), f"{where}.data")
        )
    else:
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            problems.append(
                ProtocolProblem("item_data", _("data is not valid base64"), f"{where}.data")
            )
    if problems:
        return problems
    assert isinstance(mime, str)
    return ContentItem(kind, data=data, mime_type=mime)


def early_result(
    items: Sequence[ContentItem] = (),
    *,
    cancelled: bool = False,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The draft's result: ``{"content": [...]}``, or ``{"content": [], "cancelled": true}``
    (the draft has no decline: a person who says no has cancelled). ``meta`` rides in
    ``_meta``, which every MCP result may carry."""
    result: dict[str, Any]
    if cancelled:
        if items:
            raise ValueError("a cancelled early-draft result has no content")
        result = {"content": [], "cancelled": True}
    else:
        result = {"content": [item.to_json() for item in items]}
    if meta:
        result["_meta"] = dict(meta)
    return result
