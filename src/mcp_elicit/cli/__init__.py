"""The ``mcp-elicit`` command.

Exit status everywhere: 0 success, 1 a finding (invalid schema, unsafe URL, failed check),
2 bad usage. A finding is a message, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mcp_elicit import __version__
from mcp_elicit.cli import (
    call_command,
    connect_command,
    demo_command,
    schema_command,
    url_command,
)
from mcp_elicit.cli._host import split_command
from mcp_elicit.cli._io import UsageError
from mcp_elicit.cli._parsing import CommandParser

# The commands that take a server's command after `--`, last on the line.
_HOSTS = ("connect", "call")


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="mcp-elicit",
        description="Model Context Protocol elicitation: forms, URL mode, every revision.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-elicit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (demo_command, connect_command, call_command, schema_command, url_command):
        module.add_parser(commands)
    return parser


def parse(argv: Sequence[str], parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """The command line, read: options and positionals in any order; for ``connect`` and
    ``call``, the server's command after ``--`` (last) in ``server_command``. Bad usage exits
    2 with the command's own usage line."""
    parser = parser or build_parser()
    words = list(argv)
    command: list[str] = []
    if "--" in words and any(w in _HOSTS for w in words[: words.index("--")]):
        words, command = split_command(words)
    args = parser.parse_args(words)
    args.server_command = command
    return args


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse(sys.argv[1:] if argv is None else argv, parser)
    try:
        status: int = args.run(args)
    except UsageError as exc:
        # Found after parsing (a missing file, a bad target): shown as argparse shows its own.
        command: argparse.ArgumentParser = getattr(args, "command_parser", parser)
        command.error(str(exc))
    except KeyboardInterrupt:
        return 130
    return status
