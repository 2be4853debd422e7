"""How an internationalised host name looks to a person: scripts and look-alike characters.

A valid IDN is not a safe one: ``apple.com`` spelled with a Cyrillic first letter (U+0430) is
valid IDNA and displays as ``apple.com``. Browsers defend with per-label script rules (Unicode
TS #39) and a confusables skeleton; this module does a modest version of both with the
standard library.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# Scripts that may share a label (TS #39 "highly restrictive"): Japanese, Chinese and Korean
# writing mixes Han with kana, bopomofo or hangul, and Latin (brand names, romaji).
_ALLOWED_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)

# The first word of a character's Unicode name is its script for almost every letter
# ("CYRILLIC SMALL LETTER A"); these are the exceptions that matter in host names.
_NAME_PREFIX_SCRIPT = {
    "CJK": "HAN",
    "IDEOGRAPHIC": "HAN",
    "KATAKANA-HIRAGANA": None,  # the prolonged sound mark, used with either kana
}

# Characters that pass for Latin letters or digits, with the one they pass for. Modest on
# purpose: the common Cyrillic, Greek and Armenian look-alikes, Latin letters that pass for
# others, and fullwidth forms (which browsers fold to ASCII, but which a person reads as-is).
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "\u0430": "a",  # CYRILLIC SMALL LETTER A
    "\u0441": "c",  # CYRILLIC SMALL LETTER ES
    "\u0501": "d",  # CYRILLIC SMALL LETTER KOMI DE
    "\u0435": "e",  # CYRILLIC SMALL LETTER IE
    "\u0451": "\u00eb",  # CYRILLIC SMALL LETTER IO
    "\u04bb": "h",  # CYRILLIC SMALL LETTER SHHA
    "\u0456": "i",  # CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
    "\u0457": "\u00ef",  # CYRILLIC SMALL LETTER YI
    "\u0458": "j",  # CYRILLIC SMALL LETTER JE
    "\u043a": "k",  # CYRILLIC SMALL LETTER KA
    "\u04cf": "l",  # CYRILLIC SMALL LETTER PALOCHKA
    "\u043e": "o",  # CYRILLIC SMALL LETTER O
    "\u0440": "p",  # CYRILLIC SMALL LETTER ER
    "\u051b": "q",  # CYRILLIC SMALL LETTER QA
    "\u0433": "r",  # CYRILLIC SMALL LETTER GHE
    "\u0455": "s",  # CYRILLIC SMALL LETTER DZE
    "\u0475": "v",  # CYRILLIC SMALL LETTER IZHITSA
    "\u051d": "w",  # CYRILLIC SMALL LETTER WE
    "\u0461": "w",  # CYRILLIC SMALL LETTER OMEGA
    "\u0445": "x",  # CYRILLIC SMALL LETTER HA
    "\u0443": "y",  # CYRILLIC SMALL LETTER U
    "\u04af": "y",  # CYRILLIC SMALL LETTER STRAIGHT U
    "\u044c": "b",  # CYRILLIC SMALL LETTER SOFT SIGN
    "\u0437": "3",  # CYRILLIC SMALL LETTER ZE
    "\u0431": "6",  # CYRILLIC SMALL LETTER BE
    # Greek
    "\u03b1": "a",  # GREEK SMALL LETTER ALPHA
    "\u03f2": "c",  # GREEK LUNATE SIGMA SYMBOL
    "\u03b7": "n",  # GREEK SMALL LETTER ETA
    "\u03b9": "i",  # GREEK SMALL LETTER IOTA
    "\u03ba": "k",  # GREEK SMALL LETTER KAPPA
    "\u03bd": "v",  # GREEK SMALL LETTER NU
    "\u03bf": "o",  # GREEK SMALL LETTER OMICRON
    "\u03c1": "p",  # GREEK SMALL LETTER RHO
    "\u03c5": "u",  # GREEK SMALL LETTER UPSILON
    "\u03c7": "x",  # GREEK SMALL LETTER CHI
    "\u03b3": "y",  # GREEK SMALL LETTER GAMMA
    "\u03c9": "w",  # GREEK SMALL LETTER OMEGA
    # Armenian
    "\u0585": "o",  # ARMENIAN SMALL LETTER OH
    "\u057d": "u",  # ARMENIAN SMALL LETTER SEH
    "\u0570": "h",  # ARMENIAN SMALL LETTER HO
    "\u0578": "n",  # ARMENIAN SMALL LETTER VO
    "\u0581": "g",  # ARMENIAN SMALL LETTER CO
    "\u0566": "q",  # ARMENIAN SMALL LETTER ZA
    "\u0584": "f",  # ARMENIAN SMALL LETTER KEH
    "\u056c": "l",  # ARMENIAN SMALL LETTER LIWN
    # Latin letters passing for other Latin letters
    "\u0131": "i",  # LATIN SMALL LETTER DOTLESS I
    "\u0251": "a",  # LATIN SMALL LETTER ALPHA
    "\u0261": "g",  # LATIN SMALL LETTER SCRIPT G
    "\u0269": "i",  # LATIN SMALL LETTER IOTA
    "\u028f": "y",  # LATIN LETTER SMALL CAPITAL Y
    # Digits of other scripts passing for the letter o
    "\u09e6": "o",  # BENGALI DIGIT ZERO
    "\u0a66": "o",  # GURMUKHI DIGIT ZERO
    "\u0ae6": "o",  # GUJARATI DIGIT ZERO
    "\u07c0": "o",  # NKO DIGIT ZERO
}
# Fullwidth ASCII: U+FF01..U+FF5E are ASCII 0x21..0x7E shifted by 0xFEE0.
CONFUSABLES.update({chr(cp + 0xFEE0): chr(cp) for cp in range(0x21, 0x7F) if chr(cp).isalnum()})


def script_of(char: str) -> str | None:
    """The script of a letter, or ``None`` for characters every script uses (digits, '-',
    '_') and combining marks (which take the script of the letter they sit on)."""
    if char.isascii():
        return "LATIN" if char.isalpha() else None
    category = unicodedata.category(char)
    if category[0] in "MN" or category[0] in "PSZC":
        return None
    name = unicodedata.name(char, "")
    if not name:
        return "UNKNOWN"
    prefix = name.split(" ", 1)[0]
    return _NAME_PREFIX_SCRIPT.get(prefix, prefix)


def label_scripts(label: str) -> set[str]:
    return {script for script in map(script_of, label) if script is not None}


def is_mixed_script(label: str) -> bool:
    """More than one script in a label, beyond the combinations CJK writing needs."""
    scripts = label_scripts(label)
    if len(scripts) <= 1:
        return False
    return not any(scripts <= allowed for allowed in _ALLOWED_MIXES)


@dataclass(frozen=True, slots=True)
class Confusable:
    char: str
    looks_like: str


def confusables_in(label: str) -> list[Confusable]:
    """Look-alike characters in ``label`` that could make it pass for a Latin name.

    A label is flagged when it mixes look-alikes with real Latin letters ("apple" with a
    Cyrillic a) or when every letter in it is a look-alike ("apple" spelled entirely in
    Cyrillic). A Cyrillic word that merely contains a Cyrillic o ("primer" in Russian) is
    not: nobody reads it as Latin.
    """
    found = [char for char in label if char in CONFUSABLES or char.lower() in CONFUSABLES]
    if not found:
        return []
    letters = [char for char in label if char.isalpha()]
    has_latin = any(char.isascii() for char in letters)
    all_lookalike = all(char in found for char in letters)
    if not (has_latin or all_lookalike):
        return []
    seen: dict[str, Confusable] = {}
    for char in found:
        looks_like = CONFUSABLES.get(char) or CONFUSABLES[char.lower()]
        seen.setdefault(char, Confusable(char, looks_like))
    return list(seen.values())


def skeleton(host: str) -> str:
    """``host`` with every look-alike replaced by what it looks like: what a person reads."""
    return "".join(CONFUSABLES.get(char, CONFUSABLES.get(char.lower(), char)) for char in host)
