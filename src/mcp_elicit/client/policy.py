"""What the host allows before a person is asked: servers, modes, rate, whether anyone is there."""

from __future__ import annotations

import fnmatch
from collections import deque
from dataclasses import dataclass, field, replace

from mcp_elicit.protocol import FORM_AND_URL, ElicitationModes
from mcp_elicit.protocol.codes import META_OUTCOME
from mcp_elicit.urls import DEFAULT_POLICY, UrlPolicy

OUTCOME_META = META_OUTCOME
"""``_meta`` key on a result the person did not choose: the handler cancelled on its own, and
says why, so a server can tell it from a person's decline or cancel (the server side reads it
into ``Cancelled.reason``)."""


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``requests`` elicitations per server in any ``per_seconds`` window."""

    requests: int = 20
    per_seconds: float = 60.0

    def __post_init__(self) -> None:
        if self.requests < 1:
            raise ValueError(f"RateLimit.requests must be at least 1, not {self.requests}")
        if not self.per_seconds > 0:
            raise ValueError(f"RateLimit.per_seconds must be positive, not {self.per_seconds}")


@dataclass(frozen=True, slots=True)
class Policy:
    """The host's rules for elicitation.

    ``allow_servers`` / ``deny_servers`` are shell-style patterns matched against the server's
    name (``serverInfo.name``); deny wins, and an empty allow list allows every server.
    ``modes`` is exactly what the client declares in its capabilities. With
    ``person_available=False`` every request is cancelled, marked ``no-person`` in ``_meta``,
    instead of pretending a person declined.

    ``url_policy`` decides which links are offered. A server this host started itself over
    stdio runs on this machine as this user and serves its pages on ``http://127.0.0.1``: with
    ``loopback_for_local_servers`` (the default) its ``http`` links to loopback are offered,
    with the local-development warning shown; links from any other server follow
    ``url_policy`` alone.
    """

    modes: ElicitationModes = FORM_AND_URL
    allow_servers: tuple[str, ...] = ()
    deny_servers: tuple[str, ...] = ()
    rate_limit: RateLimit | None = field(default_factory=RateLimit)
    url_policy: UrlPolicy = DEFAULT_POLICY
    person_available: bool = True
    loopback_for_local_servers: bool = True

    def url_policy_for(self, *, local: bool) -> UrlPolicy:
        """The URL policy for links from a server; ``local`` for one this host started over
        stdio."""
        if local and self.loopback_for_local_servers and not self.url_policy.allow_http_loopback:
            return replace(self.url_policy, allow_http_loopback=True)
        return self.url_policy

    def allows_server(self, name: str) -> bool:
        """Whether the server named ``name`` may ask at all (deny wins over allow)."""
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.deny_servers):
            return False
        if not self.allow_servers:
            return True
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.allow_servers)


class RateLimiter:
    """A sliding window per server. Remembers whether the person was told about a flood, so
    they are told once per flood rather than once per cancelled request."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self._seen: dict[str, deque[float]] = {}
        self._told: set[str] = set()

    def admit(self, server: str, now: float) -> bool:
        times = self._seen.setdefault(server, deque())
        while times and now - times[0] >= self.limit.per_seconds:
            times.popleft()
        if len(times) >= self.limit.requests:
            return False
        times.append(now)
        self._told.discard(server)
        return True

    def first_refusal(self, server: str) -> bool:
        """``True`` the first time it is asked after a refusal began; then ``False``."""
        if server in self._told:
            return False
        self._told.add(server)
        return True
