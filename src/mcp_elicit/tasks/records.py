"""A task's state as a store keeps it: :class:`~mcp_elicit.tasks.state.TaskState` to a
:class:`~mcp_elicit.stores.records.TaskRecord` and back, the whole state sealed.

The store sees only the index fields it needs (owner, version, status, times, lease end);
everything else, the questions, what a person answered and what the tool returned, travels in
``payload``: JSON of the whole state, sealed with AES-256-GCM under the key every instance
shares (``DeploymentKey.derive("tasks")``, derived by the server, which hands the bytes down:
this layer cannot import it). The authenticated data binds the format's version, the server,
the user and the task id, as the vault binds a flow's value (design §4), so a payload copied
onto another task, user or server does not open: it reads as no task, never as someone
else's answers.

``payload = version ‖ nonce ‖ AES-256-GCM(JSON)``. Key rotation as in the vault: ``keys``
newest first; the first seals, any of them opens.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mcp_elicit.stores.records import TaskRecord
from mcp_elicit.tasks.state import Answered, Lease, TaskState

SEAL_VERSION: Final = b"\x01"
MAX_PAYLOAD: Final = 1 << 20
"""Design §4: a record over 1 MiB fails the task ("result too large")."""
_NONCE_BYTES: Final = 12
_LABEL: Final = b"mcp-elicit/task"
# What an engine indexes must be a finite number; the memory engine's lease that never ends
# (``lifecycle.NO_LEASE_END``, infinity) is stored as the largest float: never stale either.
_FOREVER: Final = sys.float_info.max


class RecordTooLarge(ValueError):
    """The sealed state would pass :data:`MAX_PAYLOAD`."""


def to_json(record: TaskState) -> dict[str, Any]:
    """The whole state as JSON-ready data (floats kept exact: ``json`` writes their repr)."""
    return {
        "id": record.id,
        "server": record.server,
        "user": record.user,
        "revision": record.revision,
        "tool": record.tool,
        "status": record.status,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "ttl_ms": record.ttl_ms,
        "poll_interval_ms": record.poll_interval_ms,
        "lease": [record.lease.instance, record.lease.epoch, record.lease.until],
        "status_message": record.status_message,
        "version": record.version,
        "key_seq": record.key_seq,
        "outstanding": {k: dict(v) for k, v in record.outstanding.items()},
        "answered": {
            k: {"response": dict(a.response), "at": a.at, "settled": a.settled}
            for k, a in record.answered.items()
        },
        "withdrawn": dict(record.withdrawn),
        "result": None if record.result is None else dict(record.result),
        "error": None if record.error is None else dict(record.error),
        "finished_at": record.finished_at,
    }


def from_json(data: Mapping[str, Any]) -> TaskState:
    """:func:`to_json`'s inverse. Raises ``KeyError``, ``TypeError`` or ``ValueError`` for
    data of another shape."""
    instance, epoch, until = data["lease"]
    return TaskState(
        id=str(data["id"]),
        server=str(data["server"]),
        user=str(data["user"]),
        revision=str(data["revision"]),
        tool=str(data["tool"]),
        status=data["status"],
        created_at=float(data["created_at"]),
        updated_at=float(data["updated_at"]),
        ttl_ms=int(data["ttl_ms"]),
        poll_interval_ms=int(data["poll_interval_ms"]),
        lease=Lease(str(instance), int(epoch), float(until)),
        status_message=data["status_message"],
        version=int(data["version"]),
        key_seq=int(data["key_seq"]),
        outstanding=dict(data["outstanding"]),
        answered={
            k: Answered(dict(a["response"]), float(a["at"]), bool(a["settled"]))
            for k, a in data["answered"].items()
        },
        withdrawn=dict(data["withdrawn"]),
        result=data["result"],
        error=data["error"],
        finished_at=None if data["finished_at"] is None else float(data["finished_at"]),
    )


class TaskSealer:
    """Seals task states into store records and opens them again, with the shared key."""

    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise ValueError("a task sealer needs at least one key (newest first)")
        for key in keys:
            if len(key) != 32:
                raise ValueError("task keys are 32 bytes (AES-256)")
        self._ciphers = [AESGCM(bytes(k)) for k in keys]

    def seal(self, record: TaskState) -> TaskRecord:
        """The record to store: the index fields in the clear, the whole state sealed."""
        # allow_nan: a lease that never ends is infinity; JSON from the wire has no NaN.
        plain = json.dumps(to_json(record), separators=(",", ":"), allow_nan=True)
        nonce = os.urandom(_NONCE_BYTES)
        aad = _aad(record.server, record.user, record.id)
        payload = SEAL_VERSION + nonce + self._ciphers[0].encrypt(nonce, plain.encode("utf-8"), aad)
        if len(payload) > MAX_PAYLOAD:
            raise RecordTooLarge(
                f"task {record.id}: its record is {len(payload)} bytes sealed, over "
                f"{MAX_PAYLOAD} (result too large)"
            )
        return TaskRecord(
            id=record.id,
            server=record.server,
            user=record.user,
            version=record.version,
            status=record.status,
            terminal=record.terminal,
            created_at=record.created_at,
            expires_at=record.expires_at,
            lease_until=record.lease.until if math.isfinite(record.lease.until) else _FOREVER,
            payload=payload,
        )

    def open(self, stored: TaskRecord, task_id: str) -> TaskState | None:
        """The state sealed in ``stored`` if it is the task ``task_id`` of the server and user
        the row names, else ``None`` (moved, altered, or sealed with a key we lack)."""
        payload = bytes(stored.payload)
        version, body = payload[:1], payload[1:]
        if version != SEAL_VERSION or len(body) <= _NONCE_BYTES:
            return None
        nonce, ciphertext = body[:_NONCE_BYTES], body[_NONCE_BYTES:]
        aad = _aad(stored.server, stored.user, task_id)
        for cipher in self._ciphers:
            try:
                plain = cipher.decrypt(nonce, ciphertext, aad)
            except InvalidTag:
                continue
            try:
                state = from_json(cast(Mapping[str, Any], json.loads(plain)))
            except (KeyError, TypeError, ValueError):
                return None
            # The row's index fields must be the sealed state's own: a row whose columns were
            # changed under an old payload would otherwise be swept or paged wrongly.
            if (state.id, state.server, state.user, state.version) != (
                task_id,
                stored.server,
                stored.user,
                stored.version,
            ):
                return None
            return state
        return None


def _aad(server: str, user: str, task_id: str) -> bytes:
    # Length prefixes make the encoding injective: ("ab", "c") and ("a", "bc") differ.
    parts = [
        _LABEL,
        SEAL_VERSION,
        *(p.encode("utf-8", "surrogatepass") for p in (server, user, task_id)),
    ]
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)
