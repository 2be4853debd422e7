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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-elicit",
        description="Model Context Protocol elicitation: forms, URL mode, every revision.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-elicit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (demo_command, connect_command, call_command, schema_command, url_command):
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    # `connect` and `call` take the server's command after `--`, last on the line.
    command: list[str] = []
    if "--" in words and any(w in ("connect", "call") for w in words[: words.index("--")]):
        words, command = split_command(words)
    args = parser.parse_args(words)
    args.server_command = command
    try:
        status: int = args.run(args)
    except UsageError as exc:
        parser.exit(2, f"mcp-elicit: error: {exc}\n")
    except KeyboardInterrupt:
        return 130
    return status
