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

from mcp_elicit.stores.records import FlowStatus

_LAYOUT = """<!doctype html>
<html lang="en">
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
_SOME_APP = "the app you were using"
# Said of a flow whose details name nothing (a flow of another purpose, on its status page).
_SOME_ANSWER = "an answer"


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


def flow_url(base: str, flow_id: str) -> str:
    return f"{base}/flows/{quote(flow_id, safe='')}"


def status_url(base: str, flow_id: str) -> str:
    return f"{flow_url(base, flow_id)}/status"


def _page(*, base: str, server_name: str, state: str, title: str, body: str) -> str:
    mark = _MARKS.get(state)
    return _LAYOUT.format(
        title=_e(f"{title} \N{EN DASH} {server_name}"),
        base=_e(base),
        server=_e(server_name),
        state=state,
        mark=f'<span class="mark" aria-hidden="true">{mark}</span>\n' if mark else "",
        body=body,
    )


def _app(client: str | None) -> str:
    return _e(client) if client else _SOME_APP


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
    name = _e(server_name)
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
    # Decline submits a form of its own (the button's ``form`` attribute points there), so a
    # value already typed into the field is not sent along when the person declines. The
    # two buttons still sit together, and Enter in the field means Save: the implicit
    # submission of a form uses its first button of its own.
    body = f"""<h1>Enter your {_e(label)}</h1>
<p class="asker">{name} asks for it:</p>
{why}<form id="entry" method="post" action="{action}">
{hidden}
<label for="secret">{_e(label)}</label>
{error_html}<input id="secret" name="value" type="password" autocomplete="off" \
autocapitalize="off" spellcheck="false" required aria-describedby="{described}"{extra}>
<p id="secret-help" class="help">It goes straight to {name}; {_app(client)} does not see it. \
Enter it only if you asked {name} for it.</p>
<div class="actions">
<button type="submit" name="action" value="submit" class="primary">Save</button>
<button type="submit" name="action" value="decline" form="decline" \
class="secondary">Decline</button>
</div>
</form>
<form id="decline" method="post" action="{action}">
{hidden}
</form>"""
    # "Error:" first, so that a screen reader says so as the page loads.
    title = f"Error: Enter your {label}" if error else f"Enter your {label}"
    return _page(base=base, server_name=server_name, state="entry", title=title, body=body)


def status_page(
    *,
    base: str,
    server_name: str,
    flow_id: str,
    status: FlowStatus,
    label: str | None = None,
    client: str | None = None,
) -> str:
    """Where a flow stands, in words for the person who owns it."""
    name = _e(server_name)
    asked = f"your {_e(label)}" if label else _SOME_ANSWER
    back = f"You can close this tab and go back to {_app(client)}."
    if status is FlowStatus.COMPLETED:
        state, title = "saved", "Saved"
        # "Done": the word the person looks for, and the one other tests look for too.
        text = f'<p class="lead">Done. {name} has {asked} now.</p>\n<p>{back}</p>'
    elif status is FlowStatus.DECLINED:
        state, title = "declined", "Declined"
        text = f'<p class="lead">You declined; {name} received nothing.</p>\n<p>{back}</p>'
    elif status is FlowStatus.EXPIRED:
        state, title = "expired", "This request has expired"
        text = (
            '<p class="lead">Requests like this stay open for a limited time, and this one has '
            "closed. Nothing was saved.</p>\n<p>To try again, go back to "
            f"{_app(client)} and ask {name} again (run the same tool again, say). You will get "
            "a new link.</p>"
        )
    else:
        state, title = "waiting", "Waiting for you"
        text = (
            f'<p class="lead">{name} is still waiting for {asked}.</p>\n<p class="actions">'
            f'<a class="button primary" href="{_e(flow_url(base, flow_id))}">Answer it</a> '
            f'<a class="button secondary" href="{_e(status_url(base, flow_id))}">Check again</a>'
            "</p>"
        )
    body = f"<h1>{_e(title)}</h1>\n{text}"
    return _page(base=base, server_name=server_name, state=state, title=title, body=body)


def refused_page(*, base: str, server_name: str, login_url: str | None = None) -> str:
    """For a browser that is not the flow's owner. The same words whether nobody is signed
    in or someone else is: a person handed another user's link learns nothing about that
    user or their request. ``login_url`` (the identity's sign-in page, when it has one) lets
    a person who is signed in with the wrong account switch."""
    title = "This link was not made for you"
    switch = ""
    if login_url:
        switch = (
            f'\n<p class="actions"><a class="button primary" href="{_e(login_url)}">Sign in '
            "with another account</a></p>"
        )
    body = (
        f"<h1>{title}</h1>\n"
        '<p class="lead">It belongs to another sign-in, so this page shows nothing about it '
        "and saves nothing.</p>\n"
        f"<p>If you asked {_e(server_name)} for it, open it in the browser where you are "
        f"signed in with the same account you use with the app.</p>{switch}"
    )
    return _page(base=base, server_name=server_name, state="refused", title=title, body=body)


def not_found_page(*, base: str, server_name: str) -> str:
    title = "Nothing here"
    body = (
        f'<h1>{title}</h1>\n<p class="lead">There is no request at this address. It may '
        "have been answered long ago, or the link may be incomplete.</p>\n<p>Check that you "
        f"opened the whole link, or ask {_e(server_name)} again from the app you were using."
        "</p>"
    )
    return _page(base=base, server_name=server_name, state="missing", title=title, body=body)


def forged_page(*, base: str, server_name: str, flow_id: str | None = None) -> str:
    """A post that failed the CSRF checks. Shown before anything about the flow is looked
    at, so it says nothing about it; the link back is the address that was posted to."""
    title = "This form could not be accepted"
    again = ""
    if flow_id is not None:
        again = (
            f'\n<p class="actions"><a class="button primary" '
            f'href="{_e(flow_url(base, flow_id))}">Open the form again</a></p>'
        )
    body = (
        f"<h1>{title}</h1>\n"
        '<p class="lead">It did not match the page this browser was given, so it was refused '
        "to keep your account safe. Nothing was saved.</p>\n"
        f"<p>Open the form again and enter your answer there.</p>{again}"
    )
    return _page(base=base, server_name=server_name, state="forged", title=title, body=body)


def problem_page(*, base: str, server_name: str, title: str, message: str) -> str:
    """Any other refusal: a bad or oversized request, a wrong method, a server error."""
    body = f'<h1>{_e(title)}</h1>\n<p class="lead">{_e(message)}</p>'
    return _page(base=base, server_name=server_name, state="problem", title=title, body=body)


def signout_page(*, base: str, server_name: str, token: str, next_path: str) -> str:
    """Sign out of the pages, and straight on to sign in with another account. A form (a
    POST with a CSRF token), so that no other site can sign the person out."""
    title = "Sign out"
    body = (
        f"<h1>{title}</h1>\n"
        f'<p class="lead">Sign out of {_e(server_name)} in this browser, then sign in with '
        "the account the link was made for.</p>\n"
        f'<form method="post" action="{_e(base)}/signout">\n'
        f'<input type="hidden" name="csrf" value="{_e(token)}">\n'
        f'<input type="hidden" name="next" value="{_e(next_path)}">\n'
        '<p class="actions"><button class="button primary" type="submit">Sign out and sign '
        "in again</button></p>\n</form>"
    )
    return _page(base=base, server_name=server_name, state="refused", title=title, body=body)


def signed_out_page(*, base: str, server_name: str, signin_url: str) -> str:
    """After signing out: sign in again, as whichever account the link was made for."""
    title = "Signed out"
    body = (
        f"<h1>{title}</h1>\n"
        f'<p class="lead">This browser is no longer signed in to {_e(server_name)}.</p>\n'
        f'<p class="actions"><a class="button primary" href="{_e(signin_url)}">Sign in '
        "again</a></p>"
    )
    return _page(base=base, server_name=server_name, state="saved", title=title, body=body)
