"""The rules a link is held to before the server sends it: the hosted pages' ``public_url``
(``pages.hosts.check_transport``) and a link a tool author sends (``ask_url``,
``UrlRequired``, :func:`refuse_unsafe_link`).

- **https off loopback.** 2025-11-25 and 2026-07-28 (Safe URL Handling): servers SHOULD use
  HTTPS URLs outside development. A page on plain http off this machine is read, and can be
  rewritten, by anyone on the path. Loopback never leaves the machine (a stdio server's own
  pages, local development): it stays allowed. The author's opt-out is
  ``allow_insecure_http=True`` (or :data:`INSECURE_HTTP_VARIABLE` set to ``1``), as for the
  hosted pages.
- **No sensitive information about the user in the link.** Servers MUST NOT include
  "credentials, personal identifiable information, etc." in the URL of a URL-mode request:
  the client shows it, logs it, and the browser keeps it in its history. Refused: a user name
  or password before the host; a query or fragment parameter named like a credential
  (``password=``, ``token=``, ``api_key=``: the names ``forms.linting`` reads as a secret in a
  form); a parameter or path segment holding an email address (``forms.values.is_email``); a
  parameter holding a JSON Web Token or a key with a well-known prefix. The author's opt-out
  is ``allow_sensitive_data=True`` (the data is not the user's, or not sensitive).

The error (:class:`UnsafeLink`) names the rule and the offending part (a parameter's name,
"a path segment") and never the value there, which is the secret the rule is about.
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import parse_qsl, unquote, urlsplit

from mcp_elicit.forms.linting import secret_term
from mcp_elicit.forms.values import is_email
from mcp_elicit.server.errors import UnsafeLink

__all__ = [
    "INSECURE_HTTP_VARIABLE",
    "insecure_http_allowed",
    "is_loopback_host",
    "refuse_unsafe_link",
    "sensitive_parts",
]

INSECURE_HTTP_VARIABLE = "MCP_ELICIT_ALLOW_INSECURE_HTTP"
"""Set to ``1`` (or ``true``, ``yes``): plain http off loopback, for development only; the
same as ``allow_insecure_http=True`` (the hosted pages, ``ask_url``, ``UrlRequired``)."""

# A JSON Web Token (three base64url parts, the first a JSON object), or a key with the prefix
# its issuer gives it so that it can be found where it should not be.
_TOKEN = re.compile(
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
    r"|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9_-]{20,}|sk_live_[A-Za-z0-9]{16,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}"
)
_HIDDEN = "•••"


def is_loopback_host(host: str) -> bool:
    """An address or name that never leaves this machine: 127.0.0.0/8, ``::1``, ``localhost``
    and names under it (RFC 6761, which browsers resolve to loopback themselves)."""
    host = host.strip("[]").lower().rstrip(".")
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost" or host.endswith(".localhost")


def insecure_http_allowed(allow_insecure_http: bool = False) -> bool:
    """``allow_insecure_http``, or the :data:`INSECURE_HTTP_VARIABLE` opt-in."""
    flag = os.environ.get(INSECURE_HTTP_VARIABLE, "").strip().lower()
    return allow_insecure_http or flag in ("1", "true", "yes")


def sensitive_parts(url: str) -> list[str]:
    """What in ``url`` looks like sensitive information about the user, each in words that
    name the place and never the value (``"parameter 'password' (named like a credential)"``).
    """
    parts = urlsplit(url)
    found: list[str] = []
    if parts.username is not None or parts.password is not None:
        found.append("a user name or password before the host")
    for segment in parts.path.split("/"):
        if "@" in segment and is_email(unquote(segment)):
            found.append("a path segment (an email address)")
            break
    for where, text in (("query", parts.query), ("fragment", parts.fragment)):
        for name, value in parse_qsl(text, keep_blank_values=True):
            shown = _shown(name)
            term = secret_term(name)
            if term is not None:
                found.append(f"{where} parameter {shown} (named like a credential: {term!r})")
            elif "@" in value and is_email(value.strip()):
                found.append(f"{where} parameter {shown} (an email address)")
            elif _TOKEN.search(value):
                found.append(f"{where} parameter {shown} (a value that looks like a token)")
    return found


def refuse_unsafe_link(
    url: str, *, where: str, allow_insecure_http: bool = False, allow_sensitive_data: bool = False
) -> None:
    """Raise :class:`UnsafeLink` when ``url`` breaks a rule of this module and its opt-out
    was not given. ``where`` names the call in the error: ``"ask_url()"``, say."""
    parts = urlsplit(url)
    if (
        parts.scheme.lower() == "http"
        and not is_loopback_host(parts.hostname or "")
        and not insecure_http_allowed(allow_insecure_http)
    ):
        raise UnsafeLink(
            f"{where}: the link {_place(url)} is plain http on a host that is not loopback "
            "(HTTPS outside development): the page, and whatever the person types there, "
            "would cross the network readable by anyone on the path. Use an https:// link; "
            "for development only, pass allow_insecure_http=True (or set "
            f"{INSECURE_HTTP_VARIABLE}=1)"
        )
    if allow_sensitive_data:
        return
    found = sensitive_parts(url)
    if found:
        raise UnsafeLink(
            f"{where}: the link {_place(url)} carries what looks like sensitive information "
            f"about the user in {'; '.join(found)}. A URL-mode link MUST NOT carry "
            "credentials or personal data: the client shows and logs it, and the browser "
            "keeps it in its history. Put an id of your own in the link (a flow's URL, say) "
            "and keep the data on the server; if it is neither the user's nor sensitive, pass "
            "allow_sensitive_data=True"
        )


def _place(url: str) -> str:
    """``url`` as an error shows it: scheme, host, port and path; no user name or password,
    and ``?•••`` / ``#•••`` for a query or fragment, which may hold the value at issue."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        port = ""
    path = "/".join(
        _HIDDEN if "@" in segment and is_email(unquote(segment)) else segment
        for segment in parts.path.split("/")
    )
    shown = f"{parts.scheme}://{host}{port}{path}"
    if parts.query:
        shown += f"?{_HIDDEN}"
    if parts.fragment:
        shown += f"#{_HIDDEN}"
    return repr(shown if len(shown) <= 120 else shown[:117] + "...")


def _shown(name: str) -> str:
    return repr(name if len(name) <= 40 else name[:37] + "...")
