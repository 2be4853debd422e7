"""Findings a client should show a person, apart from validity.

- ``url_in_text``: a URL in the message, a title, a description, an option or a default. URLs
  belong only in a URL-mode request's ``url`` field, where the client checks and shows them.
- ``looks_secret``: a field that seems to ask for a secret (password, token, API key, card
  number, ...). Form mode must not ask for those; URL mode exists for them.
- ``pattern_ignored`` / ``pattern_not_applied``: ``pattern`` is in no revision's schema, so
  clients may ignore it; one RE2 cannot run in linear time is never applied.
- ``ignored_keyword``: an annotation (a top-level ``title``, a ``$comment``) that has no place
  in the schema and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_elicit.forms.patterns import MAX_PATTERN_LENGTH, compile_pattern
from mcp_elicit.forms.problems import Problem
from mcp_elicit.forms.reading import read_schema
from mcp_elicit.forms.secret_terms import secret_term as secret_term  # others import it here
from mcp_elicit.i18n import N_, _

_URL = re.compile(
    r"(?i)\b(?:[a-z][a-z0-9+.\-]*://[^\s<>\"']+|www\.[a-z0-9\-]+\.[^\s<>\"']+"
    r"|(?:mailto|javascript|data|file):[^\s<>\"']+)"
)


def find_url(text: str) -> str | None:
    match = _URL.search(text)
    return match.group(0) if match else None


def lint_schema(schema: Any, *, message: str | None = None) -> list[Problem]:
    """Findings to show a person; never raises, whatever ``schema`` is."""
    found: list[Problem] = []
    if message is not None and isinstance(message, str):
        url = find_url(message)
        if url:
            found.append(_url_problem(None, N_("the message"), url))
    reading = read_schema(schema, None)
    for field_name, keyword in reading.ignored:
        found.append(
            Problem(
                field_name,
                "ignored_keyword",
                (
                    _("{keyword} at the top level is not part of the schema; it is ignored")
                    if field_name is None
                    else _("{keyword} in this field is not part of the schema; it is ignored")
                ).format(keyword=repr(keyword)),
            )
        )
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return found
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            continue
        name = str(name)
        title, description = _text(prop.get("title")), _text(prop.get("description"))
        term = secret_term(name, title, description)
        if term:
            found.append(
                Problem(
                    name,
                    "looks_secret",
                    _(
                        "this field seems to ask for a secret ({term}); a form must not ask for "
                        "passwords, tokens, API keys or card numbers: never type one here"
                    ).format(term=repr(term)),
                )
            )
        for where, text in _texts(prop):
            url = find_url(text)
            if url:
                found.append(_url_problem(name, where, url))
                break
        pattern = prop.get("pattern")
        if isinstance(pattern, str):
            compiled = compile_pattern(pattern)
            if compiled.unsupported is not None and len(pattern) > MAX_PATTERN_LENGTH:
                found.append(
                    Problem(
                        name,
                        "pattern_not_applied",
                        _(
                            '"pattern" is not applied: it needs features that cannot run in '
                            "linear time (longer than {limit} characters)"
                        ).format(limit=MAX_PATTERN_LENGTH),
                    )
                )
            elif compiled.unsupported is not None:
                found.append(
                    Problem(
                        name,
                        "pattern_not_applied",
                        # Translators: {features} is the regex engine's own explanation
                        # (English).
                        _(
                            '"pattern" is not applied: it needs features that cannot run in '
                            "linear time ({features})"
                        ).format(features=compiled.unsupported),
                    )
                )
            elif compiled.invalid is None:
                found.append(
                    Problem(
                        name,
                        "pattern_ignored",
                        _(
                            '"pattern" is in no revision\'s schema: clients may ignore it, so '
                            "the server must check it too"
                        ),
                    )
                )
    return found


# Where in a field a text was found, as a person is told (marked here, translated when told).
_WHERE = {"title": N_("title"), "description": N_("description"), "default": N_("default")}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(prop: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for key, where in _WHERE.items():
        value = prop.get(key)
        if isinstance(value, str):
            yield where, value
    options: list[Any] = []
    for key in ("enum", "enumNames", "oneOf"):
        if isinstance(prop.get(key), list):
            options.extend(prop[key])
    items = prop.get("items")
    if isinstance(items, dict):
        for key in ("enum", "anyOf"):
            if isinstance(items.get(key), list):
                options.extend(items[key])
    for option in options:
        if isinstance(option, str):
            yield N_("an option"), option
        elif isinstance(option, dict):
            for value in option.values():
                if isinstance(value, str):
                    yield N_("an option"), value


def _url_problem(field: str | None, where: str, url: str) -> Problem:
    shown = url if len(url) <= 80 else url[:77] + "..."
    return Problem(
        field,
        "url_in_text",
        _(
            "{where} contains a URL ({url}); a form should not send you to links: "
            "URLs belong in URL mode, where they are checked"
        ).format(where=_(where), url=shown),
    )
