"""What ``connect``, ``call`` and ``demo`` share: the target, the protocol, the handler's
settings, where questions are answered."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from mcp_elicit.cli._io import UsageError
from mcp_elicit.client import AuditLog, ElicitationHandler, Policy
from mcp_elicit.client.connection import PROTOCOL_CHOICES
from mcp_elicit.client.handler import open_in_browser
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.server_log import LoggedStdioServer
from mcp_elicit.client.targets import TargetError, server_for
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.urls import UrlPolicy

_MODES = {
    "form,url": ElicitationModes(form=True, url=True),
    "form": ElicitationModes(form=True),
    "url": ElicitationModes(url=True),
}


def _modes(text: str) -> str:
    """``--modes``: ``form``, ``url``, or both (``form,url``; ``form+url`` and ``url,form``
    too), as the key of ``_MODES``."""
    words = {word.strip().lower() for word in text.replace("+", ",").split(",")}
    for key in _MODES:
        if set(key.split(",")) == words:
            return key
    raise argparse.ArgumentTypeError(f"choose form, url, or both as form,url (not {text!r})")


def split_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split at the first ``--``: options before, the server command after."""
    words = list(argv)
    if "--" in words:
        at = words.index("--")
        return words[:at], words[at + 1 :]
    return words, []


def add_host_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        metavar="TARGET",
        nargs="?",
        help="the server: an http(s):// URL (before or after the options), or "
        "'-- command args...' last on the line to start it over stdio (its stderr goes to "
        "a log file, named when it starts)",
    )
    parser.add_argument(
        "--protocol",
        choices=PROTOCOL_CHOICES,
        default="auto",
        help="protocol revision to speak (default: auto, the newest both sides have)",
    )
    parser.add_argument(
        "--modes",
        type=_modes,
        default="form,url",
        metavar="MODES",
        help="the elicitation modes to declare and answer: form, url, or both as form,url "
        "(the default)",
    )
    parser.add_argument("--audit", metavar="FILE", help="append a JSON-lines audit log to FILE")
    parser.add_argument(
        "--audit-values",
        action="store_true",
        help="log answer values in the audit log (redacted by default; secrets always are)",
    )
    parser.add_argument(
        "--allow-http-loopback",
        action="store_true",
        help="offer http:// links to this machine (local development)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="request timeout; time spent answering does not count",
    )


UI_CHOICES = ("terminal", "web")


def add_ui_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ui",
        choices=UI_CHOICES,
        default="terminal",
        help=(
            "where questions are answered: in this terminal (default), or on a page in your "
            "browser, served on 127.0.0.1 only, at a secret address (web)"
        ),
    )


def server_of(args: argparse.Namespace) -> object:
    """The server to connect to; one started over stdio writes its stderr to its log."""
    try:
        return server_for(args.target, args.server_command, log_stderr=True)
    except TargetError as error:
        raise UsageError(str(error)) from None


def announce_log(server: object) -> None:
    """Name the log of a server started over stdio, once, as its session starts: its own
    output goes there, not onto the person's screen."""
    if isinstance(server, LoggedStdioServer):
        say(f"server log: {server.log_path}")


def handler_of(
    args: argparse.Namespace,
    renderer: Renderer | None,
    *,
    opener: Callable[[str], object] | None = open_in_browser,
) -> ElicitationHandler:
    audit = None
    if args.audit:
        try:
            audit = AuditLog(args.audit, redact=not args.audit_values)
        except OSError as error:
            raise UsageError(f"--audit: cannot open {args.audit}: {error.strerror}") from None
    policy = Policy(
        modes=_MODES[args.modes],
        url_policy=UrlPolicy(allow_http_loopback=args.allow_http_loopback),
    )
    return ElicitationHandler(renderer, policy=policy, audit=audit, opener=opener)


def say(text: str) -> None:
    print(f"mcp-elicit: {text}", file=sys.stderr, flush=True)
