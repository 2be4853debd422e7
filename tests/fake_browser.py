"""A ``$BROWSER`` for tests: a script that writes each link it is given, a line each, to a file.

The script's shell creates the file before ``echo`` writes the line, so a reader that only
waits for the file to exist can read it empty (CI did, once). Read it through
:meth:`FakeBrowser.links`, which counts only whole lines.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import anyio


class FakeBrowser:
    def __init__(self, folder: Path, name: str = "browser.sh") -> None:
        self.script = folder / name
        self.opened = folder / "opened.txt"
        self.script.write_text(f'#!/bin/sh\necho "$1" >> {shlex.quote(str(self.opened))}\n')
        self.script.chmod(0o755)

    def links(self) -> list[str]:
        """The links opened so far, whole lines only."""
        try:
            text = self.opened.read_text()
        except FileNotFoundError:
            return []
        return text[: text.rfind("\n") + 1].split()

    def wait(self, count: int = 1, timeout: float = 20.0) -> list[str]:
        """The links opened, once there are at least ``count`` of them."""
        deadline = time.monotonic() + timeout
        while len(found := self.links()) < count:
            assert time.monotonic() < deadline, f"{len(found)} of {count} links were opened"
            time.sleep(0.05)
        return found

    async def wait_async(self, count: int = 1, timeout: float = 20.0) -> list[str]:
        with anyio.fail_after(timeout):
            while len(found := self.links()) < count:
                await anyio.sleep(0.05)
        return found


__all__ = ["FakeBrowser"]
