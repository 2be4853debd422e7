"""What a renderer is shown, and what it answers.

The handler turns every elicitation, whatever revision it came in, into one of two prompts:
:class:`FormPrompt` (fill these fields) or :class:`UrlPrompt` (may I open this link?). A
renderer answers with :class:`Accept`, :class:`Decline` or :class:`Cancel`, and knows nothing of
JSON-RPC, revisions or the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from mcp_elicit.forms import Form, JSONValue, Problem
from mcp_elicit.urls import UrlVerdict


@dataclass(frozen=True, slots=True)
class FormPrompt:
    """Ask the person to fill in a form.

    ``findings`` are what the person should know about the request before answering (a URL
    outside the ``url`` field, fields that look like secrets, a ``pattern`` that will be
    enforced): renderers show them, they never hide them. ``free_text`` marks the early draft's
    message-only ask, shown as one free-text question (the form then has one field).
    """

    server: str
    message: str
    form: Form
    findings: tuple[Problem, ...] = ()
    revision: str = ""
    free_text: bool = False


@dataclass(frozen=True, slots=True)
class UrlPrompt:
    """Ask the person whether to open a link (URL mode).

    ``verdict`` is :func:`mcp_elicit.urls.check_url`'s; a blocked URL never reaches a
    renderer. ``required_by`` names the tool call that needs this first (the -32042 path).
    ``held`` is set only in ``wait_for_completion`` on 2026-07-28: the person agreed, the call
    was retried with that answer, and the server may hold the retry until the page is
    finished; ``completed`` is then set when the server answers it, and an ``Accept``
    (done) makes the client ask the server again at once.
    """

    server: str
    message: str
    url: str
    verdict: UrlVerdict
    elicitation_id: str | None = None
    revision: str = ""
    required_by: str | None = None
    held: bool = False


Prompt: TypeAlias = FormPrompt | UrlPrompt


@dataclass(frozen=True, slots=True)
class Accept:
    """The person answered (form mode: ``content``) or consented (URL mode: no content)."""

    content: dict[str, JSONValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Decline:
    """The person said no."""


@dataclass(frozen=True, slots=True)
class Cancel:
    """The person dismissed the question without choosing (Esc, Ctrl-C), or nobody could.

    ``no_person`` is set when no person was asked at all (no renderer, answers exhausted,
    rate limit); the result then says so in ``_meta``, so a server can tell it from a
    person's choice.
    """

    reason: str | None = None
    no_person: bool = False


Answer: TypeAlias = Accept | Decline | Cancel


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the person should be told that is not a question (rate limit, blocked URL)."""

    server: str
    text: str
    level: str = "warning"  # "info", "warning" or "error"
