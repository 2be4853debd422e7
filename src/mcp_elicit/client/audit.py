"""A JSON-lines record of every elicitation and what became of it.

Answer values are redacted by default: the log says which fields were answered, not with what.
Fields that look like secrets are redacted even when redaction is turned off, because a form
should never have asked for them and the log must not be where they end up.

Links are redacted always (:func:`redact_url`): a URL-mode link often is a credential in
itself (a hosted page's link names the flow it completes; a sign-in link carries its state).

A log file is its owner's only: created 0600, and an existing one that other users could read
is tightened to 0600 (with a logged warning: what it held may have been read already); one
that belongs to another user is refused (``PermissionError``). The log is opened with
``O_NOFOLLOW``: a symbolic link at its path, even one to nothing yet, is refused (``OSError``,
saying so) rather than followed, so nobody can send the record into a file of their choosing
or make it create one.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import re
import stat
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from mcp_elicit.client._private import make_private
from mcp_elicit.forms.linting import secret_term

logger = logging.getLogger(__name__)

REDACTED = "[redacted]"

_SYMLINK = (
    "{path} is a symbolic link; the audit log is never written through one (it could send "
    "the record anywhere): give the path of the file itself"
)

# A first path segment kept as it is: a lowercase word (`elicit`, `oauth`, `sign-in`), not
# something that may be a token. Anything else in the path, the query and the fragment go.
_WORD = re.compile(r"[a-z]+(?:[-_.][a-z]+)*")
_MAX_WORD = 32


def redact_url(url: str) -> str:
    """``url`` as it may be logged: its scheme, host and port, and its first path segment
    when that is a plain lowercase word; everything after is replaced with ``…`` and a
    fingerprint of the whole link (``#sha256:`` and 12 hex digits), so that two entries about
    the same link can still be matched. A link with nothing to hide is kept as it is.

    ``https://pages.example.com/elicit/flows/8JxQ?a=1`` →
    ``https://pages.example.com/elicit/…#sha256:3cd694f13ba1``. The fingerprint hides a
    random id; it would not hide a short code (a 6-digit one can be found by trying all).
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # not a URL we can read: nothing of it is kept
        return f"…#sha256:{_fingerprint(url)}"
    netloc = f"[{host}]" if ":" in host else host  # never the user or password
    if port is not None:
        netloc += f":{port}"
    kept = f"{parts.scheme}://{netloc}" if parts.scheme else netloc
    first = parts.path.lstrip("/").split("/", 1)[0]
    if len(first) <= _MAX_WORD and _WORD.fullmatch(first):
        kept += "/" + first
    if kept and url in (kept, kept + "/"):
        return url  # nothing in it to hide
    return f"{kept}/…#sha256:{_fingerprint(url)}" if kept else f"…#sha256:{_fingerprint(url)}"


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class AuditLog:
    """Appends one JSON object per line to ``sink`` (a path, or an open text stream)."""

    def __init__(self, sink: str | Path | TextIO, *, redact: bool = True) -> None:
        self.redact = redact
        self._lock = threading.Lock()
        if isinstance(sink, str | Path):
            self._stream: TextIO = _open_private(Path(sink))
            self._owned = True
        else:
            self._stream = sink
            self._owned = False

    def record(self, event: Mapping[str, Any]) -> None:
        """Append ``event`` as one line, with the time first (UTC); safe from several threads.
        The handler passes ``content`` through :meth:`content` before it gets here; a
        ``url`` is written through :func:`redact_url` here."""
        entry = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **event}
        if isinstance(entry.get("url"), str):
            entry["url"] = redact_url(entry["url"])
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


def _open_private(path: Path) -> TextIO:
    """``path`` opened for appending, owner-only (see the module docstring). A symbolic link
    there is refused, never followed: whoever made it chose where the record goes."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        if not hasattr(os, "O_NOFOLLOW") and path.is_symlink():
            raise OSError(errno.ELOOP, "symbolic link")
        descriptor = os.open(path, flags, 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP or path.is_symlink():
            raise OSError(errno.ELOOP, _SYMLINK.format(path=path)) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, f"{path} is not a regular file; the audit log must be one")
        make_private(
            path, descriptor=descriptor, why="who could read what it records: use a file of yours"
        )
        return os.fdopen(descriptor, "a", encoding="utf-8")
    except BaseException:
        os.close(descriptor)
        raise
