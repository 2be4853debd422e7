"""The ``mcp-elicit`` command.

Exit status everywhere: 0 success, 1 a finding (invalid schema, unsafe URL, failed check),
2 bad usage, 141 output cut short (standard output closed by its reader, as in
``mcp-elicit ... | head``: 128 + SIGPIPE, what a shell reports for a command killed by it).
A finding is a message, never a traceback.

Every run builds every command's parser, so the modules that build them (``*_command.py``,
``_host``, ``_parsing``, ``_io``) import nothing heavy: each command imports what it needs
(the client and the SDK, or the forms core, or the URL checks) when it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from mcp_elicit import __version__
from mcp_elicit.cli import (
    call_command,
    check_command,
    connect_command,
    demo_command,
    gateway_command,
    schema_command,
    url_command,
)
from mcp_elicit.cli._host import split_command
from mcp_elicit.cli._io import UsageError
from mcp_elicit.cli._parsing import CommandParser, language_asked
from mcp_elicit.i18n import _, from_environment, set_default_language
from mcp_elicit.i18n.choosing import match

__all__ = ["main"]

# The commands that take a server's command after `--`, last on the line.
_HOSTS = ("connect", "call", "check", "gateway")

# The exit status when standard output is closed before everything is written.
CLOSED_OUTPUT = 128 + 13  # SIGPIPE


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="mcp-elicit",
        description=_("Model Context Protocol elicitation: forms, URL mode, every revision."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"mcp-elicit {__version__}",
        help=_("show program's version number and exit"),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (
        demo_command,
        connect_command,
        call_command,
        check_command,
        gateway_command,
        schema_command,
        url_command,
    ):
        module.add_parser(commands)
    return parser


def parse(argv: Sequence[str], parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """The command line, read: options and positionals in any order; for ``connect``,
    ``call`` and ``check``, the server's command after ``--`` (last) in
    ``server_command``. Bad usage exits 2 with the command's own usage line."""
    parser = parser or build_parser()
    words = list(argv)
    command: list[str] = []
    if "--" in words and any(w in _HOSTS for w in words[: words.index("--")]):
        words, command = split_command(words)
    args = parser.parse_args(words)
    args.server_command = command
    return args


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _main(sys.argv[1:] if argv is None else argv)
        finally:
            # Written out now, --help and --version included (they exit through SystemExit),
            # so that a reader gone away is seen here and not at the interpreter's exit.
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        # The reader closed the pipe (`| head`): there is no one left to tell. As in Python's
        # "Note on SIGPIPE", what is still buffered goes to /dev/null, so that the flush at
        # exit does not fail again, with a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        except (AttributeError, OSError, ValueError):
            pass  # not a file (a test's capture): nothing is flushed at exit
        finally:
            os.close(devnull)
        return CLOSED_OUTPUT


def _main(argv: Sequence[str]) -> int:
    # The language first: the parsers' help is written in it. A --lang with no catalog is
    # left to the parser, which says so as the command's usage error.
    asked = language_asked(argv)
    tag = (match(asked) if asked is not None else None) or from_environment()
    set_default_language(tag)
    parser = build_parser()
    args = parse(argv, parser)
    if getattr(args, "lang", tag) != tag:  # an abbreviation (--la): the help is built by now
        set_default_language(args.lang)
    try:
        status: int = args.run(args)
    except UsageError as exc:
        # Found after parsing (a missing file, a bad target): shown as argparse shows its own.
        command: argparse.ArgumentParser = getattr(args, "command_parser", parser)
        command.error(str(exc))
    except KeyboardInterrupt:
        return 130
    return status
