"""Host names that point inside the person's machine or network, whatever DNS says.

``localhost`` and ``*.localhost`` are loopback by specification (RFC 6761) and browsers
resolve them without DNS. The other names here only mean something on a local network: mDNS
(``.local``), split-horizon corporate DNS, cloud-internal zones. A server has no business
sending a person there.
"""

from __future__ import annotations

import ipaddress

from mcp_elicit.urls.addresses import AddressFinding
from mcp_elicit.urls.codes import ReasonCode

# Cloud metadata services by name (their addresses are in addresses.py).
_METADATA_NAMES = {
    "metadata.google.internal": "the Google Cloud metadata service",
    "metadata": "the Google Cloud metadata service (short name)",
    "instance-data": "the AWS instance metadata service (short name)",
    "instance-data.ec2.internal": "the AWS instance metadata service",
}

# Top-level names used for local or internal networks: reserved for it (.local, .internal,
# home.arpa) or used that way widely enough that ICANN will not delegate them.
_LOCAL_SUFFIXES = {
    "local": "multicast DNS on the local network (.local)",
    "localdomain": "the local host or network (.localdomain)",
    "internal": "private internal networks (.internal)",
    "intranet": "internal networks (.intranet)",
    "lan": "home and office networks (.lan)",
    "home": "home networks (.home)",
    "corp": "corporate networks (.corp)",
    "private": "private networks (.private)",
    "home.arpa": "home networks (home.arpa)",
}

# Who decides where a link leads (UrlVerdict.who_controls), for hosts nobody registered.
_MDNS = "a local network name (mDNS .local): any device on your network can answer to it"
_LOCALHOST = "a localhost name: it always means this machine, and whatever runs on it answers"
_SINGLE_LABEL = (
    "a single-label name: nobody registers it; your network's search domains decide where it leads"
)
_IP_ADDRESS = "an IP address: whoever runs the machine at it controls the link; no name says who"
_PUBLIC_SUFFIX = "a public suffix itself: whoever runs that suffix controls the link"
REGISTERED = "whoever registered this name controls the link"


def _is_localhost(name: str) -> bool:
    return name == "localhost" or name.endswith(".localhost")


def _local_suffix(labels: list[str]) -> str | None:
    """The local-network suffix (``local``, ``home.arpa``...) the name ends in, below it."""
    for suffix in (".".join(labels[-2:]), labels[-1]):
        if len(labels) > suffix.count(".") + 1 and suffix in _LOCAL_SUFFIXES:
            return suffix
    return None


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
        return _IP_ADDRESS
    if _is_localhost(name):
        return _LOCALHOST
    labels = name.split(".")
    suffix = _local_suffix(labels)
    if suffix == "local":
        return _MDNS
    if suffix is not None:
        where = suffix if "." in suffix else f".{suffix}"
        return (
            f"a local network name ({where}): nobody registers it; your network's own DNS "
            "decides where it leads"
        )
    if len(labels) == 1:
        return _SINGLE_LABEL
    return REGISTERED if registrable is not None else _PUBLIC_SUFFIX


def classify_name(ascii_host: str) -> list[AddressFinding]:
    """Everything that makes the (lowercase, punycode) name unfit for a link."""
    name = ascii_host.removesuffix(".")
    findings: list[AddressFinding] = []
    if name in _METADATA_NAMES:
        findings.append(AddressFinding(ReasonCode.CLOUD_METADATA, _METADATA_NAMES[name]))
    if _is_localhost(name):
        findings.append(
            AddressFinding(ReasonCode.LOOPBACK, "a localhost name, which always means this machine")
        )
        return findings
    labels = name.split(".")
    suffix = _local_suffix(labels)
    if suffix is not None:
        findings.append(
            AddressFinding(ReasonCode.LOCAL_NAME, f"a name for {_LOCAL_SUFFIXES[suffix]}")
        )
        return findings
    if len(labels) == 1:
        findings.append(
            AddressFinding(
                ReasonCode.LOCAL_NAME,
                "a single-label name, which resolves through the local network's search domains",
            )
        )
    return findings
