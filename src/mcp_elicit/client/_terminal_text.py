"""What the terminal renderer puts on screen, as plain text (no I/O here).

Every line is plain text on purpose: people read it, and tests scrape it (tmux capture-pane).
Server-supplied text goes through :func:`clean` first, so a server cannot move the cursor,
recolour the screen or reverse the reading order of what follows.

Our own words are in the language in effect (:mod:`mcp_elicit.i18n`): the constants here are
marked English, translated where shown. Nothing is padded or cut to a width, so wide
(East Asian) characters need no measuring here; prompt_toolkit measures the cells it draws.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from datetime import date, datetime
from typing import Literal

import idna

from mcp_elicit.client.prompts import Attachment, FormPrompt, Notice, UrlPrompt
from mcp_elicit.forms import Field, FieldKind, Form, JSONValue, Problem
from mcp_elicit.i18n import N_, _, format_date, format_datetime, format_number, ngettext
from mcp_elicit.urls import UrlVerdict
from mcp_elicit.urls.characters import CharacterKind, classify_character

KIND_WORDS: dict[FieldKind, str] = {
    FieldKind.TEXT: N_("text"),
    FieldKind.EMAIL: N_("email address"),
    FieldKind.URI: N_("URI, like https://example.com/page"),
    FieldKind.DATE: N_("date, YYYY-MM-DD"),
    FieldKind.DATETIME: N_("date and time, like 2025-03-31T14:30:00Z"),
    FieldKind.INTEGER: N_("integer"),
    FieldKind.NUMBER: N_("number"),
    FieldKind.BOOLEAN: N_("yes/no"),
    FieldKind.SINGLE_CHOICE: N_("choose one"),
    FieldKind.MULTI_CHOICE: N_("choose several"),
}
"""What each kind of field takes, marked for the catalogs: shown through :func:`kind_word`."""

DASH = "\N{EN DASH}"  # ranges read "0 EN DASH 150", as people write them

# A notice's first words, by its level; shown through :func:`notice_line`.
_LEVELS = {
    "info": N_("Info from {server}: {text}"),
    "warning": N_("Warning from {server}: {text}"),
    "error": N_("Error from {server}: {text}"),
}

# The questions and fixed lines, marked for the catalogs (English here): translate with ``_``
# where shown, as the renderer does.
START_QUESTION = N_("Answer this request? [a]nswer/[d]ecline/[c]ancel (Enter: answer): ")
FORM_KEYS = N_(
    "Keys: Enter confirms each answer; Esc or Ctrl-C cancels the request at any prompt; "
    "d declines (here or on the review screen)."
)
REVIEW_HEADING = N_("Review your answers:")
REVIEW_QUESTION = N_("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel: ")
EDIT_QUESTION = N_("Edit which field? (number or name): ")
ATTACH_QUESTION = N_("Attach an image or audio file (a path; Enter when done): ")
REMOVE_QUESTION = N_("Remove which file? (number or name): ")
TEXT_OR_FILE_ERROR = N_("Error: Type an answer or attach a file")
URL_QUESTION = N_("Open this link in your browser? [y]es/[n]o (decline)/Esc cancel: ")
WAIT_QUESTION = "> "
SIGN_IN_NOTE = N_(
    "This is the server's own sign-in (MCP authorization), not a question from a tool: your\n"
    "browser opens its authorization server's sign-in page, then comes back to mcp-elicit on\n"
    "this machine (127.0.0.1). Check the domain below is who you expect to sign in with."
)
OPENED_QUESTION = N_("Press Enter once you have opened it yourself, Esc to cancel: ")


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


def number_text(value: int | float) -> str:
    """A number for reading, with the language's separators (``1,234.5``), and exact: one
    with more decimals than the locale's format keeps (three), or in exponent form, is shown
    as JSON writes it rather than rounded."""
    plain = _number(value)
    if "e" in plain.lower() or len(plain.partition(".")[2]) > 3:
        return plain
    return format_number(int(value) if isinstance(value, float) and value.is_integer() else value)


def kind_word(field: Field) -> str:
    """What the field takes, in words: ``integer``, ``date, YYYY-MM-DD``."""
    return _(KIND_WORDS[field.kind])


def listed(parts: Sequence[str]) -> str:
    """Items one after another (a field's facts, the options chosen), as the language lists them."""
    # Translators: what goes between the items of a list: a field's facts ("integer, optional,
    # default 30"), the options a person chose.
    return _(", ").join(parts)


def _length_bounds(low: int | None, high: int | None) -> str | None:
    if low is not None and high is not None:
        return ngettext(
            "{low}\N{EN DASH}{high} character", "{low}\N{EN DASH}{high} characters", high
        ).format(low=low, high=high)
    if low is not None:
        return ngettext("at least {number} character", "at least {number} characters", low).format(
            number=low
        )
    if high is not None:
        return ngettext("at most {number} character", "at most {number} characters", high).format(
            number=high
        )
    return None


def _number_bounds(low: int | float | None, high: int | float | None) -> str | None:
    if low is not None and high is not None:
        return f"{_number(low)}{DASH}{_number(high)}"
    if low is not None:
        return _("at least {number}").format(number=_number(low))
    if high is not None:
        return _("at most {number}").format(number=_number(high))
    return None


def _pick_bounds(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return _("pick {low}\N{EN DASH}{high}").format(low=low, high=high)
    if low is not None:
        return _("pick at least {number}").format(number=low)
    if high is not None:
        return _("pick at most {number}").format(number=high)
    return _("pick any number")


def bounds_text(field: Field) -> str | None:
    if field.kind.is_text:
        return _length_bounds(field.min_length, field.max_length)
    if field.kind in (FieldKind.INTEGER, FieldKind.NUMBER):
        return _number_bounds(field.minimum, field.maximum)
    if field.kind is FieldKind.MULTI_CHOICE:
        return _pick_bounds(field.min_items, field.max_items)
    return None


def choice_text(field: Field, value: str) -> str:
    """A choice as a person sees it: ``Title (value)`` when titled, else the value."""
    for choice in field.choices:
        if choice.value == value and choice.title is not None:
            return f"{clean(choice.title, newlines=False)} ({clean(value, newlines=False)})"
    return clean(value, newlines=False)


def value_text(field: Field, value: JSONValue | None, *, reading: bool = False) -> str:
    """An answer as shown in headings and on the review screen.

    ``reading``: shown only to be read (the review), not as what to type: numbers with the
    language's separators, dates and moments as the language writes them (a moment also as
    sent, which keeps its offset). Otherwise numbers and dates are shown as typed."""
    if value is None:
        return _("(no answer)")
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return listed([choice_text(field, v) for v in value]) if value else _("(none chosen)")
    if isinstance(value, int | float):
        return number_text(value) if reading else _number(value)
    if field.kind is FieldKind.SINGLE_CHOICE:
        return choice_text(field, value)
    if reading and (dated := _date_text(field, value)) is not None:
        return dated
    # Quoted, so that an empty or blank answer is visible as one.
    return clean(json.dumps(value, ensure_ascii=False), newlines=False)


def _date_text(field: Field, value: str) -> str | None:
    """A date or date-time answer as the language writes it; None for any other answer."""
    try:
        if field.kind is FieldKind.DATE:
            return format_date(date.fromisoformat(value))
        if field.kind is FieldKind.DATETIME:
            moment = datetime.fromisoformat(value)
            # Translators: a date and time as the language writes it, then as it is sent (that
            # keeps its UTC offset, which the first may not show).
            return _("{moment} ({sent})").format(
                moment=format_datetime(moment), sent=clean(value, newlines=False)
            )
    except ValueError:
        return None
    return None


def field_facts(field: Field, *, required: bool = True) -> list[str]:
    """What a field is, in the words both renderers use: its kind, whether it is required
    (unless ``required=False``: the web page marks that apart), bounds, pattern, default."""
    parts = [kind_word(field)]
    if required:
        parts.append(_("required") if field.required else _("optional"))
    bounds = bounds_text(field)
    if bounds is not None:
        parts.append(bounds)
    if field.pattern is not None:
        parts.append(_("must match {pattern}").format(pattern=clean(field.pattern, newlines=False)))
    if field.default is not None:
        parts.append(_("default {value}").format(value=value_text(field, field.default)))
    return parts


def field_heading(field: Field, index: int, total: int, *, free_text: bool = False) -> str:
    """Like ``Field 2 of 5: Age (integer, required, 0-150, default 30)``, with an en dash.

    A free-text question is neither required nor optional: it needs text, a file or both."""
    facts = listed(field_facts(field, required=not free_text))
    label = clean(field.label, newlines=False)
    if free_text:
        return _("{label} ({facts})").format(label=label, facts=facts)
    return _("Field {index} of {total}: {label} ({facts})").format(
        index=index, total=total, label=label, facts=facts
    )


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
        lines.append("  " + _("Type y or n."))
    elif field.kind is FieldKind.SINGLE_CHOICE:
        lines.append("  " + _("Type the number or the value of one option."))
    elif field.kind is FieldKind.MULTI_CHOICE:
        lines.append("  " + _("Type numbers or values separated by commas, like 1,3."))
    if field.default is not None:
        default = value_text(field, field.default)
        lines.append("  " + _("Enter alone takes the default: {value}.").format(value=default))
    elif field.required:
        lines.append("  " + _("Required: it cannot be left empty."))
    elif free_text and not editing:
        lines.append("  " + _("Image or audio files can be attached next: text, files or both."))
    else:
        lines.append("  " + _("Enter alone leaves it empty."))
    if editing:
        lines.append("  " + _("Current answer: {value}").format(value=value_text(field, current)))
    return lines


def field_question(field: Field, *, free_text: bool = False) -> str:
    label = clean(field.label, newlines=False)
    if field.kind is FieldKind.BOOLEAN and not free_text:
        return _("{label} [y/n]: ").format(label=label)
    return _("{label}: ").format(label=label)


_FINDING = {
    "Warning": (N_("Warning: {message}"), N_("Warning: {label}: {message}")),
    "Error": (N_("Error: {message}"), N_("Error: {label}: {message}")),
}


def finding_line(
    form: Form, problem: Problem, *, word: Literal["Warning", "Error"] = "Warning"
) -> str:
    """``Warning: Email: this field looks like it asks for a secret`` (``word``: which of
    ``Warning`` and ``Error`` it starts with, in the language in effect)."""
    whole, of_field = _FINDING[word]
    message = clean(problem.message, newlines=False)
    if problem.field is None:
        return _(whole).format(message=message)
    try:
        label = form[problem.field].label
    except KeyError:
        label = problem.field
    return _(of_field).format(label=clean(label, newlines=False), message=message)


def error_line(message: str) -> str:
    """``Error: …`` under a line or on its own, ``message`` cleaned."""
    return _("Error: {message}").format(message=clean(message, newlines=False))


def form_intro(prompt: FormPrompt) -> list[str]:
    server = clean(prompt.server, newlines=False)
    lines = [_("{server} asks:").format(server=server), indented(prompt.message)]
    lines.extend(finding_line(prompt.form, problem) for problem in prompt.findings)
    lines.append(_(FORM_KEYS))
    return lines


def review_lines(
    form: Form, values: dict[str, JSONValue], files: Sequence[Attachment] | None = None
) -> list[str]:
    """The answers; with ``files`` (a free-text answer), what is attached, even nothing."""
    lines = [_(REVIEW_HEADING)]
    for number, field in enumerate(form, 1):
        label = clean(field.label, newlines=False)
        value = value_text(field, values.get(field.name), reading=True)
        lines.append(
            "  " + _("{number}. {label}: {value}").format(number=number, label=label, value=value)
        )
    if not len(form):
        lines.append("  " + _("(this form has no fields)"))
    if files is not None:
        lines.extend(f"  {attachment_line(item)}" for item in files)
        if not files:
            lines.append("  " + _("(no files attached)"))
    return lines


def review_question(*, free_text: bool = False, files: bool = False) -> str:
    """What may be done on the review screen; a free-text answer also takes and drops files."""
    if not free_text:
        return _(REVIEW_QUESTION)
    if files:
        return _(
            "[s]ubmit / [e]dit your answer / [a]ttach a file / [r]emove a file / [d]ecline / "
            "[c]ancel: "
        )
    return _("[s]ubmit / [e]dit your answer / [a]ttach a file / [d]ecline / [c]ancel: ")


def size_text(size: int) -> str:
    """A size in the units of the limit (a KB of 1024 bytes, a MB of 1024 KB), as the web
    renderer writes it: ``1 byte``, ``812 bytes``, ``1.2 KB``, ``3.4 MB``."""
    if size < 1024:
        return ngettext("{count} byte", "{count} bytes", size).format(count=size)
    if size < 1024 * 1024:
        return _("{size} KB").format(size=f"{size / 1024:.1f}")
    return _("{size} MB").format(size=f"{size / (1024 * 1024):.1f}")


def attachment_line(item: Attachment) -> str:
    """``Attached: cat.png (image/png, 1.2 KB)``: the name is the person's, shown cleaned."""
    return _("Attached: {name} ({type}, {size})").format(
        name=clean(item.name, newlines=False),
        type=clean(item.mime_type, newlines=False),
        size=size_text(len(item.data)),
    )


def attach_intro(limit: int) -> str:
    """Said once before the files are asked for."""
    whole = limit // (1024 * 1024)
    most = (
        _("{size} MB").format(size=whole)
        if limit == whole * 1024 * 1024 and whole
        else size_text(limit)
    )
    return "  " + _(
        "You may attach image or audio files (up to {most} in all): type a path, Tab completes it."
    ).format(most=most)


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
            _("{server} asks you to sign in:").format(server=server),
            indented(prompt.message),
            _(SIGN_IN_NOTE),
        ]
    else:
        before = [
            _("{server} asks you to open a link:").format(server=server),
            indented(prompt.message),
        ]
    if prompt.required_by is not None:
        before.append(
            _("Required by: {call}").format(call=clean(prompt.required_by, newlines=False))
        )
    before.append(_("URL: {url}").format(url=clean(prompt.url, newlines=False)))
    host = verdict.display_host
    if verdict.registrable_domain is not None:
        domain = _("Domain: {domain}").format(domain=domain_text(verdict.registrable_domain))
    elif host is not None:
        domain = _("Domain: none ({why})").format(why=no_domain_note(verdict))
    else:
        domain = _("Domain: none (the link has no host)")
    after: list[str] = []
    if host is not None:
        shown = clean(host.unicode, newlines=False)
        if host.unicode != host.ascii:
            after.append(
                _("Host: {host} (punycode: {ascii})").format(
                    host=shown, ascii=clean(host.ascii, newlines=False)
                )
            )
        else:
            after.append(_("Host: {host}").format(host=shown))
    after.extend(
        _("Warning: {message}").format(message=clean(r.message, newlines=False))
        for r in verdict.reasons
    )
    return before, domain, after


def no_domain_note(verdict: UrlVerdict) -> str:
    """Why a link with a host has no registrable domain, and who decides where it leads:
    ``printer.local is a local network name (mDNS .local): any device on your network can
    answer to it``."""
    host = verdict.display_host
    assert host is not None
    return _("{host} is {who_controls}").format(
        host=clean(host.ascii, newlines=False), who_controls=verdict.who_controls
    )


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
        return _("{domain} (not a valid international name)").format(domain=shown)
    return _("{domain} (punycode: {ascii})").format(domain=shown, ascii=ascii_form)


def waiting_line(server: str, *, held: bool = False, sign_in: bool = False) -> str:
    name = clean(server, newlines=False)
    if sign_in:
        return _(
            "Waiting for you to sign in to {server} in your browser … "
            "this ends when the browser comes back; Esc cancels"
        ).format(server=name)
    if held:
        # 2026-07-28: the server holds the retry until the page is finished.
        return _(
            "Waiting for {server}: it goes on once you finish on the page … "
            "press Enter when you are done (asks {server} again now), Esc to cancel"
        ).format(server=name)
    return _(
        "Waiting for {server} to confirm … press Enter when you are done, Esc to cancel"
    ).format(server=name)


def not_opened_lines(prompt: UrlPrompt, why: str) -> list[str]:
    """The link the browser did not open, whole, to copy: nothing was sent yet."""
    return [
        _("Error: the link did not open: {why}.").format(why=clean(why, newlines=False)),
        _("Open it yourself (copy it into your browser):"),
        f"  {clean(prompt.url, newlines=False)}",
        _("Nothing has been sent to {server} yet.").format(
            server=clean(prompt.server, newlines=False)
        ),
    ]


def notice_line(notice: Notice) -> str:
    server = clean(notice.server, newlines=False)
    text = clean(notice.text).replace("\n", "\n  ")
    template = _LEVELS.get(notice.level)
    if template is not None:
        return _(template).format(server=server, text=text)
    if notice.level:
        return _("{level} from {server}: {text}").format(
            level=notice.level.capitalize(), server=server, text=text
        )
    return _("Notice from {server}: {text}").format(server=server, text=text)
