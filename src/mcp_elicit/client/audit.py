"""A JSON-lines record of every elicitation and what became of it.

Answer values are redacted by default: the log says which fields were answered, not with what.
Fields that look like secrets are redacted even when redaction is turned off, because a form
should never have asked for them and the log must not be where they end up.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from mcp_elicit.forms.linting import secret_term

REDACTED = "[redacted]"


class AuditLog:
    """Appends one JSON object per line to ``sink`` (a path, or an open text stream)."""

    def __init__(self, sink: str | Path | TextIO, *, redact: bool = True) -> None:
        self.redact = redact
        self._lock = threading.Lock()
        if isinstance(sink, str | Path):
            self._stream: TextIO = Path(sink).open("a", encoding="utf-8")  # noqa: SIM115
            self._owned = True
        else:
            self._stream = sink
            self._owned = False

    def record(self, event: Mapping[str, Any]) -> None:
        """Append ``event`` as one line, with the time first (UTC); safe from several threads.
        The handler passes ``content`` through :meth:`content` before it gets here."""
        entry = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **event}
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str)
        with self._lock:
            self._stream.write(line + "\n")
            self._stream.flush()

    def content(
        self, content: Mapping[str, Any] | None, labels: Mapping[str, str] | None = None
    ) -> dict[str, Any] | None:
        """``content`` as it may be logged."""
        if content is None:
            return None
        labels = labels or {}
        return {
            name: REDACTED
            if self.redact or secret_term(name, labels.get(name)) is not None
            else value
            for name, value in content.items()
        }

    def close(self) -> None:
        """Close the file this log opened; a stream it was given is left open."""
        if self._owned:
            self._stream.close()
