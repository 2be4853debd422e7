"""Files and folders only the person's own OS account may read: the audit log, the server
logs, the links handed to a browser. One rule, written once:

- created owner-only (0600 files, 0700 folders);
- one that belongs to another user is refused: its owner could read what goes in, or swap
  it for something of theirs;
- one of ours that others may read or enter is made owner-only, with a warning, because
  what it held before may have been read already (ssh's rule for ``~/.ssh``).
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

logger = logging.getLogger(__name__)


def make_private(path: Path | str, *, descriptor: int | None = None, why: str) -> None:
    """Check and tighten ``path`` (a file or folder; through ``descriptor`` when it is open,
    so that what is checked is what is used). ``why`` completes "belongs to another user
    (uid N), ..." in the refusal: what that user could do with it."""
    if os.name != "posix":
        return  # under the user's own profile, which others cannot read
    status = os.fstat(descriptor) if descriptor is not None else os.stat(path)
    if status.st_uid != os.geteuid():
        raise PermissionError(f"{path} belongs to another user (uid {status.st_uid}), {why}")
    wanted = 0o700 if stat.S_ISDIR(status.st_mode) else 0o600
    mode = stat.S_IMODE(status.st_mode)
    if mode & 0o077:
        if descriptor is not None:
            os.fchmod(descriptor, wanted)
        else:
            os.chmod(path, wanted)
        logger.warning(
            "%s was open to other users (permissions %04o); it is now owner-only (%04o). What "
            "it held before may have been read already",
            path,
            mode,
            wanted,
        )


def private_directory(path: Path) -> Path:
    """``path``, with any folders missing on the way created 0700, and ``path`` itself
    checked and tightened (:func:`make_private`)."""
    missing: list[Path] = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    if not path.is_dir():
        raise NotADirectoryError(f"{path} is not a directory")
    make_private(path, why="who could read or replace what is written there: none is")
    return path
