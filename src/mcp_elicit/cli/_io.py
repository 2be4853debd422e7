"""Reading inputs and printing results, shared by the subcommands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


class UsageError(Exception):
    """Bad usage: the command exits 2 with this message (a missing file, unreadable JSON...)."""


def read_json(path: str, *, what: str) -> Any:
    """Read JSON from a file, or from standard input when ``path`` is ``-``."""
    if path == "-":
        text = sys.stdin.read()
        where = "standard input"
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageError(f"{what}: no such file: {path}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{what}: cannot read {path}: {exc}") from None
        where = path
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{what}: {where} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


def print_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
