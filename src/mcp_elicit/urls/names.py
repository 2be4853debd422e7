"""Host names that point inside the person's machine or network, whatever DNS says.

``localhost`` and ``*.localhost`` are loopback by specification (RFC 6761) and browsers
resolve them without DNS. The other names here only mean something on a local network: mDNS
(``.local``), split-horizon corporate DNS, cloud-internal zones. A server has no business
sending a person there. Nor to a name under a top-level domain nobody registers names under
publicly (``.svc``, ``.consul``, ``.test``, made-up ones), which the Public Suffix List tells
apart from the public ones.
"""

from __future__ import annotations

import functools
import ipaddress

from mcp_elicit.i18n import N_, _
from mcp_elicit.urls.addresses import AddressFinding
from mcp_elicit.urls.codes import ReasonCode
from mcp_elicit.urls.registrable import public_suffix_list

# The descriptions below are English, marked for the catalog, and translated where a finding
# or who_controls() is made, so nothing cached here holds words of one language.

# Cloud metadata services by name (their addresses are in addresses.py).
_METADATA_NAMES = {
    "metadata.google.internal": N_("the Google Cloud metadata service"),
    "metadata": N_("the Google Cloud metadata service (short name)"),
    "instance-data": N_("the AWS instance metadata service (short name)"),
    "instance-data.ec2.internal": N_("the AWS instance metadata service"),
}

# Top-level names used for local or internal networks: reserved for it (.local, .internal,
# home.arpa) or used that way widely enough that ICANN will not delegate them.
# Each completes "the host … is …".
_LOCAL_SUFFIXES = {
    "local": N_("a name for multicast DNS on the local network (.local)"),
    "localdomain": N_("a name for the local host or network (.localdomain)"),
    "internal": N_("a name for private internal networks (.internal)"),
    "intranet": N_("a name for internal networks (.intranet)"),
    "lan": N_("a name for home and office networks (.lan)"),
    "home": N_("a name for home networks (.home)"),
    "corp": N_("a name for corporate networks (.corp)"),
    "private": N_("a name for private networks (.private)"),
    "home.arpa": N_("a name for home networks (home.arpa)"),
}

# Top-level domains the Public Suffix List lists although nobody registers names under them in
# public DNS: .onion is Tor's (RFC 7686), .arpa is DNS infrastructure (RFC 3172; home.arpa is
# a local suffix above). Every other top-level domain is public exactly when the list has it.
_LISTED_NOT_PUBLIC = {
    "onion": N_(
        "a Tor onion service (.onion), which ordinary browsers cannot open and no "
        "public DNS answers for"
    ),
    "arpa": N_(
        "a DNS infrastructure name (.arpa, reverse lookups and protocol registries), not a web host"
    ),
}
# Wording for well-known unlisted ones; what makes them not public is the list, not this.
_RESERVED_TLDS = {
    "test": N_("reserved for testing (RFC 6761)"),
    "example": N_("reserved for documentation (RFC 6761)"),
    "invalid": N_("reserved for names that never exist (RFC 6761)"),
    "alt": N_("reserved for names outside DNS (RFC 9476)"),
}

# Who decides where a link leads (UrlVerdict.who_controls), for hosts nobody registered.
# Each completes "<host> is …".
_MDNS = N_("a local network name (mDNS .local): any device on your network can answer to it")
_LOCALHOST = N_("a localhost name: it always means this machine, and whatever runs on it answers")
_SINGLE_LABEL = N_(
    "a single-label name: nobody registers it; your network's search domains decide where it leads"
)
_IP_ADDRESS = N_(
    "an IP address: whoever runs the machine at it controls the link; no name says who"
)
_ONION = N_(
    "a Tor onion service (.onion): whoever holds its key controls the link; ordinary browsers "
    "cannot open it"
)
_ARPA = N_(
    "a DNS infrastructure name (.arpa): nobody registers it publicly; whoever was handed that "
    "part of .arpa (for reverse lookups, an address block's holder) decides where it leads"
)
_PUBLIC_SUFFIX = N_("a public suffix itself: whoever runs that suffix controls the link")
REGISTERED = N_("whoever registered this name controls the link")


def _is_localhost(name: str) -> bool:
    return name == "localhost" or name.endswith(".localhost")


def _local_suffix(labels: list[str]) -> str | None:
    """The local-network suffix (``local``, ``home.arpa``...) the name ends in, below it."""
    for suffix in (".".join(labels[-2:]), labels[-1]):
        if len(labels) > suffix.count(".") + 1 and suffix in _LOCAL_SUFFIXES:
            return suffix
    return None


def non_public_tld(ascii_host: str) -> str | None:
    """The top-level domain of a multi-label name when it is not a public one — not a rule of
    the Public Suffix List (``svc``, ``consul``, ``test``, ``foo123``), or ``onion`` or
    ``arpa`` — and the name is not already a localhost or local-network name. Else ``None``."""
    name = ascii_host.removesuffix(".")
    _body, dot, tld = name.rpartition(".")
    if not dot or _public_tld(tld):  # the common case, answered from a cache
        return None
    if _is_localhost(name) or _local_suffix(name.split(".")) is not None:
        return None
    return tld


def nobody_registers(ascii_host: str) -> bool:
    """Whether no public registry hands out the name: local names (:func:`is_local_name`) and
    names under a top-level domain that is not public (:func:`non_public_tld`).

    Both come down to a single label or a top-level domain that is not public (every local
    suffix and ``localhost`` is one), which is how it is computed: it runs for every URL."""
    name = ascii_host.removesuffix(".")
    _body, dot, tld = name.rpartition(".")
    return not dot or not _public_tld(tld)


@functools.lru_cache(maxsize=4096)
def _public_tld(tld: str) -> bool:
    """Whether names are registered publicly under the (punycode) top-level domain: it is a
    rule of the Public Suffix List (asked of the library, never guessed), and not .onion or
    .arpa. Cached: check_url asks for every name, and there are about 1,500 such domains."""
    if tld in _LISTED_NOT_PUBLIC:
        return False
    return public_suffix_list().is_public(tld, accept_unknown=False)


def _tld_what(tld: str) -> str:
    """Completes "the host … is …" for a name under a top-level domain that is not public."""
    if tld in _LISTED_NOT_PUBLIC:
        return _(_LISTED_NOT_PUBLIC[tld])
    if tld in _RESERVED_TLDS:
        # Translators: {why} is why the top-level domain {tld} exists, such as "reserved for
        # testing (RFC 6761)".
        return _(
            "under .{tld}, {why}: nobody registers names under it publicly, so whichever DNS "
            "server answers (a cluster's, an office's, or one on the same network) decides "
            "where it leads"
        ).format(tld=tld, why=_(_RESERVED_TLDS[tld]))
    return _(
        "under .{tld}, not a top-level domain on the Public Suffix List: nobody registers names "
        "under it publicly, so whichever DNS server answers (a cluster's, an office's, or one "
        "on the same network) decides where it leads"
    ).format(tld=tld)


def is_local_name(ascii_host: str) -> bool:
    """Whether the (lowercase, punycode) name means something only on this machine or the
    local network, so that nobody registered it: ``localhost`` and ``*.localhost``, the local
    suffixes (``.local``, ``.internal``, ``home.arpa``...) and single labels."""
    name = ascii_host.removesuffix(".")
    labels = name.split(".")
    return _is_localhost(name) or _local_suffix(labels) is not None or len(labels) == 1


def who_controls(ascii_host: str, registrable: str | None) -> str:
    """Who decides where a link to the host leads, in words for the person who may open it.

    ``ascii_host`` is the host as DNS sees it (an IPv6 address in brackets); ``registrable``
    its registrable domain, ``None`` when it has none."""
    name = ascii_host.removesuffix(".")
    try:
        ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        pass
    else:
        return _(_IP_ADDRESS)
    if _is_localhost(name):
        return _(_LOCALHOST)
    labels = name.split(".")
    suffix = _local_suffix(labels)
    if suffix == "local":
        return _(_MDNS)
    if suffix is not None:
        where = suffix if "." in suffix else f".{suffix}"
        return _(
            "a local network name ({suffix}): nobody registers it; your network's own DNS "
            "decides where it leads"
        ).format(suffix=where)
    if len(labels) == 1:
        return _(_SINGLE_LABEL)
    tld = non_public_tld(name)
    if tld == "onion":
        return _(_ONION)
    if tld == "arpa":
        return _(_ARPA)
    if tld is not None and tld in _RESERVED_TLDS:
        # Translators: {why} is why the top-level domain {tld} exists, such as "reserved for
        # testing (RFC 6761)".
        return _(
            "a name under .{tld}, {why}: nobody registers it publicly; whichever DNS "
            "server your computer asks decides where it leads"
        ).format(tld=tld, why=_(_RESERVED_TLDS[tld]))
    if tld is not None:
        return _(
            "a name under .{tld}, not a public top-level domain: nobody registers it publicly; "
            "whichever DNS server your computer asks decides where it leads"
        ).format(tld=tld)
    return _(REGISTERED) if registrable is not None else _(_PUBLIC_SUFFIX)


def classify_name(ascii_host: str) -> list[AddressFinding]:
    """Everything that makes the (lowercase, punycode) name unfit for a link."""
    name = ascii_host.removesuffix(".")
    findings: list[AddressFinding] = []
    if name in _METADATA_NAMES:
        findings.append(AddressFinding(ReasonCode.CLOUD_METADATA, _(_METADATA_NAMES[name])))
    if _is_localhost(name):
        findings.append(
            AddressFinding(
                ReasonCode.LOOPBACK, _("a localhost name, which always means this machine")
            )
        )
        return findings
    labels = name.split(".")
    suffix = _local_suffix(labels)
    if suffix is not None:
        findings.append(AddressFinding(ReasonCode.LOCAL_NAME, _(_LOCAL_SUFFIXES[suffix])))
        return findings
    if len(labels) == 1:
        findings.append(
            AddressFinding(
                ReasonCode.LOCAL_NAME,
                _("a single-label name, which resolves through the local network's search domains"),
            )
        )
        return findings
    tld = non_public_tld(name)
    if tld is not None:
        findings.append(AddressFinding(ReasonCode.NON_PUBLIC_TLD, _tld_what(tld)))
    return findings
