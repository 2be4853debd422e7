"""The stable reason codes. Programs match on these; messages are for people and may change.

Every code is documented in ``docs/urls.md`` (a test keeps the two in step).
"""

from __future__ import annotations

from enum import StrEnum


class ReasonCode(StrEnum):
    # The text of the URL.
    TOO_LONG = "too_long"
    MALFORMED_URL = "malformed_url"
    WHITESPACE = "whitespace"
    CONTROL_CHARACTER = "control_character"
    BIDI_CONTROL = "bidi_control"
    INVISIBLE_CHARACTER = "invisible_character"
    BACKSLASH = "backslash"
    # The scheme.
    SCHEME_NOT_ALLOWED = "scheme_not_allowed"
    INSECURE_SCHEME = "insecure_scheme"
    LOCAL_DEVELOPMENT = "local_development"
    # The authority.
    CREDENTIALS = "credentials"
    EMPTY_HOST = "empty_host"
    INVALID_HOST = "invalid_host"
    INVALID_IDNA = "invalid_idna"
    INVALID_PORT = "invalid_port"
    NON_DEFAULT_PORT = "non_default_port"
    # Where the host points.
    LOOPBACK = "loopback"
    PRIVATE_NETWORK = "private_network"
    LINK_LOCAL = "link_local"
    CARRIER_GRADE_NAT = "carrier_grade_nat"
    MULTICAST = "multicast"
    UNSPECIFIED_ADDRESS = "unspecified_address"
    RESERVED_ADDRESS = "reserved_address"
    CLOUD_METADATA = "cloud_metadata"
    LOCAL_NAME = "local_name"
    NON_PUBLIC_TLD = "non_public_tld"
    EMBEDDED_ADDRESS = "embedded_address"
    IP_ADDRESS_HOST = "ip_address_host"
    OBFUSCATED_HOST = "obfuscated_host"
    UNRESOLVABLE = "unresolvable"
    # How the host looks.
    IDN_HOST = "idn_host"
    MIXED_SCRIPTS = "mixed_scripts"
    CONFUSABLE_CHARACTERS = "confusable_characters"
    # The checker itself.
    INTERNAL_ERROR = "internal_error"
