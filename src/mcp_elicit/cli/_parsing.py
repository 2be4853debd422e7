"""The command line's parser: each command's words in any order, each command's own usage."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


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

    And one change for all: a failed write of its help, version or usage is not dropped
    silently, so that a closed standard output (``mcp-elicit --help | head -1``) ends the run
    as it ends any command's (``main``: no traceback, status 141), buffered output or not.
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

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse's own catches OSError (BrokenPipeError included) and carries on.
        if message:
            out = file or sys.stderr
            if out is not None:  # None: that stream is closed (``2>&-``)
                out.write(message)
