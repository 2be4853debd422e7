"""What an attached file really is (``mcp_elicit.client.file_types``), and the rules every
renderer's attachments go through (:func:`mcp_elicit.client.prompts.attachment`): the type
the browser or the file's name gives must agree with the file's bytes; SVG is refused; at most
``MAX_ATTACHMENTS`` files go with one answer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_elicit.client import AnswersError, ScriptedRenderer
from mcp_elicit.client.file_types import content_problem
from mcp_elicit.client.prompts import MAX_ATTACHMENTS, attachment, too_many_attachments
from tests.client.terminal_support import png_bytes, wav_bytes

ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(120)
WINDOWS_PROGRAM = b"MZ" + bytes(120)
HTML = b"<!doctype html><html><body><script>fetch('/steal')</script></body></html>"
SVG_WITH_SCRIPT = (
    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">'
    b"<script>alert(document.cookie)</script></svg>"
)
SVG_REFUSED = (
    "{name} is an SVG image, which can carry scripts and links that run where it is shown: "
    "attach it as PNG or JPEG instead"
)

# Real files' first bytes, as cameras, phones and browsers make them.
TRUE: list[tuple[str, bytes]] = [
    ("image/png", png_bytes()),
    ("audio/wav", wav_bytes()),
    ("audio/x-wav", wav_bytes()),
    ("image/jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(60)),
    ("image/jpeg", b"\xff\xd8\xff\xe1\x00\x10Exif\x00\x00" + bytes(60)),
    ("image/gif", b"GIF89a" + bytes(60)),
    ("image/webp", b"RIFF\x00\x00\x00\x00WEBPVP8 " + bytes(60)),
    ("image/avif", b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1" + bytes(60)),
    ("image/heic", b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(60)),
    ("image/bmp", b"BM" + bytes(60)),
    ("image/tiff", b"II*\x00" + bytes(60)),
    ("audio/mpeg", b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(60)),
    ("audio/mpeg", b"\xff\xfb\x90\x64" + bytes(60)),
    ("audio/ogg", b"OggS\x00\x02" + bytes(60)),
    ("audio/flac", b"fLaC" + bytes(60)),
    ("audio/webm", b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01webm" + bytes(60)),
    ("audio/mp4", b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A mp42isom" + bytes(60)),
]


@pytest.mark.parametrize(("mime_type", "data"), TRUE, ids=[t[0] for t in TRUE])
def test_a_file_whose_bytes_agree_with_its_type_goes(mime_type: str, data: bytes) -> None:
    assert content_problem("file", data, mime_type) is None


LIES: list[tuple[str, str, bytes, str]] = [
    (
        "photo.png",
        "image/png",
        ELF,
        "photo.png was sent as image/png, but its content is ELF executable: not attached",
    ),
    (
        "cat.png",
        "image/png",
        HTML,
        "cat.png was sent as image/png, but its content is text/html (HyperText Markup "
        "Language): not attached",
    ),
    (
        "purr.wav",
        "audio/wav",
        png_bytes(),
        "purr.wav was sent as audio/wav, but its content is image/png (Portable Network "
        "Graphics file): not attached",
    ),
    (
        "notes.png",
        "image/png",
        b"just some words, no picture",
        "notes.png was sent as image/png, but its content is of no image or audio type "
        "mcp-elicit recognises: not attached",
    ),
    ("empty.png", "image/png", b"", "empty.png is empty: there is nothing in it to attach"),
    ("logo.svg", "image/svg+xml", SVG_WITH_SCRIPT, SVG_REFUSED.format(name="logo.svg")),
    ("logo.png", "image/png", SVG_WITH_SCRIPT, SVG_REFUSED.format(name="logo.png")),
]


@pytest.mark.parametrize(
    ("name", "mime_type", "data", "message"), LIES, ids=[f"{t[0]}-{t[3][:40]}" for t in LIES]
)
def test_a_file_whose_bytes_say_otherwise_is_refused_naming_it_and_both_types(
    name: str, mime_type: str, data: bytes, message: str
) -> None:
    found = content_problem(name, data, mime_type)
    assert found is not None
    # puremagic's words for a type may vary between its releases: what matters is the file,
    # the type it was sent as, and what its bytes are.
    assert re.sub(r" \([^)]*\)", "", found) == re.sub(r" \([^)]*\)", "", message)
    with pytest.raises(ValueError, match=re.escape(found)):
        attachment(name, data, mime_type)


def test_a_windows_program_sent_as_a_picture_is_refused() -> None:
    found = content_problem("photo.png", WINDOWS_PROGRAM, "image/png")
    assert found is not None
    assert found.startswith("photo.png was sent as image/png, but its content is ")
    assert "Windows" in found and found.endswith(": not attached")


def test_a_file_named_as_a_picture_is_checked_by_its_bytes_too() -> None:
    """At the terminal and in an answers file the type comes from the name."""
    with pytest.raises(ValueError, match=r"photo\.png was sent as image/png, but its content is"):
        attachment("photo.png", ELF)
    assert attachment("photo.png", png_bytes()).mime_type == "image/png"


def test_svg_is_refused_before_its_bytes_are_read() -> None:
    """While the page is still choosing (sizes only), and whatever its bytes."""
    for mime_type in ("image/svg+xml", "IMAGE/SVG+XML; charset=utf-8", None):
        with pytest.raises(ValueError, match=re.escape(SVG_REFUSED.format(name="a.svg"))):
            attachment("a.svg", b"", mime_type, content=False)


def test_an_answers_file_with_too_many_files_is_refused_naming_the_cap(tmp_path: Path) -> None:
    paths = []
    for index in range(MAX_ATTACHMENTS + 1):
        path = tmp_path / f"p{index}.png"
        path.write_bytes(png_bytes())
        paths.append(str(path))
    assert too_many_attachments(11) == "11 files attached: at most 10 files can go with one answer"
    with pytest.raises(
        AnswersError, match=re.escape(f"answers[0].attach: {too_many_attachments(11)}")
    ):
        ScriptedRenderer([{"action": "accept", "attach": paths}])
    ScriptedRenderer([{"action": "accept", "attach": paths[:MAX_ATTACHMENTS]}])  # ten go
