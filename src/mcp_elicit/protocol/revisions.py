"""What each protocol revision allows for elicitation, in one table.

The reasoning, from each revision's ``schema.ts`` (the source of truth) and elicitation page:

- **2025-06-18** — the server pushes ``elicitation/create`` to the client. Form mode only, and
  there is no ``mode`` field at all: sending one would be sending a field the peer's schema
  does not define. The capability is ``elicitation: {}`` in ``initialize``.
- **url-draft** (SEP-1036, July 2025, never released) — adds URL mode. ``mode`` is
  *required* on every request; URL requests carry ``elicitationId``. Completion is tracked
  by the client (``elicitation/track`` with a progress token, then ``notifications/progress``
  and a ``{"status": "complete"}`` result). "Elicitation required" is error -32604.
- **2025-11-25** — URL mode released. ``mode`` is optional for form requests (absent means
  form) and required (``"url"``) for URL requests, which keep ``elicitationId``. Completion is
  the server's ``notifications/elicitation/complete``; "URL elicitation required" is -32042.
- **2026-07-28** (= ``draft``) — servers never send requests. A tool returns an
  ``InputRequiredResult`` holding ``elicitation/create`` input requests, and the client
  retries the call with the answers: the retry *is* the completion signal. No
  ``elicitationId`` (correlate through ``requestState``), no completion notification, and
  -32042 MUST NOT be emitted. Capabilities travel in every request's ``_meta``.

The early content-array draft (April 2025, stamped 2025-03-26) is not a revision in this
table: its message-only requests and ``{content: [...]}`` results are accepted on input from
anyone, and produced only for a peer that speaks the draft (``protocol.content``; the server's
``ask_text``, the client's answer to a message-only request).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mcp_elicit.protocol.codes import ELICITATION_REQUIRED_DRAFT, URL_ELICITATION_REQUIRED
from mcp_elicit.revisions import Revision

ModeField = Literal["absent", "required", "optional"]
Completion = Literal["none", "track", "notification", "retry"]
CapabilityIn = Literal["initialize", "request_meta"]

EARLY_DRAFT = "early-draft"
"""The ``revision_hint`` of messages in the early content-array draft's shapes."""


@dataclass(frozen=True, slots=True)
class RevisionRules:
    """What one revision allows on the wire for elicitation."""

    has_url_mode: bool
    mode_field: ModeField  # for form requests; URL requests always say ``mode: "url"``
    has_elicitation_id: bool
    completion: Completion  # how a URL-mode interaction is known to be over
    required_error_code: int | None  # "elicitation required before retrying"
    push_requests: bool  # the server sends ``elicitation/create`` as a JSON-RPC request
    capability_in: CapabilityIn
    list_content: bool  # ``ElicitResult.content`` may hold ``string[]`` (multi-select)


RULES: dict[Revision, RevisionRules] = {
    Revision.V2025_06_18: RevisionRules(
        has_url_mode=False,
        mode_field="absent",
        has_elicitation_id=False,
        completion="none",
        required_error_code=None,
        push_requests=True,
        capability_in="initialize",
        list_content=False,
    ),
    Revision.URL_DRAFT: RevisionRules(
        has_url_mode=True,
        mode_field="required",
        has_elicitation_id=True,
        completion="track",
        required_error_code=ELICITATION_REQUIRED_DRAFT,
        push_requests=True,
        capability_in="initialize",
        list_content=False,
    ),
    Revision.V2025_11_25: RevisionRules(
        has_url_mode=True,
        mode_field="optional",
        has_elicitation_id=True,
        completion="notification",
        required_error_code=URL_ELICITATION_REQUIRED,
        push_requests=True,
        capability_in="initialize",
        list_content=True,
    ),
    Revision.V2026_07_28: RevisionRules(
        has_url_mode=True,
        mode_field="optional",
        has_elicitation_id=False,
        completion="retry",
        required_error_code=None,
        push_requests=False,
        capability_in="request_meta",
        list_content=True,
    ),
}


def rules_for(revision: Revision | str) -> RevisionRules:
    """What ``revision`` allows on the wire (a revision or any of its names)."""
    return RULES[Revision.parse(revision)]
