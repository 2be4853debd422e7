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
from mcp_elicit.revisions import Revision

__all__ = [
    "ASKING_METHODS",
    "EARLY_DRAFT",
    "FORM_AND_URL",
    "FORM_ONLY",
    "NO_MODES",
    "RULES",
    "ContentItem",
    "ElicitResult",
    "ElicitationModes",
    "ElicitationRequest",
    "InputRequired",
    "ProtocolProblem",
    "Revision",
    "RevisionRules",
    "capabilities_for",
    "capabilities_from_request",
    "codes",
    "early_result",
    "elicit_request",
    "elicit_result",
    "elicitation_complete_params",
    "error_response",
    "form_request_params",
    "input_required_result",
    "invalid_params_error",
    "missing_capability_error",
    "modes_from_capabilities",
    "parse_elicit_request",
    "parse_elicit_result",
    "parse_elicitation_complete",
    "parse_elicitation_params",
    "parse_input_required_result",
    "parse_missing_capability_error",
    "parse_url_required_error",
    "read_content_items",
    "request_meta",
    "retry_params",
    "rules_for",
    "track_request_params",
    "undeclared_mode_problem",
    "unsupported_version_error",
    "url_request_params",
    "url_required_error",
]
