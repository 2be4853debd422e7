"""A command running in a tmux pane of its own: keys in, screen out, as a person uses it."""

from __future__ import annotations

import shlex
import subprocess
import time
import uuid
from pathlib import Path

from tests import markers

ROOT = Path(__file__).resolve().parents[1]


class Pane:
    """One tmux session running one command; ``keys`` types, ``wait_for`` reads the screen."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path = ROOT) -> None:
        markers.require("tmux")
        self.name = f"mcp-elicit-{uuid.uuid4().hex[:8]}"
        # A tmux server of its own (-L): no race with another test's server shutting down,
        # and nothing to do with a tmux the person running the tests may have open.
        self.tmux = ["tmux", "-L", self.name]
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # The exit status shows as "[exited N]" once the command is done.
        line = (
            f"cd {shlex.quote(str(cwd))} && env {exports} {shlex.join(command)}; "
            'echo "[exited $?]"; sleep 60'
        )
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-s", self.name, "-x", "160", "-y", "50", line],
            check=True,
        )

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "-l", text], check=True)
        self.keys("Enter")

    def screen(self) -> str:
        return subprocess.run(
            [*self.tmux, "capture-pane", "-t", self.name, "-p", "-S", "-200"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    # A first start in a fresh clone compiles every module and starts a server process on
    # two busy cores: the first screen gets longer than any later step.
    STARTUP = 90.0

    def wait_for(self, text: str, timeout: float = 20.0, *, count: int = 1) -> str:
        """The screen once ``text`` shows (``count`` times: earlier ones stay in scrollback)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], check=False)
