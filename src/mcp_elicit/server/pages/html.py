"""The pages' HTML: small string templates, every interpolated value escaped here.

No script and no inline style anywhere (the Content-Security-Policy forbids both), so the
pages work the same with JavaScript off. Each page is one ``<main>`` with one ``<h1>``.
The secret's value is never a parameter of any function here: nothing can echo it.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from mcp_elicit.stores.records import FlowStatus

_LAYOUT = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<link rel="stylesheet" href="{base}/static/pages.css">
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def flow_url(base: str, flow_id: str) -> str:
    return f"{base}/flows/{quote(flow_id, safe='')}"


def status_url(base: str, flow_id: str) -> str:
    return f"{flow_url(base, flow_id)}/status"


def _page(base: str, title: str, body: str) -> str:
    return _LAYOUT.format(title=_e(title), base=_e(base), body=body)


def entry_page(
    *,
    base: str,
    server_name: str,
    flow_id: str,
    label: str,
    message: str,
    token: str,
    error: str | None = None,
) -> str:
    """The form that asks for the secret. ``error`` is about the last attempt; it never
    quotes what was entered."""
    action = _e(flow_url(base, flow_id))
    hidden = f'<input type="hidden" name="csrf" value="{_e(token)}">'
    described = "secret-help"
    error_html = ""
    invalid = ""
    if error:
        described = "secret-error secret-help"
        invalid = ' aria-invalid="true"'
        error_html = f'<p id="secret-error" class="error" role="alert">{_e(error)}</p>\n'
    # Decline is a form of its own, so that a value already typed into the field is not
    # sent along when the person declines.
    body = f"""<h1>{_e(server_name)} asks for your {_e(label)}</h1>
<p class="why">{_e(message)}</p>
<form method="post" action="{action}" class="entry">
{hidden}
<label for="secret">{_e(label)}</label>
{error_html}<input id="secret" name="value" type="password" autocomplete="off" required \
aria-describedby="{described}"{invalid}>
<p id="secret-help" class="help">It goes to {_e(server_name)} directly; the app you were \
using does not see it.</p>
<button type="submit" name="action" value="submit" class="primary">Submit</button>
</form>
<form method="post" action="{action}" class="decline">
{hidden}
<button type="submit" name="action" value="decline" class="secondary">Decline</button>
</form>"""
    return _page(base, f"{label} for {server_name}", body)


def status_page(*, base: str, server_name: str, flow_id: str, status: FlowStatus) -> str:
    """Where a flow stands, in words for the person who owns it."""
    name = _e(server_name)
    if status is FlowStatus.COMPLETED:
        title = "Done"
        body = (
            f"<h1>Done</h1>\n<p>{name} has what it asked for. You can close this tab and go "
            "back to the app you were using.</p>"
        )
    elif status is FlowStatus.DECLINED:
        title = "Declined"
        body = (
            f"<h1>Declined</h1>\n<p>You declined; {name} received nothing. You can close this "
            "tab and go back to the app you were using.</p>"
        )
    elif status is FlowStatus.EXPIRED:
        title = "This request has expired"
        body = (
            f"<h1>This request has expired</h1>\n<p>It is no longer possible to answer it. "
            f"Go back to the app you were using and ask {name} again.</p>"
        )
    else:
        title = "Waiting for you"
        body = (
            f"<h1>Waiting for you</h1>\n<p>{name} is still waiting for an answer to this "
            f'request.</p>\n<p><a href="{_e(flow_url(base, flow_id))}">Answer it</a></p>'
        )
    return _page(base, f"{title} - {server_name}", body)


def refused_page(*, base: str, server_name: str) -> str:
    # The same words whether nobody is signed in or someone else is: a person handed another
    # user's link learns nothing about that user's request.
    body = (
        "<h1>This link was not made for you</h1>\n"
        f"<p>It belongs to another sign-in. If you asked {_e(server_name)} for it, open it in "
        "the browser where you are signed in with the same account you use with the app.</p>"
    )
    return _page(base, "This link was not made for you", body)


def not_found_page(*, base: str) -> str:
    body = (
        "<h1>Nothing here</h1>\n<p>There is no request at this address. It may have been "
        "answered long ago, or the link may be incomplete.</p>"
    )
    return _page(base, "Nothing here", body)


def forged_page(*, base: str) -> str:
    body = (
        "<h1>This form could not be accepted</h1>\n<p>This form did not come from this page "
        "or has expired; reload it and try again.</p>"
    )
    return _page(base, "This form could not be accepted", body)


def problem_page(*, base: str, title: str, message: str) -> str:
    """Any other refusal: a bad or oversized request, a wrong method, a server error."""
    return _page(base, title, f"<h1>{_e(title)}</h1>\n<p>{_e(message)}</p>")
