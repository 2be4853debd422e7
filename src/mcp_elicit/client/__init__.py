"""The client side: answer any server's elicitations safely, on every revision.

- :class:`ElicitationHandler` — the pipeline (check, policy, ask, validate, audit); use it as
  the SDK's ``elicitation_callback``, or give it to :class:`ElicitingClient`
- :class:`ElicitingClient` — ``mcp.Client`` extended: exact capabilities, required-URL errors,
  the 2026-07-28 retry loop with time limits, timeouts that pause while a person answers
- :class:`Policy`, :class:`RateLimit`, :class:`AuditLog` — the host's rules and record
- :class:`Renderer` and its prompts; :class:`ScriptedRenderer` (answers from a list) and
  ``mcp_elicit.client.terminal.TerminalRenderer`` (a person at a terminal)

Each name is imported from its module when first used, so that what needs no SDK session
(prompts, policy, renderers' types, the audit log, the handler itself) can be imported without
loading the SDK's client and server: only :class:`ElicitingClient` and its errors do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp_elicit.client.audit import AuditLog
    from mcp_elicit.client.connection import (
        ElicitingClient,
        ProtocolMismatch,
        RefusedInputLoop,
    )
    from mcp_elicit.client.handler import ElicitationHandler
    from mcp_elicit.client.link_requests import Tracker
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
    from mcp_elicit.client.required_links import UrlElicitationLoop
    from mcp_elicit.client.scripted import (
        AnswersError,
        ScriptedAnswer,
        ScriptedRenderer,
        load_answers,
    )
    from mcp_elicit.client.steps import Asking, ElicitationRefused
    from mcp_elicit.client.task_follow import TaskError, TaskStatus

_HOMES = {
    "AuditLog": "audit",
    "ElicitingClient": "connection",
    "ProtocolMismatch": "connection",
    "RefusedInputLoop": "connection",
    "UrlElicitationLoop": "required_links",
    "ElicitationHandler": "handler",
    "Tracker": "link_requests",
    "OUTCOME_META": "policy",
    "Policy": "policy",
    "RateLimit": "policy",
    "Accept": "prompts",
    "Attachment": "prompts",
    "Cancel": "prompts",
    "Decision": "prompts",
    "Decline": "prompts",
    "FormPrompt": "prompts",
    "Notice": "prompts",
    "UrlPrompt": "prompts",
    "attachment": "prompts",
    "Renderer": "renderer",
    "AnswersError": "scripted",
    "ScriptedAnswer": "scripted",
    "ScriptedRenderer": "scripted",
    "load_answers": "scripted",
    "Asking": "steps",
    "ElicitationRefused": "steps",
    "TaskError": "task_follow",
    "TaskStatus": "task_follow",
}
"""Where each public name is defined, by module of this package."""

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
    "ScriptedAnswer",
    "ScriptedRenderer",
    "TaskError",
    "TaskStatus",
    "Tracker",
    "UrlElicitationLoop",
    "UrlPrompt",
    "attachment",
    "load_answers",
]


def __getattr__(name: str) -> object:
    # PEP 562: a public name is imported from its module on first use, then kept here.
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
