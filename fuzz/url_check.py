"""Fuzz target: the URL checker (``mcp_elicit.urls.check_url``), under the default policy and
a relaxed one (http to loopback, private networks, http and ftp allowed).

Contract, for any string (lone surrogates included):

- it returns a ``UrlVerdict`` for that very URL, never raises and never fails closed with
  ``internal_error`` (which would mean the check itself crashed); it touches no network
  (``resolve`` is off: any name lookup is a finding);
- it is deterministic: the same URL gives an equal verdict;
- the verdict is the heaviest severity among the reasons (no reasons: allow);
- whitespace, control, format (bidi, invisible) and surrogate characters anywhere block it,
  whatever the policy; and under the default policy a link that is not blocked is an
  ``https:`` link with a host to show;
- ``who_controls`` is said exactly when there is a host to show, a registrable domain only
  with one, and the JSON form serialises.

Input: the bytes as UTF-8 (a byte that is not UTF-8 becomes a lone surrogate).
"""

from __future__ import annotations

import json
import socket
import sys
import unicodedata

import atheris
from _harness import ContractViolation, expect, main

with atheris.instrument_imports(include=["mcp_elicit"]):
    from mcp_elicit.urls import Severity, UrlPolicy, UrlVerdict, Verdict, check_url

RELAXED = UrlPolicy(
    allowed_schemes=frozenset({"https", "http", "ftp", "mailto"}),
    allow_http_loopback=True,
    allow_private=True,
)
_BLOCKING_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"})


def _no_network(*args: object, **kwargs: object) -> None:
    raise ContractViolation("check_url looked a name up without resolve=True")


def check(data: bytes) -> None:
    url = data.decode("utf-8", "surrogateescape")
    for policy in (None, RELAXED):
        result = check_url(url) if policy is None else check_url(url, policy)
        well_formed(result, url)
        again = check_url(url) if policy is None else check_url(url, policy)
        expect(again == result, f"a second check differs: {result} / {again}")
        if any(_blocks(char) for char in url):
            expect(result.verdict is Verdict.BLOCK, f"{url!r} has a blocking character: {result}")
        if policy is None and result.verdict is not Verdict.BLOCK:
            expect(result.display_host is not None, f"not blocked, with no host: {result}")
            scheme = url.partition(":")[0].strip().lower()
            expect(scheme == "https", f"scheme {scheme!r} not blocked: {result}")


def _blocks(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in _BLOCKING_CATEGORIES


def well_formed(result: UrlVerdict, url: str) -> None:
    expect(isinstance(result, UrlVerdict), f"check_url returned {type(result).__name__}")
    expect(result.url == url, "the verdict is about another URL")
    expect("internal_error" not in result.codes, f"the check crashed: {result.reasons}")
    severities = {reason.severity for reason in result.reasons}
    if Severity.BLOCK in severities:
        expect(result.verdict is Verdict.BLOCK, f"a blocking reason without a block: {result}")
    elif severities:
        expect(result.verdict is Verdict.WARN, f"warnings without a warn verdict: {result}")
    else:
        expect(result.verdict is Verdict.ALLOW, f"no reasons, yet {result.verdict}")
    for reason in result.reasons:
        expect(reason.code and reason.message, f"an empty reason: {reason}")
    json.dumps(result.to_json(), ensure_ascii=False)
    expect(
        (result.who_controls is None) == (result.display_host is None),
        f"who_controls and display_host disagree: {result}",
    )
    if result.registrable_domain is not None:
        expect(result.display_host is not None, f"a registrable domain with no host: {result}")


if __name__ == "__main__":
    socket.getaddrinfo = _no_network  # type: ignore[assignment]
    socket.gethostbyname = _no_network  # type: ignore[assignment]
    main(check, "url_check")
    sys.exit(0)
