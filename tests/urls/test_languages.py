"""URL verdicts in the person's language: the messages follow it, the reason codes never do.

A set of URLs (and policies, and resolutions) that between them produce every reason code
urls/ has, and most ways a message is worded, is checked three ways:

- in English, every :class:`ReasonCode` comes up (so the other two runs cover every code);
- in Chinese (``zh-Hans``), every message and ``who_controls`` text has Chinese in it, and the
  codes are exactly the English run's, in the same order;
- under the pseudo-locale (``tests/i18n_support.py``), no English word escaped the catalogs:
  what is left plain is the test's own data (the URL, its host and labels, Unicode's character
  names, the idna library's and the resolver's own words).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import pytest

from mcp_elicit.i18n import language
from mcp_elicit.i18n.catalogs import forget_catalogs
from mcp_elicit.urls import DEFAULT_POLICY, ReasonCode, UrlPolicy, UrlVerdict, check_url
from mcp_elicit.urls import check as check_module
from mcp_elicit.urls.characters import describe_character, visible
from mcp_elicit.urls.idn import skeleton
from tests.i18n_support import escaped, pseudo_language

DEV = UrlPolicy(allow_http_loopback=True)
INTRANET = UrlPolicy(allow_private=True)
INTRANET_DEV = UrlPolicy(allow_private=True, allow_http_loopback=True)
WITH_HTTP = UrlPolicy(allowed_schemes=frozenset({"https", "http"}))
NOTHING = UrlPolicy(allowed_schemes=frozenset())
CJK = re.compile(r"[\u4e00-\u9fff]")
BROKEN = "https://example.com/?broken"


@dataclass(frozen=True)
class Case:
    url: str
    policy: UrlPolicy = DEFAULT_POLICY
    addresses: tuple[str, ...] | None = None
    """Resolve the host, and DNS answers these addresses (``None``: do not resolve)."""
    allowed: tuple[str, ...] = field(default=())
    """Plain words the messages may carry besides the URL's own (library or system words)."""


CASES = [
    # The text of the URL.
    Case("https://example.com/" + "a" * 3000, UrlPolicy(max_length=2048)),
    Case(""),
    Case("example.com/path"),
    Case("https:example.com"),
    Case("https://exa\ud800mple.com/"),
    Case("https://exa mple.com/"),
    Case("https://example.com/a\tb\tc"),
    Case("https://example.com/\x01"),
    Case("https://example.com/\u202egnp.exe"),
    Case("https://exa\u200bmple.com/"),
    Case(
        "https://exa%e2%80%aemple.com/",
        allowed=("Codepoint", "not", "allowed", "at", "position", "in", "\\u202emple"),
    ),
    Case("https://exa%00mple.com/"),
    Case("https://evil.example\\@good.example/"),
    # The scheme.
    Case("mailto:someone@example.com"),
    Case("javascript:alert(1)"),
    Case("ftp://example.com/file", NOTHING),
    Case("http://example.com/", DEV),
    Case("http://example.com/", WITH_HTTP),
    Case("http://127.0.0.1:8000/", DEV),
    Case("http://localhost:8000/", DEV),
    # The authority.
    Case("https://user:secret@example.com/"),
    Case("https://user@/x"),
    Case("https://@/"),
    Case("https://exa%ffmple.com/"),
    Case("https://[::1/"),
    Case("https://[::1]x/"),
    Case("https://[zz]/"),
    Case("https://[fe80::1%25eth0]/"),
    Case("https://1.2.3.999/"),
    Case("https://a..b/"),
    Case("https://ex<ample.com/"),
    Case("https://" + "a" * 64 + ".com/", allowed=("a" * 39,)),
    Case("https://" + "a." * 130 + "com/"),
    Case("https://xn--a.com/", allowed=("Codepoint", "at", "position", "of", "not", "allowed")),
    Case("https://example.com:99999/"),
    Case("https://example.com:8443/"),
    # Where the host points.
    Case("https://127.0.0.1/"),
    Case("https://localhost/"),
    Case("https://[::1]/"),
    Case("https://10.0.0.1/"),
    Case("https://10.0.0.1/", INTRANET),
    Case("https://[fc00::1]/"),
    Case("https://169.254.1.1/"),
    Case("https://100.64.0.1/"),
    Case("https://224.0.0.1/"),
    Case("https://[ff02::1]/"),
    Case("https://0.0.0.0/"),
    Case("https://0.1.2.3/"),
    Case("https://[::]/"),
    Case("https://192.0.2.1/"),
    Case("https://255.255.255.255/"),
    Case("https://[2001:db8::1]/"),
    Case("https://[100::1]/"),
    Case("https://[::ffff:10.0.0.1]/"),
    Case("https://[64:ff9b::a00:1]/"),
    Case("https://169.254.169.254/latest/meta-data/"),
    Case("https://[::ffff:169.254.169.254]/"),
    Case("https://metadata.google.internal/"),
    Case("https://printer.local/"),
    Case("https://db.internal/"),
    Case("https://printer.home.arpa/"),
    Case("https://intranet/"),
    Case("https://app.test/"),
    Case("https://svc.foo123/"),
    Case("https://x.onion/"),
    Case("https://x.in-addr.arpa/"),
    Case("https://com/"),
    Case("https://93.184.216.34/"),
    Case("https://0x7f.1/"),
    Case("https://0x7f.1/", INTRANET_DEV),
    Case("https://%65xample.com/"),
    Case("https://10-0-0-1.sslip.io/"),
    Case("https://10-0-0-1.sslip.io/", INTRANET),
    Case("https://10.0.0.1.nip.io/"),
    Case("https://10-0-0-1.example.com/"),
    Case("https://2001-db8--1.sslip.io/"),
    Case("https://localtest.me/"),
    Case("https://localtest.me/", DEV),
    Case("https://0a000001.nip.io/"),
    Case("https://app-7f000001.example.com/"),
    Case("https://does-not-exist.invalid/", INTRANET, addresses=()),
    Case("https://empty-answer.example.com/", addresses=()),
    Case("https://public.example.com/", addresses=("93.184.216.34", "10.0.0.5", "::1")),
    Case("https://public.example.com/", INTRANET_DEV, addresses=("10.0.0.5", "127.0.0.1")),
    # How the host looks.
    Case("https://münchen.de/"),
    Case("https://p\u0430ypal.com/"),
    Case("https://\u0430\u0440\u0440\u04cf\u0435.com/"),
    Case("https://ＥＸＡＭＰＬＥ.com/"),
    Case("https://xn--80ak6aa92e.com/"),
    # The checker itself.
    Case(BROKEN),
]


@pytest.fixture(autouse=True)
def fresh_catalogs() -> Iterator[None]:
    forget_catalogs()
    yield
    forget_catalogs()


def check(case: Case, monkeypatch: pytest.MonkeyPatch) -> UrlVerdict:
    if case.url == BROKEN:
        with monkeypatch.context() as patched:
            patched.setattr(check_module, "_check", _crash)
            return check_url(case.url, case.policy)
    if case.addresses is None:
        return check_url(case.url, case.policy)
    with monkeypatch.context() as patched:
        patched.setattr(socket, "getaddrinfo", _answering(case.addresses))
        return check_url(case.url, case.policy, resolve=True)


def _crash(*args: Any) -> UrlVerdict:
    raise RuntimeError("a bug")


def _answering(addresses: tuple[str, ...]) -> Any:
    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        if host.endswith(".invalid"):
            raise AssertionError("a name under .invalid was looked up")
        result = []
        for address in addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, port, 0, 0) if ":" in address else (address, port)
            result.append((family, socket.SOCK_STREAM, 6, "", sockaddr))
        return result

    return getaddrinfo


def texts(verdict: UrlVerdict) -> list[str]:
    """Everything a person reads in a verdict: each reason's message, and who controls it."""
    shown = [reason.message for reason in verdict.reasons]
    if verdict.who_controls is not None:
        shown.append(verdict.who_controls)
    return shown


def data(case: Case, verdict: UrlVerdict) -> list[str]:
    """What a verdict's words may carry as they are: the URL and its parts, the policy's
    schemes, the host in both forms, its labels and domain, Unicode's names of its characters,
    the exception's name."""
    pieces = [case.url, visible(case.url, None), *case.allowed, *case.policy.allowed_schemes]
    pieces.append("RuntimeError")
    if verdict.display_host is not None:
        for host in (verdict.display_host.unicode, verdict.display_host.ascii):
            pieces += [host, visible(host, None), *host.split(".")]
        # What the host can be read as, and each letter a look-alike passes for.
        read_as = skeleton(verdict.display_host.unicode)
        pieces += [read_as, *read_as.split("."), *(f"'{char}'" for char in read_as)]
    if verdict.registrable_domain is not None:
        pieces.append(verdict.registrable_domain)
    parts = re.split(r"[/:@?#\[\]\\.%]+", case.url)
    pieces += parts + [visible(part, None) for part in parts]
    # Characters named in a message: as written, percent-decoded, or lowercased (fullwidth
    # letters are folded, then named in the look-alike message).
    shown = "" if verdict.display_host is None else verdict.display_host.unicode
    for char in set(case.url) | set(unquote(case.url)) | set(case.url.lower()) | set(shown):
        if not char.isascii() or not char.isalnum():
            pieces.append(describe_character(char))
    return [piece for piece in pieces if piece]


# Addresses and networks (ff00::/8, [2001:db8::1], 64:ff9b::a00:1) are data in any language.
_ADDRESS = re.compile(r"\[?[0-9a-f]*:[0-9a-f:.]*\]?(/\d+)?|\b[0-9.]+/\d+")


def addresses_in(text: str) -> list[str]:
    return [found.group() for found in _ADDRESS.finditer(text)]


@pytest.fixture
def english(monkeypatch: pytest.MonkeyPatch) -> list[UrlVerdict]:
    return [check(case, monkeypatch) for case in CASES]


def test_the_cases_produce_every_reason_code(english: list[UrlVerdict]) -> None:
    produced = {code for verdict in english for code in verdict.codes}
    assert set(ReasonCode) - produced == set()


def test_chinese_messages_keep_the_codes(
    english: list[UrlVerdict], monkeypatch: pytest.MonkeyPatch
) -> None:
    with language("zh-Hans"):
        chinese = [check(case, monkeypatch) for case in CASES]
        for case, before, after in zip(CASES, english, chinese, strict=True):
            assert after.codes == before.codes, case.url
            assert after.verdict is before.verdict, case.url
            assert after.display_host == before.display_host
            assert after.registrable_domain == before.registrable_domain
            assert (after.who_controls is None) == (before.who_controls is None)
            for text in texts(after):
                assert CJK.search(text), (case.url, text)


def test_every_word_comes_from_the_catalogs(monkeypatch: pytest.MonkeyPatch) -> None:
    with pseudo_language():
        for case in CASES:
            verdict = check(case, monkeypatch)
            for text in texts(verdict):
                allowed = data(case, verdict) + addresses_in(text)
                assert escaped(text, allowed=allowed) == [], (case.url, text)


def test_who_controls_is_worded_when_read() -> None:
    """A verdict made (or cached) in one language says who controls the link in the language
    in effect when it is read; its reasons keep the language they were checked in."""
    verdict = check_url("http://printer.local/", DEV)
    english = verdict.who_controls
    with language("zh-Hans"):
        assert verdict.who_controls is not None and CJK.search(verdict.who_controls)
        assert not any(CJK.search(reason.message) for reason in verdict.reasons)
    assert verdict.who_controls == english


def test_english_is_the_source(english: list[UrlVerdict], monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking for English explicitly changes nothing, word for word."""
    with language("en"):
        again = [check(case, monkeypatch) for case in CASES]
    assert [texts(verdict) for verdict in again] == [texts(verdict) for verdict in english]
    assert english[CASES.index(Case("https://0x7f.1/"))].reasons[0].message == (
        "the host 127.0.0.1 is loopback: this machine itself (127.0.0.0/8)"
    )
