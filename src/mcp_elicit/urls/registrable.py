"""The registrable domain of a host, from the Public Suffix List.

``accounts.google.com.evil.co.uk`` belongs to whoever registered ``evil.co.uk``: that is the
part a person must look at, and the part a long host name is built to push out of sight.
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import PurePath

import publicsuffixlist
from publicsuffixlist import PublicSuffixList

_BUNDLED = PurePath(publicsuffixlist.PSLFILE).name  # public_suffix_list.dat
_lock = threading.Lock()
_psl: PublicSuffixList | None = None


def public_suffix_list() -> PublicSuffixList:
    """The list bundled with ``publicsuffixlist`` (never fetched), parsed once on first use:
    parsing takes tens of milliseconds, too much to repeat per URL and wasted on import."""
    global _psl
    if _psl is None:
        with _lock:
            if _psl is None:
                # Private suffixes (github.io, blogspot.com...) count: on them, each
                # subdomain belongs to a different person, which is what matters here.
                _psl = PublicSuffixList(_rules_with_punycode(), accept_encoded_idn=False)
    return _psl


def _rules_with_punycode() -> list[str]:
    """The bundled list's lines, plus the punycode form of each non-ASCII rule.

    What ``PublicSuffixList()`` builds with ``accept_encoded_idn=True``, in about two thirds
    of the time (19 ms instead of 28 here): it runs the IDNA codec on all ~10,000 rules, ASCII
    ones included, where only ~460 need it, and the list's rules are already normalised
    (lowercase, NFC), so plain punycode of their non-ASCII labels is their IDNA form. The
    first URL check pays this, which is most of ``mcp-elicit url check``'s own time.
    ``tests/urls`` checks the result equals the library's."""
    # The library's own bundled data, read as PublicSuffixList() reads it (never fetched):
    # part of the dependency, like its code, not I/O of this layer's callers.
    text = resources.files(publicsuffixlist).joinpath(_BUNDLED).read_text("utf-8")
    # A third of the lines are comments or blank: dropped here at C speed (the library would
    # lowercase and split each one before skipping it), rules kept as the file has them.
    lines = [line for line in text.splitlines() if line and not line.startswith("//")]
    encoded = []
    # Only a line with non-ASCII characters can need encoding: str.isascii() picks the ~460
    # out of ~10,000 at C speed before anything else is done to a line.
    for line in filter(lambda line: not line.isascii(), lines):
        rule = line.lower().split(" ")[0].rstrip()
        if rule and not rule.startswith("//") and not rule.isascii():
            bang, name = ("!", rule[1:]) if rule.startswith("!") else ("", rule)
            labels = (
                label if label.isascii() else "xn--" + label.encode("punycode").decode("ascii")
                for label in name.split(".")
            )
            encoded.append(bang + ".".join(labels))
    return lines + encoded


def registrable_domain(ascii_host: str) -> str | None:
    """The registrable domain (eTLD+1) of a lowercase punycode name, in the same form, or
    ``None`` when the name is itself a public suffix or has a single label."""
    name = ascii_host.removesuffix(".")
    if "." not in name:
        return None
    result = public_suffix_list().privatesuffix(name)
    return result if isinstance(result, str) else None
