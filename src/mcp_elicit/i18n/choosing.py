"""Which language is in effect, and choosing one from what a person's software says.

The language in effect is a context variable over a process-wide default, so each request of
a web app, or each task, can have its own. The default is what the locale asks for
(:func:`from_environment`: ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), read when first needed, as
the command line does, unless :func:`set_default_language` says otherwise.

Tags are BCP 47 (``zh-Hans``); a tag naming a region or no script is matched to the catalog of
its language and script by the CLDR's likely subtags (``zh-CN`` and ``zh`` are ``zh-Hans``;
``zh-TW`` is ``zh-Hant``, which has no catalog yet).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token

from mcp_elicit.i18n.catalogs import SOURCE_LANGUAGE, available_languages

_in_effect: ContextVar[str | None] = ContextVar("mcp_elicit_language", default=None)
_default: str | None = None  # from the locale, when first needed


def current_language() -> str:
    """The BCP 47 tag of the language in effect."""
    return _in_effect.get() or _default_language()


def _default_language() -> str:
    global _default
    if _default is None:
        _default = from_environment()
    return _default


def _language_and_script(tag: str) -> tuple[str, str | None] | None:
    # Babel is imported when a tag is first matched, not with the package: importing
    # mcp_elicit.server must not pay for it before a person's language is needed
    # (tests/server/test_lazy_imports.py holds this).
    from babel import Locale, UnknownLocaleError
    from babel.core import get_global

    try:
        locale = Locale.parse(tag.strip().replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError):
        # A tag the CLDR does not know (a pseudo-locale) matches only itself.
        return (tag.strip().lower(), "exact")
    script = locale.script
    if script is None:
        likely = get_global("likely_subtags").get(locale.language)
        if likely is not None:
            script = Locale.parse(likely).script
    return locale.language, script


def match(tag: str) -> str | None:
    """The available language that ``tag`` asks for, or None: ``zh-CN`` → ``zh-Hans``."""
    wanted = _language_and_script(tag)
    if wanted is None:
        return None
    for available in available_languages():
        if _language_and_script(available) == wanted:
            return available
    return None


def _checked(tag: str) -> str:
    found = match(tag)
    if found is None:
        languages = ", ".join(available_languages())
        raise ValueError(f"no catalog for language {tag!r}; the languages are {languages}")
    return found


def set_default_language(tag: str) -> str:
    """Make ``tag`` the process's language where nothing more particular is set; returns the
    tag it matched (``zh-CN`` → ``zh-Hans``). ValueError names the languages for a tag with no
    catalog."""
    global _default
    _default = _checked(tag)
    return _default


def set_language(tag: str) -> Token[str | None]:
    """Make ``tag`` the language for the rest of this context (a request, a task)."""
    return _in_effect.set(_checked(tag))


@contextmanager
def language(tag: str) -> Iterator[str]:
    """The language in effect inside the ``with`` block: ``with language("zh-Hans"): ...``."""
    token = set_language(tag)
    try:
        yield current_language()
    finally:
        _in_effect.reset(token)


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language a terminal's locale asks for (``LC_ALL``, else ``LC_MESSAGES``, else
    ``LANG``, as POSIX orders them), matched to a catalog; English when none matches."""
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            # zh_CN.UTF-8@modifier: the locale name is before the codeset and the modifier.
            name_only = value.split(".", 1)[0].split("@", 1)[0]
            if name_only in ("C", "POSIX"):
                return SOURCE_LANGUAGE
            return match(name_only) or SOURCE_LANGUAGE
    return SOURCE_LANGUAGE


def negotiate(accept_language: str | None, default: str | None = None) -> str:
    """The language to answer an HTTP request in: the first of ``Accept-Language``'s choices
    (by quality, then order) that has a catalog; else ``default``; else the one in effect."""
    choices: list[tuple[float, int, str]] = []
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _, parameters = part.strip().partition(";")
        quality = 1.0
        for parameter in parameters.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and tag != "*" and quality > 0:
            choices.append((-quality, position, tag))
    for _quality, _position, tag in sorted(choices):
        found = match(tag)
        if found is not None:
            return found
    return default if default is not None else current_language()
