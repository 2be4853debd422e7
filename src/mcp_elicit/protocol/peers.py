"""Who is asking: a client's protocol revision and declared modes, from what it negotiated and
declared. The server and the gateway read every request's peer through :func:`peer_of`
(2026-07-28 clients declare capabilities per request, so nothing is cached per session).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_elicit.protocol.capabilities import ElicitationModes, modes_from_capabilities
from mcp_elicit.protocol.revisions import RevisionRules, rules_for
from mcp_elicit.revisions import EARLY_DRAFT_VERSION, Revision, negotiated_revision


@dataclass(frozen=True, slots=True)
class Peer:
    """The client behind one request. ``revision`` is None for a revision without
    elicitation (the early draft's version and before)."""

    version: str
    revision: Revision | None
    modes: ElicitationModes
    early_draft: bool = False
    """The client speaks the early content-array draft: it negotiated the draft's stamp (a
    revision without elicitation) and still declared ``elicitation``. It can be asked a
    message only, and answers with ``content`` items (``ask_text``)."""

    @property
    def rules(self) -> RevisionRules | None:
        return rules_for(self.revision) if self.revision is not None else None

    @property
    def push_era(self) -> bool:
        """The server sends ``elicitation/create`` itself (every revision before 2026-07-28)."""
        return self.revision is not None and rules_for(self.revision).push_requests


def peer_of(version: str, declared: Mapping[str, Any] | None, *, url_draft: bool = False) -> Peer:
    """The peer that negotiated ``version`` and declared the client capabilities ``declared``
    (a ``ClientCapabilities`` as JSON).

    ``url_draft``: the operator opted in to the URL-mode draft (SEP-1036), which rode on
    2025-06-18: a 2025-06-18 client that declares ``elicitation.url`` is then taken to speak
    the draft (``mode`` on every request, ``elicitation/track``, -32604).
    """
    declared = declared or {}
    revision = negotiated_revision(version)
    if revision is None:
        early = version == EARLY_DRAFT_VERSION and isinstance(declared.get("elicitation"), dict)
        return Peer(version, None, ElicitationModes(), early_draft=early)
    elicitation = declared.get("elicitation")
    if (
        url_draft
        and not rules_for(revision).has_url_mode
        and isinstance(elicitation, dict)
        and "url" in elicitation
    ):
        revision = Revision.URL_DRAFT
    return Peer(version, revision, modes_from_capabilities(declared, revision))
