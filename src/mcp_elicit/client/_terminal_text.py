"""What the terminal renderer puts on screen, as plain text (no I/O here).

Every line is plain text on purpose: people read it, and tests scrape it (tmux capture-pane).
Server-supplied text goes through :func:`clean` first, so a server cannot move the cursor,
recolour the screen or reverse the reading order of what follows.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence

import idna

from mcp_elicit.client.prompts import Attachment, FormPrompt, Notice, UrlPrompt
from mcp_elicit.forms import Field, FieldKind, Form, JSONValue, Problem
from mcp_elicit.urls import UrlVerdict
from mcp_elicit.urls.characters import CharacterKind, classify_character

KIND_WORDS: dict[FieldKind, str] = {
    FieldKind.TEXT: "text",
    FieldKind.EMAIL: "email address",
    FieldKind.URI: "URI, like https://example.com/page",
    FieldKind.DATE: "date, YYYY-MM-DD",
    FieldKind.DATETIME: "date and time, like 2025-03-31T14:30:00Z",
    FieldKind.INTEGER: "integer",
    FieldKind.NUMBER: "number",
    FieldKind.BOOLEAN: "yes/no",
    FieldKind.SINGLE_CHOICE: "choose one",
    FieldKind.MULTI_CHOICE: "choose several",
}

DASH = "\N{EN DASH}"  # ranges read "0 EN DASH 150", as people write them

_LEVELS = {"info": "Info", "warning": "Warning", "error": "Error"}

START_QUESTION = "Answer this request? [a]nswer/[d]ecline/[c]ancel (Enter: answer): "
FORM_KEYS = (
    "Keys: Enter confirms each answer; Esc or Ctrl-C cancels the request at any prompt; "
    "d declines (here or on the review screen)."
)
REVIEW_HEADING = "Review your answers:"
REVIEW_QUESTION = "[s]ubmit / [e]dit a field / [d]ecline / [c]ancel: "
EDIT_QUESTION = "Edit which field? (number or name): "
ATTACH_QUESTION = "Attach an image or audio file (a path; Enter when done): "
REMOVE_QUESTION = "Remove which file? (number or name): "
TEXT_OR_FILE = "Type an answer or attach a file"
URL_QUESTION = "Open this link in your browser? [y]es/[n]o (decline)/Esc cancel: "
WAIT_QUESTION = "> "
SIGN_IN_NOTE = (
    "This is the server's own sign-in (MCP authorization), not a question from a tool: your\n"
    "browser opens its authorization server's sign-in page, then comes back to mcp-elicit on\n"
    "this machine (127.0.0.1). Check the domain below is who you expect to sign in with."
)
OPENED_QUESTION = "Press Enter once you have opened it yourself, Esc to cancel: "


def clean(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control, bidi or invisible character written out as ``\\u{…}``
    (the notation of ``mcp-elicit url check``), whole: nothing is shortened.

    A tab becomes a space; a newline stays only when ``newlines`` (a label or a URL is one line).
    Ordinary spaces of any script stay as they are.
    """
    out: list[str] = []
    for char in text:
        if char == "\n" and newlines:
            out.append(char)
        elif char == "\t":
            out.append(" ")
        elif (kind := classify_character(char)) is None or (
            kind is CharacterKind.WHITESPACE and unicodedata.category(char) == "Zs"
        ):
            out.append(char)
        else:
            out.append(f"\\u{{{ord(char):04x}}}")
    return "".join(out)


def indented(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line for line in clean(text).split("\n"))


def _number(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _range(low: int | float | None, high: int | float | None, unit: str = "") -> str | None:
    if low is not None and high is not None:
        return f"{_number(low)}{DASH}{_number(high)}{unit}"
    if low is not None:
        return f"at least {_number(low)}{unit}"
    if high is not None:
        return f"at most {_number(high)}{unit}"
    return None


def bounds_text(field: Field) -> str | None:
    if field.kind.is_text:
        last = field.max_length if field.max_length is not None else field.min_length
        unit = " character" if last == 1 else " characters"
        return _range(field.min_length, field.max_length, unit)
    if field.kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        return _range(field.minimum, field.maximum)
    if field.kind is FieldKind.MULTI_CHOICE:
        picked = _range(field.min_items, field.max_items)
        return f"pick {picked}" if picked is not None else "pick any number"
    return None


def choice_text(field: Field, value: str) -> str:
    """A choice as a person sees it: ``Title (value)`` when titled, else the value."""
    for choice in field.choices:
        if choice.value == value and choice.title is not None:
            return f"{clean(choice.title, newlines=False)} ({clean(value, newlines=False)})"
    return clean(value, newlines=False)


def value_text(field: Field, value: JSONValue | None) -> str:
    """An answer as shown in headings and on the review screen."""
    if value is None:
        return "(no answer)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(choice_text(field, v) for v in value) if value else "(none chosen)"
    if isinstance(value, int | float):
        return _number(value)
    if field.kind is FieldKind.SINGLE_CHOICE:
        return choice_text(field, value)
    # Quoted, so that an empty or blank answer is visible as one.
    return clean(json.dumps(value, ensure_ascii=False), newlines=False)


def field_facts(field: Field, *, required: bool = True) -> list[str]:
    """What a field is, in the words both renderers use: its kind, whether it is required
    (unless ``required=False``: the web page marks that apart), bounds, pattern, default."""
    parts = [KIND_WORDS[field.kind]]
    if required:
        parts.append("required" if field.required else "optional")
    bounds = bounds_text(field)
    if bounds is not None:
        parts.append(bounds)
    if field.pattern is not None:
        parts.append(f"must match {clean(field.pattern, newlines=False)}")
    if field.default is not None:
        parts.append(f"default {value_text(field, field.default)}")
    return parts


def field_heading(field: Field, index: int, total: int, *, free_text: bool = False) -> str:
    """Like ``Field 2 of 5: Age (integer, required, 0-150, default 30)``, with an en dash.

    A free-text question is neither required nor optional: it needs text, a file or both."""
    parts = field_facts(field, required=not free_text)
    label = clean(field.label, newlines=False)
    where = "" if free_text else f"Field {index} of {total}: "
    return f"{where}{label} ({', '.join(parts)})"


def field_lines(
    field: Field, current: JSONValue | None, *, editing: bool, free_text: bool = False
) -> list[str]:
    """What follows the heading: help, the choices, how to answer, what Enter alone does."""
    lines: list[str] = []
    if field.help:
        lines.append(indented(field.help))
    for number, choice in enumerate(field.choices, 1):
        lines.append(f"  {number}. {choice_text(field, choice.value)}")
    if field.kind is FieldKind.BOOLEAN:
        lines.append("  Type y or n.")
    elif field.kind is FieldKind.SINGLE_CHOICE:
        lines.append("  Type the number or the value of one option.")
    elif field.kind is FieldKind.MULTI_CHOICE:
        lines.append("  Type numbers or values separated by commas, like 1,3.")
    if field.default is not None:
        lines.append(f"  Enter alone takes the default: {value_text(field, field.default)}.")
    elif field.required:
        lines.append("  Required: it cannot be left empty.")
    elif free_text and not editing:
        lines.append("  Image or audio files can be attached next: text, files or both.")
    else:
        lines.append("  Enter alone leaves it empty.")
    if editing:
        lines.append(f"  Current answer: {value_text(field, current)}")
    return lines


def field_question(field: Field, *, free_text: bool = False) -> str:
    label = clean(field.label, newlines=False)
    return f"{label} [y/n]: " if field.kind is FieldKind.BOOLEAN and not free_text else f"{label}: "


def finding_line(form: Form, problem: Problem, *, word: str = "Warning") -> str:
    message = clean(problem.message, newlines=False)
    if problem.field is None:
        return f"{word}: {message}"
    try:
        label = form[problem.field].label
    except KeyError:
        label = problem.field
    return f"{word}: {clean(label, newlines=False)}: {message}"


def form_intro(prompt: FormPrompt) -> list[str]:
    server = clean(prompt.server, newlines=False)
    lines = [f"{server} asks:", indented(prompt.message)]
    lines.extend(finding_line(prompt.form, problem) for problem in prompt.findings)
    lines.append(FORM_KEYS)
    return lines


def review_lines(
    form: Form, values: dict[str, JSONValue], files: Sequence[Attachment] | None = None
) -> list[str]:
    """The answers; with ``files`` (a free-text answer), what is attached, even nothing."""
    lines = [REVIEW_HEADING]
    for number, field in enumerate(form, 1):
        label = clean(field.label, newlines=False)
        lines.append(f"  {number}. {label}: {value_text(field, values.get(field.name))}")
    if not len(form):
        lines.append("  (this form has no fields)")
    if files is not None:
        lines.extend(f"  {attachment_line(item)}" for item in files)
        if not files:
            lines.append("  (no files attached)")
    return lines


def review_question(*, free_text: bool = False, files: bool = False) -> str:
    """What may be done on the review screen; a free-text answer also takes and drops files."""
    if not free_text:
        return REVIEW_QUESTION
    remove = " / [r]emove a file" if files else ""
    return f"[s]ubmit / [e]dit your answer / [a]ttach a file{remove} / [d]ecline / [c]ancel: "


def size_text(size: int) -> str:
    """A size in the units of the limit (a KB of 1024 bytes, a MB of 1024 KB), as the web
    renderer writes it: ``1 byte``, ``812 bytes``, ``1.2 KB``, ``3.4 MB``."""
    if size < 1024:
        return "1 byte" if size == 1 else f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def attachment_line(item: Attachment) -> str:
    """``Attached: cat.png (image/png, 1.2 KB)``: the name is the person's, shown cleaned."""
    name = clean(item.name, newlines=False)
    return (
        f"Attached: {name} ({clean(item.mime_type, newlines=False)}, {size_text(len(item.data))})"
    )


def attach_intro(limit: int) -> str:
    """Said once before the files are asked for."""
    whole = limit // (1024 * 1024)
    most = f"{whole} MB" if limit == whole * 1024 * 1024 and whole else size_text(limit)
    return (
        f"  You may attach image or audio files (up to {most} in all): type a path, "
        "Tab completes it."
    )


def files_list(files: Sequence[Attachment]) -> list[str]:
    """The files attached, numbered, to choose one to remove."""
    return [
        f"  {number}. {clean(item.name, newlines=False)} "
        f"({clean(item.mime_type, newlines=False)}, {size_text(len(item.data))})"
        for number, item in enumerate(files, 1)
    ]


def url_screen(prompt: UrlPrompt) -> tuple[list[str], str, list[str]]:
    """The consent screen: lines before the domain, the domain line, lines after it."""
    verdict = prompt.verdict
    server = clean(prompt.server, newlines=False)
    if prompt.sign_in:
        before = [
            f"{server} asks you to sign in:",
            indented(prompt.message),
            SIGN_IN_NOTE,
        ]
    else:
        before = [f"{server} asks you to open a link:", indented(prompt.message)]
    if prompt.required_by is not None:
        before.append(f"Required by: {clean(prompt.required_by, newlines=False)}")
    before.append(f"URL: {clean(prompt.url, newlines=False)}")
    host = verdict.display_host
    if verdict.registrable_domain is not None:
        domain = f"Domain: {domain_text(verdict.registrable_domain)}"
    elif host is not None:
        domain = f"Domain: none ({no_domain_note(verdict)})"
    else:
        domain = "Domain: none (the link has no host)"
    after: list[str] = []
    if host is not None:
        shown = f"Host: {clean(host.unicode, newlines=False)}"
        if host.unicode != host.ascii:
            shown += f" (punycode: {clean(host.ascii, newlines=False)})"
        after.append(shown)
    after.extend(f"Warning: {clean(r.message, newlines=False)}" for r in verdict.reasons)
    return before, domain, after


def no_domain_note(verdict: UrlVerdict) -> str:
    """Why a link with a host has no registrable domain, and who decides where it leads:
    ``printer.local is a local network name (mDNS .local): any device on your network can
    answer to it``."""
    host = verdict.display_host
    assert host is not None
    return f"{clean(host.ascii, newlines=False)} is {verdict.who_controls}"


def domain_text(domain: str) -> str:
    """The registrable domain as a person reads it and, when that differs, as it really is:
    a look-alike (``p\\u0430ypal.com``, a Cyrillic a) must not be shown as if it were the
    real one, in the very place the person is told to look."""
    shown = clean(domain, newlines=False)
    if domain.isascii():
        return shown
    try:
        ascii_form = idna.encode(domain, uts46=True).decode("ascii")
    except idna.IDNAError:
        return f"{shown} (not a valid international name)"
    return f"{shown} (punycode: {ascii_form})"


def waiting_line(server: str, *, held: bool = False, sign_in: bool = False) -> str:
    name = clean(server, newlines=False)
    if sign_in:
        return (
            f"Waiting for you to sign in to {name} in your browser … "
            "this ends when the browser comes back; Esc cancels"
        )
    if held:
        # 2026-07-28: the server holds the retry until the page is finished.
        return (
            f"Waiting for {name}: it goes on once you finish on the page … "
            f"press Enter when you are done (asks {name} again now), Esc to cancel"
        )
    return f"Waiting for {name} to confirm … press Enter when you are done, Esc to cancel"


def not_opened_lines(prompt: UrlPrompt, why: str) -> list[str]:
    """The link the browser did not open, whole, to copy: nothing was sent yet."""
    return [
        f"Error: the link did not open: {clean(why, newlines=False)}.",
        "Open it yourself (copy it into your browser):",
        f"  {clean(prompt.url, newlines=False)}",
        f"Nothing has been sent to {clean(prompt.server, newlines=False)} yet.",
    ]


def notice_line(notice: Notice) -> str:
    prefix = _LEVELS.get(notice.level, notice.level.capitalize() or "Notice")
    server = clean(notice.server, newlines=False)
    text = clean(notice.text).replace("\n", "\n  ")
    return f"{prefix} from {server}: {text}"
