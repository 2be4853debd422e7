"""The command line's parser: each command's words in any order, each command's own usage."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


class CommandParser(argparse.ArgumentParser):
    """``argparse`` with two changes for the commands (the parsers without subcommands):

    - their words are parsed intermixed, so a positional (``TOOL``, ``TARGET``, ``FILE``) may
      come before, between or after the options: ``call TOOL --answers F URL`` and
      ``call --answers F TOOL URL`` mean the same. (Plain ``argparse`` gives an optional
      ``TARGET`` the empty match at the first chance, and a URL after the options is then
      "unrecognized".)
    - words left over are an error of the command itself, shown with its own usage line
      (``usage: mcp-elicit call ...``), not the top-level one.

    The command that parsed the line is kept as ``command_parser`` on the result, so an error
    found later (a missing file, a bad target) can be shown with its usage too.
    """

    _intermixing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        # Python 3.11's intermixed parsing calls parse_known_args itself: the flag sends
        # those calls to argparse's own.
        if self._subparsers is not None or self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            parsed, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        parsed.command_parser = self
        return parsed, extras
