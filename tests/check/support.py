"""Helpers shared by the check tests."""

from __future__ import annotations

import re

# ESC, C1 controls (0x9b is a one-byte CSI), BEL, and the bidi controls.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def unsafe(text: str) -> list[str]:
    """The unsafe characters in ``text``, as ``U+XXXX``: none may reach a terminal."""
    return sorted({f"U+{ord(char):04X}" for char in _UNSAFE.findall(text)})
