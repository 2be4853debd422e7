"""The page's words in the person's language: the host's setting, else the browser's
``Accept-Language``, else the process's language (docs/languages.md).

Each request runs in its language (:func:`in_language`), so what the server writes for the
page (validation messages, review lines, hints) is in it. The page itself
(:func:`page_html`) gets ``<html lang>``, its own fixed words translated, and a JSON data block
(``#strings``) holding the translation of every word its script shows: the script marks them
with ``_("...")``, and Babel's JavaScript extractor finds them here, as ``make catalogs`` does.
"""

from __future__ import annotations

import functools
import gettext
import html
import io
import json
from importlib.resources import files

from starlette.types import ASGIApp

from mcp_elicit.i18n import N_, available_languages, catalog_for, negotiate
from mcp_elicit.i18n.asgi import InLanguage
from mcp_elicit.i18n.choosing import current_language, match

_STATIC = files("mcp_elicit.client.web").joinpath("static")

# The words of static/index.html, as written there: each is replaced by its translation.
_PAGE_WORDS = (
    N_("Questions from MCP servers — mcp-elicit"),
    N_("Skip to the question"),
    N_("questions from your MCP servers, answered on this computer"),
    N_("Connecting…"),
    N_("This page needs JavaScript to show the questions."),
    N_("More waiting"),
    N_("Notices"),
    N_(
        "This page runs on your computer (127.0.0.1) and loads nothing from anywhere else. "
        "Closing it cancels the questions it shows."
    ),
)


def chosen_language(tag: str | None) -> str | None:
    """The host's setting, checked: ``zh-CN`` → ``zh-Hans``; None leaves it to each request.
    ValueError names the languages there are."""
    if tag is None:
        return None
    found = match(tag)
    if found is None:
        languages = ", ".join(available_languages())
        raise ValueError(f"no catalog for language {tag!r}; the languages are {languages}")
    return found


@functools.cache
def _script_words() -> tuple[str, ...]:
    from babel.messages.extract import extract_javascript

    script = io.BytesIO(_STATIC.joinpath("renderer.js").read_bytes())
    words: dict[str, None] = {}
    for _line, _function, message, _comments in extract_javascript(script, {"_": None}, [], {}):
        if isinstance(message, str):
            words[message] = None
    return tuple(words)


@functools.lru_cache(maxsize=16)
def _page_html(tag: str, translations: gettext.NullTranslations) -> bytes:
    page = _STATIC.joinpath("index.html").read_text(encoding="utf-8")
    for word in _PAGE_WORDS:
        page = page.replace(word, html.escape(translations.gettext(word), quote=False))
    strings = {word: translations.gettext(word) for word in _script_words()}
    # "<" written as \u003c: nothing in a translation can close the data block.
    data = json.dumps(strings, ensure_ascii=False).replace("<", "\\u003c")
    page = page.replace('<html lang="en">', f'<html lang="{html.escape(tag)}">', 1)
    page = page.replace(
        "</head>", f'<script type="application/json" id="strings">{data}</script>\n</head>', 1
    )
    return page.encode("utf-8")


def page_html() -> bytes:
    """The page, in the language in effect."""
    tag = current_language()
    # Keyed by the catalog too: one registered anew (a test's pseudo-locale) is used at once.
    return _page_html(tag, catalog_for(tag))


def forget_page_html() -> None:
    """After a catalog changed (a test's pseudo-locale): build the pages again."""
    _page_html.cache_clear()


def in_language(app: ASGIApp, tag: str | None) -> ASGIApp:
    """``app`` with each request in its language: ``tag`` (the host's setting, checked) if
    given, else the browser's ``Accept-Language``, else the process's language."""
    fixed = chosen_language(tag)

    def choose(accept_language: str | None) -> str:
        return fixed or negotiate(accept_language, default=current_language())

    return InLanguage(app, choose)


__all__ = ["chosen_language", "forget_page_html", "in_language", "page_html"]
