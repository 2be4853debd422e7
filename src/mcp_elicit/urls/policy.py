"""What a client accepts. The defaults are the strict policy for offering links to people."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class UrlPolicy:
    """The knobs of :func:`mcp_elicit.urls.check_url`. Every default is the safe choice.

    Cloud metadata addresses, unspecified/multicast/reserved addresses, credentials, invisible
    characters and invalid hosts are blocked whatever the policy says.
    """

    allowed_schemes: frozenset[str] = field(default_factory=lambda: frozenset({"https"}))
    """Schemes that may be offered (lowercase). Anything else is blocked, ``http`` included.
    Allowing ``http``/``ws``/``ftp`` here turns their block into an ``insecure_scheme`` warning."""

    allow_http_loopback: bool = False
    """Local development: let ``http`` (and the allowed schemes) reach loopback hosts —
    127.0.0.0/8, ``::1``, ``localhost`` and ``*.localhost`` — with a ``local_development``
    warning instead of a block. Other hosts over ``http`` stay blocked, and so do private and
    link-local addresses."""

    allow_private: bool = False
    """An intranet deployment: private (RFC 1918, fc00::/7), carrier-grade NAT, link-local
    addresses and local names (``.local``, ``.internal``, single labels...) warn instead of
    block. Loopback and cloud metadata stay blocked."""

    max_length: int = 8192
    """Longer URLs are blocked (``too_long``) without being parsed: no legitimate link a person
    is asked to open is this long, and the check's work stays bounded."""

    resolve_timeout: float = 2.0
    """Seconds to wait for DNS when resolution is asked for; then the host is ``unresolvable``."""

    def __post_init__(self) -> None:
        schemes: Iterable[object] = self.allowed_schemes
        if isinstance(schemes, str):
            raise TypeError("allowed_schemes must be a collection of schemes, not one string")
        normalized = frozenset(str(scheme).lower().removesuffix(":") for scheme in schemes)
        # A frozen dataclass can only be normalised through object.__setattr__.
        object.__setattr__(self, "allowed_schemes", normalized)
        if self.max_length < 1:
            raise ValueError("max_length must be positive")
        if not self.resolve_timeout > 0:
            raise ValueError("resolve_timeout must be positive")


DEFAULT_POLICY = UrlPolicy()
