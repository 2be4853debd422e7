"""Properties of check_url: total on any text, and private IPv4 blocked however it is spelled.

Example counts come from the Hypothesis profile in conftest.py (modest by default).
"""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path

import publicsuffixlist
from hypothesis import assume, given
from hypothesis import strategies as st

from mcp_elicit.urls import Severity, UrlPolicy, UrlVerdict, Verdict, check_url
from mcp_elicit.urls.characters import BIDI_CONTROLS

ADDRESS_CODES = {
    "loopback",
    "private_network",
    "link_local",
    "carrier_grade_nat",
    "multicast",
    "unspecified_address",
    "reserved_address",
    "cloud_metadata",
}


def assert_well_formed(result: UrlVerdict, url: str) -> None:
    """What must hold for every result, whatever the input."""
    assert result.verdict in (Verdict.ALLOW, Verdict.WARN, Verdict.BLOCK)
    assert result.url == url
    # The checker fails closed on internal errors; the tests must never see one.
    assert "internal_error" not in result.codes, result.reasons
    severities = {reason.severity for reason in result.reasons}
    if Severity.BLOCK in severities:
        assert result.verdict is Verdict.BLOCK
    elif severities:
        assert result.verdict is Verdict.WARN
    else:
        assert result.verdict is Verdict.ALLOW
    for reason in result.reasons:
        assert reason.code and reason.code == reason.code.lower()
        assert reason.message
    json.dumps(result.to_json(), ensure_ascii=False)
    # Who controls the link is said for every usable host, and only then.
    assert (result.who_controls is None) == (result.display_host is None)
    if result.registrable_domain is not None:
        assert result.who_controls == "whoever registered this name controls the link"


# Every code point, surrogates included: a Python str can hold them even if no URL should.
any_character = st.characters(exclude_categories=())


@given(st.text(any_character, max_size=200))
def test_arbitrary_text_never_raises(text: str) -> None:
    assert_well_formed(check_url(text), text)


@given(st.text(any_character, max_size=40), st.integers(min_value=50, max_value=400))
def test_long_text_never_raises(chunk: str, repeat: int) -> None:
    text = "https://" + chunk * repeat
    assert_well_formed(check_url(text, UrlPolicy(max_length=20_000)), text)
    assert_well_formed(check_url(text), text)


schemes = st.sampled_from(
    ["https", "HTTPS", "http", "javascript", "data", "file", "ftp", "blob", "about", "ws", "x-y+z"]
) | st.from_regex(r"[A-Za-z][A-Za-z0-9+.\-]{0,8}", fullmatch=True)
separators = st.sampled_from(["://", ":", ":/", ":///", ":\\\\", "://user:pw@", "://a@b@", ""])
label_chars = st.sampled_from(
    [*"abcxyz019-_.%", "\u0430", "\u03bf", "\uff41", "\u00fc", "\u65e5", "\u200b", "\u3002"]
)
hosts = st.one_of(
    st.text(label_chars, max_size=30),
    st.text(any_character, max_size=20),
    st.builds("[{}]".format, st.ip_addresses(v=6).map(str)),
    st.ip_addresses(v=4).map(str),
    st.integers(min_value=0, max_value=2**33).map(str),
    st.integers(min_value=0, max_value=2**33).map(hex),
    st.sampled_from(["localhost", "xn--pple-43d.com", "xn--", "example.com", "[", "]"]),
)
ports = st.one_of(st.just(""), st.builds(":{}".format, st.integers(min_value=-5, max_value=70000)))
paths = st.text(any_character, max_size=30)


@given(schemes, separators, hosts, ports, paths)
def test_url_shaped_text_never_raises(
    scheme: str, separator: str, host: str, port: str, path: str
) -> None:
    url = f"{scheme}{separator}{host}{port}/{path}"
    for policy in (UrlPolicy(), UrlPolicy(allow_http_loopback=True, allow_private=True)):
        assert_well_formed(check_url(url, policy), url)


# --- private IPv4, however spelled ----------------------------------------------------------

NETWORKS = {
    "127.0.0.0/8": "loopback",
    "10.0.0.0/8": "private_network",
    "172.16.0.0/12": "private_network",
    "192.168.0.0/16": "private_network",
    "169.254.0.0/16": "link_local",
    "100.64.0.0/10": "carrier_grade_nat",
    "0.0.0.0/8": "unspecified_address",
    "224.0.0.0/4": "multicast",
}


@st.composite
def special_ipv4(draw: st.DrawFn) -> tuple[ipaddress.IPv4Address, str]:
    cidr = draw(st.sampled_from(sorted(NETWORKS)))
    network = ipaddress.IPv4Network(cidr)
    offset = draw(st.integers(min_value=0, max_value=network.num_addresses - 1))
    return network[offset], NETWORKS[cidr]


def number(draw: st.DrawFn, value: int) -> str:
    """``value`` in decimal, hex (either case of prefix and digits) or octal."""
    style = draw(st.sampled_from(["dec", "hex", "HEX", "oct"]))
    if style == "dec":
        return str(value)
    if style == "hex":
        return f"0x{value:x}"
    if style == "HEX":
        return f"0X{value:X}"
    return f"0{value:o}"


@st.composite
def spelled(draw: st.DrawFn, address: ipaddress.IPv4Address) -> str:
    """One of the many spellings browsers read as ``address``."""
    n = int(address)
    a, b, c, d = address.packed
    form = draw(
        st.sampled_from(
            [
                "dotted",
                "integer",
                "one-part",
                "two-parts",
                "three-parts",
                "four-parts",
                "trailing-dot",
                "percent",
                "fullwidth",
                "mapped",
                "mapped-hex",
                "compatible",
                "nat64",
                "6to4",
            ]
        )
    )
    if form == "dotted":
        return str(address)
    if form == "integer":
        return str(n)
    if form == "one-part":
        return number(draw, n)
    if form == "two-parts":
        return f"{number(draw, a)}.{number(draw, n & 0xFFFFFF)}"
    if form == "three-parts":
        return f"{number(draw, a)}.{number(draw, b)}.{number(draw, n & 0xFFFF)}"
    if form == "four-parts":
        return ".".join(number(draw, part) for part in (a, b, c, d))
    if form == "trailing-dot":
        return f"{address}."
    if form == "percent":
        return "".join(f"%{ord(char):02X}" for char in str(address))
    if form == "fullwidth":
        return str(address).translate({ord(str(i)): 0xFF10 + i for i in range(10)})
    if form == "mapped":
        return f"[::ffff:{address}]"
    if form == "mapped-hex":
        return f"[::ffff:{n >> 16:x}:{n & 0xFFFF:x}]"
    if form == "compatible":
        return f"[::{address}]" if n > 1 else f"[::ffff:{address}]"
    if form == "nat64":
        return f"[64:ff9b::{address}]"
    return f"[2002:{n >> 16:x}:{n & 0xFFFF:x}::1]"


@given(st.data())
def test_special_ipv4_is_blocked_however_spelled(data: st.DataObject) -> None:
    address, code = data.draw(special_ipv4())
    host = data.draw(spelled(address))
    port = data.draw(st.sampled_from(["", ":443", ":8080"]))
    url = f"https://{host}{port}/path"
    result = check_url(url)
    assert result.verdict is Verdict.BLOCK, (url, result.reasons)
    assert code in result.codes, (url, result.reasons)


@given(st.data())
def test_public_ipv4_is_not_blocked_however_spelled(data: st.DataObject) -> None:
    # ipaddress is the independent oracle here; 192.0.0.0/24 is excluded because Python's
    # is_global counts part of it as global while the checker reserves all of it.
    address = data.draw(
        st.integers(min_value=0, max_value=2**32 - 1)
        .map(ipaddress.IPv4Address)
        .filter(lambda a: a.is_global and not a.is_multicast)
        .filter(lambda a: a not in ipaddress.IPv4Network("192.0.0.0/24"))
        .filter(lambda a: a != ipaddress.IPv4Address("100.100.100.200"))
    )
    url = f"https://{data.draw(spelled(address))}/"
    result = check_url(url)
    assert result.verdict is Verdict.WARN, (url, result.reasons)
    assert "ip_address_host" in result.codes
    assert not ADDRESS_CODES & set(result.codes), (url, result.reasons)


# --- inside addresses spelled in a name ------------------------------------------------------


@st.composite
def spelled_in_a_name(draw: st.DrawFn, address: ipaddress.IPv4Address) -> str:
    """A host name that wildcard DNS (nip.io, sslip.io, a domain handed to them) resolves to
    ``address``, in upper or lower case, with or without a trailing dot."""
    form = draw(st.sampled_from(["dots", "dashes", "nip-hex", "0x-hex"]))
    prefix = draw(st.sampled_from(["", "app.", "app-", "a.b-c."]))
    if form == "nip-hex":
        name = f"{prefix}{int(address):08x}.nip.io"
    else:
        if form == "0x-hex":
            spelling = f"0x{int(address):08x}"
        else:
            spelling = str(address).replace(".", "-" if form == "dashes" else ".")
        service = draw(st.sampled_from(["nip.io", "sslip.io", "xip.example.com", "example.net"]))
        name = f"{prefix}{spelling}.{service}"
    if draw(st.booleans()):
        name = name.upper()
    return name + draw(st.sampled_from(["", "."]))


@given(st.data())
def test_special_ipv4_spelled_in_a_name_is_blocked(data: st.DataObject) -> None:
    address, code = data.draw(special_ipv4())
    url = f"https://{data.draw(spelled_in_a_name(address))}/"
    result = check_url(url)
    assert result.verdict is Verdict.BLOCK, (url, result.reasons)
    assert {code, "embedded_address"} <= set(result.codes), (url, result.reasons)
    # Local development never covers it: a public name pointing at loopback is rebinding.
    assert check_url(url, UrlPolicy(allow_http_loopback=True)).verdict is Verdict.BLOCK


words = st.from_regex(r"[a-z]{1,8}(-[a-z]{1,8}){0,2}", fullmatch=True)


@given(st.lists(words, min_size=1, max_size=4))
def test_names_without_digits_spell_no_address(labels: list[str]) -> None:
    url = "https://" + ".".join(labels) + ".example.com/"
    result = check_url(url)
    assert "embedded_address" not in result.codes, (url, result.reasons)


def _listed_tlds() -> list[str]:
    """Top-level rules of the Public Suffix List, read from the package's own file."""
    text = Path(publicsuffixlist.PSLFILE).read_text("utf-8")
    rules = (line.split(" ")[0].strip().lower() for line in text.splitlines())
    return sorted({r.removeprefix("*.") for r in rules if r and not r.startswith(("//", "!"))
                   and "." not in r.removeprefix("*.")})  # fmt: skip


LISTED_TLDS = _listed_tlds()


@given(st.sampled_from(LISTED_TLDS), words)
def test_listed_tlds_are_public(tld: str, label: str) -> None:
    url = f"https://{label}.{tld}/"
    result = check_url(url)
    if tld in ("onion", "arpa"):  # listed, yet nobody registers names under them publicly
        assert "non_public_tld" in result.codes
    else:
        assert "non_public_tld" not in result.codes, (url, result.reasons)


@given(st.from_regex(r"[a-z]{2,12}", fullmatch=True), words)
def test_unlisted_tlds_are_not_public(tld: str, label: str) -> None:
    assume(tld not in LISTED_TLDS)
    assume(tld not in ("local", "localdomain", "internal", "intranet", "lan", "home", "corp"))
    assume(tld not in ("private", "localhost"))
    result = check_url(f"https://{label}.{tld}/")
    assert result.verdict is Verdict.BLOCK
    assert result.codes == ("non_public_tld",), result.reasons
    assert result.registrable_domain is None


# --- hidden characters, anywhere ------------------------------------------------------------

HIDDEN = {
    "whitespace": st.sampled_from([" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000"]),
    "control_character": st.sampled_from(["\x00", "\x01", "\x1b", "\x7f", "\x9b"]),
    "bidi_control": st.sampled_from(sorted(BIDI_CONTROLS)),
    "invisible_character": st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]),
}


@given(st.sampled_from(sorted(HIDDEN)), st.data())
def test_a_hidden_character_anywhere_blocks(code: str, data: st.DataObject) -> None:
    url = "https://accounts.example.com/o/oauth2?client=1#top"
    char = data.draw(HIDDEN[code])
    position = data.draw(st.integers(min_value=0, max_value=len(url)))
    tampered = url[:position] + char + url[position:]
    result = check_url(tampered)
    assert result.verdict is Verdict.BLOCK, (tampered, result.reasons)
    assert code in result.codes
