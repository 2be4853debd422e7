"""What ``connect``, ``call`` and ``demo`` take on the command line: the target, the protocol,
the handler's settings, where questions are answered.

Cheap to import, as every command's parser is built on every run (``mcp-elicit --version``
included): nothing here imports the client, the SDK or a web framework. What these options
become once a command runs (the server, the handler) is in :mod:`mcp_elicit.cli._running`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mcp_elicit.i18n import _
from mcp_elicit.revisions import (
    EARLY_DRAFT_VERSION,
    PROTOCOL_CHOICES,
    UPSTREAM_CHOICES,
    Revision,
)

# The demo's server asks forms, which the early draft cannot carry.
DEMO_PROTOCOLS = UPSTREAM_CHOICES

# The spellings of ``--modes``, as ``form,url`` lists of the modes declared and answered.
MODES: tuple[str, ...] = ("form,url", "form", "url")


def _modes(text: str) -> str:
    """``--modes``: ``form``, ``url``, or both (``form,url``; ``form+url`` and ``url,form``
    too), as one of ``MODES``."""
    words = {word.strip().lower() for word in text.replace("+", ",").split(",")}
    for key in MODES:
        if set(key.split(",")) == words:
            return key
    raise argparse.ArgumentTypeError(
        _("choose form, url, or both as form,url (not {text})").format(text=repr(text))
    )


SIGN_IN_CHOICES = ("ask", "yes", "no")

# RFC 9110 field-name: a token.
_TOKEN_CHARACTERS = frozenset(
    "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


def _header(text: str) -> tuple[str, str]:
    """``--header``: ``NAME:VALUE`` (spaces around the value dropped); ``NAME:@FILE`` reads
    the value from FILE, so that a token need not be on the command line."""
    name, colon, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not colon or not name:
        raise argparse.ArgumentTypeError(
            _("expected NAME:VALUE, as in 'Authorization: Bearer TOKEN' (not {text})").format(
                text=repr(text)
            )
        )
    if not set(name) <= _TOKEN_CHARACTERS:
        raise argparse.ArgumentTypeError(
            _("{name} is not an HTTP header name").format(name=repr(name))
        )
    if value.startswith("@"):
        try:
            with open(value[1:], encoding="utf-8") as file:
                value = file.read().strip()
        except OSError as error:
            raise argparse.ArgumentTypeError(
                _("{name}: cannot read {path}: {why}").format(
                    name=name, path=value[1:], why=error.strerror
                )
            ) from None
    if any(c in value for c in "\r\n\0"):
        raise argparse.ArgumentTypeError(
            _("{name}: the value may not hold a line break").format(name=name)
        )
    return name, value


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
        help=_(
            "the server: an http(s):// URL (before or after the options), or "
            "'-- command args...' last on the line to start it over stdio (its stderr goes to "
            "a log file, named when it starts)"
        ),
    )
    parser.add_argument(
        "--protocol",
        choices=PROTOCOL_CHOICES,
        default="auto",
        help=_(
            "protocol revision to speak (default: auto, the newest both sides have; "
            "{revision} is the early content-array draft: free text, images and audio)"
        ).format(revision=EARLY_DRAFT_VERSION),
    )
    parser.add_argument(
        "--modes",
        type=_modes,
        default="form,url",
        metavar="MODES",
        help=_(
            "the elicitation modes to declare and answer: form, url, or both as form,url "
            "(the default)"
        ),
    )
    parser.add_argument("--audit", metavar="FILE", help=_("append a JSON-lines audit log to FILE"))
    parser.add_argument(
        "--audit-values",
        action="store_true",
        help=_("log answer values in the audit log (redacted by default; secrets always are)"),
    )
    parser.add_argument(
        "--allow-http-loopback",
        action="store_true",
        help=_(
            "also offer http:// links to this machine from a server given by URL, its "
            "sign-in links included (a server started with '-- command' may already: it "
            "runs on this machine as you)"
        ),
    )
    parser.add_argument(
        "--sign-in",
        choices=SIGN_IN_CHOICES,
        default="ask",
        help=_(
            "a server given by URL that requires MCP authorization: ask before opening its "
            "sign-in page in your browser (ask, the default), consent ahead for a script (yes: "
            "the page still opens, and the browser must finish the sign-in; a link with "
            "warnings, other than one to this machine allowed by --allow-http-loopback, is "
            "still asked about, or refused with nobody to ask), or never sign in "
            "(no). Tokens are kept per server, owner-only, in the state directory"
        ),
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        type=_header,
        metavar="NAME:VALUE",
        help=_(
            "send this HTTP header to a server given by URL (repeatable), e.g. "
            "'Authorization: Bearer TOKEN'. A command line is visible to every user of this "
            "machine: NAME:@FILE reads the value from FILE instead"
        ),
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help=_("request timeout; time spent answering does not count"),
    )


def add_no_tasks_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-tasks",
        action="store_true",
        help=_(
            "do not take tasks (the {revision} extension io.modelcontextprotocol/tasks): "
            "every call runs plainly, and a tool the server runs only as a task fails with "
            "its -32021 reason"
        ).format(revision=Revision.V2026_07_28.value),
    )


UI_CHOICES = ("terminal", "web")


def add_ui_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ui",
        choices=UI_CHOICES,
        default="terminal",
        help=(
            _(
                "where questions are answered: in this terminal (default), or on a page in your "
                "browser, served on 127.0.0.1 only, at a secret address (web)"
            )
        ),
    )


def say(text: str) -> None:
    print(f"mcp-elicit: {text}", file=sys.stderr, flush=True)
