"""The result of a URL check: a verdict, its reasons, and the host as a person should see it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mcp_elicit.urls.names import who_controls


class Verdict(StrEnum):
    """What a client should do with the link."""

    ALLOW = "allow"
    """Offer the link."""
    WARN = "warn"
    """Offer the link only together with the reasons (and both forms of the host)."""
    BLOCK = "block"
    """Do not offer the link."""


class Severity(StrEnum):
    """How much one reason weighs. The verdict is the heaviest severity among the reasons."""

    WARN = "warn"
    BLOCK = "block"


@dataclass(frozen=True, slots=True)
class Reason:
    """One finding. ``code`` is stable (see :class:`mcp_elicit.urls.codes.ReasonCode`);
    ``message`` is for people, in the language in effect when the URL was checked
    (:mod:`mcp_elicit.i18n`), and may change between releases."""

    code: str
    message: str
    severity: Severity


@dataclass(frozen=True, slots=True)
class DisplayHost:
    """The host in the two forms a person should be shown.

    ``unicode`` is what the name looks like; ``ascii`` is what the browser actually asks DNS for
    (punycode, ``xn--…``). The two differ only for internationalised names; for IP addresses both
    hold the canonical spelling (IPv6 in brackets).
    """

    unicode: str
    ascii: str


@dataclass(frozen=True, slots=True)
class UrlVerdict:
    """The outcome of :func:`mcp_elicit.urls.check_url`."""

    verdict: Verdict
    reasons: tuple[Reason, ...]
    display_host: DisplayHost | None
    """``None`` when there is no usable host (no authority, unparsable or invalid host)."""
    registrable_domain: str | None
    """The part of the name someone registered (Public Suffix List), in Unicode form;
    ``None`` for IP addresses, bare public suffixes, and names nobody registers: single
    labels, ``localhost`` names and local network names (``.local``, ``.internal``...)."""
    url: str

    @property
    def who_controls(self) -> str | None:
        """Who decides where the link leads, in words for a person: ``"whoever registered this
        name controls the link"`` for a registered name, and what is true instead for an IP
        address, a local network name (``"a local network name (mDNS .local): any device on
        your network can answer to it"``), a single label, ``localhost`` or a public suffix.
        ``None`` when there is no usable host. Like ``Reason.message``, it may be reworded.

        Worded when read, in the language in effect then (``Reason.message`` is worded in the
        language in effect when the URL was checked)."""
        if self.display_host is None:
            return None
        return who_controls(self.display_host.ascii, self.registrable_domain)

    @property
    def codes(self) -> tuple[str, ...]:
        """The reason codes, in order (a code can repeat with different messages)."""
        return tuple(reason.code for reason in self.reasons)

    @property
    def blocked(self) -> bool:
        return self.verdict is Verdict.BLOCK

    def to_json(self) -> dict[str, Any]:
        """The JSON shape printed by ``mcp-elicit url check --json``."""
        return {
            "verdict": str(self.verdict),
            "reasons": [{"code": str(r.code), "message": r.message} for r in self.reasons],
            "display_host": (
                None
                if self.display_host is None
                else {"unicode": self.display_host.unicode, "ascii": self.display_host.ascii}
            ),
            "registrable_domain": self.registrable_domain,
        }


def verdict_for(reasons: Iterable[Reason]) -> Verdict:
    """The heaviest severity wins; no reasons means allow."""
    verdict = Verdict.ALLOW
    for reason in reasons:
        if reason.severity is Severity.BLOCK:
            return Verdict.BLOCK
        verdict = Verdict.WARN
    return verdict
