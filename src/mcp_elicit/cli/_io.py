"""Reading inputs and printing results, shared by the subcommands.

Imported on every run (``UsageError``), so ``json`` is imported only when it is used."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from mcp_elicit.i18n import _, language

if TYPE_CHECKING:
    from contextlib import AbstractContextManager


class UsageError(Exception):
    """Bad usage: the command exits 2 with this message (a missing file, unreadable JSON...)."""


def read_json(path: str, *, what: str) -> Any:
    """Read JSON from a file, or from standard input when ``path`` is ``-``. ``what`` names
    the file for a person, in the language in effect (``_("schema")``)."""
    import json

    if path == "-":
        text = sys.stdin.read()
        where = _("standard input")
    else:
        try:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        except FileNotFoundError:
            raise UsageError(
                _("{what}: no such file: {path}").format(what=what, path=path)
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(
                _("{what}: cannot read {path}: {why}").format(what=what, path=path, why=exc)
            ) from None
        where = path
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            _("{what}: {where} is not JSON: {why} at line {line}, column {column}").format(
                what=what, where=where, why=exc.msg, line=exc.lineno, column=exc.colno
            )
        ) from None


def for_programs(json_output: bool) -> AbstractContextManager[object]:
    """Where findings are made for ``--json``: in English, whatever the person's language, so
    that JSON output is the same everywhere (programs read it; the codes are in it too)."""
    from contextlib import nullcontext

    return language("en") if json_output else nullcontext()


def print_json(value: Any) -> None:
    import json

    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
