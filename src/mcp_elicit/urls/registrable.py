"""The registrable domain of a host, from the Public Suffix List.

``accounts.google.com.evil.co.uk`` belongs to whoever registered ``evil.co.uk``: that is the
part a person must look at, and the part a long host name is built to push out of sight.
"""

from __future__ import annotations

import threading

from publicsuffixlist import PublicSuffixList

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
                _psl = PublicSuffixList()
    return _psl


def registrable_domain(ascii_host: str) -> str | None:
    """The registrable domain (eTLD+1) of a lowercase punycode name, in the same form, or
    ``None`` when the name is itself a public suffix or has a single label."""
    name = ascii_host.removesuffix(".")
    if "." not in name:
        return None
    result = public_suffix_list().privatesuffix(name)
    return result if isinstance(result, str) else None
