"""Where an IP address leads: the local machine, a private network, cloud metadata, or the internet.

The ranges are spelled out here rather than taken from ``ipaddress``'s ``is_private`` and
``is_global``: those have changed between Python patch releases, and a safety check must not
change its verdicts when the interpreter is upgraded. Multicast is global to ``ipaddress``, and
IPv4 embedded in IPv6 needs looking inside, which ``ipaddress`` only does for some forms.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from mcp_elicit.i18n import N_, _
from mcp_elicit.urls.codes import ReasonCode

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class AddressFinding:
    code: ReasonCode
    what: str
    """Completes "the host … is …": e.g. "loopback: this machine itself (127.0.0.0/8)", in the
    language in effect when the address was classified."""


# Instance metadata services hand out cloud credentials to whoever asks from inside the
# instance; a link to one is never something to offer a person.
_METADATA_V4 = {
    ipaddress.IPv4Address("169.254.169.254"): N_(
        "the instance metadata service of AWS, Azure, GCP, OCI, DigitalOcean and others"
    ),
    ipaddress.IPv4Address("169.254.170.2"): N_("the AWS ECS task metadata service"),
    ipaddress.IPv4Address("100.100.100.200"): N_("the Alibaba Cloud metadata service"),
}
_METADATA_V6 = {
    ipaddress.IPv6Address("fd00:ec2::254"): N_("the AWS instance metadata service (IPv6)"),
}

# (network, code, description) — the first match wins, so specific ranges come first.
# The description completes "the host ... is ..." and is followed by the network in brackets.
_R = ReasonCode
_V4_TABLE = (
    ("0.0.0.0/32", _R.UNSPECIFIED_ADDRESS, N_("the unspecified address, which browsers on Linux "
     "and macOS send to this machine")),
    ("0.0.0.0/8", _R.UNSPECIFIED_ADDRESS, N_("in 'this network'")),
    ("127.0.0.0/8", _R.LOOPBACK, N_("loopback: this machine itself")),
    ("10.0.0.0/8", _R.PRIVATE_NETWORK, N_("a private network address")),
    ("172.16.0.0/12", _R.PRIVATE_NETWORK, N_("a private network address")),
    ("192.168.0.0/16", _R.PRIVATE_NETWORK, N_("a private network address")),
    ("169.254.0.0/16", _R.LINK_LOCAL, N_("link-local")),
    ("100.64.0.0/10", _R.CARRIER_GRADE_NAT, N_("carrier-grade NAT, inside a provider's network")),
    ("192.0.0.0/24", _R.RESERVED_ADDRESS, N_("reserved for IETF protocol assignments")),
    ("192.0.2.0/24", _R.RESERVED_ADDRESS, N_("reserved for documentation")),
    ("198.51.100.0/24", _R.RESERVED_ADDRESS, N_("reserved for documentation")),
    ("203.0.113.0/24", _R.RESERVED_ADDRESS, N_("reserved for documentation")),
    ("198.18.0.0/15", _R.RESERVED_ADDRESS, N_("reserved for benchmarking")),
    ("224.0.0.0/4", _R.MULTICAST, N_("multicast")),
    ("255.255.255.255/32", _R.RESERVED_ADDRESS, N_("the limited broadcast address")),
    ("240.0.0.0/4", _R.RESERVED_ADDRESS, N_("reserved for future use")),
)  # fmt: skip
_V6_TABLE = (
    ("::/128", _R.UNSPECIFIED_ADDRESS, N_("the unspecified address")),
    ("::1/128", _R.LOOPBACK, N_("loopback: this machine itself")),
    ("fc00::/7", _R.PRIVATE_NETWORK, N_("a unique local (private) address")),
    ("fec0::/10", _R.PRIVATE_NETWORK, N_("a site-local (private) address")),
    ("fe80::/10", _R.LINK_LOCAL, N_("link-local")),
    ("ff00::/8", _R.MULTICAST, N_("multicast")),
    ("64:ff9b:1::/48", _R.PRIVATE_NETWORK, N_("a local-use NAT64 address")),
    ("100::/64", _R.RESERVED_ADDRESS, N_("reserved for discarding traffic")),
    ("2001:db8::/32", _R.RESERVED_ADDRESS, N_("reserved for documentation")),
    ("3fff::/20", _R.RESERVED_ADDRESS, N_("reserved for documentation")),
    ("2001:2::/48", _R.RESERVED_ADDRESS, N_("reserved for benchmarking")),
    ("2001:10::/28", _R.RESERVED_ADDRESS, N_("a deprecated ORCHID address")),
)

# The descriptions stay English (marked) here and are translated when an address is classified,
# in the language in effect then.
_V4_RANGES = tuple((ipaddress.IPv4Network(net), code, what) for net, code, what in _V4_TABLE)
_V6_RANGES = tuple((ipaddress.IPv6Network(net), code, what) for net, code, what in _V6_TABLE)

# Global unicast is 2000::/3; anything else not matched above is not on the public internet.
_V6_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")

# IPv6 ranges that carry an IPv4 address a packet ends up at; the IPv4 address is what matters.
_Net6 = ipaddress.IPv6Network
_MAPPED = _Net6("::ffff:0:0/96")  # IPv4-mapped: the socket API connects to the IPv4 address
_TRANSLATED = _Net6("::ffff:0:0:0/96")  # SIIT IPv4-translated
_COMPATIBLE = _Net6("::/96")  # deprecated IPv4-compatible
_NAT64 = _Net6("64:ff9b::/96")  # well-known NAT64 prefix
_NAT64_LOCAL = _Net6("64:ff9b:1::/48")  # local-use NAT64 (RFC 8215); /96 in practice


def embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, str] | None:
    """The IPv4 address an IPv6 address stands for, and the name of the embedding (English,
    marked for the catalog: translate it with ``_`` where it is shown)."""
    low32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _MAPPED:
        return low32, N_("IPv4-mapped")
    if address in _TRANSLATED:
        return low32, N_("IPv4-translated")
    if address in _COMPATIBLE and int(address) > 1:
        return low32, N_("IPv4-compatible")
    if address in _NAT64:
        return low32, N_("NAT64")
    if address in _NAT64_LOCAL:
        return low32, N_("local-use NAT64")
    if address.sixtofour is not None:
        return address.sixtofour, N_("6to4")
    if address.teredo is not None:
        return address.teredo[1], N_("Teredo")
    return None


def _in_range(what: str, network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> str:
    """A range's description (a marked constant) in the language in effect, with the range."""
    # Translators: {what} is the description of an address range, such as "link-local" or
    # "reserved for documentation"; {network} is the range, such as 169.254.0.0/16.
    return _("{what} ({network})").format(what=_(what), network=network)


def classify_address(address: IPAddress) -> list[AddressFinding]:
    """Everything that makes ``address`` unfit for a link; empty for a public address."""
    if isinstance(address, ipaddress.IPv4Address):
        return _classify_v4(address)
    findings: list[AddressFinding] = []
    if address in _METADATA_V6:
        findings.append(AddressFinding(ReasonCode.CLOUD_METADATA, _(_METADATA_V6[address])))
    embedded = embedded_ipv4(address)
    if embedded is not None:
        v4, how = embedded
        for finding in _classify_v4(v4):
            # Translators: {form} is how an IPv6 address carries an IPv4 one ("IPv4-mapped",
            # "6to4"...); {what} says what the IPv4 address is ("a private network address
            # (10.0.0.0/8)").
            what = _("the {form} IPv6 form of {address}, {what}").format(
                form=_(how), address=v4, what=finding.what
            )
            findings.append(AddressFinding(finding.code, what))
    for network, code, what in _V6_RANGES:
        if address in network:
            findings.append(AddressFinding(code, _in_range(what, network)))
            break
    else:
        if embedded is None and address not in _V6_GLOBAL_UNICAST:
            findings.append(
                AddressFinding(ReasonCode.RESERVED_ADDRESS, _("outside global unicast (2000::/3)"))
            )
    return findings


def _classify_v4(address: ipaddress.IPv4Address) -> list[AddressFinding]:
    findings: list[AddressFinding] = []
    if address in _METADATA_V4:
        findings.append(AddressFinding(ReasonCode.CLOUD_METADATA, _(_METADATA_V4[address])))
    for network, code, what in _V4_RANGES:
        if address in network:
            findings.append(AddressFinding(code, _in_range(what, network)))
            break
    return findings
