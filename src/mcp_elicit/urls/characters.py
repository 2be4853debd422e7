"""Characters that must never appear in a link shown to a person, and safe quoting of input.

Browsers silently drop tabs and newlines from URLs, ignore zero-width characters in host names,
and render bidi controls by reordering the text around them: in each case what a person reads
is not what the browser opens. So the check treats any of them, anywhere, as a reason to block.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import Enum

# Explicit directional formatting characters (Unicode TR9) — the "Trojan Source" set.
BIDI_CONTROLS = frozenset(
    "\u061c"  # ARABIC LETTER MARK
    "\u200e\u200f"  # LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
    "\u202a\u202b\u202c\u202d\u202e"  # LRE, RLE, PDF, LRO, RLO
    "\u2066\u2067\u2068\u2069"  # LRI, RLI, FSI, PDI
)

# Invisible characters that are not format characters (category Cf, caught wholesale) and so
# need naming: fillers that render as blank, the combining grapheme joiner, variation selectors.
_EXTRA_INVISIBLES = frozenset(
    "\u034f"  # COMBINING GRAPHEME JOINER
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers, which render as nothing
    "\u17b4\u17b5"  # Khmer inherent vowels
    "\u180b\u180c\u180d\u180f"  # Mongolian free variation selectors
    "\u2800"  # BRAILLE PATTERN BLANK
)


def _is_variation_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


class CharacterKind(Enum):
    WHITESPACE = "whitespace"
    CONTROL = "control"
    BIDI = "bidi"
    INVISIBLE = "invisible"
    SURROGATE = "surrogate"


def classify_character(char: str) -> CharacterKind | None:
    """The kind of a character that does not belong in a displayed URL; ``None`` if it is fine."""
    cp = ord(char)
    if 0x21 <= cp <= 0x7E:  # the fast path: printable ASCII
        return None
    if char.isspace():
        return CharacterKind.WHITESPACE
    category = unicodedata.category(char)
    if category in ("Zs", "Zl", "Zp"):
        return CharacterKind.WHITESPACE
    if category == "Cc":
        return CharacterKind.CONTROL
    if char in BIDI_CONTROLS:
        return CharacterKind.BIDI
    if category == "Cf" or char in _EXTRA_INVISIBLES or _is_variation_selector(cp):
        return CharacterKind.INVISIBLE
    if category == "Cs":
        return CharacterKind.SURROGATE
    return None


@dataclass(frozen=True, slots=True)
class CharacterFinding:
    """The first occurrence of one kind of bad character, and how many there are."""

    kind: CharacterKind
    char: str
    position: int
    count: int


def scan_characters(text: str) -> list[CharacterFinding]:
    """One finding per kind of bad character in ``text``, in order of first appearance."""
    first: dict[CharacterKind, tuple[str, int]] = {}
    counts: dict[CharacterKind, int] = {}
    for position, char in enumerate(text):
        kind = classify_character(char)
        if kind is None:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        first.setdefault(kind, (char, position))
    return [
        CharacterFinding(kind, char, position, counts[kind])
        for kind, (char, position) in sorted(first.items(), key=lambda item: item[1][1])
    ]


def describe_character(char: str) -> str:
    """``U+202E (RIGHT-TO-LEFT OVERRIDE)`` — never the character itself, which may be invisible."""
    cp = ord(char)
    name = unicodedata.name(char, "")
    if not name and cp < 0x20:
        name = _C0_NAMES.get(cp, "")
    return f"U+{cp:04X} ({name})" if name else f"U+{cp:04X}"


_C0_NAMES = {0x00: "NULL", 0x09: "TAB", 0x0A: "LINE FEED", 0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE"}


def visible(text: str, limit: int | None = 80) -> str:
    """``text`` made safe to print and quote: anything invisible, control or reordering is
    escaped as ``\\u{…}``, and text longer than ``limit`` is shortened. Messages quote input
    only through this, so a reason can never smuggle a terminal escape or a bidi override onto
    someone's screen."""
    out: list[str] = []
    length = 0
    for char in text:
        # A plain space is left alone: it is visible enough inside quotes, and messages have many.
        safe = char == " " or classify_character(char) is None
        piece = char if safe else f"\\u{{{ord(char):04x}}}"
        out.append(piece)
        length += len(piece)
        if limit is not None and length > limit:  # stop early: the input can be megabytes long
            break
    shown = "".join(out)
    if limit is not None and len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return shown
