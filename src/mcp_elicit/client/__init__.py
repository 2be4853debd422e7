"""The client side: answer any server's elicitations safely, on every revision.

- :class:`ElicitationHandler` — the pipeline (check, policy, ask, validate, audit); use it as
  the SDK's ``elicitation_callback``, or give it to :class:`ElicitingClient`
- :class:`ElicitingClient` — ``mcp.Client`` extended: exact capabilities, required-URL errors,
  the 2026-07-28 retry loop with time limits, timeouts that pause while a person answers
- :class:`Policy`, :class:`RateLimit`, :class:`AuditLog` — the host's rules and record
- :class:`Renderer` and its prompts; :class:`ScriptedRenderer` (answers from a list) and
  ``mcp_elicit.client.terminal.TerminalRenderer`` (a person at a terminal)
"""

from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.connection import (
    ElicitingClient,
    ProtocolMismatch,
    RefusedInputLoop,
    UrlElicitationLoop,
)
from mcp_elicit.client.handler import Asking, ElicitationHandler, ElicitationRefused
from mcp_elicit.client.policy import OUTCOME_META, Policy, RateLimit
from mcp_elicit.client.prompts import (
    Accept,
    Attachment,
    Cancel,
    Decision,
    Decline,
    FormPrompt,
    Notice,
    UrlPrompt,
    attachment,
)
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.scripted import AnswersError, ScriptedRenderer, load_answers

__all__ = [
    "OUTCOME_META",
    "Accept",
    "AnswersError",
    "Asking",
    "Attachment",
    "AuditLog",
    "Cancel",
    "Decision",
    "Decline",
    "ElicitationHandler",
    "ElicitationRefused",
    "ElicitingClient",
    "FormPrompt",
    "Notice",
    "Policy",
    "ProtocolMismatch",
    "RateLimit",
    "RefusedInputLoop",
    "Renderer",
    "ScriptedRenderer",
    "UrlElicitationLoop",
    "UrlPrompt",
    "attachment",
    "load_answers",
]
