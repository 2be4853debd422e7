"""Elicitation on the wire, for every revision that has it. Sans-IO: dicts in, dicts out.

Strict in what we send, liberal in what we accept, and we say what we accepted:

- :func:`parse_elicitation_params` / :func:`parse_elicit_result` read any revision's shapes
  (and the early content-array draft's) into :class:`ElicitationRequest` / :class:`ElicitResult`,
  with ``accepted_quirks`` naming every liberty taken, or return :class:`ProtocolProblem`\\ s.
- :func:`form_request_params`, :func:`url_request_params`, :func:`elicit_result`,
  :func:`url_required_error`, :func:`input_required_result` build exactly what the peer's
  revision defines, and raise ``ValueError`` for what it cannot express.
- :data:`RULES` says what each revision allows; :mod:`.capabilities` reads and writes the
  ``elicitation`` capability.
- :mod:`.tasks`: tasks on the wire, 2025-11-25's core ones and the 2026-07-28 extension
  (:class:`Task`, :func:`create_task_result`, :func:`get_task_result`,
  :func:`parse_task_update`, :func:`task_ack`, :func:`declares_tasks`, ...).

Revisions are :class:`mcp_elicit.revisions.Revision` (re-exported here): a revision or any of
its names is accepted wherever one is asked for.
"""

from mcp_elicit.protocol import codes
from mcp_elicit.protocol.capabilities import (
    FORM_AND_URL,
    FORM_ONLY,
    NO_MODES,
    ElicitationModes,
    capabilities_for,
    capabilities_from_request,
    modes_from_capabilities,
    request_meta,
)
from mcp_elicit.protocol.content import ContentItem, early_result, read_content_items
from mcp_elicit.protocol.errors import (
    error_response,
    invalid_params_error,
    missing_capability_error,
    parse_missing_capability_error,
    parse_url_required_error,
    undeclared_mode_problem,
    unsupported_version_error,
    url_required_error,
)
from mcp_elicit.protocol.messages import (
    ElicitationRequest,
    ElicitResult,
    elicit_request,
    elicit_result,
    elicitation_complete_params,
    form_request_params,
    parse_elicit_request,
    parse_elicit_result,
    parse_elicitation_complete,
    parse_elicitation_params,
    track_request_params,
    url_request_params,
)
from mcp_elicit.protocol.mrtr import (
    ASKING_METHODS,
    InputRequired,
    input_required_result,
    parse_input_required_result,
    retry_params,
)
from mcp_elicit.protocol.problems import ProtocolProblem
from mcp_elicit.protocol.revisions import EARLY_DRAFT, RULES, RevisionRules, rules_for
from mcp_elicit.protocol.tasks import (
    TERMINAL_STATUSES,
    DetailedTask,
    Task,
    TaskStatusValue,
    TaskSupport,
    TaskUpdate,
    create_task_result,
    declares_tasks,
    get_task_result,
    ignored_keys,
    iso_time,
    parse_create_task_result,
    parse_get_task_result,
    parse_iso_time,
    parse_related_task,
    parse_task,
    parse_task_id,
    parse_task_update,
    related_task_meta,
    requested_task_ttl,
    server_tasks_capability,
    task_ack,
    task_object,
    tasks_declaration,
    tasks_required_error,
    tool_task_support,
    with_related_task,
)
from mcp_elicit.revisions import Revision

__all__ = [
    "ASKING_METHODS",
    "EARLY_DRAFT",
    "FORM_AND_URL",
    "FORM_ONLY",
    "NO_MODES",
    "RULES",
    "TERMINAL_STATUSES",
    "ContentItem",
    "DetailedTask",
    "ElicitResult",
    "ElicitationModes",
    "ElicitationRequest",
    "InputRequired",
    "ProtocolProblem",
    "Revision",
    "RevisionRules",
    "Task",
    "TaskStatusValue",
    "TaskSupport",
    "TaskUpdate",
    "capabilities_for",
    "capabilities_from_request",
    "codes",
    "create_task_result",
    "declares_tasks",
    "early_result",
    "elicit_request",
    "elicit_result",
    "elicitation_complete_params",
    "error_response",
    "form_request_params",
    "get_task_result",
    "ignored_keys",
    "input_required_result",
    "invalid_params_error",
    "iso_time",
    "missing_capability_error",
    "modes_from_capabilities",
    "parse_create_task_result",
    "parse_elicit_request",
    "parse_elicit_result",
    "parse_elicitation_complete",
    "parse_elicitation_params",
    "parse_get_task_result",
    "parse_input_required_result",
    "parse_iso_time",
    "parse_missing_capability_error",
    "parse_related_task",
    "parse_task",
    "parse_task_id",
    "parse_task_update",
    "parse_url_required_error",
    "read_content_items",
    "related_task_meta",
    "request_meta",
    "requested_task_ttl",
    "retry_params",
    "rules_for",
    "server_tasks_capability",
    "task_ack",
    "task_object",
    "tasks_declaration",
    "tasks_required_error",
    "tool_task_support",
    "track_request_params",
    "undeclared_mode_problem",
    "unsupported_version_error",
    "url_request_params",
    "url_required_error",
    "with_related_task",
]
