"""Host names that point inside the person's machine or network, whatever DNS says.

``localhost`` and ``*.localhost`` are loopback by specification (RFC 6761) and browsers
resolve them without DNS. The other names here only mean something on a local network: mDNS
(``.local``), split-horizon corporate DNS, cloud-internal zones. A server has no business
sending a person there.
"""

from __future__ import annotations

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


def classify_name(ascii_host: str) -> list[AddressFinding]:
    """Everything that makes the (lowercase, punycode) name unfit for a link."""
    name = ascii_host.removesuffix(".")
    findings: list[AddressFinding] = []
    if name in _METADATA_NAMES:
        findings.append(AddressFinding(ReasonCode.CLOUD_METADATA, _METADATA_NAMES[name]))
    if name == "localhost" or name.endswith(".localhost"):
        findings.append(
            AddressFinding(ReasonCode.LOOPBACK, "a localhost name, which always means this machine")
        )
        return findings
    labels = name.split(".")
    for suffix in (".".join(labels[-2:]), labels[-1]):
        if len(labels) > suffix.count(".") + 1 and suffix in _LOCAL_SUFFIXES:
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
