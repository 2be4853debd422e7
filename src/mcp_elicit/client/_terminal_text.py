"""What the terminal renderer puts on screen, as plain text (no I/O here).

Every line is plain text on purpose: people read it, and tests scrape it (tmux capture-pane).
Server-supplied text goes through :func:`~mcp_elicit.client.prompt_text.clean` first; the words
both renderers use (a field's facts, an answer, a finding, a domain) are
:mod:`mcp_elicit.client.prompt_text`'s.

Our own words are in the language in effect (:mod:`mcp_elicit.i18n`): the constants here are
marked English, translated where shown. Nothing is padded or cut to a width, so wide
(East Asian) characters need no measuring here; prompt_toolkit measures the cells it draws.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp_elicit.client.prompt_text import (
    choice_text,
    clean,
    domain_text,
    field_facts,
    finding_line,
    list_text,
    no_domain_note,
    value_text,
)
from mcp_elicit.client.prompts import Attachment, FormPrompt, UrlPrompt
from mcp_elicit.forms import Field, FieldKind, Form, JSONValue
from mcp_elicit.i18n import N_, _, ngettext

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


def indented(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line for line in clean(text).split("\n"))


def field_heading(field: Field, index: int, total: int, *, free_text: bool = False) -> str:
    """Like ``Field 2 of 5: Age (integer, required, 0-150, default 30)``, with an en dash.

    A free-text question is neither required nor optional: it needs text, a file or both."""
    facts = list_text(field_facts(field, required=not free_text))
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


def withdrawn_line(server: str, *, held: bool = False) -> str:
    """Under a question given up while it was on screen: nothing typed there goes anywhere.
    ``held``: the waiting screen of a held retry, taken down when the server answered the
    retry by asking again (its hold ran out, or it needs more) or the request ended: not a
    question, and not always a loss."""
    if held:
        return _(
            "Withdrawn: {server} stopped holding the call for this page (it answered, or the "
            "request ended); what it asks next follows."
        ).format(server=clean(server, newlines=False))
    return _(
        "Withdrawn: {server} no longer waits for an answer to this question "
        "(its request was cancelled or timed out)."
    ).format(server=clean(server, newlines=False))
