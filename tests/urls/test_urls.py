"""URL safety verdicts: every block and warn category, in the spellings attackers use."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_elicit.urls import (
    DisplayHost,
    ReasonCode,
    Severity,
    UrlPolicy,
    UrlVerdict,
    Verdict,
    check_url,
    check_url_async,
)
from mcp_elicit.urls.characters import classify_character
from mcp_elicit.urls.hosts import parse_whatwg_ipv4

DOCS = Path(__file__).resolve().parents[2] / "docs" / "urls.md"
DEV = UrlPolicy(allow_http_loopback=True)


def case(url: str, *codes: str, id: str) -> Any:
    return pytest.param(url, set(codes), id=id)


def assert_verdict(result: UrlVerdict, verdict: Verdict, codes: set[str]) -> None:
    found = set(result.codes)
    assert result.verdict is verdict, (result.verdict, result.reasons)
    assert codes <= found, (codes - found, result.reasons)


def block_codes(result: UrlVerdict) -> set[str]:
    return {r.code for r in result.reasons if r.severity is Severity.BLOCK}


# --- block: schemes -------------------------------------------------------------------------

SCHEMES = [
    case("javascript:alert(1)", "scheme_not_allowed", id="javascript"),
    case("JaVaScRiPt:alert(document.domain)", "scheme_not_allowed", id="javascript-mixed-case"),
    case("javascript://example.com/%0aalert(1)", "scheme_not_allowed", id="javascript-authority"),
    case("data:text/html;base64,PHNjcmlwdD4=", "scheme_not_allowed", id="data"),
    case("file:///etc/passwd", "scheme_not_allowed", id="file"),
    case("http://example.com/", "scheme_not_allowed", id="http"),
    case("HTTP://EXAMPLE.COM/", "scheme_not_allowed", id="http-upper"),
    case("ftp://example.com/file", "scheme_not_allowed", id="ftp"),
    case("ws://example.com/socket", "scheme_not_allowed", id="ws"),
    case("wss://example.com/socket", "scheme_not_allowed", id="wss"),
    case("blob:https://example.com/2b1a-77", "scheme_not_allowed", id="blob"),
    case("about:blank", "scheme_not_allowed", id="about"),
    case("vbscript:msgbox(1)", "scheme_not_allowed", id="vbscript"),
    case("myapp+callback://auth?code=1", "scheme_not_allowed", id="custom-scheme"),
    case("mailto:someone@example.com", "scheme_not_allowed", id="mailto"),
]


@pytest.mark.parametrize(("url", "codes"), SCHEMES)
def test_schemes_other_than_https_are_blocked(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url), Verdict.BLOCK, codes)


def test_a_blocked_http_url_still_reports_its_host() -> None:
    result = check_url("http://accounts.example.co.uk/login")
    assert result.codes == ("scheme_not_allowed",)
    assert result.display_host == DisplayHost("accounts.example.co.uk", "accounts.example.co.uk")
    assert result.registrable_domain == "example.co.uk"


def test_javascript_has_no_host() -> None:
    result = check_url("javascript:alert(1)")
    assert result.display_host is None
    assert result.registrable_domain is None


# --- block: malformed URLs, empty and invalid hosts ------------------------------------------

MALFORMED = [
    case("", "malformed_url", id="empty-string"),
    case("example.com/path", "malformed_url", id="no-scheme"),
    case("//example.com/", "malformed_url", id="scheme-relative"),
    case("/relative/path", "malformed_url", id="path-only"),
    case("1https://example.com/", "malformed_url", id="scheme-starts-with-digit"),
    case("ht tp://example.com/", "malformed_url", "whitespace", id="space-in-scheme"),
    case("https:example.com/", "malformed_url", id="no-slashes"),
    case("https:/example.com/", "malformed_url", id="one-slash"),
    case("https:///example.com/", "malformed_url", id="three-slashes"),
    case("https://x:99999/", "invalid_port", id="port-too-big"),
    case("https://example.com:443x/", "invalid_port", id="port-not-a-number"),
    case("https://example.com:-1/", "invalid_port", id="port-negative"),
    case("https://a:b:c/", "invalid_port", id="two-colons"),
    case("https://[::1/", "invalid_host", id="unclosed-bracket"),
    case("https://[::1]x/", "invalid_host", id="text-after-bracket"),
    case("https://[127.0.0.1]/", "invalid_host", id="ipv4-in-brackets"),
    case("https://[gggg::1]/", "invalid_host", id="bad-ipv6"),
    case("https://1.2.3.4.5/", "invalid_host", id="five-part-ipv4"),
    case("https://256.0.0.1/", "invalid_host", id="ipv4-part-over-255"),
    case("https://4294967296/", "invalid_host", id="ipv4-over-32-bits"),
    case("https://foo.123/", "invalid_host", id="numeric-last-label"),
    case("https://0x1g.0.0.1/", "invalid_host", id="bad-hex-part"),
    case("https://08.0.0.1/", "invalid_host", id="bad-octal-part"),
    case("https://a..b.com/", "invalid_host", id="empty-label"),
    case("https://a*b.com/", "invalid_host", id="asterisk"),
    case("https://exa<mple.com/", "invalid_host", id="forbidden-code-point"),
    case("https://google.com%2Fevil.com/", "invalid_host", id="encoded-slash-in-host"),
    case("https://google.com%40evil.com/", "invalid_host", id="encoded-at-in-host"),
    case("https://google.com\uff0fevil.com/", "invalid_host", id="fullwidth-solidus"),
    case("https://%ff.example.com/", "invalid_host", id="encoded-invalid-utf8"),
    case("https://" + "a" * 64 + ".com/", "invalid_host", id="label-over-63"),
    case("https://" + "abcdefghi." * 26 + "com/", "invalid_host", id="name-over-253"),
    case("https://exa\ud800mple.com/", "malformed_url", "invalid_host", id="lone-surrogate"),
]


@pytest.mark.parametrize(("url", "codes"), MALFORMED)
def test_malformed_urls_are_blocked(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url), Verdict.BLOCK, codes)


EMPTY_HOSTS = [
    case("https://", "empty_host", id="nothing"),
    case("https:///", "empty_host", id="slash"),
    case("https://:443/", "empty_host", id="port-only"),
    case("https://user@/", "empty_host", "credentials", id="userinfo-only"),
    case("https://?q=1", "empty_host", id="query-only"),
    case("https://#top", "empty_host", id="fragment-only"),
]


@pytest.mark.parametrize(("url", "codes"), EMPTY_HOSTS)
def test_empty_hosts_are_blocked(url: str, codes: set[str]) -> None:
    result = check_url(url)
    assert_verdict(result, Verdict.BLOCK, codes)
    assert result.display_host is None


def test_invalid_hosts_have_no_display_host() -> None:
    result = check_url("https://a*b.com/")
    assert result.display_host is None
    assert result.registrable_domain is None


# --- block: whitespace, control, bidi and invisible characters -------------------------------

CHARACTERS = [
    case(" https://example.com/", "whitespace", id="leading-space"),
    case("https://example.com/ ", "whitespace", id="trailing-space"),
    case("https://exa\tmple.com/", "whitespace", id="tab-in-host"),
    case("java\nscript:alert(1)", "whitespace", "scheme_not_allowed", id="newline-in-scheme"),
    case("https://example.com/\r\nSet-Cookie:x", "whitespace", id="crlf"),
    case("https://example.com/a b", "whitespace", id="space-in-path"),
    case("https://example.com/\u00a0", "whitespace", id="no-break-space"),
    case("https://example.com/\u3000", "whitespace", id="ideographic-space"),
    case("https://example.com/\u2028", "whitespace", id="line-separator"),
    case("https://example.com/\x85", "whitespace", id="next-line"),
    case("\x00https://example.com/", "control_character", id="nul"),
    case("https://example.com/\x1b[2J", "control_character", id="escape"),
    case("https://example.com/\x7f", "control_character", id="delete"),
    case("https://example.com/\x9b", "control_character", id="c1-csi"),
    case("https://example.com/\u202egnp.exe", "bidi_control", id="rlo"),
    case("https://ex\u202dample.com/", "bidi_control", id="lro-in-host"),
    case("https://example.com/\u2066x\u2069", "bidi_control", id="lri-pdi"),
    case("https://example.com/\u200f", "bidi_control", id="rlm"),
    case("https://example.com/\u061c", "bidi_control", id="arabic-letter-mark"),
    case("https://exa\u200bmple.com/", "invisible_character", id="zero-width-space"),
    case("https://exa\u200dmple.com/", "invisible_character", id="zero-width-joiner"),
    case("https://exa\u200cmple.com/", "invisible_character", id="zero-width-non-joiner"),
    case("https://\ufeffexample.com/", "invisible_character", id="bom"),
    case("https://exa\u2060mple.com/", "invisible_character", id="word-joiner"),
    case("https://exa\u00admple.com/", "invisible_character", id="soft-hyphen"),
    case("https://exa\u3164mple.com/", "invisible_character", id="hangul-filler"),
    case("https://example.com/\ufe0f", "invisible_character", id="variation-selector"),
    case("https://example.com/\U000e0041", "invisible_character", id="tag-character"),
    case("https://exa%E2%80%8Bmple.com/", "invisible_character", id="percent-encoded-zwsp"),
    case("https://exa%E2%80%AEmple.com/", "bidi_control", id="percent-encoded-rlo"),
]


@pytest.mark.parametrize(("url", "codes"), CHARACTERS)
def test_hidden_characters_are_blocked_anywhere(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url), Verdict.BLOCK, codes)


def test_zero_width_space_is_ignored_in_hosts_as_browsers_do() -> None:
    # The block is the point; the display host shows what a browser would really open.
    result = check_url("https://exa\u200bmple.com/")
    assert result.display_host == DisplayHost("example.com", "example.com")


def test_messages_never_carry_raw_control_or_bidi_characters() -> None:
    result = check_url("https://ex\u202eample.com/\x1b[31m\u200b@x")
    assert result.blocked
    for reason in result.reasons:
        assert all(c == " " or classify_character(c) is None for c in reason.message), reason


# --- block: credentials, @ tricks and backslashes --------------------------------------------

AUTHORITY_TRICKS = [
    case("https://user:pass@example.com/", "credentials", id="user-and-password"),
    case("https://user@example.com/", "credentials", id="user"),
    case("https://google.com@evil.com/", "credentials", id="host-as-user"),
    case("https://google.com:443@evil.com/", "credentials", id="host-and-port-as-user"),
    case("https://@evil.com/", "credentials", id="empty-userinfo"),
    case("https://a@google.com@evil.com/", "credentials", id="two-ats"),
    case("https://evil.com\\@google.com/", "backslash", id="backslash-at"),
    case("https:\\\\evil.com/", "backslash", "malformed_url", id="backslash-slashes"),
    case("https:/\\evil.com/", "backslash", "malformed_url", id="slash-backslash"),
    case("https://example.com\\path", "backslash", id="backslash-path"),
]


@pytest.mark.parametrize(("url", "codes"), AUTHORITY_TRICKS)
def test_authority_tricks_are_blocked(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url), Verdict.BLOCK, codes)


@pytest.mark.parametrize(
    "url",
    ["https://google.com@evil.com/", "https://a@google.com@evil.com/", "https://evil.com\\@x.com/"],
)
def test_the_host_reported_is_the_one_a_browser_opens(url: str) -> None:
    result = check_url(url)
    assert result.display_host == DisplayHost("evil.com", "evil.com")
    assert result.registrable_domain == "evil.com"


def test_credentials_message_names_the_real_host() -> None:
    (reason,) = check_url("https://google.com@evil.com/").reasons
    assert reason.code == "credentials"
    assert "evil.com" in reason.message


@pytest.mark.parametrize(
    ("url", "told", "secret"),
    [
        ("https://admin:hunter2@pages.example.com/", "'admin:•••@'", "hunter2"),
        ("https://x-access-token:ghp_0123456789abcdef@github.com/", ":•••@", "ghp_0123"),
        ("https://ghp_0123456789abcdefghij@github.com/", "'ghp_•••@'", "0123456789abcdefghij"),
        ("https://paypal.com:@evil.example/", "'paypal.com:•••@'", None),
    ],
)
def test_credentials_message_never_repeats_the_password(
    url: str, told: str, secret: str | None
) -> None:
    # The reason goes wherever the verdict is shown or written (a gateway's stderr, a log).
    reasons = {r.code: r.message for r in check_url(url).reasons}
    assert told in reasons["credentials"]
    if secret is not None:
        assert secret not in str(check_url(url).reasons)


def test_a_user_name_like_a_host_is_shown_whole() -> None:
    # The look-alike is the trick the person must see.
    (reason,) = check_url("https://accounts.google.com@evil.com/").reasons
    assert "'accounts.google.com@'" in reason.message


def test_backslash_in_the_query_is_fine() -> None:
    assert_verdict(check_url("https://example.com/search?q=a\\b"), Verdict.ALLOW, set())


# --- block: addresses, in every spelling ------------------------------------------------------

LOOPBACK = [
    "https://127.0.0.1/",
    "https://127.1/",
    "https://127.0.1/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://0X7F000001/",
    "https://0x7f.1/",
    "https://0x7f.0x0.0x0.0x1/",
    "https://0177.0.0.1/",
    "https://0177.1/",
    "https://017700000001/",
    "https://0x7f.0.00.1/",
    "https://127.0.0.1./",
    "https://127.255.255.254/",
    "https://127.0.0.1:8443/",
    "https://%31%32%37.0.0.1/",
    "https://%31%32%37%2E%30%2E%30%2E%31/",
    "https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/",
    "https://127\u30020\u30020\u30021/",
    "https://[::1]/",
    "https://[0:0:0:0:0:0:0:1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::127.0.0.1]/",
    "https://[64:ff9b::127.0.0.1]/",
    "https://[2002:7f00:1::1]/",
    "https://localhost/",
    "https://LOCALHOST/",
    "https://localhost./",
    "https://localhost:3000/",
    "https://app.localhost/",
    "https://a.b.localhost./",
]


@pytest.mark.parametrize("url", LOOPBACK)
def test_loopback_is_blocked_in_every_spelling(url: str) -> None:
    assert_verdict(check_url(url), Verdict.BLOCK, {"loopback"})


ADDRESSES = [
    # private networks
    case("https://10.0.0.1/", "private_network", id="10/8"),
    case("https://10.1/", "private_network", id="10/8-short"),
    case("https://167772161/", "private_network", id="10/8-decimal"),
    case("https://0xa000001/", "private_network", id="10/8-hex"),
    case("https://012.0.0.1/", "private_network", id="10/8-octal"),
    case("https://172.16.0.1/", "private_network", id="172.16/12"),
    case("https://172.31.255.255/", "private_network", id="172.16/12-top"),
    case("https://0xac.0x10.0.1/", "private_network", id="172.16/12-hex-parts"),
    case("https://192.168.1.1/", "private_network", id="192.168/16"),
    case("https://192.168.257/", "private_network", id="192.168/16-three-parts"),
    case("https://3232235777/", "private_network", id="192.168/16-decimal"),
    case("https://0300.0250.1.1/", "private_network", id="192.168/16-octal"),
    case("https://[fc00::1]/", "private_network", id="fc00::/7"),
    case("https://[fd12:3456:789a::1]/", "private_network", id="fd00::/8"),
    case("https://[fec0::1]/", "private_network", id="site-local"),
    case("https://[::ffff:10.0.0.1]/", "private_network", id="mapped-10"),
    case("https://[::ffff:c0a8:101]/", "private_network", id="mapped-192.168-hex"),
    case("https://[64:ff9b::10.0.0.1]/", "private_network", id="nat64-10"),
    case("https://[2002:c0a8:101::]/", "private_network", id="6to4-192.168"),
    # link-local
    case("https://169.254.1.1/", "link_local", id="169.254/16"),
    case("https://0xa9fe0101/", "link_local", id="169.254/16-hex"),
    case("https://[fe80::1]/", "link_local", id="fe80::/10"),
    case("https://[fe80::1%25eth0]/", "link_local", "invalid_host", id="zone-id"),
    case("https://[::ffff:169.254.1.1]/", "link_local", id="mapped-169.254"),
    # carrier-grade NAT
    case("https://100.64.0.1/", "carrier_grade_nat", id="100.64/10"),
    case("https://100.127.255.255/", "carrier_grade_nat", id="100.64/10-top"),
    case("https://1681915905/", "carrier_grade_nat", id="100.64/10-decimal"),
    # multicast
    case("https://224.0.0.1/", "multicast", id="224/4"),
    case("https://239.255.255.250/", "multicast", id="ssdp"),
    case("https://0xe0000001/", "multicast", id="224/4-hex"),
    case("https://[ff02::1]/", "multicast", id="ff00::/8"),
    # unspecified
    case("https://0.0.0.0/", "unspecified_address", id="0.0.0.0"),
    case("https://0/", "unspecified_address", id="zero"),
    case("https://0x0/", "unspecified_address", id="zero-hex"),
    case("https://0.0.0.0./", "unspecified_address", id="zero-trailing-dot"),
    case("https://0.1.2.3/", "unspecified_address", id="this-network"),
    case("https://[::]/", "unspecified_address", id="v6-unspecified"),
    case("https://[::ffff:0.0.0.0]/", "unspecified_address", id="mapped-unspecified"),
    # reserved and broadcast
    case("https://255.255.255.255/", "reserved_address", id="broadcast"),
    case("https://4294967295/", "reserved_address", id="broadcast-decimal"),
    case("https://240.0.0.1/", "reserved_address", id="240/4"),
    case("https://192.0.2.10/", "reserved_address", id="documentation"),
    case("https://198.18.0.1/", "reserved_address", id="benchmarking"),
    case("https://[2001:db8::1]/", "reserved_address", id="v6-documentation"),
    case("https://[100::1]/", "reserved_address", id="v6-discard"),
    case("https://[4000::1]/", "reserved_address", id="v6-outside-global-unicast"),
    # cloud metadata
    case("https://169.254.169.254/latest/meta-data/", "cloud_metadata", "link_local", id="imds"),
    case("https://2852039166/", "cloud_metadata", id="imds-decimal"),
    case("https://0xa9fea9fe/", "cloud_metadata", id="imds-hex"),
    case("https://0251.0376.0251.0376/", "cloud_metadata", id="imds-octal"),
    case("https://169.254.43518/", "cloud_metadata", id="imds-two-parts"),
    case("https://[::ffff:169.254.169.254]/", "cloud_metadata", id="imds-mapped"),
    case("https://[fd00:ec2::254]/", "cloud_metadata", "private_network", id="imds-v6"),
    case("https://169.254.170.2/v2/credentials", "cloud_metadata", id="ecs"),
    case("https://100.100.100.200/", "cloud_metadata", "carrier_grade_nat", id="alibaba"),
    case("https://metadata.google.internal/", "cloud_metadata", "local_name", id="gce-name"),
    case("https://METADATA.GOOGLE.INTERNAL./", "cloud_metadata", id="gce-name-upper-dot"),
    case("https://metadata/computeMetadata/v1/", "cloud_metadata", id="gce-short-name"),
    case("https://instance-data/latest/", "cloud_metadata", id="aws-short-name"),
    # local names
    case("https://printer.local/", "local_name", id="mdns"),
    case("https://host.localdomain/", "local_name", id="localdomain"),
    case("https://db.internal/", "local_name", id="internal"),
    case("https://wiki.corp/", "local_name", id="corp"),
    case("https://router.lan/", "local_name", id="lan"),
    case("https://nas.home.arpa/", "local_name", id="home-arpa"),
    case("https://intranet/", "local_name", id="single-label"),
]


@pytest.mark.parametrize(("url", "codes"), ADDRESSES)
def test_non_public_addresses_are_blocked(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url), Verdict.BLOCK, codes)


def test_numeric_spellings_are_reported_as_obfuscated() -> None:
    result = check_url("https://0x7f.1/")
    assert {"loopback", "ip_address_host", "obfuscated_host"} <= set(result.codes)
    assert result.display_host == DisplayHost("127.0.0.1", "127.0.0.1")
    assert result.registrable_domain is None


def test_mapped_ipv6_displays_canonically() -> None:
    result = check_url("https://[::ffff:127.0.0.1]/")
    assert result.display_host == DisplayHost("[::ffff:7f00:1]", "[::ffff:7f00:1]")


WHATWG_IPV4 = [
    ("127.0.0.1", 0x7F000001),
    ("127.1", 0x7F000001),
    ("127.0.1", 0x7F000001),
    ("2130706433", 0x7F000001),
    ("0x7f000001", 0x7F000001),
    ("0x7f.1", 0x7F000001),
    ("0177.0.0.1", 0x7F000001),
    ("0x", 0),
    ("0x.0x.0x.0x", 0),
    ("00000000000000000000000000177.1", 0x7F000001),
    ("1.2.3.4.", 0x01020304),
    ("255.255.255.255", 0xFFFFFFFF),
    ("1.2.3.4.5", None),
    ("256.1", None),
    ("1.256.1.1", None),
    ("1.2.65536", None),
    ("4294967296", None),
    ("0x100000000", None),
    ("09", None),
    ("0x1g", None),
    ("1..2", None),
    ("", None),
    ("1_0.0.0.1", None),
    ("\u0661.0.0.1", None),
    ("9" * 5000, None),
]


@pytest.mark.parametrize(("text", "expected"), WHATWG_IPV4)
def test_whatwg_ipv4_parser(text: str, expected: int | None) -> None:
    assert parse_whatwg_ipv4(text) == expected


# --- warn -----------------------------------------------------------------------------------

WARNINGS = [
    case("https://b\u00fccher.de/", "idn_host", id="idn-unicode"),
    case("https://xn--bcher-kva.de/", "idn_host", id="idn-punycode"),
    case("https://\u0430pple.com/", "idn_host", "mixed_scripts", "confusable_characters",
         id="cyrillic-a-apple"),
    case("https://xn--pple-43d.com/", "mixed_scripts", "confusable_characters",
         id="cyrillic-a-apple-punycode"),
    case("https://paypa\u04cf.com/", "mixed_scripts", "confusable_characters",
         id="cyrillic-palochka"),
    case("https://g\u03bfogle.com/", "mixed_scripts", "confusable_characters",
         id="greek-omicron"),
    case("https://\u0430\u0440\u0440\u04cf\u0435.com/", "confusable_characters",
         id="whole-script-cyrillic"),
    case("https://g\u0585\u0585gle.com/", "mixed_scripts", "confusable_characters",
         id="armenian-oh"),
    case("https://\uff47\uff4f\uff4f\uff47\uff4c\uff45.com/", "obfuscated_host",
         "confusable_characters", id="fullwidth-letters"),
    case("https://example.com:8443/", "non_default_port", id="port-8443"),
    case("https://example.com:80/", "non_default_port", id="http-port-on-https"),
    case("https://8.8.8.8/", "ip_address_host", id="public-ipv4"),
    case("https://134744072/", "ip_address_host", "obfuscated_host", id="public-ipv4-decimal"),
    case("https://[2606:4700::1111]/", "ip_address_host", id="public-ipv6"),
    case("https://[::ffff:8.8.8.8]/", "ip_address_host", id="public-mapped"),
    case("https://%65xample.com/", "obfuscated_host", id="percent-encoded-name"),
]  # fmt: skip


@pytest.mark.parametrize(("url", "codes"), WARNINGS)
def test_warnings(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url), Verdict.WARN, codes)


def test_idn_shows_both_forms() -> None:
    result = check_url("https://xn--bcher-kva.de/")
    assert result.display_host == DisplayHost("b\u00fccher.de", "xn--bcher-kva.de")
    (reason,) = result.reasons
    assert "b\u00fccher.de" in reason.message
    assert "xn--bcher-kva.de" in reason.message


def test_confusable_message_says_what_it_looks_like() -> None:
    result = check_url("https://\u0430pple.com/")
    (reason,) = [r for r in result.reasons if r.code == "confusable_characters"]
    assert "apple.com" in reason.message
    assert "CYRILLIC SMALL LETTER A" in reason.message


@pytest.mark.parametrize(
    "url",
    [
        "https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444/",  # Russian "example.rf"
        "https://\u65e5\u672c\u8a9e.jp/",  # Japanese: Han only
        "https://\u4f8b\u3048.\u307f\u3093\u306a/",  # Han + Hiragana, a normal Japanese mix
        "https://\ud55c\uad6d\uc5b4.kr/",  # Korean
    ],
)
def test_ordinary_idns_only_get_the_idn_warning(url: str) -> None:
    result = check_url(url)
    assert result.verdict is Verdict.WARN
    assert result.codes == ("idn_host",)


INVALID_IDNA = [
    case("https://\u2603.net/", "invalid_idna", id="snowman-symbol"),
    case("https://xn--n3h.net/", "invalid_idna", id="snowman-punycode"),
    case("https://xn--/", "invalid_idna", id="empty-punycode"),
    case("https://xn--a.com/", "invalid_idna", id="bad-punycode"),
    case("https://xn---bbk.com/", "invalid_idna", id="non-canonical-punycode"),
    case("https://google.com\u2215evil.com/", "invalid_idna", id="division-slash"),
    case("https://a\u2024b.com/", "invalid_idna", id="one-dot-leader"),
    case("https://-\u00e9.com/", "invalid_idna", id="leading-hyphen-idn"),
    case("https://\u0301a.com/", "invalid_idna", id="leading-combining-mark"),
]


@pytest.mark.parametrize(("url", "codes"), INVALID_IDNA)
def test_invalid_idna_is_blocked(url: str, codes: set[str]) -> None:
    result = check_url(url)
    assert_verdict(result, Verdict.BLOCK, codes)
    assert result.display_host is None


# --- allow ----------------------------------------------------------------------------------

ALLOWED = [
    "https://example.com/path?q=1",
    "https://accounts.google.com/o/oauth2",
    "https://accounts.google.com/o/oauth2/v2/auth?client_id=1&scope=openid%20email#state",
    "HTTPS://Example.COM/",
    "https://example.com:443/",
    "https://example.com:/",
    "https://example.com./",
    "https://a_b.example.com/",
    "https://example.com/@user",
    "https://example.com/a%20b",
    "https://sub-domain.example.co.uk/x",
    "https://x.github.io/",
]


@pytest.mark.parametrize("url", ALLOWED)
def test_ordinary_https_links_are_allowed(url: str) -> None:
    result = check_url(url)
    assert result.verdict is Verdict.ALLOW, result.reasons
    assert result.reasons == ()
    assert result.url == url


# --- registrable domain ---------------------------------------------------------------------

REGISTRABLE = [
    ("https://accounts.google.com.evil.co.uk/", "evil.co.uk"),
    ("https://a.b.example.com/", "example.com"),
    ("https://example.com/", "example.com"),
    ("https://www.bbc.co.uk/news", "bbc.co.uk"),
    ("https://someone.github.io/", "someone.github.io"),
    ("https://xn--bcher-kva.de/", "b\u00fccher.de"),
    ("https://shop.b\u00fccher.de/", "b\u00fccher.de"),
    ("https://example.com./", "example.com"),
    ("https://co.uk/", None),
    ("https://8.8.8.8/", None),
    ("https://[2606:4700::1111]/", None),
    ("https://localhost/", None),
    # Names nobody registers, whatever the list's default rule makes of their last label.
    ("https://printer.local/", None),
    ("https://db.internal/", None),
    ("https://nas.lan/", None),
    ("https://nas.home.arpa/", None),
    ("https://app.localhost/", None),
    ("https://printer/", None),
]


@pytest.mark.parametrize(("url", "expected"), REGISTRABLE)
def test_registrable_domain(url: str, expected: str | None) -> None:
    assert check_url(url).registrable_domain == expected


WHO_CONTROLS = [
    ("https://accounts.google.com.evil.co.uk/", "whoever registered this name controls the link"),
    ("https://someone.github.io/", "whoever registered this name controls the link"),
    (
        "https://printer.local/",
        "a local network name (mDNS .local): any device on your network can answer to it",
    ),
    (
        "https://printer.local./",
        "a local network name (mDNS .local): any device on your network can answer to it",
    ),
    (
        "https://db.internal/",
        "a local network name (.internal): nobody registers it; your network's own DNS "
        "decides where it leads",
    ),
    (
        "https://nas.home.arpa/",
        "a local network name (home.arpa): nobody registers it; your network's own DNS "
        "decides where it leads",
    ),
    (
        "https://printer/",
        "a single-label name: nobody registers it; your network's search domains decide "
        "where it leads",
    ),
    (
        "https://app.localhost/",
        "a localhost name: it always means this machine, and whatever runs on it answers",
    ),
    (
        "https://8.8.8.8/",
        "an IP address: whoever runs the machine at it controls the link; no name says who",
    ),
    (
        "https://[2606:4700::1111]/",
        "an IP address: whoever runs the machine at it controls the link; no name says who",
    ),
    ("https://co.uk/", "a public suffix itself: whoever runs that suffix controls the link"),
    ("https://", None),
]


@pytest.mark.parametrize(("url", "expected"), WHO_CONTROLS)
def test_who_controls_the_link_is_said_truly(url: str, expected: str | None) -> None:
    assert check_url(url).who_controls == expected


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("https://printer.local/", "local_name"),
        ("https://db.internal/", "local_name"),
        ("https://nas.home.arpa/", "local_name"),
        ("https://printer/", "local_name"),
        ("https://app.localhost/", "loopback"),
    ],
)
def test_local_names_keep_their_codes(url: str, code: str) -> None:
    # What the verdict says about who controls a name changes nothing a program matches on.
    assert check_url(url).codes == (code,)
    allowed = check_url(url, UrlPolicy(allow_private=True, allow_http_loopback=True))
    assert allowed.registrable_domain is None and allowed.who_controls is not None


def test_long_lookalike_host_is_judged_by_its_registrable_domain() -> None:
    result = check_url("https://accounts.google.com.evil.co.uk/")
    assert result.verdict is Verdict.ALLOW  # nothing is wrong with it as a URL...
    assert result.registrable_domain == "evil.co.uk"  # ...but this is who runs it
    assert result.display_host == DisplayHost(
        "accounts.google.com.evil.co.uk", "accounts.google.com.evil.co.uk"
    )


# --- names that spell an IP address (wildcard DNS: nip.io, sslip.io...) ---------------------

EMBEDDED_BLOCKED = [
    case("https://10.0.0.1.nip.io/", "embedded_address", "private_network", id="nip-dotted"),
    case("https://10-0-0-1.sslip.io/", "embedded_address", "private_network", id="sslip-dashed"),
    case("https://app.192.168.1.10.nip.io/x", "private_network", id="nip-subdomain"),
    case("https://127-0-0-1.sslip.io/", "embedded_address", "loopback", id="sslip-loopback"),
    case("https://www-127-0-0-1.sslip.io/", "loopback", id="sslip-embedded-in-label"),
    case("https://customer2-app-127-0-0-1.nip.io/", "loopback", id="nip-name-dash-address"),
    case("https://app-10.8.0.1.nip.io/", "private_network", id="nip-dash-then-dots"),
    case("https://7f000001.nip.io/", "embedded_address", "loopback", id="nip-hex"),
    case("https://7F000001.NIP.IO/", "loopback", id="nip-hex-upper"),
    case("https://app-c0a801fc.nip.io/", "private_network", id="nip-hex-with-name"),
    case("https://0x7f000001.godnslog.example.com/", "loopback", id="0x-hex-any-domain"),
    case("https://169.254.169.254.nip.io/latest/", "cloud_metadata", id="nip-metadata"),
    case("https://169-254-169-254.sslip.io/", "cloud_metadata", id="sslip-metadata"),
    case("https://0.0.0.0.nip.io:8000/", "unspecified_address", id="nip-unspecified"),
    case("https://100-64-0-1.sslip.io/", "carrier_grade_nat", id="sslip-cgnat"),
    case("https://169.254.1.1.nip.io/", "link_local", id="nip-link-local"),
    case("https://--1.sslip.io/", "embedded_address", "loopback", id="sslip-ipv6-loopback"),
    case("https://fe80--1.sslip.io/", "link_local", id="sslip-ipv6-link-local"),
    case("https://fd12-3456--1.sslip.io/", "private_network", id="sslip-ipv6-ula"),
    case("https://fd00-ec2--254.sslip.io/", "cloud_metadata", id="sslip-ipv6-metadata"),
    case("https://--ffff-7f00-1.sslip.io/", "loopback", id="sslip-ipv6-mapped"),
    case("https://10.0.0.1.NIP.IO./", "private_network", id="upper-trailing-dot"),
    case("https://APP.127-0-0-1.SSLIP.IO/", "loopback", id="upper-dashed"),
    case("https://\u00e9-10-0-0-1.sslip.io/", "private_network", "idn_host", id="idn-label"),
    case("https://xn---10-0-0-1-93a.sslip.io/", "private_network", id="idn-label-punycode"),
    case("https://\u0440\u0444.10.0.0.1.nip.io/", "private_network", id="cyrillic-label-before"),
    case("https://\uff11\uff10.0.0.1.nip.io/", "private_network", "obfuscated_host",
         id="fullwidth-digits"),
    case("https://%31%30.0.0.1.nip.io/", "private_network", "obfuscated_host",
         id="percent-encoded"),
    # Not only the known services: sslip.io answers for any domain handed to it.
    case("https://10.0.0.1.example.com/", "embedded_address", "private_network",
         id="any-domain-dotted"),
    case("https://db-10-0-0-7.xip.example.org/", "private_network", id="any-domain-dashed"),
    case("https://--1.rebind.example.net/", "loopback", id="any-domain-ipv6"),
    # A public address before it hides nothing: every spelled address is checked.
    case("https://8.8.8.8.10.0.0.1.nip.io/", "private_network", id="decoy-before"),
    case("https://10.0.0.1.8.8.8.8.sslip.io/", "private_network", id="decoy-after"),
    # Public domains whose every name means this machine.
    case("https://localtest.me/", "embedded_address", "loopback", id="localtest.me"),
    case("https://app.localtest.me/login", "loopback", id="localtest.me-subdomain"),
    case("https://LVH.ME./", "loopback", id="lvh.me-upper-dot"),
    case("https://shop.vcap.me/", "loopback", id="vcap.me"),
    case("https://a.localhost.direct/", "loopback", id="localhost.direct"),
    case("https://traefik.me/", "loopback", id="traefik.me"),
    case("https://10-0-0-1.traefik.me/", "private_network", id="traefik.me-address"),
]  # fmt: skip


@pytest.mark.parametrize(("url", "codes"), EMBEDDED_BLOCKED)
def test_names_spelling_an_inside_address_are_blocked(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url), Verdict.BLOCK, codes | {"embedded_address"})


EMBEDDED_WARNED = [
    case("https://8.8.8.8.nip.io/", id="nip-public"),
    case("https://93-184-216-34.sslip.io/", id="sslip-public"),
    case("https://2a01-4f8-c17-b8f--2.sslip.io/", id="sslip-ipv6-public"),
    case("https://deadbeef.nip.io/", id="nip-hex-public"),
    case("https://ec2-54-12-34-56.compute-1.amazonaws.com/", id="aws-public-dns"),
    case("https://app.1.2.3.4.example.com/", id="any-domain-public"),
    # Eight hex digits off nip.io are a hash as often as an address: a warning at most, and
    # only when it would be an inside address.
    case("https://7f000001.example.com/", id="hex-any-domain-loopback"),
    case("https://0a1b2c3d.my-site.pages.dev/", id="hash-reads-as-private"),
]


@pytest.mark.parametrize(("url", "codes"), EMBEDDED_WARNED)
def test_names_spelling_a_public_address_warn(url: str, codes: set[str]) -> None:
    result = check_url(url)
    assert_verdict(result, Verdict.WARN, {"embedded_address"})
    assert block_codes(result) == set()


@pytest.mark.parametrize(
    "url",
    [
        "https://1-2-3.example.com/",  # three numbers are not an address
        "https://1.2.3.example.com/",
        "https://v1.2.3.4.example.com/",  # 'v1' is not a number: nip.io agrees
        "https://1.2.3.4a.example.com/",
        "https://release-1-2-3-4b.example.com/",
        "https://256.1.1.1.example.com/",  # not octets
        "https://10.0.0.1000.example.com/",
        "https://2024-01-15-1200.example.com/",
        "https://www.example1234.com/",
        "https://8f3c2a1d.my-site.pages.dev/",  # a hash that would be a public address
        "https://7f00001.example.com/",  # seven hex digits
        "https://7f0000011.example.com/",  # nine
        "https://cafe--bad.example.com/",  # cafe::bad is no assigned address
        "https://a-b-c-d-e-f-a-b.example.com/",
        "https://deploy-preview-42--site.netlify.app/",
        "https://abc-123-def.example.com/",
        "https://nip.io/",
        "https://sslip.io/",
    ],
)
def test_names_that_only_look_numeric_spell_no_address(url: str) -> None:
    result = check_url(url)
    assert "embedded_address" not in result.codes, result.reasons
    assert not block_codes(result), result.reasons


def test_embedded_address_message_says_where_the_name_points() -> None:
    result = check_url("https://10-0-0-1.sslip.io/")
    embedded, private = result.reasons
    assert embedded.code == "embedded_address" and embedded.severity is Severity.WARN
    assert "points at 10.0.0.1, whoever registered it" in embedded.message
    assert "sslip.io, a public wildcard DNS service" in embedded.message
    assert "'10-0-0-1' is 10.0.0.1 written with dashes" in embedded.message
    assert private.message.startswith("the host 10-0-0-1.sslip.io points at 10.0.0.1, which is")
    lvh = check_url("https://lvh.me/").reasons[0].message
    assert "lvh.me is a public domain whose every name points at 127.0.0.1" in lvh
    hashed = check_url("https://0a1b2c3d.my-site.pages.dev/").reasons[0].message
    assert "may just be an identifier" in hashed and "10.27.44.61" in hashed


def test_localhost_names_are_not_read_for_addresses() -> None:
    # *.localhost is this machine, whatever it spells.
    assert check_url("https://10-0-0-1.localhost/").codes == ("loopback",)
    assert "embedded_address" not in check_url("https://1.0.0.127.in-addr.arpa/").codes


def test_embedded_addresses_under_allow_private() -> None:
    policy = UrlPolicy(allow_private=True)
    for url in ["https://10.0.0.1.nip.io/", "https://db-192-168-0-5.sslip.io/"]:
        result = check_url(url, policy)
        assert_verdict(result, Verdict.WARN, {"embedded_address", "private_network"})
    for url, code in [
        ("https://127.0.0.1.nip.io/", "loopback"),
        ("https://169.254.169.254.nip.io/", "cloud_metadata"),
        ("https://localtest.me/", "loopback"),
        # Disguised spellings of an inside address get no allowance, as for a literal one.
        ("https://0a000001.nip.io/", "private_network"),
        ("https://%31%30.0.0.1.nip.io/", "obfuscated_host"),
    ]:
        assert_verdict(check_url(url, policy), Verdict.BLOCK, {code})


def test_a_name_spelling_many_addresses_reports_the_inside_ones_first() -> None:
    result = check_url("https://1-2-3-4-5-6-7-8-9-10-0-0-1.sslip.io/")
    assert_verdict(result, Verdict.BLOCK, {"private_network"})
    assert 1 <= result.codes.count("embedded_address") <= 4
    assert any("points at 10.0.0.1" in r.message for r in result.reasons)


def test_the_quick_hex_filter_keeps_every_inside_range() -> None:
    # embedded.py skips a bare hex label whose first octet starts no inside range; the set
    # it uses must cover every range it stands for.
    from mcp_elicit.urls import addresses, embedded

    for network, code, _ in addresses._V4_RANGES:
        if code in embedded._INSIDE:
            first = {int(network[0]) >> 24, int(network[-1]) >> 24}
            assert first <= embedded._INSIDE_FIRST_OCTETS, network
    for address in addresses._METADATA_V4:
        assert int(address) >> 24 in embedded._INSIDE_FIRST_OCTETS


# --- names under a top-level domain nobody registers in publicly ------------------------------

NON_PUBLIC_TLDS = [
    case("https://my-svc.my-namespace.svc/", id="kubernetes-svc"),
    case("https://web.service.consul/", id="consul"),
    case("https://www.example/", id="example"),
    case("https://foo.test/", id="test"),
    case("https://FOO.TEST./", id="test-upper-trailing-dot"),
    case("https://does-not-exist.invalid/", id="invalid"),
    case("https://name.alt/", id="alt"),
    case("https://wiki.foo123/", id="made-up"),
    case("https://app.prod.k8s:8443/", id="made-up-with-port"),
    case("https://duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion/", id="onion"),
    case("https://1.0.0.127.in-addr.arpa/", id="arpa"),
    case("https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0438\u0441\u043f\u044b\u0442"
         "\u0430\u043d\u0438\u0435/", "idn_host", id="idn-test-tld"),
    case("https://xn--r8jz45g.xn--zckzah/", "idn_host", id="idn-test-tld-punycode"),
    case("https://b\u00fccher.test/", "idn_host", id="idn-label-test-tld"),
]  # fmt: skip


@pytest.mark.parametrize(("url", "codes"), NON_PUBLIC_TLDS)
def test_names_under_a_non_public_tld_are_blocked(url: str, codes: set[str]) -> None:
    result = check_url(url)
    assert_verdict(result, Verdict.BLOCK, codes | {"non_public_tld"})
    assert result.registrable_domain is None
    assert result.who_controls is not None and "registered" not in result.who_controls
    relaxed = check_url(url, UrlPolicy(allow_private=True))
    assert_verdict(relaxed, Verdict.WARN, {"non_public_tld"})


@pytest.mark.parametrize(
    "url",
    [
        "https://mail.google/",  # .google is a real top-level domain
        "https://x.dev/",
        "https://x.zip/",
        "https://x.xn--p1ai/",  # .рф
        "https://x.\u307f\u3093\u306a/",  # .みんな
        "https://www.ck/",
        "https://test.example.com/",
        "https://onion.com/",
        "https://svc.io/",
        "https://nic.arpa.com/",
        "https://example.co.uk./",
    ],
)
def test_public_tlds_are_not_flagged(url: str) -> None:
    assert "non_public_tld" not in check_url(url).codes


@pytest.mark.parametrize(
    "name",
    ["example.com", "printer.local", "nas.home.arpa", "home.arpa", "x.arpa", "a.onion",
     "app.localhost", "localhost", "intranet", "api.svc", "foo.test.", "co.uk", "www.ck",
     "db.internal", "wiki.corp", "xn--r8jz45g.xn--zckzah", "x.xn--p1ai", "10.0.0.1.nip.io"],
)  # fmt: skip
def test_nobody_registers_is_local_or_non_public(name: str) -> None:
    # names.nobody_registers takes a shortcut (it runs for every URL): the same answer.
    from mcp_elicit.urls.names import is_local_name, nobody_registers, non_public_tld

    expected = is_local_name(name) or non_public_tld(name) is not None
    assert nobody_registers(name) is expected


def test_local_suffixes_keep_local_name_only() -> None:
    # .corp, .internal, home.arpa... were local names before; their code stays.
    for url in ["https://wiki.corp/", "https://db.internal/", "https://nas.home.arpa/"]:
        assert check_url(url).codes == ("local_name",)


WHO_CONTROLS_NON_PUBLIC = [
    (
        "https://api.svc/",
        "a name under .svc, not a public top-level domain: nobody registers it publicly; "
        "whichever DNS server your computer asks decides where it leads",
    ),
    (
        "https://foo.test./",
        "a name under .test, reserved for testing (RFC 6761): nobody registers it publicly; "
        "whichever DNS server your computer asks decides where it leads",
    ),
    (
        "https://abc.onion/",
        "a Tor onion service (.onion): whoever holds its key controls the link; ordinary "
        "browsers cannot open it",
    ),
]


@pytest.mark.parametrize(("url", "expected"), WHO_CONTROLS_NON_PUBLIC)
def test_who_controls_a_non_public_name(url: str, expected: str) -> None:
    assert check_url(url).who_controls == expected


def test_onion_message_names_tor() -> None:
    (reason,) = check_url("https://abc.onion/").reasons
    assert "Tor onion service" in reason.message


# --- policies -------------------------------------------------------------------------------

DEV_ALLOWED = [
    case("http://127.0.0.1:8123/x", "local_development", "non_default_port", id="ipv4"),
    case("http://localhost:8123/", "local_development", "non_default_port", id="localhost"),
    case("http://localhost/", "local_development", id="localhost-default-port"),
    case("http://[::1]:8000/", "local_development", id="ipv6"),
    case("http://app.localhost:3000/", "local_development", id="subdomain-of-localhost"),
    case("https://localhost:8443/", "local_development", id="https-loopback"),
]


@pytest.mark.parametrize(("url", "codes"), DEV_ALLOWED)
def test_dev_policy_lets_loopback_through_with_a_warning(url: str, codes: set[str]) -> None:
    result = check_url(url, DEV)
    assert_verdict(result, Verdict.WARN, codes)
    assert block_codes(result) == set()


def test_dev_policy_reason_says_local_development() -> None:
    result = check_url("http://127.0.0.1:8123/x", DEV)
    (reason,) = [r for r in result.reasons if r.code == "local_development"]
    assert reason.severity is Severity.WARN
    assert "local development" in reason.message


DEV_BLOCKED = [
    case("http://example.com/", "scheme_not_allowed", id="public-http"),
    case("http://10.0.0.1:8000/", "scheme_not_allowed", "private_network", id="private"),
    case("https://192.168.1.10/", "private_network", id="private-https"),
    case("http://169.254.1.1/", "link_local", id="link-local"),
    case("http://169.254.169.254/", "cloud_metadata", id="metadata"),
    case("http://0.0.0.0:8000/", "unspecified_address", id="unspecified"),
    case("http://printer.local/", "local_name", id="local-name"),
    case("ftp://127.0.0.1/", "scheme_not_allowed", id="ftp-loopback"),
    case("http://user@localhost/", "credentials", id="credentials"),
    # Loopback and private addresses in disguise: development writes them plainly.
    case("http://127.1:8000/", "obfuscated_host", "loopback", id="short-ipv4"),
    case("https://0x7f.1/admin", "obfuscated_host", "loopback", id="hex-loopback"),
    case("http://2130706433:8000/", "obfuscated_host", "loopback", id="integer-loopback"),
    case("http://0177.0.0.1/", "obfuscated_host", "loopback", id="octal-loopback"),
    # A public name pointing at this machine is DNS rebinding, not local development.
    case("http://127.0.0.1.nip.io:8000/", "scheme_not_allowed", "loopback", id="nip-loopback"),
    case("https://127-0-0-1.sslip.io/", "loopback", "embedded_address", id="sslip-loopback"),
    case("http://localtest.me:3000/", "scheme_not_allowed", "loopback", id="localtest.me"),
    case("https://app.lvh.me/", "loopback", id="lvh.me"),
    case("http://--1.sslip.io/", "scheme_not_allowed", "loopback", id="sslip-ipv6-loopback"),
]


@pytest.mark.parametrize(("url", "codes"), DEV_BLOCKED)
def test_dev_policy_still_blocks_everything_else(url: str, codes: set[str]) -> None:
    assert_verdict(check_url(url, DEV), Verdict.BLOCK, codes)


def test_dev_policy_says_why_a_loopback_name_is_not_local_development() -> None:
    result = check_url("https://127.0.0.1.nip.io/", DEV)
    assert "local_development" not in result.codes
    (loopback,) = [r for r in result.reasons if r.code == "loopback"]
    assert "DNS-rebinding" in loopback.message and "allow_http_loopback" in loopback.message


def test_default_policy_blocks_http_loopback() -> None:
    result = check_url("http://127.0.0.1:8123/x")
    assert_verdict(result, Verdict.BLOCK, {"scheme_not_allowed", "loopback"})


def test_allow_private_downgrades_private_addresses_only() -> None:
    policy = UrlPolicy(allow_private=True)
    for url, code in [
        ("https://10.0.0.1/", "private_network"),
        ("https://[fd12::1]/", "private_network"),
        ("https://100.64.1.1/", "carrier_grade_nat"),
        ("https://169.254.1.1/", "link_local"),
        ("https://printer.local/", "local_name"),
        ("https://intranet/", "local_name"),
    ]:
        assert_verdict(check_url(url, policy), Verdict.WARN, {code})
    for url, code in [
        ("https://169.254.169.254/", "cloud_metadata"),
        ("https://127.0.0.1/", "loopback"),
        ("https://0.0.0.0/", "unspecified_address"),
        ("http://10.0.0.1/", "scheme_not_allowed"),
        ("https://0xa.1/", "obfuscated_host"),  # 10.0.0.1 in disguise
    ]:
        assert_verdict(check_url(url, policy), Verdict.BLOCK, {code})


def test_allowed_schemes() -> None:
    policy = UrlPolicy(allowed_schemes=frozenset({"HTTPS", "http", "mailto:"}))
    assert policy.allowed_schemes == frozenset({"https", "http", "mailto"})
    assert_verdict(check_url("http://example.com/", policy), Verdict.WARN, {"insecure_scheme"})
    assert_verdict(check_url("mailto:someone@example.com", policy), Verdict.ALLOW, set())
    assert_verdict(check_url("ftp://example.com/", policy), Verdict.BLOCK, {"scheme_not_allowed"})
    assert_verdict(check_url("http://10.0.0.1/", policy), Verdict.BLOCK, {"private_network"})


def test_policy_validation() -> None:
    with pytest.raises(TypeError):
        UrlPolicy(allowed_schemes="https")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_length"):
        UrlPolicy(max_length=0)
    with pytest.raises(ValueError, match="resolve_timeout"):
        UrlPolicy(resolve_timeout=0)


def test_default_policy_values() -> None:
    policy = UrlPolicy()
    assert policy.allowed_schemes == frozenset({"https"})
    assert policy.allow_http_loopback is False
    assert policy.allow_private is False
    assert policy.max_length == 8192


def test_too_long_urls_are_blocked_without_parsing() -> None:
    url = "https://example.com/" + "a" * 9000
    result = check_url(url)
    assert_verdict(result, Verdict.BLOCK, {"too_long"})
    assert result.codes == ("too_long",)
    assert_verdict(check_url(url, UrlPolicy(max_length=10_000)), Verdict.ALLOW, set())


def test_very_long_input_is_fast() -> None:
    started = time.perf_counter()
    check_url("https://" + "\u202e" * 2_000_000)
    check_url("https://" + "1" * 8000, UrlPolicy(max_length=10_000))
    assert time.perf_counter() - started < 2


# --- the result type ------------------------------------------------------------------------


def test_non_str_input_is_a_type_error() -> None:
    for value in (None, b"https://example.com/", 42, ["https://example.com/"]):
        with pytest.raises(TypeError):
            check_url(value)  # type: ignore[arg-type]


def test_to_json_shape() -> None:
    result = check_url("https://google.com@\u0430pple.com:8443/")
    data = result.to_json()
    assert set(data) == {"verdict", "reasons", "display_host", "registrable_domain"}
    assert data["verdict"] == "block"
    assert all(set(reason) == {"code", "message"} for reason in data["reasons"])
    assert [reason["code"] for reason in data["reasons"]] == list(result.codes)
    assert data["display_host"] == {"unicode": "\u0430pple.com", "ascii": "xn--pple-43d.com"}
    assert data["registrable_domain"] == "\u0430pple.com"
    assert json.loads(json.dumps(data)) == data


def test_to_json_without_host() -> None:
    data = check_url("javascript:alert(1)").to_json()
    assert data["display_host"] is None
    assert data["registrable_domain"] is None
    assert data["reasons"][0]["code"] == "scheme_not_allowed"


def test_verdict_is_the_heaviest_severity() -> None:
    assert check_url("https://example.com/").verdict is Verdict.ALLOW
    warn = check_url("https://example.com:8443/")
    assert {r.severity for r in warn.reasons} == {Severity.WARN}
    block = check_url("https://user@example.com:8443/")
    assert {r.severity for r in block.reasons} == {Severity.WARN, Severity.BLOCK}
    assert block.verdict is Verdict.BLOCK


def test_every_reason_code_is_snake_case_and_documented() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    for code in ReasonCode:
        assert code.value.replace("_", "").isalpha() and code.value.islower(), code
        assert f"`{code.value}`" in docs, f"{code.value} is not documented in docs/urls.md"


# --- resolution (no network: localhost, .invalid, and a patched getaddrinfo) ----------------


def fake_getaddrinfo(*addresses: str) -> Any:
    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        result = []
        for address in addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, port, 0, 0) if ":" in address else (address, port)
            result.append((family, socket.SOCK_STREAM, 6, "", sockaddr))
        return result

    return getaddrinfo


def test_resolve_localhost_reaches_loopback() -> None:
    result = check_url("https://localhost/", resolve=True)
    assert result.verdict is Verdict.BLOCK
    resolved = [r for r in result.reasons if "resolves to" in r.message]
    assert resolved, result.reasons
    assert {r.code for r in resolved} == {"loopback"}


def test_resolve_invalid_tld_is_unresolvable(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a name under .invalid was looked up")

    monkeypatch.setattr(socket, "getaddrinfo", forbidden)
    result = check_url(
        "https://does-not-exist.invalid/", UrlPolicy(allow_private=True), resolve=True
    )
    assert_verdict(result, Verdict.WARN, {"unresolvable"})
    assert result.codes == ("non_public_tld", "unresolvable")
    assert "never exist" in result.reasons[1].message


def test_without_resolve_there_is_no_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("getaddrinfo called without resolve=True")

    monkeypatch.setattr(socket, "getaddrinfo", forbidden)
    assert check_url("https://public-looking.example.com/").verdict is Verdict.ALLOW
    # An IP literal is never looked up, even when resolution is asked for.
    assert check_url("https://8.8.8.8/", resolve=True).verdict is Verdict.WARN


def test_resolve_public_name_to_private_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo("93.184.216.34", "10.0.0.5"))
    result = check_url("https://public-looking.example.com/", resolve=True)
    assert_verdict(result, Verdict.BLOCK, {"private_network"})
    (reason,) = result.reasons
    assert "resolves to 10.0.0.5" in reason.message


@pytest.mark.parametrize(
    ("address", "code"),
    [
        ("127.0.0.1", "loopback"),
        ("169.254.169.254", "cloud_metadata"),
        ("fe80::1%eth0", "link_local"),
        ("::ffff:192.168.0.1", "private_network"),
        ("100.64.0.1", "carrier_grade_nat"),
    ],
)
def test_resolved_addresses_get_the_address_checks(
    monkeypatch: pytest.MonkeyPatch, address: str, code: str
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo(address))
    assert_verdict(check_url("https://rebind.example.com/", resolve=True), Verdict.BLOCK, {code})


def test_resolve_public_address_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo("93.184.216.34"))
    assert_verdict(check_url("https://example.com/", resolve=True), Verdict.ALLOW, set())


def test_resolution_failure_is_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", failing)
    result = check_url("https://nowhere.example.com/", resolve=True)
    assert_verdict(result, Verdict.WARN, {"unresolvable"})
    assert "Name or service not known" in result.reasons[0].message


def test_resolution_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(1)
        return fake_getaddrinfo("10.0.0.1")(*args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    started = time.perf_counter()
    result = check_url("https://slow.example.com/", UrlPolicy(resolve_timeout=0.05), resolve=True)
    assert time.perf_counter() - started < 0.9
    assert_verdict(result, Verdict.WARN, {"unresolvable"})


def test_dev_policy_with_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo("127.0.0.1", "::1"))
    result = check_url("http://localhost:8000/", DEV, resolve=True)
    assert result.verdict is Verdict.WARN
    assert block_codes(result) == set()
    assert result.codes.count("local_development") == 3  # the name, then both addresses


def test_check_url_async(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo("192.168.1.1"))
    result = asyncio.run(check_url_async("https://router.example.com/", resolve=True))
    assert_verdict(result, Verdict.BLOCK, {"private_network"})
    plain = asyncio.run(check_url_async("https://example.com/"))
    assert plain.verdict is Verdict.ALLOW
    with pytest.raises(TypeError):
        asyncio.run(check_url_async(None, resolve=True))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "url", ["http://", "http://a*b.com/", "http://[::1/", "http:///x", "http://user@/"]
)
def test_dev_policy_never_lets_http_through_without_a_loopback_host(url: str) -> None:
    assert_verdict(check_url(url, DEV), Verdict.BLOCK, {"scheme_not_allowed"})


def test_the_suffix_list_is_the_librarys_own() -> None:
    """registrable.py builds the list faster than PublicSuffixList() does; the same rules."""
    from publicsuffixlist import PublicSuffixList

    from mcp_elicit.urls.registrable import public_suffix_list

    ours, theirs = public_suffix_list(), PublicSuffixList()
    for host in ["a.b.xn--p1ai", "x.xn--fiqs8s", "www.ck", "a.b.kawasaki.jp", "foo.github.io"]:
        assert ours.privatesuffix(host) == theirs.privatesuffix(host), host
    assert ours.publicsuffix("xn--55qx5d.cn") == theirs.publicsuffix("xn--55qx5d.cn")
    assert ours._publicsuffix == theirs._publicsuffix  # every rule, IDN ones in both forms
