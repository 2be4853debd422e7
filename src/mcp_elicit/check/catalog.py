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


SEP_2260 = "SEP-2260"
"""Where the association rule is written: the SEP (final), not yet a revision's page. It holds on
every push revision (docs/tasks-design.md §2): a question belongs to the call that needs it."""


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

# The tools of the tasks extension's checks (2026-07-28, io.modelcontextprotocol/tasks): ours,
# in the suite's style (its own task fixtures, slow_compute and the like, ask nothing).
TASK_SLOW_TOOL = "test_task_slow"
TASK_ASK_TOOL = "test_task_ask"
TASK_TWO_TOOL = "test_task_two_questions"
TASK_BOTH_TOOL = "test_task_two_at_once"
TASK_TOOL_ERROR_TOOL = "test_task_tool_error"
TASK_PROTOCOL_ERROR_TOOL = "test_task_protocol_error"
TASK_REQUIRED_TOOL = "test_task_required"
# 2025-11-25's core tasks use the same tools (as tasks when the call carries params.task), and
# two more: a tool that never runs as a task, and a URL-mode question inside a task.
TASK_FORBIDDEN_TOOL = "test_task_forbidden"
TASK_LINK_TOOL = "test_task_link"
TASKS_EXT = "ext-tasks"
"""Where the extension's rules are written: its specification draft (a page of its own, not a
revision's)."""


def _ext(section: str) -> SpecRef:
    return SpecRef(TASKS_EXT, "extensions/tasks", section)


def _core_tasks(section: str) -> SpecRef:
    """A section of 2025-11-25's tasks page (experimental tasks in the core)."""
    return SpecRef(Revision.V2025_11_25, "basic/utilities/tasks", section)


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
        "server-requests-associated",
        "server",
        "Every elicitation/create comes on the response stream of the client request it belongs "
        "to, never on the standalone GET stream (Streamable HTTP)",
        (
            SpecRef(SEP_2260, "client/elicitation", "Request Association Requirement"),
            SpecRef(SEP_2260, "basic/transports", "Clarify Transport Layer Constraints"),
        ),
        (Revision.V2025_06_18, Revision.URL_DRAFT, Revision.V2025_11_25),
        _on_any(FORM_TOOL),  # and URL_TOOL beyond 2025-06-18, when the server lists it
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
    # -- 2025-11-25's core tasks (not applicable to a server that declares no tasks) ----------
    Check(
        "server-task-support",
        "server",
        "A tool whose taskSupport is 'required' called without params.task gets -32601; a "
        "'forbidden' tool called with it gets -32601 too",
        (_core_tasks("Tool-Level Negotiation"),),
        (Revision.V2025_11_25,),
        _on_any(TASK_REQUIRED_TOOL, TASK_FORBIDDEN_TOOL),
    ),
    Check(
        "server-task-related-task",
        "server",
        "The io.modelcontextprotocol/related-task _meta names the task on the elicitation/create "
        "a task asks on tasks/result, on the tasks/result result, and on the completion notice "
        "of a URL-mode question in the task",
        (
            _core_tasks("Associating Task-Related Messages"),
            _core_tasks("Input Required Status"),
            _core_tasks("Related Task Metadata"),
        ),
        (Revision.V2025_11_25,),
        _on_any(TASK_ASK_TOOL, TASK_LINK_TOOL),
    ),
    Check(
        "server-task-result",
        "server",
        "tasks/result on a live task waits for its end; on an ended task it returns exactly "
        "what the call would have returned (the result, or the JSON-RPC error)",
        (_core_tasks("Result Retrieval"),),
        (Revision.V2025_11_25,),
        _on_any(TASK_SLOW_TOOL),  # and the two error tools, when the server lists them
    ),
    Check(
        "server-task-cancel-terminal",
        "server",
        "tasks/cancel answers with the task already 'cancelled'; cancelling a task that ended "
        "gets -32602",
        (_core_tasks("Task Cancellation"),),
        (Revision.V2025_11_25,),
        _on_any(TASK_SLOW_TOOL),
    ),
    # -- the tasks extension (io.modelcontextprotocol/tasks), on 2026-07-28 --------------------
    Check(
        "server-task-declared",
        "server",
        "server/discover declares capabilities.extensions['io.modelcontextprotocol/tasks'] and "
        "no capabilities.tasks",
        (_ext("Capability Negotiation"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_SLOW_TOOL),
    ),
    Check(
        "server-task-undeclared",
        "server",
        "A call whose request does not declare the extension never gets resultType 'task'; a "
        "tool that needs a task gets -32021 naming the extension",
        (_ext("Capability Negotiation"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_SLOW_TOOL),  # and TASK_REQUIRED_TOOL, when the server lists it
    ),
    Check(
        "server-task-methods-gated",
        "server",
        "tasks/get, tasks/update and tasks/cancel without the extension declared: -32021",
        (_ext("Protocol Errors"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_SLOW_TOOL),
    ),
    Check(
        "server-task-created",
        "server",
        "A task is answered with the flat CreateTaskResult (resultType 'task', ISO times, "
        "integer ttlMs) and a tasks/get right after it resolves",
        (_ext("Task Creation"), _ext("Polymorphic Results")),
        (Revision.V2026_07_28,),
        _on_any(TASK_SLOW_TOOL),
    ),
    Check(
        "server-task-input-requests",
        "server",
        "An input_required task shows its questions in inputRequests, under the same key on "
        "every poll until answered",
        (_ext("Task Polling"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_ASK_TOOL),
    ),
    Check(
        "server-task-update-resumes",
        "server",
        "tasks/update is acknowledged with resultType 'complete', and the answer lets the task "
        "go on to its result",
        (_ext("Task Update Requests"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_ASK_TOOL),
    ),
    Check(
        "server-task-keys-unique",
        "server",
        "A key is never reused in a task: the next question has a new one, and replaying an "
        "answered key changes nothing",
        (_ext("Task Update Requests"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_TWO_TOOL),
    ),
    Check(
        "server-task-partial-update",
        "server",
        "Answering one of two outstanding keys leaves the other outstanding and the task "
        "input_required",
        (_ext("Task Update Requests"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_BOTH_TOOL),
    ),
    Check(
        "server-task-outcome",
        "server",
        "A tool result with isError ends 'completed' with the result; a JSON-RPC error ends "
        "'failed' with the error and no result",
        (_ext("Task Execution Errors"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_TOOL_ERROR_TOOL, TASK_PROTOCOL_ERROR_TOOL),
    ),
    Check(
        "server-task-unknown-id",
        "server",
        "A task id never issued, or another user's, gets -32602",
        (_ext("Protocol Errors"), _ext("Security Considerations")),
        (Revision.V2026_07_28,),
        _on_any(TASK_SLOW_TOOL),
    ),
    Check(
        "server-task-removed-methods",
        "server",
        "tasks/result and tasks/list do not exist with the extension: -32601",
        (SpecRef("SEP-2663", "extensions/tasks", "Backward Compatibility"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_SLOW_TOOL),
    ),
    Check(
        "server-task-cancel",
        "server",
        "tasks/cancel is the empty acknowledgement, the task then ends, and cancelling it again "
        "is the same acknowledgement",
        (_ext("Task Cancellation"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_SLOW_TOOL),
    ),
)

CORE_TASK_CHECKS: frozenset[str] = frozenset(
    {
        "server-task-support",
        "server-task-related-task",
        "server-task-result",
        "server-task-cancel-terminal",
    }
)
"""The checks of 2025-11-25's core tasks: not applicable to a server that declares no
task-augmented ``tools/call`` in ``initialize`` (``capabilities.tasks.requests.tools.call``),
as a client then MUST NOT make one (basic/utilities/tasks § Tool-Level Negotiation, rule 1)."""

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
TASK_DECLARES_TOOL = "test_client_task_declares"
TASK_UNSOLICITED_TOOL = "test_client_task_unsolicited"
TASK_POLL_TOOL = "test_client_task_poll_interval"
TASK_MCP_NAME_TOOL = "test_client_task_mcp_name"
TASK_DEDUP_TOOL = "test_client_task_dedup"
TASK_UPDATE_KEYS_TOOL = "test_client_task_update_keys"
TASK_INPUT_CHECKS_TOOL = "test_client_task_input_checks"

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
    # -- the tasks extension (io.modelcontextprotocol/tasks), on 2026-07-28: a client whose
    # tools/call does not declare it gets no task, and these are "not applicable" to it (but
    # client-task-unsolicited, which is about exactly that call).
    Check(
        "client-task-declares",
        "client",
        "tools/call and every tasks/* request declare the extension in their own _meta",
        (_ext("Capability Negotiation"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_DECLARES_TOOL),
    ),
    Check(
        "client-task-unsolicited",
        "client",
        "A CreateTaskResult to a call that did not declare the extension is an error: the task "
        "is not polled",
        (_ext("Capability Negotiation"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_UNSOLICITED_TOOL),
    ),
    Check(
        "client-task-poll-interval",
        "client",
        "No two tasks/get of a task closer than 0.9 x its pollIntervalMs",
        (_ext("Task Polling"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_POLL_TOOL),
    ),
    Check(
        "client-task-mcp-name",
        "client",
        "Over Streamable HTTP, tasks/get, tasks/update and tasks/cancel carry Mcp-Name: the taskId",
        (_ext("Streamable HTTP: Routing Headers"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_MCP_NAME_TOOL),
    ),
    Check(
        "client-task-dedup",
        "client",
        "A question still shown by later polls (the acknowledgement is eventually consistent) "
        "is answered once",
        (_ext("Task Update Requests"),),
        (Revision.V2026_07_28,),
        _on_any(TASK_DEDUP_TOOL),
    ),
    Check(
        "client-task-update-keys",
        "client",
        "tasks/update carries only outstanding keys: never one answered before",
        (
            _ext("Task Update Requests"),
            SpecRef(TASKS_EXT, "ext-tasks-schema.ts", "UpdateTaskRequest"),
        ),
        (Revision.V2026_07_28,),
        _on_any(TASK_UPDATE_KEYS_TOOL),
    ),
    Check(
        "client-task-input-checks",
        "client",
        "A question inside a task gets the checks of a pushed one: falsy defaults kept, a link "
        "in an undeclared mode or with credentials in it refused and never opened",
        (_ext("Task Update Requests"), _ext("Security Considerations")),
        (Revision.V2026_07_28,),
        _on_any(TASK_INPUT_CHECKS_TOOL),
    ),
)

CHECKS: dict[str, Check] = {check.id: check for check in (*SERVER_CHECKS, *CLIENT_CHECKS)}
"""Every check by its ID."""
