"""Split a URL into scheme, authority parts and the rest, the way browsers do.

Not ``urllib.parse``: it silently drops tabs and newlines, takes the first ``@`` where browsers
take the last, and knows nothing of browsers reading ``\\`` as ``/`` in ``https:`` URLs. The point
of this module is to find the host a browser would really open, so it follows the WHATWG URL
Standard's state machine for the parts that decide the host, and notes every deviation from the
plain ``scheme://host[:port]/...`` spelling so the caller can report it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_elicit.i18n import _

# Schemes whose URLs always have a host, and whose parsing differs (WHATWG "special schemes").
SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}

_SCHEME_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SCHEME_REST = _SCHEME_FIRST | frozenset("0123456789+-.")
_C0_OR_SPACE = "".join(chr(cp) for cp in range(0x21))


def browser_clean(url: str) -> str:
    """What a browser parses: leading and trailing C0 controls and spaces removed, and every tab
    and newline removed wherever it is (the caller has already reported them)."""
    url = url.strip(_C0_OR_SPACE)
    if "\t" in url or "\n" in url or "\r" in url:
        url = url.replace("\t", "").replace("\n", "").replace("\r", "")
    return url


def split_scheme(url: str) -> tuple[str, str] | None:
    """``(lowercased scheme, rest after the colon)``, or ``None`` when there is no valid scheme
    (a relative reference, or text that is not a URL at all)."""
    colon = url.find(":")
    if colon <= 0:
        return None
    scheme = url[:colon]
    if scheme[0] not in _SCHEME_FIRST or any(c not in _SCHEME_REST for c in scheme):
        return None
    return scheme.lower(), url[colon + 1 :]


@dataclass(slots=True)
class Authority:
    """The authority of a hierarchical URL, as a browser splits it."""

    host: str
    """The host text exactly as written (brackets included for IPv6), not yet decoded."""
    port: str | None
    """The text after the host's ``:``, or ``None`` when there is no ``:``."""
    userinfo: str | None
    """Everything before the last ``@``, or ``None`` when there is no ``@``."""
    slashes: str
    """What separated ``scheme:`` from the authority; ``//`` is the only clean spelling."""
    backslash: bool
    """A ``\\`` somewhere before the query, which a browser reads as ``/``."""
    problems: list[str] = field(default_factory=list)
    """Why the host/port split failed (an unclosed ``[``...), in the language in effect when the
    URL was split; the host is then unusable."""


def split_authority(rest: str, *, special: bool) -> Authority | None:
    """Split what follows ``scheme:``. Returns ``None`` for a URL without an authority
    (``mailto:x``, ``urn:...``), which only non-special schemes can be."""
    # Browsers skip any run of '/' and '\' after a special scheme ("https:/\evil.com" opens
    # evil.com); a non-special scheme has an authority only after exactly "//".
    if special:
        end = 0
        while end < len(rest) and rest[end] in "/\\":
            end += 1
        slashes, after = rest[:end], rest[end:]
    elif rest.startswith("//"):
        slashes, after = "//", rest[2:]
    else:
        return None

    # The authority ends at the first '/', '?' or '#' ('\' too for special schemes).
    terminators = "/?#\\" if special else "/?#"
    stop = len(after)
    for index, char in enumerate(after):
        if char in terminators:
            stop = index
            break
    authority, path = after[:stop], after[stop:]

    # Backslashes matter where a browser turns them into slashes: before the query.
    before_query = slashes + path.split("?", 1)[0].split("#", 1)[0]
    backslash = special and ("\\" in before_query or "\\" in authority)

    # The LAST '@' separates the userinfo: "https://a@b@evil.com" opens evil.com.
    userinfo: str | None = None
    at = authority.rfind("@")
    if at >= 0:
        userinfo, authority = authority[:at], authority[at + 1 :]

    result = Authority(
        host=authority, port=None, userinfo=userinfo, slashes=slashes, backslash=backslash
    )
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            result.problems.append(_("an IPv6 address is opened with '[' but never closed"))
            return result
        result.host, tail = authority[: close + 1], authority[close + 1 :]
        if tail.startswith(":"):
            result.port = tail[1:]
        elif tail:
            result.problems.append(_("text follows the ']' that closes the IPv6 address"))
    else:
        # The first ':' outside brackets ends the host; a second one makes the port invalid.
        host, colon, port = authority.partition(":")
        result.host = host
        result.port = port if colon else None
    return result


def parse_port(text: str) -> int | None:
    """The port number, ``-1`` for an empty port (``https://x:/``, which browsers accept and
    treat as the default), or ``None`` when browsers would reject it."""
    if text == "":
        return -1
    if not text.isascii() or not text.isdigit():
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > 5:
        return None
    value = int(digits)
    return value if value <= 65535 else None
