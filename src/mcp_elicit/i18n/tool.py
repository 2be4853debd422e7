"""Keeping the catalogs: ``python -m mcp_elicit.i18n.tool COMMAND`` (``make catalogs``).

- ``update``: extract every marked string from the package (Python: ``_``, ``N_``,
  ``ngettext``; the web renderer's script: ``_``) into ``messages.pot``, and bring each
  ``locales/*.po`` up to date with it (new strings untranslated, gone strings dropped).
- ``new TAG``: start ``locales/<TAG>.po`` for a new language from the template.
- ``check``: list what any catalog lacks (untranslated, fuzzy, or fields that differ from the
  English); exits 1 if anything does.

Babel does the extracting and the PO files; this only says where things are.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from mcp_elicit.i18n.catalogs import format_fields

PACKAGE = Path(__file__).resolve().parent.parent
LOCALES = Path(__file__).resolve().parent / "locales"
TEMPLATE = Path(__file__).resolve().parent / "messages.pot"
KEYWORDS: dict[str, tuple[int, ...] | None] = {"_": None, "N_": None, "ngettext": (1, 2)}
METHODS = [("**/static/*.js", "javascript"), ("**.py", "python")]


def extract() -> Catalog:
    """Every marked string in the package, as a template catalog."""
    catalog = Catalog(project="mcp-elicit", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        PACKAGE,
        METHODS,
        keywords=KEYWORDS,
        comment_tags=("Translators:",),
        strip_comment_tags=True,
    ):
        if filename.startswith("i18n/"):
            continue
        catalog.add(
            message,
            None,
            [(f"mcp_elicit/{filename}", lineno)],
            auto_comments=comments,
            context=context,
        )
    return catalog


def fields(text: str) -> list[str]:
    return format_fields(text)


def _read(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def _write(catalog: Catalog, path: Path) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("wb") as file:
        write_po(file, catalog, width=100, include_lineno=False, sort_output=True)
    temporary.replace(path)


def lacking(catalog: Catalog, template: Catalog) -> Iterator[str]:
    """What ``catalog`` lacks of ``template``, one line each."""
    for message in template:
        if not message.id:
            continue
        found: Message | None = catalog.get(message.id, context=message.context)
        key = message.id if isinstance(message.id, str) else message.id[0]
        given = None if found is None else found.string
        strings = (given,) if isinstance(given, str) else tuple(given or ())
        if found is None or not all(strings) or not strings:
            yield f"untranslated: {key!r}"
        elif found.fuzzy:
            yield f"fuzzy: {key!r}"
        else:
            english = message.id if isinstance(message.id, str) else message.id[-1]
            for string in strings:
                if fields(string) != fields(english):
                    yield (
                        f"fields differ: {key!r} has {fields(english)}, "
                        f"the translation {fields(string)}"
                    )


def update() -> None:
    template = extract()
    _write(template, TEMPLATE)
    for path in sorted(LOCALES.glob("*.po")):
        catalog = _read(path)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        _write(catalog, path)


def new(tag: str) -> Path:
    locale = Locale.parse(tag.replace("-", "_"))
    path = LOCALES / f"{locale}.po"
    if path.exists():
        raise SystemExit(f"{path} exists; `update` brings it up to date")
    catalog = Catalog(locale=locale, project="mcp-elicit")
    catalog.update(_read(TEMPLATE), no_fuzzy_matching=True)
    _write(catalog, path)
    return path


def check() -> int:
    template = extract()
    bad = 0
    for path in sorted(LOCALES.glob("*.po")):
        for line in lacking(_read(path), template):
            print(f"{path.name}: {line}")
            bad += 1
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update()
        return 0
    if argv[:1] == ["new"] and len(argv) == 2:
        print(new(argv[1]))
        return 0
    if argv[:1] == ["check"]:
        return check()
    print("usage: python -m mcp_elicit.i18n.tool update | new TAG | check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
