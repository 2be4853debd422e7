"""What a question says: wording the server refuses to send, checked before anything is sent.

- **A URL anywhere but a URL-mode request's ``url`` field.** The URL-mode draft says servers
  MUST NOT put one in any other field, 2025-11-25 and 2026-07-28 say SHOULD NOT: a link in a
  message, a title, a description, an option or a default reaches the person without the
  checks and the consent a client applies to the ``url`` field, and a renderer may make it
  clickable. The server refuses it on every revision (:class:`LinkInText`): a link goes in URL
  mode (``ask_url``, ``UrlRequired``), and the text says in words what it is for.
- **A form's message that reads as asking for a secret** ("enter your password", "your API
  key"). Form mode must not ask for passwords, tokens or API keys; a field named like one is
  refused already (``questions.refuse_secrets``), and a message is the other place a form can
  ask for one, into any text field. Only a form with a field a secret can be typed into (text
  or a number) is checked: a confirmation or a choice can carry no secret, whatever its
  message says ("Revoke the API key ending 4f2a?"). ``ask(..., not_secret=True)`` is the
  author's word that a message only mentions one.

Both are authoring errors, like a secret-looking field: they are ``ToolError``\\ s raised at
the call, before anything is sent, whose text names the place and says what to do. What a
URL and a secret look like is the forms layer's (``forms.linting``), the same the linter and
the clients use.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from mcp_elicit.forms import Field, FieldKind, Form
from mcp_elicit.forms.linting import find_url, secret_term
from mcp_elicit.server.errors import LinkInText, SecretInForm

_TYPABLE = frozenset({FieldKind.INTEGER, FieldKind.NUMBER})

FORM_ADVICE = (
    "put links in URL mode, not in a form's text: send the link with ask_url() or raise "
    "UrlRequired (the client checks it and opens it only with the person's consent), and say "
    "in words what it is for"
)
URL_MODE_ADVICE = (
    "the link goes in the url field only, where the client checks it and opens it only with "
    "the person's consent: say in words what the page is for"
)


def refuse_links_in_text(text: str, *, where: str) -> None:
    """Raise :class:`LinkInText` when ``text`` (a URL-mode request's message) holds a URL.

    ``where`` names the text in the error: ``"ask_url() message"``, say."""
    url = _url_in(text)
    if url is not None:
        raise LinkInText(f"{where} contains a URL ({_shown(url)}): {URL_MODE_ADVICE}")


def refuse_links_in_form(form: Form, *, where: str) -> None:
    """Raise :class:`LinkInText` naming the first title, description, option or default of
    ``form`` that holds a URL (``where``: whose form, ``"Booking"`` or ``"requestedSchema"``)."""
    for path, text in form_texts(form):
        url = _url_in(text)
        if url is not None:
            raise LinkInText(f"{where}: {path} contains a URL ({_shown(url)}): {FORM_ADVICE}")


def check_form_message(message: str, form: Form, *, not_secret: bool = False) -> None:
    """A form's message: no URL (:class:`LinkInText`), and no words asking for a secret
    when a secret could be typed into the form (:class:`SecretInForm`, unless
    ``not_secret``)."""
    url, term = _findings(message)
    if url is not None:
        raise LinkInText(f"the message contains a URL ({_shown(url)}): {FORM_ADVICE}")
    if term is not None and not not_secret and typable(form):
        raise SecretInForm(
            f"the message {_shown(message)!r} seems to ask for a secret ({term!r}), and form "
            "mode must not ask for passwords, tokens or API keys: a form's answer passes "
            "through the client. Ask for it in URL mode with secret() or ask_url() instead. "
            "If the message only mentions one, pass ask(..., not_secret=True)."
        )


def typable(form: Form) -> bool:
    """Whether the form has a field a secret could be typed into (text or a number)."""
    return any(_typable(field) for field in form.fields)


def form_texts(form: Form) -> Iterator[tuple[str, str]]:
    """What a person reads of each field, with where it is: its title, its description, the
    default a text field starts with, and each option's label (its title, or its value when
    it has none)."""
    for field in form.fields:
        at = f"properties.{field.name}"
        if field.title:
            yield f"{at}.title", field.title
        if field.description:
            yield f"{at}.description", field.description
        if isinstance(field.default, str) and not field.choices:
            yield f"{at}.default", field.default
        for choice in field.choices:
            yield f"{at} option {choice.value!r}", choice.label


def _typable(field: Field) -> bool:
    return not field.choices and (field.kind.is_text or field.kind in _TYPABLE)


@functools.lru_cache(maxsize=1024)
def _findings(message: str) -> tuple[str | None, str | None]:
    """The URL and the secret-like term in a message (asked every round: cached)."""
    return _url_in(message), secret_term(message)


def _url_in(text: str) -> str | None:
    return find_url(text) if isinstance(text, str) else None


def _shown(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."
