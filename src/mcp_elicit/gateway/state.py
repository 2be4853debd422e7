"""The gateway's own ``requestState``: what a 2026-07-28 client carries from one request to its
retry when the gateway, not the server, asked it something. This module is the only one that
reads or writes it.

Rules:

- Only calls held for a 2026-07-28 client (a push-era upstream: :mod:`.push_to_rounds`) are
  given a ``requestState`` of the gateway's. A 2026-07-28 upstream's ``requestState`` is the
  server's: it passes through untouched and never reaches this module.
- A request ends asking for one of two reasons, and its state is the record of that reason:

  - :class:`HeldQuestion` — the held call ``call`` waits on its question ``key``; the retry
    answers it. JSON: ``{"gateway": "held", "call": "<id>", "key": "q1"}``.
  - :class:`RequiredLinks` — the upstream refused the call until links are opened (-32042,
    or the URL-mode draft's -32604), and the client was given them as URL-mode input
    requests: by input key, the link (:class:`RequiredLink`: its ``elicitationId``, ``null``
    when the server gave none, its URL and its message, which the retry's audit line
    records), and an ``id`` of its own, so that the same record coming back a second time
    is known as the person saying they are done. The retry waits for them, then calls the
    server again. JSON: ``{"gateway": "links", "id": "<id>", "links": {"link1":
    {"elicitationId": "<id>", "url": "https://…", "message": "…"}}}``.

- ``"gateway"`` names the record, so a state that is not one of ours (a server's, say) is
  refused by name rather than read as whatever it resembles.
- The state is plaintext JSON here. The SDK's ``RequestStateBoundary`` (installed by
  :mod:`.serving`) seals it with AES-GCM under a key made for this process, binds it to the
  method, the tool and its arguments, the user and the gateway, and gives it the hold limit
  as its lifetime; a token that fails any of that never reaches us (-32602). So what reaches
  :func:`read_state` was written by this very process, and there is no older format to
  tolerate: a record that does not read is refused (:class:`InvalidState`, naming what is
  wrong), never guessed at.
- No ``requestState`` at all is a first call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RECORD_TAG = "gateway"


class InvalidState(ValueError):
    """A ``requestState`` that is not one of the gateway's records (the message says why)."""


@dataclass(frozen=True, slots=True)
class HeldQuestion:
    """The held call ``call`` asked its question ``key`` (``q1``, ``q2``, ...) and waits."""

    call: str
    key: str

    KIND = "held"

    def to_json(self) -> dict[str, Any]:
        return {RECORD_TAG: self.KIND, "call": self.call, "key": self.key}

    @classmethod
    def from_json(cls, raw: Any) -> HeldQuestion:
        _expect(raw, cls.KIND, {"call", "key"})
        call, key = raw["call"], raw["key"]
        if not isinstance(call, str) or not call:
            raise InvalidState("a held question's 'call' must be a held call's id")
        if not isinstance(key, str) or not key:
            raise InvalidState("a held question's 'key' must be a question's key")
        return cls(call, key)


@dataclass(frozen=True, slots=True)
class RequiredLink:
    """One link the upstream required: its ``elicitation_id`` (``None``: the server gave none
    to wait for), and its ``url`` and ``message`` as the client was shown them."""

    elicitation_id: str | None
    url: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"elicitationId": self.elicitation_id, "url": self.url, "message": self.message}

    @classmethod
    def from_json(cls, key: str, raw: Any) -> RequiredLink:
        fields = {"elicitationId", "url", "message"}
        if not isinstance(raw, dict) or set(raw) != fields:
            raise InvalidState(f"required link {key!r} must have exactly {sorted(fields)}")
        elicitation_id, url, message = raw["elicitationId"], raw["url"], raw["message"]
        if not (elicitation_id is None or isinstance(elicitation_id, str)):
            raise InvalidState(f"required link {key!r}'s 'elicitationId' must be a string or null")
        if not isinstance(url, str) or not url:
            raise InvalidState(f"required link {key!r}'s 'url' must be a URL")
        if not isinstance(message, str):
            raise InvalidState(f"required link {key!r}'s 'message' must be a string")
        return cls(elicitation_id, url, message)


@dataclass(frozen=True, slots=True)
class RequiredLinks:
    """Links the upstream said the call needs, given to the client under these input keys
    (:class:`RequiredLink`, by key); ``id`` names this record (made when it is written)."""

    id: str
    links: Mapping[str, RequiredLink]

    KIND = "links"

    def to_json(self) -> dict[str, Any]:
        links = {key: link.to_json() for key, link in self.links.items()}
        return {RECORD_TAG: self.KIND, "id": self.id, "links": links}

    @classmethod
    def from_json(cls, raw: Any) -> RequiredLinks:
        _expect(raw, cls.KIND, {"id", "links"})
        record_id, links = raw["id"], raw["links"]
        if not isinstance(record_id, str) or not record_id:
            raise InvalidState("required links' 'id' must name the record")
        if not isinstance(links, dict) or not links:
            raise InvalidState("required links' 'links' must name at least one link")
        for key in links:
            if not key:
                raise InvalidState("a required link's key must not be empty")
        return cls(record_id, {key: RequiredLink.from_json(key, raw) for key, raw in links.items()})


GatewayState = HeldQuestion | RequiredLinks
_KINDS: dict[str, type[HeldQuestion] | type[RequiredLinks]] = {
    HeldQuestion.KIND: HeldQuestion,
    RequiredLinks.KIND: RequiredLinks,
}


def write_state(record: GatewayState) -> str:
    """``record`` as the ``requestState`` of an ``InputRequiredResult`` (sealed on its way
    out by the boundary)."""
    return json.dumps(record.to_json(), separators=(",", ":"), ensure_ascii=True)


def read_state(raw: Any) -> GatewayState | None:
    """The record in a retry's (unsealed) ``requestState``; ``None`` for a first call.
    ``InvalidState`` when it is not one of ours."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise InvalidState("it is not a string")
    try:
        found = json.loads(raw)
    except ValueError:
        raise InvalidState("it is not JSON") from None
    kind = found.get(RECORD_TAG) if isinstance(found, dict) else None
    record = _KINDS.get(kind) if isinstance(kind, str) else None
    if record is None:
        raise InvalidState("it is not a state of this gateway's")
    return record.from_json(found)


def _expect(raw: Any, kind: str, fields: set[str]) -> None:
    if not isinstance(raw, dict) or raw.get(RECORD_TAG) != kind:
        raise InvalidState(f"it is not a {kind!r} record")
    if set(raw) != fields | {RECORD_TAG}:
        raise InvalidState(f"a {kind!r} record has exactly {sorted(fields)}, not {sorted(raw)}")
