"""Turn the host text of a URL into the host a browser would connect to.

This follows the WHATWG URL Standard's host parser: percent-decode, map with UTS #46, then —
if the last label looks numeric — parse an IPv4 address the permissive way browsers do.
Checking the *text* of a host is not enough: ``2130706433``, ``0x7f.1`` and ``%31%32%37.0.0.1``
are all ``127.0.0.1`` to a browser.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import unquote_to_bytes

import idna

from mcp_elicit.i18n import _
from mcp_elicit.urls.characters import CharacterFinding, scan_characters, visible
from mcp_elicit.urls.wording import listed

# Characters browsers refuse in a domain (WHATWG "forbidden domain code point"), beyond C0
# controls and DEL. We are stricter than browsers (see _ASCII_LABEL), but naming these lets the
# message say "browsers reject this" rather than merely "not a DNS name".
_FORBIDDEN_DOMAIN = frozenset(" #%/:<>?@[\\]^|")
# What a DNS host name label may contain once mapped to ASCII. Underscores are not LDH, but
# they occur in real host names and browsers accept them.
_ASCII_LABEL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")
# UTS #46 label separators: the full stop and its ideographic, fullwidth and halfwidth forms.
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_DECIMAL = frozenset("0123456789")
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
# Longer than any DNS name can be; beyond it we refuse before doing any per-character work.
_MAX_HOST_INPUT = 1024


class HostKind(Enum):
    NAME = "name"
    IPV4 = "ipv4"
    IPV6 = "ipv6"


@dataclass(slots=True)
class ParsedHost:
    """The outcome of parsing one host. ``kind`` is ``None`` when the host is unusable; then
    ``errors`` and/or ``idna_errors`` say why."""

    written: str
    """The host as written in the URL."""
    decoded: str = ""
    """After percent-decoding (the same as ``written`` when there was no ``%``)."""
    kind: HostKind | None = None
    ascii: str = ""
    """The host a browser connects to: punycode name, dotted IPv4, or bracketed IPv6."""
    unicode: str = ""
    """The same host as a person should read it (U-labels for names)."""
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None = None
    labels: tuple[str, ...] = ()
    """The Unicode labels of a name, without the empty label of a trailing dot."""
    errors: list[str] = field(default_factory=list)
    """Why browsers would reject the host, or why it cannot be a DNS name (in the language in
    effect when the host was parsed)."""
    idna_errors: list[str] = field(default_factory=list)
    """Why the name is not valid IDNA 2008 (after UTS #46 mapping), in the ``idna`` library's
    own (English) words."""
    obfuscations: list[str] = field(default_factory=list)
    """Ways the spelling hides what the host is (percent-encoding, numeric IPv4 forms...), in
    the language in effect when the host was parsed; each completes "the host … is disguised:"."""
    decoded_characters: list[CharacterFinding] = field(default_factory=list)
    """Bad characters that only appeared after percent-decoding."""


def parse_host(written: str) -> ParsedHost:
    result = ParsedHost(written=written, decoded=written)
    if written.startswith("["):
        _parse_bracketed(written, result)
        return result
    if len(written) > 3 * _MAX_HOST_INPUT:
        result.errors.append(_("the host is far longer than any DNS name can be"))
        return result

    if "%" in written:
        decoded = _percent_decode(written)
        if decoded is None:
            result.errors.append(_("the percent-encoded host is not valid UTF-8"))
            return result
        result.decoded = decoded
        if decoded != written:
            result.obfuscations.append(
                _("it is percent-encoded ({host})").format(host=visible(written))
            )
            result.decoded_characters = scan_characters(decoded)
    decoded = result.decoded
    if len(decoded) > _MAX_HOST_INPUT:
        result.errors.append(_("the host is far longer than any DNS name can be"))
        return result
    if any(0xD800 <= ord(c) <= 0xDFFF for c in decoded):
        result.errors.append(_("the host contains a lone surrogate code point"))
        return result

    # UTS #46 mapping, as browsers apply it: case folding, compatibility forms (fullwidth
    # letters and digits become ASCII), ignored characters dropped, ideographic dots to '.'.
    try:
        mapped = idna.uts46_remap(decoded.translate(_DOTS), std3_rules=False)
    except idna.IDNAError as exc:
        result.idna_errors.append(str(exc))
        return result
    if mapped != decoded.lower():
        result.obfuscations.append(
            _("it is written '{written}', which browsers read as '{read}'").format(
                written=visible(decoded), read=visible(mapped)
            )
        )

    bad = sorted({c for c in mapped if c in _FORBIDDEN_DOMAIN or ord(c) < 0x20 or c == "\x7f"})
    if bad:
        shown = listed(repr(c) if c.isprintable() else visible(c) for c in bad)
        result.errors.append(
            _("browsers reject these characters in a host: {characters}").format(characters=shown)
        )
        return result

    if _ends_in_a_number(mapped):
        number = parse_whatwg_ipv4(mapped)
        if number is None:
            result.errors.append(
                _(
                    "'{host}' ends like an IPv4 address but is not one, so browsers refuse it"
                ).format(host=visible(mapped))
            )
            return result
        address = ipaddress.IPv4Address(number)
        result.kind = HostKind.IPV4
        result.address = address
        result.ascii = result.unicode = str(address)
        if mapped != str(address):
            result.obfuscations.append(
                _("the IPv4 address {address} is spelled '{spelling}'").format(
                    address=address, spelling=visible(mapped)
                )
            )
        return result

    _parse_name(mapped, result)
    return result


def _percent_decode(text: str) -> str | None:
    """Percent-decode like browsers: '%' not followed by two hex digits stays as it is."""
    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeError:
        return None


def _ends_in_a_number(host: str) -> bool:
    """WHATWG "ends in a number": the last label (ignoring one trailing dot) is all decimal
    digits or a 0x-prefixed hex number. Such hosts are IPv4 addresses or invalid, never names."""
    parts = host.split(".")
    if parts[-1] == "":
        if len(parts) == 1:
            return False
        parts.pop()
    last = parts[-1]
    if last and all(c in _DECIMAL for c in last):
        return True
    return _parse_ipv4_number(last) is not None


def _parse_ipv4_number(part: str) -> int | None:
    """One part of a WHATWG IPv4 address: decimal, ``0x`` hex, or ``0``-prefixed octal.

    ``int(part, 0)`` would be wrong: it rejects "0177" and accepts "0o17", "1_0" and
    non-ASCII digits, none of which browsers agree with.
    """
    if part == "":
        return None
    digits, allowed, radix = part, _DECIMAL, 10
    if part[:2] in ("0x", "0X"):
        digits, allowed, radix = part[2:], _HEX, 16
    elif len(part) > 1 and part[0] == "0":
        digits, allowed, radix = part[1:], _OCTAL, 8
    if digits == "":
        return 0  # "0x" alone is zero in browsers
    if any(c not in allowed for c in digits):
        return None
    digits = digits.lstrip("0") or "0"
    if len(digits) > 40:  # far beyond 2**32 in any radix; skip int() on megadigit strings
        return 1 << 64
    return int(digits, radix)


def parse_whatwg_ipv4(host: str) -> int | None:
    """Parse an IPv4 host the way browsers do, returning the 32-bit number, or ``None``.

    Written by hand because browsers accept spellings ``ipaddress`` (rightly, for its purpose)
    rejects: 1 to 4 parts, each decimal, ``0x`` hex or ``0`` octal, where the last part fills
    all remaining bytes — ``127.1``, ``0x7f.1``, ``0177.0.0.1``, ``2130706433`` and
    ``0x7f000001`` are all 127.0.0.1. A security check that parses differently from the
    browser checks a different host than the one that gets opened.
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()  # one trailing dot is allowed: "127.0.0.1." is 127.0.0.1
    if len(parts) > 4:
        return None
    numbers: list[int] = []
    for part in parts:
        number = _parse_ipv4_number(part)
        if number is None:
            return None
        numbers.append(number)
    if any(number > 255 for number in numbers[:-1]):
        return None
    if numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number * 256 ** (3 - index)
    return value


def _parse_bracketed(written: str, result: ParsedHost) -> None:
    inner = written[1:-1] if written.endswith("]") else written[1:]
    zone = ""
    if "%" in inner:
        # Zone identifiers ("fe80::1%25eth0") are rejected by browsers; we still classify the
        # address part so the reasons say what it would have reached.
        inner, _percent, zone = inner.partition("%")
        result.errors.append(
            _(
                "the IPv6 address carries a zone identifier ('%{zone}'), which browsers reject"
            ).format(zone=visible(zone))
        )
    try:
        address = ipaddress.IPv6Address(inner)
    except ValueError:
        if not zone:
            result.errors.append(
                _("'{host}' is not a valid IPv6 address").format(host=visible(written))
            )
            return
        # The zone made it invalid anyway; an unparsable address part adds nothing.
        return
    result.kind = HostKind.IPV6
    result.address = address
    result.ascii = result.unicode = f"[{address.compressed}]"


def _parse_name(mapped: str, result: ParsedHost) -> None:
    """Validate a domain name label by label and fill in both of its forms."""
    labels = mapped.split(".")
    trailing_dot = len(labels) > 1 and labels[-1] == ""
    if trailing_dot:
        labels.pop()
    if any(label == "" for label in labels):
        result.errors.append(
            _("'{host}' has an empty label (two dots in a row)").format(host=visible(mapped))
        )
        return

    ascii_labels: list[str] = []
    unicode_labels: list[str] = []
    for label in labels:
        if label.isascii() and not label.startswith("xn--"):
            bad = sorted({c for c in label if c not in _ASCII_LABEL})
            if bad:
                shown = listed(repr(c) if c.isprintable() else visible(c) for c in bad)
                result.errors.append(
                    _(
                        "the label '{label}' contains characters no host name has: {characters}"
                    ).format(label=visible(label), characters=shown)
                )
                return
            ascii_label = unicode_label = label
        else:
            try:
                if label.isascii():  # an A-label: it must decode to a valid U-label
                    unicode_label = idna.ulabel(label)
                    ascii_label = label
                else:
                    ascii_label = idna.alabel(label).decode("ascii")
                    unicode_label = label
            except (idna.IDNAError, UnicodeError, ValueError) as exc:
                result.idna_errors.append(f"'{visible(label)}': {exc}")
                return
        if len(ascii_label) > 63:
            result.errors.append(
                _("the label '{label}' is longer than 63 characters").format(
                    label=visible(label, 40)
                )
            )
            return
        ascii_labels.append(ascii_label)
        unicode_labels.append(unicode_label)

    dot = "." if trailing_dot else ""
    ascii_host = ".".join(ascii_labels)
    if len(ascii_host) > 253:
        result.errors.append(_("the host is longer than the 253 characters DNS allows"))
        return
    result.kind = HostKind.NAME
    result.ascii = ascii_host + dot
    result.unicode = ".".join(unicode_labels) + dot
    result.labels = tuple(unicode_labels)
