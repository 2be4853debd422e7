"""What the page is sent: each pending prompt as JSON, ready to draw.

Everything a server wrote (its name, message, labels, help, choices, the URL as shown) goes
through the terminal's :func:`clean` first, so a bidi or invisible character shows as
``\\u{…}`` on the page as it does in the terminal; the page then puts it in the document as
text, never as markup. Hints and review lines use the terminal's words.
"""

from __future__ import annotations

from typing import Any

from mcp_elicit.client.prompt_text import (
    clean,
    domain_text,
    field_facts,
    finding_line,
    list_text,
    no_domain_note,
    notice_line,
    value_text,
)
from mcp_elicit.client.prompts import ATTACHABLE, MAX_ATTACHMENT_BYTES, FormPrompt, UrlPrompt
from mcp_elicit.client.web.queue import Pending, PostedNotice, Queue
from mcp_elicit.forms import Field, FieldKind, JSONValue
from mcp_elicit.i18n import N_, _
from mcp_elicit.urls import UrlVerdict, check_url

# Up to this many options show as radio buttons (all visible at once); more, as a list box.
RADIO_LIMIT = 5

# Every typed kind is a plain text box: the browser's email, URL, date and number widgets
# rewrite or refuse some input silently (2026-13-01 becomes an empty value, an IDN address
# becomes punycode), and the person would get "required", or an answer they did not type,
# instead of the form model's message about what they typed. ``inputmode`` still brings up
# the right on-screen keyboard.
_WIDGETS = {
    FieldKind.BOOLEAN: "checkbox",
    FieldKind.MULTI_CHOICE: "checkboxes",
}
_INPUT_MODES = {
    FieldKind.EMAIL: "email",
    FieldKind.URI: "url",
    FieldKind.INTEGER: "numeric",
    FieldKind.NUMBER: "decimal",
}
# The format a box wants, in the words the language uses for it (Chinese keeps YYYY-MM-DD).
_PLACEHOLDERS = {FieldKind.DATE: N_("YYYY-MM-DD"), FieldKind.DATETIME: "2025-03-31T14:30:00Z"}


def state_view(queue: Queue) -> dict[str, Any]:
    return {
        "version": queue.version,
        "closed": queue.closed,
        "prompts": [prompt_view(p) for p in queue.ordered()],
        "notices": [notice_view(n) for n in queue.notices],
    }


def prompt_view(pending: Pending) -> dict[str, Any]:
    prompt = pending.prompt
    view: dict[str, Any] = {
        "id": pending.id,
        "kind": pending.kind,
        "server": clean(prompt.server, newlines=False),
        "message": clean(prompt.message),
    }
    if isinstance(prompt, FormPrompt):
        view |= form_view(prompt)
    elif pending.kind == "url":
        view |= url_view(prompt)
    else:
        view |= {
            "url": clean(prompt.url, newlines=False),
            "held": prompt.held,
            "sign_in": prompt.sign_in,
        }
    return view


def form_view(prompt: FormPrompt) -> dict[str, Any]:
    form = prompt.form
    return {
        "findings": [finding_line(form, problem) for problem in prompt.findings],
        "free_text": prompt.free_text,
        "fields": [field_view(item, free_text=prompt.free_text) for item in form],
        "attach": attach_view() if prompt.free_text else None,
    }


def attach_view() -> dict[str, Any]:
    """The file input under a free-text question: what may be attached, in the words of
    :func:`mcp_elicit.client.prompts.attachment` (which decides, when the page asks)."""
    megabytes = MAX_ATTACHMENT_BYTES // (1024 * 1024)
    return {
        "label": _("Attach images or audio"),
        "hint": _("optional; images and audio files only, up to {megabytes} MB in all").format(
            megabytes=megabytes
        ),
        "accept": ",".join(f"{kind}/*" for kind in ATTACHABLE),
    }


def field_view(item: Field, *, free_text: bool = False) -> dict[str, Any]:
    widget = _WIDGETS.get(item.kind, "text")
    if item.kind is FieldKind.SINGLE_CHOICE:
        widget = "radio" if len(item.choices) <= RADIO_LIMIT else "select"
    elif free_text:
        widget = "textarea"
    return {
        "name": item.name,
        "kind": item.kind.value,
        "widget": widget,
        "label": clean(item.label, newlines=False),
        "help": None if item.help is None else clean(item.help),
        "required": item.required,
        "hint": hint(item),
        "initial": initial(item),
        # An optional yes/no with no default starts unanswered: the page sends nothing for it
        # until the person ticks or unticks the box, as the terminal leaves it out.
        "unanswered": item.kind is FieldKind.BOOLEAN and not item.required and item.default is None,
        "placeholder": placeholder(item),
        "inputmode": _INPUT_MODES.get(item.kind),
        "choices": [
            {"value": choice.value, "label": clean(choice.label, newlines=False)}
            for choice in item.choices
        ],
    }


def hint(item: Field) -> str:
    """The terminal's field heading without the label, like ``integer, 1-14, default 1``."""
    return list_text(field_facts(item, required=False))


def initial(item: Field) -> JSONValue:
    """What the widget holds to begin with: the default (falsy ones too), else nothing."""
    default = item.default
    if item.kind is FieldKind.BOOLEAN:
        return default is True
    if item.kind is FieldKind.MULTI_CHOICE:
        return list(default) if isinstance(default, list) else []
    if default is None:
        return ""
    if isinstance(default, int | float) and not isinstance(default, bool):
        return value_text(item, default)  # 2.0 shows as 2, as at the terminal
    return default if isinstance(default, str) else ""


def placeholder(item: Field) -> str | None:
    """Shown in an empty box: what an empty box means (the default), or the format."""
    if item.default is not None and item.kind not in (FieldKind.BOOLEAN, FieldKind.MULTI_CHOICE):
        return str(initial(item)) or None
    shown = _PLACEHOLDERS.get(item.kind)
    return None if shown is None else _(shown)


def _reasons_worded_now(verdict: UrlVerdict) -> list[str]:
    """The verdict's reasons in the language of this request. The handler checked the link
    once, in the host's language; the same check again (no I/O: pure) words each reason in
    the page's. A reason it does not find again (one of a lenient policy, or from resolving
    the name) keeps the handler's words."""
    again: dict[tuple[str, int], str] = {}
    seen: dict[str, int] = {}
    for reason in check_url(verdict.url).reasons:
        n = seen[reason.code] = seen.get(reason.code, -1) + 1
        again[(reason.code, n)] = reason.message
    seen.clear()
    worded: list[str] = []
    for reason in verdict.reasons:
        n = seen[reason.code] = seen.get(reason.code, -1) + 1
        worded.append(again.get((reason.code, n), reason.message))
    return worded


def url_view(prompt: UrlPrompt) -> dict[str, Any]:
    verdict = prompt.verdict
    host = verdict.display_host
    if verdict.registrable_domain is not None:
        domain, domain_note = domain_text(verdict.registrable_domain), None
    elif host is not None:
        domain, domain_note = None, no_domain_note(verdict)
    else:
        domain, domain_note = None, _("the link has no host")
    shown_host = None
    if host is not None:
        shown_host = clean(host.unicode, newlines=False)
        if host.unicode != host.ascii:
            shown_host = _("{host} (punycode: {ascii})").format(
                host=shown_host, ascii=clean(host.ascii, newlines=False)
            )
    return {
        # The link to open is the one the handler checked, exactly; ``shown_url`` is for eyes.
        "open_url": prompt.url,
        "shown_url": clean(prompt.url, newlines=False),
        "domain": domain,
        "domain_note": domain_note,
        "host": shown_host,
        "warnings": [
            _("Warning: {message}").format(message=clean(message, newlines=False))
            for message in _reasons_worded_now(verdict)
        ],
        "required_by": None if prompt.required_by is None else clean(prompt.required_by),
        "sign_in": prompt.sign_in,
    }


def notice_view(posted: PostedNotice) -> dict[str, Any]:
    return {
        "number": posted.number,
        "level": posted.notice.level,
        "text": notice_line(posted.notice),
    }
