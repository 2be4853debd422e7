"""What an attached file really is, read from its bytes (no I/O here).

A browser says what a file is from its name (``photo.png`` is ``image/png``, whatever it
holds), and so does a file's name at the terminal: neither is evidence. Before a file goes to
a server as an image or audio item, its first and last bytes are matched against a table of
file signatures (``puremagic``: pure Python, maintained, no libmagic) and the type it was
given must be among what they can be. A program named ``photo.png``, or a page of HTML sent
as ``image/png``, is refused, naming the file and both types.

SVG is refused whatever it is called: it is a document, not a picture, and may carry scripts
and links that run wherever it is shown.

A signature says what a file starts as, not that all of it is well formed: this catches a
file that lies about its type, not one built to be two things at once.
"""

from __future__ import annotations

import mimetypes

import puremagic

from mcp_elicit.i18n import _

SVG = "image/svg+xml"

# Names of one type, and containers one type of content shares with another (WebM audio is
# ``video/webm`` to a signature table, and ``audio/webm`` to a browser that recorded it).
_SAME: dict[str, str] = {
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "image/x-ms-bmp": "image/bmp",
    "image/x-bmp": "image/bmp",
    "audio/mp3": "audio/mpeg",
    "audio/x-mp3": "audio/mpeg",
    "audio/mpeg3": "audio/mpeg",
    "audio/mpga": "audio/mpeg",
    "audio/x-aiff": "audio/aiff",
    "audio/x-flac": "audio/flac",
    "audio/x-aac": "audio/aac",
    "audio/x-midi": "audio/midi",
    "audio/mid": "audio/midi",
    "audio/sp-midi": "audio/midi",
    "image/vnd.microsoft.icon": "image/x-icon",
    "image/heic": "image/heif",
    "image/heic-sequence": "image/heif",
    "image/heif-sequence": "image/heif",
    "audio/mp4": "mp4",
    "video/mp4": "mp4",
    "audio/x-m4a": "mp4",
    "audio/m4a": "mp4",
    "audio/webm": "webm",
    "video/webm": "webm",
    "audio/ogg": "ogg",
    "video/ogg": "ogg",
    "application/ogg": "ogg",
    "audio/opus": "ogg",
    "audio/vorbis": "ogg",
}


def same_type(mime_type: str) -> str:
    """``mime_type`` as the one name it is compared by (parameters and case dropped)."""
    bare = mime_type.split(";", 1)[0].strip().lower()
    return _SAME.get(bare, bare)


def content_problem(name: str, data: bytes, mime_type: str) -> str | None:
    """Why ``data`` cannot go as ``mime_type`` (what the browser or the file's name said),
    in words naming the file ``name`` and both types; ``None`` when its signature agrees."""
    if same_type(mime_type) == SVG:
        return svg_refusal(name)
    if not data:
        return _("{name} is empty: there is nothing in it to attach").format(name=name)
    try:
        matches = puremagic.magic_string(data)
    except (puremagic.PureError, ValueError):
        matches = []
    found: set[str] = set()
    for match in matches:
        guessed = mimetypes.guess_type(f"file{match.extension}")[0] if match.extension else None
        found.update(same_type(t) for t in (match.mime_type, guessed) if t)
    if SVG in found:
        return svg_refusal(name)
    if same_type(mime_type) in found:
        return None
    if not matches:
        return _(
            "{name} was sent as {type}, but its content is of no image or audio type "
            "mcp-elicit recognises: not attached"
        ).format(name=name, type=mime_type)
    best = matches[0]
    what = f"{best.mime_type} ({best.name.strip()})" if best.mime_type else best.name.strip()
    return _("{name} was sent as {type}, but its content is {found}: not attached").format(
        name=name, type=mime_type, found=what
    )


def svg_refusal(name: str) -> str:
    return _(
        "{name} is an SVG image, which can carry scripts and links that run where it is "
        "shown: attach it as PNG or JPEG instead"
    ).format(name=name)
