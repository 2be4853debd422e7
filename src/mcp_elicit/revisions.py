"""The protocol revisions that have elicitation: their names, and which one a session speaks.

The one vocabulary of revisions in mcp-elicit. Everything that names a revision uses
:class:`Revision`; what a revision *allows* lives with the layer it concerns, keyed by it
(``mcp_elicit.forms.revisions``: the ``requestedSchema`` subset; ``mcp_elicit.protocol.revisions``:
the wire). No other module of the package spells a version date in its code (a test holds
every module to that), so a new revision is added here first.

- ``2025-06-18``: the server pushes ``elicitation/create``; form mode only.
- ``url-draft`` (SEP-1036, never released): URL mode, ``elicitation/track``, -32604. A peer is
  taken to speak it by what it declares, never by the version it negotiates.
- ``2025-11-25``: URL mode released, completion notices, -32042.
- ``2026-07-28``: no server-to-client requests: input-required results and retries.

The early content-array draft (stamped :data:`EARLY_DRAFT_VERSION`) is not a revision here:
its shapes are accepted from anyone and produced only for a peer that negotiates its version.

A leaf: no I/O, nothing of mcp-elicit or the SDK imported, cheap enough for the command
line's parser.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal


class Revision(enum.StrEnum):
    """A revision that has elicitation; compares equal to (and prints as) its name."""

    V2025_06_18 = "2025-06-18"
    URL_DRAFT = "url-draft"
    V2025_11_25 = "2025-11-25"
    V2026_07_28 = "2026-07-28"

    @classmethod
    def parse(cls, value: Revision | str) -> Revision:
        """A revision from any of its names (:data:`REVISION_NAMES`): its version, or an
        alias (``draft`` and ``latest`` for :data:`LATEST`, ``sep-1036`` for the URL-mode
        draft). Raises ``ValueError`` naming every accepted name."""
        if isinstance(value, Revision):
            return value
        if not isinstance(value, str):
            raise TypeError(f"revision must be a str or Revision, not {type(value).__name__}")
        found = ALIASES.get(value.strip().lower())
        if found is None:
            raise ValueError(
                f"unknown revision {value!r}: expected one of {', '.join(REVISION_NAMES)}"
            )
        return found

    @property
    def released(self) -> bool:
        """Whether this revision was released (the URL-mode draft never was)."""
        return self is not Revision.URL_DRAFT


RELEASED: tuple[Revision, ...] = (
    Revision.V2025_06_18,
    Revision.V2025_11_25,
    Revision.V2026_07_28,
)
"""The released revisions with elicitation, oldest first."""

LATEST = RELEASED[-1]
"""The newest revision, the one ``draft`` and ``latest`` name."""

ALIASES: Mapping[str, Revision] = MappingProxyType(
    {
        Revision.V2025_06_18.value: Revision.V2025_06_18,
        Revision.URL_DRAFT.value: Revision.URL_DRAFT,
        "sep-1036": Revision.URL_DRAFT,
        Revision.V2025_11_25.value: Revision.V2025_11_25,
        Revision.V2026_07_28.value: Revision.V2026_07_28,
        "draft": LATEST,
        "latest": LATEST,
    }
)
"""Every name :meth:`Revision.parse` accepts, lower case."""

REVISION_NAMES: tuple[str, ...] = tuple(ALIASES)
"""The names a person may give for a revision (``--revision``), in a stable order."""

EARLY_DRAFT_VERSION = "2025-03-26"
"""The protocol version the early content-array draft's page is stamped with. That release
has no elicitation: a peer that negotiates it and declares ``elicitation`` speaks the draft."""

KNOWN_VERSIONS: tuple[str, ...] = (
    EARLY_DRAFT_VERSION,
    *(revision.value for revision in RELEASED),
)
"""Every dated protocol version mcp-elicit knows, oldest first."""


def negotiated_revision(version: str) -> Revision | None:
    """The revision whose rules apply to a negotiated protocol version (a date string).

    The one mapping from versions to rules, shared by the client, the server and the gateway:
    a version we know is itself; one between two we know (a dated release we have not seen)
    follows the rules of the last one before it; one after the newest follows the newest; one
    before 2025-06-18 has no elicitation at all (``None``)."""
    found: Revision | None = None
    for revision in RELEASED:
        if revision.value <= version:
            found = revision
    return found


# -- what a host may ask to speak -----------------------------------------------------------------

AUTO = "auto"
"""Let the SDK negotiate (it proposes its newest version)."""

PROTOCOL_CHOICES: tuple[str, ...] = (
    AUTO,
    EARLY_DRAFT_VERSION,
    *(revision.value for revision in RELEASED),
)
"""What a client may be pinned to (``ElicitingClient(protocol=...)``, ``--protocol``):
``auto``, the early draft's version (message-only questions answered with content items), or
a released revision."""

UPSTREAM_CHOICES: tuple[str, ...] = tuple(p for p in PROTOCOL_CHOICES if p != EARLY_DRAFT_VERSION)
"""What a client that relays forms may be pinned to (the gateway's upstream, the demo): the
early draft has no schema to relay."""

PROPOSED_BY_HAND: frozenset[str] = frozenset({EARLY_DRAFT_VERSION, Revision.V2025_06_18.value})
"""Versions the SDK client never proposes itself (it proposes its newest handshake version):
a client pinned to one of them proposes it in ``initialize`` by hand."""

SdkClientMode = Literal["auto", "legacy"]


def sdk_client_mode(protocol: str) -> SdkClientMode:
    """The SDK client's ``mode`` for a pinned ``protocol``: ``"auto"`` may speak 2026-07-28
    (input-required results and retries); ``"legacy"`` keeps to the push era's handshake."""
    return "auto" if protocol in (AUTO, Revision.V2026_07_28.value) else "legacy"


__all__ = [
    "ALIASES",
    "AUTO",
    "EARLY_DRAFT_VERSION",
    "KNOWN_VERSIONS",
    "LATEST",
    "PROPOSED_BY_HAND",
    "PROTOCOL_CHOICES",
    "RELEASED",
    "REVISION_NAMES",
    "UPSTREAM_CHOICES",
    "Revision",
    "SdkClientMode",
    "negotiated_revision",
    "sdk_client_mode",
]
