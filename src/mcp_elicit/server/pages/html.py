"""The pages' HTML: small string templates, every interpolated value escaped here.

One design for every page and state: a header with the server's name (a ``banner``
landmark), then one ``<main>`` with one ``<h1>`` saying where things stand, in a card whose
class names the state (``entry``, ``saved``, ``declined``, ``waiting``, ``expired``,
``refused``, ``forged``, ``missing``, ``problem``) for the stylesheet to colour.

The referrer policy of the pages themselves is ``same-origin`` (a ``<meta>``, which takes
over from the ``no-referrer`` header every response carries): a browser whose document policy
is ``no-referrer`` sends ``Origin: null`` with a form POST (the Fetch standard says so, and
Chromium does it), which the same-origin check (``csrf.py``) must refuse, so no real browser
could post the form. ``same-origin`` still gives another site nothing, not even the origin,
so the flow's URL never leaves this server.

No script and no inline style anywhere (the Content-Security-Policy forbids both), so the
pages work the same with JavaScript off. For the same reason there is no show/hide toggle on
the secret field, and no automatic refresh of the waiting page: ``<meta http-equiv=refresh>``
needs no script, but a page that reloads itself under a screen reader's cursor fails WCAG
2.2.1 (axe-core's ``meta-refresh`` rule, impact critical); a "Check again" link does the job.

The secret's value is never a parameter of any function here: nothing can echo it.

The pages' own words are in the language in effect (``mcp_elicit.i18n``), which the pages
choose for each request (``languages.py``); ``<html lang>`` names it, so that the browser
picks the fonts and a screen reader the voice. Each sentence is one message, with the
others' words (the server's name, the label) put into its ``{fields}`` escaped (:func:`_t`).

The texts shown are other people's: the server's name, the server author's message and the
secret's label, the client's name. A bidirectional control in them (U+202E RIGHT-TO-LEFT
OVERRIDE and the rest of the "Trojan Source" set) would reorder what the person reads around
it, on a page whose whole point is to say truthfully who asks for what; a zero-width or other
invisible character would hide a difference. So :func:`_e`, which every interpolated value
goes through, also writes each such character out as ``\\u{202e}``, the way the client's
terminal and web renderers show them: visible, and harmless.
"""

from __future__ import annotations

import unicodedata
from html import escape
from urllib.parse import quote

from mcp_elicit.i18n import N_, _, current_language
from mcp_elicit.stores.records import FlowStatus

_LAYOUT = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="color-scheme" content="light dark">
<title>{title}</title>
<link rel="stylesheet" href="{base}/static/pages.css">
<link rel="icon" href="{base}/static/icon.svg" type="image/svg+xml">
</head>
<body>
<header class="banner">
<p class="server">{server}</p>
</header>
<main class="card {state}">
{mark}{body}
</main>
</body>
</html>
"""

# The mark above an outcome's heading: decoration (aria-hidden), the heading says it in words.
# The states still in progress (``entry``, ``waiting``) have none: only the card's colour.
_MARKS = {
    "saved": "\N{CHECK MARK}",
    "declined": "\N{MULTIPLICATION X}",
    "expired": "!",
    "refused": "!",
    "forged": "!",
    "missing": "?",
    "problem": "!",
}
# Who the person goes back to when the flow does not name its client.
# Translators: said in place of an app's name ("go back to {app}").
_SOME_APP = N_("the app you were using")
# Buttons and links (marked here: the extractor does not look inside f-strings).
_SWITCH = N_("Sign in with another account")
_AGAIN = N_("Open the form again")
_SIGN_OUT_AND_IN = N_("Sign out and sign in again")
_SIGN_IN_AGAIN = N_("Sign in again")


# Controls (Cc), format characters (Cf: every bidi control, the zero-width ones), line and
# paragraph separators, lone surrogates. A newline stays (the message keeps its line breaks);
# a tab becomes a space.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _shown(text: str) -> str:
    """``text`` with every character that reorders or hides text written out as ``\\u{…}``."""
    if text.isascii() and text.isprintable():
        return text  # the usual case, at no cost
    out = []
    for char in text:
        if char == "\n":
            out.append(char)
        elif char == "\t":
            out.append(" ")
        elif unicodedata.category(char) in _HIDDEN_CATEGORIES:
            out.append(f"\\u{{{ord(char):04x}}}")
        else:
            out.append(char)
    return "".join(out)


def _e(text: object) -> str:
    return escape(_shown(str(text)), quote=True)


def _t(message: str, **values: object) -> str:
    """A translated ``message`` as HTML, each of ``values`` escaped into its ``{field}``."""
    return _e(message).format(**{name: _e(value) for name, value in values.items()})


def flow_url(base: str, flow_id: str) -> str:
    return f"{base}/flows/{quote(flow_id, safe='')}"


def status_url(base: str, flow_id: str) -> str:
    return f"{flow_url(base, flow_id)}/status"


def _page(*, base: str, server_name: str, state: str, title: str, body: str) -> str:
    """The page in the language in effect (the pages choose it per request)."""
    mark = _MARKS.get(state)
    return _LAYOUT.format(
        lang=_e(current_language()),
        title=_e(f"{title} \N{EN DASH} {server_name}"),
        base=_e(base),
        server=_e(server_name),
        state=state,
        mark=f'<span class="mark" aria-hidden="true">{mark}</span>\n' if mark else "",
        body=body,
    )


def _app(client: str | None) -> str:
    """The app to go back to, as plain text (escaped where it is put)."""
    return client if client else _(_SOME_APP)


def entry_page(
    *,
    base: str,
    server_name: str,
    flow_id: str,
    label: str,
    message: str,
    token: str,
    client: str | None = None,
    error: str | None = None,
) -> str:
    """The form that asks for the secret. ``message`` is the server author's why, shown as
    their words; ``error`` is about the last attempt and never quotes what was entered."""
    action = _e(flow_url(base, flow_id))
    hidden = f'<input type="hidden" name="csrf" value="{_e(token)}">'
    described = "secret-help"
    extra = ""
    error_html = ""
    if error:
        described = "secret-error secret-help"
        # Back on the field, so the person can type again at once; the alert is announced.
        extra = ' aria-invalid="true" autofocus'
        error_html = f'<p id="secret-error" class="error" role="alert">{_e(error)}</p>\n'
    why = f'<p class="why">{_e(message)}</p>\n' if message.strip() else ""
    heading = _("Enter your {label}").format(label=label)
    asker = _t(_("{server} asks for it:"), server=server_name)
    help_text = _t(
        _(
            "It goes straight to {server}; {app} does not see it. Enter it only if you asked "
            "{server} for it."
        ),
        server=server_name,
        app=_app(client),
    )
    # Decline submits a form of its own (the button's ``form`` attribute points there), so a
    # value already typed into the field is not sent along when the person declines. The
    # two buttons still sit together, and Enter in the field means Save: the implicit
    # submission of a form uses its first button of its own.
    save, decline = _e(_("Save")), _e(_("Decline"))
    body = f"""<h1>{_e(heading)}</h1>
<p class="asker">{asker}</p>
{why}<form id="entry" method="post" action="{action}">
{hidden}
<label for="secret">{_e(label)}</label>
{error_html}<input id="secret" name="value" type="password" autocomplete="off" \
autocapitalize="off" spellcheck="false" required aria-describedby="{described}"{extra}>
<p id="secret-help" class="help">{help_text}</p>
<div class="actions">
<button type="submit" name="action" value="submit" class="primary">{save}</button>
<button type="submit" name="action" value="decline" form="decline" \
class="secondary">{decline}</button>
</div>
</form>
<form id="decline" method="post" action="{action}">
{hidden}
</form>"""
    # "Error:" first, so that a screen reader says so as the page loads.
    title = _("Error: Enter your {label}").format(label=label) if error else heading
    return _page(base=base, server_name=server_name, state="entry", title=title, body=body)


def status_page(
    *,
    base: str,
    server_name: str,
    flow_id: str,
    status: FlowStatus,
    label: str | None = None,
    client: str | None = None,
    connected: bool = False,
) -> str:
    """Where a flow stands, in words for the person who owns it. ``connected``: the flow
    connected an account at a provider (``label``), rather than saving something typed."""
    server = server_name
    back = _t(_("You can close this tab and go back to {app}."), app=_app(client))
    if status is FlowStatus.COMPLETED and connected and label:
        state, title = "saved", _("Connected")
        lead = _t(_("Done. {server} can use your {label} account now."), server=server, label=label)
        text = f'<p class="lead">{lead}</p>\n<p>{back}</p>'
    elif status is FlowStatus.COMPLETED:
        state, title = "saved", _("Saved")
        # "Done": the word the person looks for, and the one other tests look for too.
        if label:
            lead = _t(_("Done. {server} has your {label} now."), server=server, label=label)
        else:
            lead = _t(_("Done. {server} has an answer now."), server=server)
        text = f'<p class="lead">{lead}</p>\n<p>{back}</p>'
    elif status is FlowStatus.DECLINED:
        state, title = "declined", _("Declined")
        lead = _t(_("You declined; {server} received nothing."), server=server)
        text = f'<p class="lead">{lead}</p>\n<p>{back}</p>'
    elif status is FlowStatus.EXPIRED:
        state, title = "expired", _("This request has expired")
        lead = _t(
            _(
                "Requests like this stay open for a limited time, and this one has closed. "
                "Nothing was saved."
            )
        )
        again = _t(
            _(
                "To try again, go back to {app} and ask {server} again (run the same tool "
                "again, say). You will get a new link."
            ),
            app=_app(client),
            server=server,
        )
        text = f'<p class="lead">{lead}</p>\n<p>{again}</p>'
    else:
        state, title = "waiting", _("Waiting for you")
        if label:
            lead = _t(_("{server} is still waiting for your {label}."), server=server, label=label)
        else:
            lead = _t(_("{server} is still waiting for an answer."), server=server)
        answer, check = _e(_("Answer it")), _e(_("Check again"))
        text = (
            f'<p class="lead">{lead}</p>\n<p class="actions">'
            f'<a class="button primary" href="{_e(flow_url(base, flow_id))}">'
            f"{answer}</a> "
            f'<a class="button secondary" href="{_e(status_url(base, flow_id))}">'
            f"{check}</a></p>"
        )
    body = f"<h1>{_e(title)}</h1>\n{text}"
    return _page(base=base, server_name=server_name, state=state, title=title, body=body)


def refused_page(*, base: str, server_name: str, login_url: str | None = None) -> str:
    """For a browser that is not the flow's owner. The same words whether nobody is signed
    in or someone else is: a person handed another user's link learns nothing about that
    user or their request. ``login_url`` (the identity's sign-in page, when it has one) lets
    a person who is signed in with the wrong account switch."""
    title = _("This link was not made for you")
    switch = ""
    if login_url:
        switch = (
            f'\n<p class="actions"><a class="button primary" href="{_e(login_url)}">'
            f"{_e(_(_SWITCH))}</a></p>"
        )
    lead = _t(
        _("It belongs to another sign-in, so this page shows nothing about it and saves nothing.")
    )
    advice = _t(
        _(
            "If you asked {server} for it, open it in the browser where you are signed in with "
            "the same account you use with the app."
        ),
        server=server_name,
    )
    body = f'<h1>{_e(title)}</h1>\n<p class="lead">{lead}</p>\n<p>{advice}</p>{switch}'
    return _page(base=base, server_name=server_name, state="refused", title=title, body=body)


def not_found_page(*, base: str, server_name: str) -> str:
    title = _("Nothing here")
    lead = _t(
        _(
            "There is no request at this address. It may have been answered long ago, or the "
            "link may be incomplete."
        )
    )
    advice = _t(
        _(
            "Check that you opened the whole link, or ask {server} again from the app you were "
            "using."
        ),
        server=server_name,
    )
    body = f'<h1>{_e(title)}</h1>\n<p class="lead">{lead}</p>\n<p>{advice}</p>'
    return _page(base=base, server_name=server_name, state="missing", title=title, body=body)


def forged_page(*, base: str, server_name: str, flow_id: str | None = None) -> str:
    """A post that failed the CSRF checks. Shown before anything about the flow is looked
    at, so it says nothing about it; the link back is the address that was posted to."""
    title = _("This form could not be accepted")
    again = ""
    if flow_id is not None:
        again = (
            f'\n<p class="actions"><a class="button primary" '
            f'href="{_e(flow_url(base, flow_id))}">{_e(_(_AGAIN))}</a></p>'
        )
    lead = _t(
        _(
            "It did not match the page this browser was given, so it was refused to keep your "
            "account safe. Nothing was saved."
        )
    )
    advice = _t(_("Open the form again and enter your answer there."))
    body = f'<h1>{_e(title)}</h1>\n<p class="lead">{lead}</p>\n<p>{advice}</p>{again}'
    return _page(base=base, server_name=server_name, state="forged", title=title, body=body)


def problem_page(*, base: str, server_name: str, title: str, message: str) -> str:
    """Any other refusal: a bad or oversized request, a wrong method, a server error.
    ``title`` and ``message`` come translated."""
    body = f'<h1>{_e(title)}</h1>\n<p class="lead">{_e(message)}</p>'
    return _page(base=base, server_name=server_name, state="problem", title=title, body=body)


def signout_page(*, base: str, server_name: str, token: str, next_path: str) -> str:
    """Sign out of the pages, and straight on to sign in with another account. A form (a
    POST with a CSRF token), so that no other site can sign the person out."""
    title = _("Sign out")
    lead = _t(
        _(
            "Sign out of {server} in this browser, then sign in with the account the link was "
            "made for."
        ),
        server=server_name,
    )
    body = (
        f"<h1>{_e(title)}</h1>\n"
        f'<p class="lead">{lead}</p>\n'
        f'<form method="post" action="{_e(base)}/signout">\n'
        f'<input type="hidden" name="csrf" value="{_e(token)}">\n'
        f'<input type="hidden" name="next" value="{_e(next_path)}">\n'
        '<p class="actions"><button class="button primary" type="submit">'
        f"{_e(_(_SIGN_OUT_AND_IN))}</button></p>\n</form>"
    )
    return _page(base=base, server_name=server_name, state="refused", title=title, body=body)


def signed_out_page(*, base: str, server_name: str, signin_url: str) -> str:
    """After signing out: sign in again, as whichever account the link was made for."""
    title = _("Signed out")
    lead = _t(_("This browser is no longer signed in to {server}."), server=server_name)
    body = (
        f"<h1>{_e(title)}</h1>\n"
        f'<p class="lead">{lead}</p>\n'
        f'<p class="actions"><a class="button primary" href="{_e(signin_url)}">'
        f"{_e(_(_SIGN_IN_AGAIN))}</a></p>"
    )
    return _page(base=base, server_name=server_name, state="saved", title=title, body=body)
