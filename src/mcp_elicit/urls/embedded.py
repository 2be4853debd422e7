"""Host names that spell an IP address, which wildcard DNS services resolve to that address.

``10.0.0.1.nip.io``, ``10-0-0-1.sslip.io``, ``app-0a000001.nip.io`` and ``--1.sslip.io``
resolve to 10.0.0.1, 10.0.0.1 and ::1 for anyone who asks: nobody had to own a domain or set
up DNS to make a public-looking name point inside the person's machine or network (DNS
rebinding, phishing for an intranet login). The address is found from the name's labels, not
from a list of services: sslip.io answers for any domain delegated to its name servers, and
such a server is a few dozen lines to run. The short lists below only word the message, say
which service decodes hexadecimal, and name the few domains that always mean 127.0.0.1
(``localtest.me``), which nothing in their spelling gives away.

What counts as an address in a name, in the name's ASCII (punycode) form, anywhere left of its
last label, with ``.`` or ``-`` (or the start of the name) on both sides:

- four decimal numbers from 0 to 255 joined by ``.`` or ``-``: ``10.0.0.1``, ``10-0-0-1``,
  ``app-10.0.0.1``. ``v1.2.3.4`` and ``1-2-3`` are not: the digits must stand alone, which is
  also what nip.io and sslip.io require;
- ``0x`` and eight hex digits (``0x7f000001``), a deliberate spelling of an address;
- eight hex digits alone (``7f000001``), which nip.io decodes. Commit hashes and random ids
  (Cloudflare Pages previews are ``<8 hex digits>.<project>.pages.dev``) have the same shape,
  so off the services known to decode it this only counts as a *possible* address, and only
  when it would be one of the inside addresses an attacker aims at;
- a whole label that is an IPv6 address with ``-`` for ``:`` (``--1``, ``fe80--1``,
  ``2a01-4f8-c17-b8f--2``, sslip.io's spelling), when that address is global unicast or
  inside the machine or network; ``ab--cd`` (``ab::cd``, an unassigned address) is just a name.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from mcp_elicit.i18n import N_
from mcp_elicit.urls.addresses import IPAddress, classify_address
from mcp_elicit.urls.codes import ReasonCode

# Public wildcard DNS services: the name resolves to the address spelled in it.
WILDCARD_SERVICES = frozenset({"nip.io", "sslip.io", "xip.io", "traefik.me"})
# The ones that also read eight hex digits as an address (nip.io documents it).
_HEX_SERVICES = frozenset({"nip.io"})
# Public domains whose every name points at 127.0.0.1 (traefik.me: unless an address is
# spelled in the name). Nothing in the spelling says so, hence a list.
ALWAYS_LOOPBACK = frozenset(
    {"localtest.me", "lvh.me", "vcap.me", "lacolhost.com", "localhost.direct", "traefik.me"}
)
_KNOWN = WILDCARD_SERVICES | ALWAYS_LOOPBACK  # all of them registered right under a TLD
_KNOWN_TLDS = frozenset(service.rpartition(".")[2] for service in _KNOWN)
_LOOPBACK = ipaddress.IPv4Address("127.0.0.1")

# Four numbers of 1 to 3 digits with '.' or '-' between and around them; in a lookahead, so
# that overlapping candidates ("1.10.0.0.1") are all seen.
_DOTTED = re.compile(r"(?=(?<![^.-])(\d{1,3}[.-]\d{1,3}[.-]\d{1,3}[.-]\d{1,3})(?![^.-]))")
_HEX = re.compile(r"(?<![^.-])(0x)?([0-9a-f]{8})(?![^.-])")
_HEX_AT_END = re.compile(r"(?<![^.-])([0-9a-f]{8})$")
_SEPARATOR = re.compile(r"[.-]")
_DIGIT = re.compile(r"[0-9]")
_V6_LABEL = frozenset("0123456789abcdef-")
# What an uncertain (bare hex) spelling must point at to be worth a warning: the inside
# addresses a rebinding or phishing link aims at. Multicast and reserved ranges are left
# out: they cover an eighth of all hashes and nobody aims a link at them.
_INSIDE = frozenset(
    {
        ReasonCode.LOOPBACK,
        ReasonCode.PRIVATE_NETWORK,
        ReasonCode.LINK_LOCAL,
        ReasonCode.CARRIER_GRADE_NAT,
        ReasonCode.UNSPECIFIED_ADDRESS,
        ReasonCode.CLOUD_METADATA,
    }
)
# The first octets of those ranges (0/8, 10/8, 100.64/10 and 100.100.100.200, 127/8,
# 169.254/16, 172.16/12, 192.168/16): a quick way past most hashes.
_INSIDE_FIRST_OCTETS = frozenset({0, 10, 100, 127, 169, 172, 192})


@dataclass(frozen=True, slots=True)
class EmbeddedAddress:
    address: IPAddress
    spelling: str
    """The part of the name that spells it: ``10-0-0-1``, ``7f000001``, ``localtest.me``."""
    form: str
    """How it is spelled, completing "'10-0-0-1' is 10.0.0.1 …": "written with dots",
    "written with dashes", "in hexadecimal", "with '-' for ':'" (English, marked for the
    catalog: translate with ``_`` where shown); or "fixed" for a domain that always points at
    the address."""
    certain: bool = True
    """``False`` for eight bare hex digits off the services known to decode them."""
    disguised: bool = False
    """Hex spellings: a person cannot read the address in them."""


def wildcard_service(ascii_name: str) -> str | None:
    """The known wildcard DNS service (or always-loopback domain) the name is under."""
    name = ascii_name.removesuffix(".")
    body, _, tld = name.rpartition(".")
    return _service(body, tld)


def _service(body: str, tld: str) -> str | None:
    service = f"{body.rpartition('.')[2]}.{tld}"
    return service if service in _KNOWN else None


def embedded_addresses(ascii_name: str) -> list[EmbeddedAddress]:
    """The addresses a (lowercase, punycode) name spells, in the order found, one per address."""
    name = ascii_name.removesuffix(".")
    body, dot, tld = name.rpartition(".")
    if not dot or tld == "arpa":  # 1.0.0.127.in-addr.arpa is a reverse lookup, not 1.0.0.127
        return []
    # Cheap tests first: check_url runs this for every name, and most spell nothing.
    digits = _DIGIT.search(body) is not None
    service = _service(body, tld) if tld in _KNOWN_TLDS else None
    if not digits and "-" not in body and service is None:
        return []
    found: dict[IPAddress, EmbeddedAddress] = {}
    if digits:
        _dotted(body, found)
    if service in _HEX_SERVICES:
        # nip.io reads eight hex digits only right before its own name.
        match = _HEX_AT_END.search(name[: -len(service) - 1] if service else "")
        if match:
            _keep(found, _hex(match.group(1), match.group(1), certain=True))
    if digits:  # 0x... has one, and hex digits that are all letters are never inside
        _hexadecimal(body, found)
    if "-" in body:
        _ipv6(body, found)
    if not found and service in ALWAYS_LOOPBACK:
        found[_LOOPBACK] = EmbeddedAddress(_LOOPBACK, service or "", "fixed")
    return list(found.values())


def _keep(found: dict[IPAddress, EmbeddedAddress], embedded: EmbeddedAddress) -> None:
    known = found.get(embedded.address)
    if known is None or (embedded.certain and not known.certain):
        found[embedded.address] = embedded


def _hex(spelling: str, digits: str, *, certain: bool) -> EmbeddedAddress:
    address = ipaddress.IPv4Address(int(digits, 16))
    return EmbeddedAddress(address, spelling, N_("in hexadecimal"), certain, disguised=True)


def _dotted(body: str, found: dict[IPAddress, EmbeddedAddress]) -> None:
    for match in _DOTTED.finditer(body):
        spelling = match.group(1)
        octets = [int(part) for part in _SEPARATOR.split(spelling)]
        if max(octets) > 255:
            continue
        a, b, c, d = octets
        address = ipaddress.IPv4Address(a << 24 | b << 16 | c << 8 | d)
        form = N_("written with dots") if "-" not in spelling else N_("written with dashes")
        _keep(found, EmbeddedAddress(address, spelling, form))


def _hexadecimal(body: str, found: dict[IPAddress, EmbeddedAddress]) -> None:
    for match in _HEX.finditer(body):
        prefixed = match.group(1) is not None  # 0x7f000001: an address, whatever the domain
        if not prefixed and int(match.group(2)[:2], 16) not in _INSIDE_FIRST_OCTETS:
            continue  # a hash, most likely, and not one that reads as an inside address
        embedded = _hex(match.group(0), match.group(2), certain=prefixed)
        if prefixed or any(f.code in _INSIDE for f in classify_address(embedded.address)):
            _keep(found, embedded)


def _ipv6(body: str, found: dict[IPAddress, EmbeddedAddress]) -> None:
    for label in body.split("."):
        if "-" not in label or not set(label) <= _V6_LABEL:
            continue
        if "--" not in label and label.count("-") != 7:
            continue
        try:
            address = ipaddress.IPv6Address(label.replace("-", ":"))
        except ValueError:
            continue
        global_unicast = int(address) >> 125 == 1  # 2000::/3
        inside = any(
            f.code not in (ReasonCode.RESERVED_ADDRESS, ReasonCode.MULTICAST)
            for f in classify_address(address)
        )
        if global_unicast or inside:
            _keep(found, EmbeddedAddress(address, label, N_("with '-' for ':'")))
