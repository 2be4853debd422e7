"""Every check ``mcp-elicit check`` makes: a stable ID, what it asserts, the spec text it
rests on, the revisions that have it, and the tool a server needs for it.

IDs never change once published (CI scripts and docs/compatibility.md name them); a check
that is withdrawn keeps its ID unused. docs/check.md explains each one, and a test keeps
that page and this table in step.

Revisions are :class:`~mcp_elicit.revisions.Revision` (``url-draft`` is the URL-mode draft,
SEP-1036, spoken over 2025-06-18 by a client that declares ``elicitation.url``), plus the early
draft's version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from mcp_elicit.revisions import EARLY_DRAFT_VERSION, Revision

Side = Literal["server", "client"]

REVISIONS: tuple[str, ...] = (EARLY_DRAFT_VERSION, *Revision)
"""Every revision a check can run on, oldest first: the early content-array draft (a client
that proposes its version and declares elicitation), then each :class:`Revision`."""


@dataclass(frozen=True)
class SpecRef:
    """Where a check's rule is written: the revision's page and its section."""

    revision: str
    page: str
    section: str

    def __str__(self) -> str:
        return f"{self.revision} {self.page} § {self.section}"


@dataclass(frozen=True)
class Check:
    id: str
    side: Side
    title: str
    spec: tuple[SpecRef, ...]
    revisions: tuple[str, ...]
    tools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The tools a server must list for the check to run on a revision (``"*"``: on any);
    without one of them the check is skipped there."""

    def tools_on(self, revision: str) -> tuple[str, ...]:
        return self.tools.get(revision, self.tools.get("*", ()))


def _on_any(*tools: str) -> dict[str, tuple[str, ...]]:
    return {"*": tools}


def _el(revision: str, section: str) -> SpecRef:
    return SpecRef(revision, "client/elicitation", section)


# The tools of the server checks. The official suite's names where a check uses one of its
# tools; our own, in the same style, for what the suite does not cover.
FORM_TOOL = "test_elicitation"
ENUMS_TOOL = "test_elicitation_sep1330_enums"
ROUND_TOOL = "test_input_required_result_elicitation"
STATE_TOOL = "test_input_required_result_request_state"
URL_TOOL = "test_url_elicitation"
URL_REQUIRED_TOOL = "test_url_elicitation_required"

# The tool that asks a form, by revision: pushed on the 2025 revisions, an input request on
# 2026-07-28 (the form checks also call ENUMS_TOOL and STATE_TOOL when the server lists them).
FORM_TOOLS: dict[str, tuple[str, ...]] = {
    Revision.V2025_06_18: (FORM_TOOL,),
    Revision.V2025_11_25: (FORM_TOOL,),
    Revision.V2026_07_28: (ROUND_TOOL,),
}

SERVER_CHECKS: tuple[Check, ...] = (
    Check(
        "server-url-request-shape",
        "server",
        f"A URL-mode request has mode 'url', a message, a valid url and (before "
        f"{Revision.V2026_07_28}) an elicitationId; no URL appears outside the url field",
        (
            _el(Revision.V2025_11_25, "URL Mode Elicitation Requests"),
            _el(Revision.V2026_07_28, "URL Mode Elicitation Requests"),
            _el(Revision.V2025_11_25, "Safe URL Handling"),
        ),
        (Revision.URL_DRAFT, Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(URL_TOOL),
    ),
    Check(
        "server-url-https",
        "server",
        "A URL-mode link is https, or plain http only on a loopback host (development)",
        (
            _el(Revision.V2025_11_25, "Safe URL Handling"),
            _el(Revision.V2026_07_28, "Safe URL Handling"),
        ),
        (Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(URL_TOOL),  # and URL_REQUIRED_TOOL, when the server lists it
    ),
    Check(
        "server-complete-notice",
        "server",
        "After the interaction completes, notifications/elicitation/complete carries the "
        "request's elicitationId",
        (_el(Revision.V2025_11_25, "Completion Notifications for URL Mode Elicitation"),),
        (Revision.V2025_11_25,),
        _on_any(URL_TOOL),
    ),
    Check(
        "server-complete-notice-origin-only",
        "server",
        "The completion notice goes only to the session that started the elicitation",
        (_el(Revision.V2025_11_25, "Completion Notifications for URL Mode Elicitation"),),
        (Revision.V2025_11_25,),
        _on_any(URL_TOOL),
    ),
    Check(
        "server-url-required-error",
        "server",
        "'URL elicitation required' is -32042 (-32604 on the URL-mode draft) with "
        "data.elicitations: URL-mode requests, each with an elicitationId",
        (
            _el(Revision.V2025_11_25, "URL Elicitation Required Error"),
            _el(Revision.URL_DRAFT, "Elicitation Required Error"),
        ),
        (Revision.URL_DRAFT, Revision.V2025_11_25),
        _on_any(URL_REQUIRED_TOOL),
    ),
    Check(
        "server-url-required-retry",
        "server",
        "After -32042 the completion notice arrives, and the same call again succeeds",
        (_el(Revision.V2025_11_25, "URL Elicitation Required Error"),),
        (Revision.V2025_11_25,),
        _on_any(URL_REQUIRED_TOOL),
    ),
    Check(
        "server-no-32042",
        "server",
        f"On {Revision.V2026_07_28} a link the call needs comes as an InputRequiredResult with "
        "a URL-mode request, never as error -32042",
        (SpecRef(Revision.V2026_07_28, "basic/index", "Removed error codes"),),
        (Revision.V2026_07_28,),
        _on_any(URL_REQUIRED_TOOL),
    ),
    Check(
        "server-track",
        "server",
        "elicitation/track on an open elicitation sends progress, then answers "
        "{status: complete} once it completed",
        (_el(Revision.URL_DRAFT, "Tracking Elicitation Progress"),),
        (Revision.URL_DRAFT,),
        _on_any(URL_REQUIRED_TOOL),
    ),
    Check(
        "server-track-unknown-id",
        "server",
        "elicitation/track with an elicitationId the server never issued gets an error",
        (_el(Revision.URL_DRAFT, "Tracking Elicitation Progress"),),
        (Revision.URL_DRAFT,),
        _on_any(URL_REQUIRED_TOOL),
    ),
    Check(
        "server-track-foreign-id",
        "server",
        "elicitation/track with another session's elicitationId gets an error",
        (_el(Revision.URL_DRAFT, "Tracking Elicitation Progress"),),
        (Revision.URL_DRAFT,),
        _on_any(URL_REQUIRED_TOOL),
    ),
    Check(
        "server-gate-url-mode",
        "server",
        f"A client that declared form mode only is never sent URL mode ({Revision.V2026_07_28}: "
        "-32021 with requiredCapabilities)",
        (
            _el(Revision.V2025_11_25, "Capabilities"),
            _el(Revision.V2026_07_28, "Capabilities"),
            SpecRef(Revision.V2026_07_28, "basic/index", "Client capabilities"),
        ),
        (Revision.URL_DRAFT, Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(URL_TOOL),
    ),
    Check(
        f"server-gate-{Revision.V2025_06_18}",
        "server",
        f"A {Revision.V2025_06_18} client is never sent URL mode, a mode field, titled or "
        "multi-select enums",
        (
            _el(Revision.V2025_06_18, "Requested Schema"),
            SpecRef(Revision.V2025_06_18, "basic/lifecycle", "Capability Negotiation"),
        ),
        (Revision.V2025_06_18,),
        _on_any(ENUMS_TOOL),  # and URL_TOOL, when the server lists it
    ),
    Check(
        "server-gate-capability",
        "server",
        f"On {Revision.V2026_07_28} a request without the elicitation capability gets -32021 with "
        "requiredCapabilities.elicitation, not a question",
        (SpecRef(Revision.V2026_07_28, "basic/index", "Client capabilities"),),
        (Revision.V2026_07_28,),
        _on_any(ROUND_TOOL),
    ),
    Check(
        "server-result-type",
        "server",
        f"On {Revision.V2026_07_28} every result carries resultType ('complete' or "
        "'input_required')",
        (SpecRef(Revision.V2026_07_28, "basic/index", "Result types"),),
        (Revision.V2026_07_28,),
        _on_any(ROUND_TOOL),
    ),
    Check(
        "server-validates-answer",
        "server",
        "An accepted answer that breaks the schema gets an error naming the field, not a "
        "masked error and not a result built on it",
        (
            _el(Revision.V2025_06_18, "Security Considerations"),
            _el(Revision.V2025_11_25, "Security Considerations"),
            _el(Revision.V2026_07_28, "Security Considerations"),
        ),
        (Revision.V2025_06_18, Revision.V2025_11_25, Revision.V2026_07_28),
        {
            Revision.V2025_06_18: (FORM_TOOL,),
            Revision.V2025_11_25: (FORM_TOOL,),
            Revision.V2026_07_28: (ROUND_TOOL,),
        },
    ),
    Check(
        "server-form-schema-flat",
        "server",
        "A form's requestedSchema is flat: no property is an object, none an array of objects",
        (
            SpecRef(Revision.V2025_06_18, "client/elicitation", "Request Schema"),
            _el(Revision.V2025_11_25, "Requested Schema"),
            _el(Revision.V2026_07_28, "Requested Schema"),
        ),
        (Revision.V2025_06_18, Revision.V2025_11_25, Revision.V2026_07_28),
        FORM_TOOLS,
    ),
    Check(
        "server-form-no-url",
        "server",
        "A form-mode request has no clickable URL: not in its message, a title, a description, "
        "an option or a default (a URL belongs in URL mode)",
        (
            _el(Revision.V2025_11_25, "Safe URL Handling"),
            _el(Revision.V2026_07_28, "Safe URL Handling"),
        ),
        (Revision.V2025_11_25, Revision.V2026_07_28),
        {
            Revision.V2025_11_25: FORM_TOOLS[Revision.V2025_11_25],
            Revision.V2026_07_28: FORM_TOOLS[Revision.V2026_07_28],
        },
    ),
    Check(
        "server-form-no-secrets",
        "server",
        "A form never asks for sensitive information (a password, an API key, a token, card "
        "details): that goes through URL mode",
        (
            _el(Revision.V2025_06_18, "User Interaction Model"),
            _el(Revision.V2025_11_25, "User Interaction Model"),
            _el(Revision.V2026_07_28, "User Interaction Model"),
        ),
        (Revision.V2025_06_18, Revision.V2025_11_25, Revision.V2026_07_28),
        FORM_TOOLS,
    ),
    Check(
        "server-request-state-tampered",
        "server",
        "A requestState changed by the client is refused",
        (SpecRef(Revision.V2026_07_28, "basic/patterns/mrtr", "Request state"),),
        (Revision.V2026_07_28,),
        _on_any(STATE_TOOL),
    ),
    Check(
        "server-request-state-foreign",
        "server",
        "A requestState issued for one call is not accepted on another tool's call",
        (SpecRef(Revision.V2026_07_28, "basic/patterns/mrtr", "Request state"),),
        (Revision.V2026_07_28,),
        _on_any(STATE_TOOL, ROUND_TOOL),
    ),
)

# The tools of the client checks: the scripted server lists one per scenario, and a client
# under test calls every tool it lists (the official suite's convention).
MODES_TOOL = "test_client_modes"
UNDECLARED_TOOL = "test_client_undeclared_mode"
DEFAULTS_TOOL = "test_client_defaults"
VALID_ANSWER_TOOL = "test_client_valid_answer"
CONSENT_TOOL = "test_client_url_consent"
BLOCKED_TOOL = "test_client_blocked_link"
RETRY_TOOL = "test_client_url_required"
BURST_TOOL = "test_client_burst"
MESSAGE_ONLY_TOOL = "test_client_message_only"
RESULT_TYPE_TOOL = "test_client_result_type"

CLIENT_CHECKS: tuple[Check, ...] = (
    Check(
        "client-answers-declared-modes",
        "client",
        "Every mode the client declares, it answers (a result with an action, not an error)",
        (_el(Revision.V2025_11_25, "Capabilities"), _el(Revision.V2026_07_28, "Capabilities")),
        (Revision.V2025_06_18, Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(MODES_TOOL),
    ),
    Check(
        "client-refuses-undeclared-mode",
        "client",
        "A request in a mode the client did not declare gets error -32602",
        (_el(Revision.V2025_11_25, "Error Handling"),),
        (Revision.V2025_11_25,),
        _on_any(UNDECLARED_TOOL),
    ),
    Check(
        "client-fills-defaults",
        "client",
        "An accepted form carries every field that has a default, falsy defaults included",
        (
            _el(Revision.V2025_11_25, "Requested Schema"),
            _el(Revision.V2026_07_28, "Requested Schema"),
        ),
        (Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(DEFAULTS_TOOL),
    ),
    Check(
        "client-valid-answers",
        "client",
        "An accepted answer satisfies the schema (required fields, formats, bounds, choices)",
        (
            _el(Revision.V2025_11_25, "Security Considerations"),
            _el(Revision.V2026_07_28, "Security Considerations"),
        ),
        (Revision.V2025_06_18, Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(VALID_ANSWER_TOOL),
    ),
    Check(
        "client-url-consent",
        "client",
        "The client never fetches a link itself: it is opened only when the person accepted",
        (
            _el(Revision.V2025_11_25, "Safe URL Handling"),
            _el(Revision.V2026_07_28, "Safe URL Handling"),
        ),
        (Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(CONSENT_TOOL),
    ),
    Check(
        "client-refuses-blocked-link",
        "client",
        "A link with credentials in it is neither accepted nor opened",
        (
            _el(Revision.V2025_11_25, "Safe URL Handling"),
            _el(Revision.V2026_07_28, "Safe URL Handling"),
        ),
        (Revision.V2025_11_25, Revision.V2026_07_28),
        _on_any(BLOCKED_TOOL),
    ),
    Check(
        "client-retry-after-completion",
        "client",
        "After -32042 the client calls again only once the interaction completed",
        (_el(Revision.V2025_11_25, "URL Elicitation Required Error"),),
        (Revision.V2025_11_25,),
        _on_any(RETRY_TOOL),
    ),
    Check(
        "client-answers-message-only",
        "client",
        "A message-only request (the early draft's: no schema) gets a result, not an error",
        (
            SpecRef(
                EARLY_DRAFT_VERSION,
                "client/elicitation (early draft)",
                "Creating Elicitation Requests",
            ),
        ),
        (EARLY_DRAFT_VERSION,),
        _on_any(MESSAGE_ONLY_TOOL),
    ),
    Check(
        "client-result-type",
        "client",
        f"On {Revision.V2026_07_28} a final result without resultType is read as complete: the "
        "call ends",
        (
            SpecRef(Revision.V2026_07_28, "basic/index", "Result types"),
            SpecRef(Revision.V2026_07_28, "basic/patterns/mrtr", "Retry"),
        ),
        (Revision.V2026_07_28,),
        _on_any(RESULT_TYPE_TOOL),
    ),
    Check(
        "client-rate-limit",
        "client",
        "A burst of questions no person could answer is cut off by a rate limit",
        (
            _el(Revision.V2025_06_18, "Security Considerations"),
            _el(Revision.V2025_11_25, "Security Considerations"),
        ),
        (Revision.V2025_06_18, Revision.V2025_11_25),
        _on_any(BURST_TOOL),
    ),
)

CHECKS: dict[str, Check] = {check.id: check for check in (*SERVER_CHECKS, *CLIENT_CHECKS)}
"""Every check by its ID."""
