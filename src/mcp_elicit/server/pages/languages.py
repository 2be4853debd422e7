"""The language of each page: the browser's, else the server's.

Each request is answered in the first language of its ``Accept-Language`` (by quality, then
order) that has a catalog (``zh-CN`` and ``zh`` ask for ``zh-Hans``); when none has one, in
the pages' language: the ``language`` the server author set (``Elicitation(language=...)``,
``hosted_pages(language=...)``), else the process's language at the time of the request
(``mcp_elicit.i18n.set_default_language``). The person's browser wins over the server: a
browser that asks for English gets English from a server set to ``zh-Hans``, and one that
asks for nothing, or only for languages with no catalog (``fr``, ``*``), gets ``zh-Hans``.

The choice holds for the whole request, as a context variable (``with language(tag)``), so
that two requests answered at the same time each keep their own. Every response says which
language it chose (``Content-Language``, and ``<html lang>`` on the page) and that the choice
depends on ``Accept-Language`` (``Vary``), for any cache in between.
"""

from __future__ import annotations

from starlette.types import ASGIApp

from mcp_elicit.i18n import available_languages, current_language, negotiate
from mcp_elicit.i18n.asgi import InLanguage
from mcp_elicit.i18n.choosing import match

# What the words are in: the pages and the Host refusal (not the stylesheet or the icon).
_WORDS = ("text/html", "text/plain")


def pages_language(tag: str | None) -> str | None:
    """The pages' language as set by the server author: ``tag`` matched to a catalog
    (``zh-CN`` → ``zh-Hans``), or ``None`` (the process's language). ValueError names the
    languages there are for a tag with no catalog."""
    if tag is None:
        return None
    found = match(tag) if isinstance(tag, str) and tag.strip() else None
    if found is None:
        languages = ", ".join(available_languages())
        raise ValueError(
            f"the hosted pages have no catalog for language {tag!r}: the languages are "
            f"{languages} (docs/languages.md says how to add one)"
        )
    return found


def choose(accept_language: str | None, default: str | None) -> str:
    """The language to answer a request in (see the module docstring)."""
    return negotiate(
        accept_language, default=default if default is not None else current_language()
    )


def page_language(app: ASGIApp, language: str | None = None) -> ASGIApp:
    """``app`` with each request in its language (:func:`choose`), said in its response
    headers. Outermost, so that every page, the error pages included, is in it."""
    default = pages_language(language)
    return InLanguage(app, lambda accept: choose(accept, default), worded=_WORDS)
