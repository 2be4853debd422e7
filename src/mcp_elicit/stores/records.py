"""What a store keeps: flow records, sealed secrets and task records. Plain data, no I/O."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class FlowStatus(enum.StrEnum):
    """Where a flow is. ``pending`` → ``opened`` → ``completed`` | ``declined``; a flow that
    is still ``pending`` or ``opened`` at its expiry becomes ``expired``."""

    PENDING = "pending"
    OPENED = "opened"
    COMPLETED = "completed"
    DECLINED = "declined"
    EXPIRED = "expired"

    @property
    def finished(self) -> bool:
        return self in _FINISHED


_FINISHED = frozenset({FlowStatus.COMPLETED, FlowStatus.DECLINED, FlowStatus.EXPIRED})
LIVE = frozenset({FlowStatus.PENDING, FlowStatus.OPENED})

_FLOW_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def is_flow_id(text: str) -> bool:
    """Whether ``text`` has the shape of a flow id: URL-safe base64's letters (the flows mint
    ``secrets.token_urlsafe``), at most 128 of them. An id arrives in a page's URL, so an
    engine meets ids of any shape; one that builds keys or names from the id (Redis does)
    must never be handed a separator (``:``), a NUL or a path."""
    return _FLOW_ID.fullmatch(text) is not None


def is_session_id(text: str) -> bool:
    """Whether ``text`` has the shape of a browser session's id (``Store.end_session``): the
    flow id's alphabet and bound, since sessions are minted the same way."""
    return _FLOW_ID.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class FlowRecord:
    """One out-of-band flow, owned by ``user`` on ``server`` (the ``server_id`` of the server
    that started it; ``""`` for a flow of no particular server). ``details`` holds non-secret
    JSON (the message, a secret's name): a secret value never goes here. What a completed
    flow received is kept apart, sealed (``Store.flow_result``)."""

    id: str
    user: str
    purpose: str
    status: FlowStatus
    created_at: float
    updated_at: float
    expires_at: float
    details: Mapping[str, Any] = field(default_factory=dict)
    server: str = ""


@dataclass(frozen=True, slots=True)
class SealedSecret:
    """A vault entry as stored: ciphertext only, keyed by ``server``, ``user`` and ``name``
    (and bound to them inside the ciphertext: see the vault)."""

    user: str
    name: str
    sealed: bytes
    created_at: float
    server: str = ""


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One task as a store keeps it: the few fields an engine must index or compare, and the
    rest of the task as one opaque, sealed ``payload``.

    The store knows nothing of a task's rules (:mod:`mcp_elicit.tasks.state` holds them all):
    the tasks layer seals the whole state (answers and outcomes included: what a person typed
    and what a tool returned) with the key every instance shares, bound to ``server``,
    ``user`` and ``id``, and copies out the index fields. ``version`` is the compare-and-set
    counter of ``Store.replace_task``; ``terminal`` says whether ``status`` is final, so that
    an engine need not know which statuses are.
    """

    id: str
    server: str
    user: str
    version: int
    status: str
    terminal: bool
    created_at: float
    expires_at: float
    lease_until: float
    payload: bytes
