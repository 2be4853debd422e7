"""A pseudo-locale for finding words that escaped the catalogs.

Under :data:`PSEUDO` every string in the catalog template (``messages.pot``) is shown accented
and bracketed: ``Required`` becomes ``⟦Ŕéʠúíŕéď⟧``; ``{fields}`` are kept, so the values put
into them stay as they are. A string that is shown but not in the template (never marked, or
marked but not extracted) stays plain English, and :func:`escaped` finds it: every ASCII word
of what a person is shown must be accented, or come from the test's own data (the server's
question, its field titles, the values, the URLs), which is passed as ``allowed``.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from babel.messages.pofile import read_po

from mcp_elicit.i18n import catalogs, language, register_catalog

PSEUDO = "en-XA"
TEMPLATE = Path(catalogs.__file__).parent / "messages.pot"
_PLAIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ACCENTED = "áƀçďéƒĝĥíĵķĺṁñóṗʠŕšţúṽŵẋýžÁƁÇĎÉƑĜĤÍĴĶĹṀÑÓṖɊŔŠŢÚṼŴẊÝŽ"
_ACCENT = str.maketrans(_PLAIN, _ACCENTED)
# What must not change: format fields, printf fields, HTML tags and entities.
_KEEP = re.compile(r"\{[^{}]*\}|%\([a-z_]+\)[sd]|%[sd]|<[^<>]*>|&[a-z]+;")


def pseudo(text: str) -> str:
    pieces: list[str] = []
    last = 0
    for kept in _KEEP.finditer(text):
        pieces.append(text[last : kept.start()].translate(_ACCENT))
        pieces.append(kept.group())
        last = kept.end()
    pieces.append(text[last:].translate(_ACCENT))
    return "⟦" + "".join(pieces) + "⟧"


class PseudoTranslations(gettext.NullTranslations):
    def __init__(self, known: set[str]) -> None:
        super().__init__()
        self.known = known

    def gettext(self, message: str) -> str:
        return pseudo(message) if message in self.known else message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        chosen = msgid1 if n == 1 else msgid2
        return pseudo(chosen) if msgid1 in self.known else chosen


def template_ids() -> set[str]:
    with TEMPLATE.open("rb") as file:
        catalog = read_po(file)
    ids: set[str] = set()
    for message in catalog:
        if message.id:
            ids.add(message.id if isinstance(message.id, str) else message.id[0])
    return ids


def install() -> None:
    """Make :data:`PSEUDO` a language (idempotent; ``tests/conftest.py`` removes it after
    each test, so that no other test sees a third language)."""
    register_catalog(PSEUDO, PseudoTranslations(template_ids()))


def uninstall() -> None:
    catalogs.unregister_catalog(PSEUDO)


@contextmanager
def pseudo_language() -> Iterator[None]:
    install()
    with language(PSEUDO):
        yield


_WORD = re.compile(r"[A-Za-z][A-Za-z']+")


def escaped(shown: str, allowed: Iterable[str] = ()) -> list[str]:
    """The plain English words in ``shown`` that neither the catalogs nor ``allowed`` account
    for (empty when nothing escaped)."""
    text = shown.replace("⟦", " ").replace("⟧", " ")
    # An empty piece would match between every two letters and hide everything: left out.
    for piece in sorted((p for p in allowed if p), key=len, reverse=True):
        text = text.replace(piece, " ")
    return _WORD.findall(text)
