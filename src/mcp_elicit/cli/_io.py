"""Reading inputs and printing results, shared by the subcommands.

Imported on every run (``UsageError``), so ``json`` is imported only when it is used."""

from __future__ import annotations

import sys
from typing import Any


class UsageError(Exception):
    """Bad usage: the command exits 2 with this message (a missing file, unreadable JSON...)."""


def read_json(path: str, *, what: str) -> Any:
    """Read JSON from a file, or from standard input when ``path`` is ``-``."""
    import json

    if path == "-":
        text = sys.stdin.read()
        where = "standard input"
    else:
        try:
            with open(path, encoding="utf-8") as file:
                text = file.read()
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
    import json

    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
