"""The environment ``mcp-elicit`` runs in as a process of its own (tests/cli/test_as_a_process.py,
tests/client/test_sign_in.py)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.paths import SRC


def environment(tmp_path: Path, *, unbuffered: bool | None = None) -> dict[str, str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        "PYTHONIOENCODING": "utf-8",
        "XDG_STATE_HOME": str(tmp_path / "state"),  # where a stdio server's log goes
    }
    if unbuffered is not None:  # else as it is here
        env.pop("PYTHONUNBUFFERED", None)
        if unbuffered:
            env["PYTHONUNBUFFERED"] = "1"
    return env
