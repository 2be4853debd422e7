"""Where the catalogs are and reading them: one PO file per language, read once on first use.

A catalog is found as ``<tag>.po`` (``zh_Hans.po`` for ``zh-Hans``) in this package's
``locales`` directory, then in each directory of ``MCP_ELICIT_CATALOGS`` (``os.pathsep``
separated, later ones win), so a deployment can add or correct a language without touching the
package. Catalogs can also be given in code with :func:`register_catalog`.

PO files are read with Babel and compiled in memory to the standard library's
``GNUTranslations`` (plural rules included); fuzzy entries are left out, as ``msgfmt`` does.
Reading the package's own data files, once, is the only I/O here.

A catalog from ``MCP_ELICIT_CATALOGS`` is a file someone else wrote, and a translation is a
format string our code fills in (``.format(server=...)``): a field the English does not have
(``{bogus}``, which fails every page in that language) or one that reaches into an argument
(``{server.__class__.__mro__}``, which shows Python internals on a page) would run with our
arguments. So a translation is used only when its fields are exactly the English message's
(:func:`format_fields`); any other is dropped, the English shown instead, and a warning names
the file and the message (:func:`read_catalog`).
"""

from __future__ import annotations

import functools
import gettext
import io
import logging
import os
import re
import threading
from pathlib import Path

logger = logging.getLogger(__name__)

SOURCE_LANGUAGE = "en"
_PACKAGE_LOCALES = "locales"
_ENV = "MCP_ELICIT_CATALOGS"

_lock = threading.Lock()
_loaded: dict[str, gettext.NullTranslations] = {}
_registered: dict[str, gettext.NullTranslations] = {}


# language[-Script][-REGION]: the part of BCP 47 a catalog is named by.
_TAG = re.compile(
    r"(?P<language>[a-z]{2,3})(?:-(?P<script>[A-Z][a-z]{3}))?(?:-(?P<region>[A-Z]{2}|\d{3}))?"
)


def tag_of(name: str) -> str:
    """The BCP 47 tag for a locale name or tag: ``zh_Hans`` → ``zh-Hans``. A well-formed tag
    the CLDR does not know (a pseudo-locale such as ``en-XA``) is kept as written; anything
    else is a ValueError."""
    from babel import Locale, UnknownLocaleError  # on first use: see choosing

    try:
        return str(Locale.parse(name.replace("-", "_"))).replace("_", "-")
    except (UnknownLocaleError, ValueError):
        if _TAG.fullmatch(name.replace("_", "-")):
            return name.replace("_", "-")
        raise ValueError(f"{name!r} is not a language tag (e.g. 'en', 'zh-Hans')") from None


def _files() -> dict[str, Path]:
    # Looked up once per MCP_ELICIT_CATALOGS value, not per request: negotiating a language
    # asks for the languages several times (forget_catalogs looks again).
    return _files_in(os.environ.get(_ENV, ""))


@functools.cache
def _files_in(extra: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    # Beside this module, as a path: the catalogs are read as files (Babel's read_po), never
    # from a zip. (importlib.resources would say the same at a cost of ~9 ms of imports at
    # every start of the command line: bench/bench_cli_startup.py.)
    directories = [Path(__file__).with_name(_PACKAGE_LOCALES)]
    directories += [Path(d) for d in extra.split(os.pathsep) if d]
    for directory in directories:
        if directory.is_dir():
            for path in sorted(directory.glob("*.po")):
                found[tag_of(path.stem)] = path
    return found


def available_languages() -> tuple[str, ...]:
    """English and every language with a catalog, as BCP 47 tags."""
    return (SOURCE_LANGUAGE, *sorted((set(_files()) | set(_registered)) - {SOURCE_LANGUAGE}))


def register_catalog(tag: str, translations: gettext.NullTranslations) -> None:
    """Use ``translations`` for ``tag`` (in place of any PO file): a language given in code."""
    with _lock:
        _registered[tag_of(tag)] = translations
        _loaded.pop(tag_of(tag), None)


def unregister_catalog(tag: str) -> None:
    """Undo :func:`register_catalog`: ``tag``'s PO file (if any) is used again."""
    with _lock:
        _registered.pop(tag_of(tag), None)
        _loaded.pop(tag_of(tag), None)


# str.format fields ({name}, {name!r}, {name:>4}) and printf-style ones (argparse's
# %(prog)s): what a translation must keep exactly.
_FIELDS = re.compile(r"\{[^{}]*\}|%\([a-z_]+\)[sd]|%[sd]")


def format_fields(text: str) -> list[str]:
    """The format fields of a message, sorted (``{{`` and ``}}`` are literal braces)."""
    return sorted(_FIELDS.findall(text.replace("{{", "").replace("}}", "")))


def read_catalog(path: Path) -> gettext.NullTranslations:
    """A PO file as translations (what :func:`catalog_for` uses); a translation whose fields
    are not the English message's is dropped, with a warning (see above)."""
    # Imported here: English, the source, never reads a catalog (the command line starts
    # faster without these).
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as po:
        catalog = read_po(po)
    for message in catalog:
        if not message.id or not message.string:
            continue
        english = str(message.id if isinstance(message.id, str) else message.id[-1])
        given = message.string
        strings = (given,) if isinstance(given, str) else tuple(str(s) for s in given)
        wrong = [s for s in strings if s and format_fields(s) != format_fields(english)]
        if wrong:
            logger.warning(
                "%s: the translation of %r has fields %s, not the English %s: shown in English",
                path,
                english[:80],
                format_fields(wrong[0]),
                format_fields(english),
            )
            message.string = "" if isinstance(given, str) else ("",) * len(strings)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def catalog_for(tag: str) -> gettext.NullTranslations:
    """The translations for ``tag`` (English, the source, for a language with no catalog)."""
    found = _loaded.get(tag)
    if found is not None:
        return found
    with _lock:
        if tag in _registered:
            translations = _registered[tag]
        else:
            path = _files().get(tag)
            translations = gettext.NullTranslations() if path is None else read_catalog(path)
        _loaded[tag] = translations
        return translations


def forget_catalogs() -> None:
    """Read the PO files again on next use (after one was added or changed)."""
    with _lock:
        _loaded.clear()
        _files_in.cache_clear()
