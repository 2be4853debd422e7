"""Tasks: a call that outlives its request, its questions and its outcome, on both revisions.

Start at :mod:`mcp_elicit.tasks.state`: its docstring holds every rule, and its pure functions
are the only way a task's state changes (:func:`create`, :func:`request_input`,
:func:`answer`, :func:`settle`, :func:`withdraw`, :func:`finish`, :func:`cancel`,
:func:`orphan`, :func:`expire`, ...). Each takes the record and ``now`` and returns the next
record, or :data:`NO_CHANGE`; the caller commits it. The wire shapes of both revisions are
:mod:`mcp_elicit.protocol.tasks`'.

The I/O (where records are kept, the compare-and-set, the wake-ups, a tool waiting for its
answer) is :mod:`mcp_elicit.tasks.lifecycle`'s, imported by name: this package stays sans-IO.
"""

from mcp_elicit.tasks.state import (
    MAX_KEYS,
    MAX_OUTSTANDING,
    NO_CHANGE,
    WAITING,
    Answered,
    AnswerVerdict,
    Fenced,
    Lease,
    NoChange,
    TaskState,
    TaskStateError,
    TooManyQuestions,
    answer,
    broken_rules,
    cancel,
    create,
    expire,
    finish,
    note,
    orphan,
    renew,
    request_input,
    settle,
    withdraw,
)

__all__ = [
    "MAX_KEYS",
    "MAX_OUTSTANDING",
    "NO_CHANGE",
    "WAITING",
    "AnswerVerdict",
    "Answered",
    "Fenced",
    "Lease",
    "NoChange",
    "TaskState",
    "TaskStateError",
    "TooManyQuestions",
    "answer",
    "broken_rules",
    "cancel",
    "create",
    "expire",
    "finish",
    "note",
    "orphan",
    "renew",
    "request_input",
    "settle",
    "withdraw",
]
