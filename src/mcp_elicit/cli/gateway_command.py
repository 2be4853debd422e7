"""``mcp-elicit gateway [--http PORT] [options] (URL | -- COMMAND args...)``: a proxy in front
of one MCP server that bridges protocol eras with elicitation and URL mode intact
(docs/gateway.md). Downstream clients connect on stdio (the default) or Streamable HTTP.

This module is the command line only, cheap to import; the gateway runs in
:mod:`mcp_elicit.cli._gateway`, imported when the command runs.
"""

from __future__ import annotations

import argparse

from mcp_elicit.cli._host import UI_CHOICES, _header
from mcp_elicit.i18n import _
from mcp_elicit.revisions import UPSTREAM_CHOICES, Revision


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a number of seconds: {text}").format(text=repr(text))
        ) from None
    if not value > 0:
        raise argparse.ArgumentTypeError(_("must be more than 0 seconds"))
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a whole number: {text}").format(text=repr(text))
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1"))
    return value


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gateway = commands.add_parser(
        "gateway",
        prog="mcp-elicit gateway",
        usage="%(prog)s [options] (URL | -- COMMAND [ARGS...])",
        help=_("a proxy that lets any client reach any server across protocol eras"),
        description=(
            _(
                "Serve one upstream MCP server to downstream clients, whatever revision each "
                "side speaks: a 2025 server's pushed questions reach a {revision} client as "
                "input requests (the call held open meanwhile), a {revision} server's rounds "
                "reach a 2025 client as pushed questions; URL mode, -32042 and completion "
                "intact. The upstream is an http(s):// URL, or '-- command args...' last on the "
                "line (over stdio; its stderr goes to a log file). Clients connect on stdio, or "
                "on Streamable HTTP with --http PORT."
            ).format(revision=Revision.V2026_07_28)
        ),
    )
    gateway.add_argument(
        "target", metavar="URL", nargs="?", help=_("the upstream's http(s):// URL")
    )
    gateway.add_argument(
        "--http",
        type=int,
        metavar="PORT",
        help=_("serve Streamable HTTP on this port (path /mcp) instead of stdio"),
    )
    gateway.add_argument(
        "--host",
        default="127.0.0.1",
        help=_("the address to listen on with --http (default 127.0.0.1)"),
    )
    gateway.add_argument(
        "--upstream-protocol",
        choices=UPSTREAM_CHOICES,
        default="auto",
        help=_("the revision to speak to the upstream (default: the newest both speak)"),
    )
    gateway.add_argument(
        "--header",
        action="append",
        default=[],
        type=_header,
        metavar="NAME:VALUE",
        help=_("send this HTTP header upstream (repeatable); NAME:@FILE reads the value from FILE"),
    )
    gateway.add_argument(
        "--hold-limit",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help=_(
            "how long a 2025 server's call is held for a {revision} client to come back "
            "with an answer (default 1800)"
        ).format(revision=Revision.V2026_07_28),
    )
    gateway.add_argument(
        "--link-wait",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help=_(
            "after a 2025 server's -32042, how long a {revision} client's retry waits for "
            "the server's completion notice before calling it again anyway (default 120; at "
            "once when the person says they are done)"
        ).format(revision=Revision.V2026_07_28),
    )
    gateway.add_argument(
        "--instance-url",
        metavar="URL",
        help=_(
            "with --http, one of several gateway instances behind a load balancer: the URL "
            "the other instances reach this one's /mcp at; a {revision} retry is passed on "
            "to the instance holding its call (every instance needs the same MCP_ELICIT_KEY)"
        ).format(revision=Revision.V2026_07_28),
    )
    gateway.add_argument(
        "--instance-tag",
        metavar="TAG",
        help=_(
            "with --http, put TAG in front of 2025-era session ids, so that a load balancer "
            "keeps each session on this instance (default: MCP_ELICIT_INSTANCE)"
        ),
    )
    gateway.add_argument(
        "--token-file",
        metavar="FILE",
        help=_(
            "with --http, serve only clients that send 'Authorization: Bearer TOKEN' with a "
            "token from FILE (one a line, each line a client of its own; 401 otherwise)"
        ),
    )
    limits = gateway.add_argument_group(
        _("caps and limits"),
        _(
            "Each call a 2025 server may ask holds an upstream session of its own (a process, "
            "for a server run over stdio). Past a cap the call is refused with an error naming "
            "it; a client is its bearer token or signed-in user, else its session, and all "
            "{revision} clients without one are one client."
        ).format(revision=Revision.V2026_07_28),
    )
    for option, default, text in (
        ("--max-held-calls", 64, _("calls held for {revision} clients at once, in all")),
        (
            "--max-held-calls-per-client",
            16,
            _("calls held for {revision} clients at once, per client"),
        ),
        ("--max-upstream-sessions", 64, _("upstream sessions open at once, in all")),
        (
            "--max-upstream-sessions-per-client",
            16,
            _("upstream sessions one client may hold at once"),
        ),
        (
            "--max-question-bytes",
            131072,
            _("the largest question or answer passed on, in bytes of JSON"),
        ),
        ("--max-questions-per-call", 32, _("the most questions one call may ask")),
    ):
        limits.add_argument(
            option,
            type=_count,
            default=None,
            metavar="N",
            help=_("{what} (default {default})").format(
                what=text.format(revision=Revision.V2026_07_28), default=default
            ),
        )
    limits.add_argument(
        "--idle-session-close",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help=_("close an upstream session left unused this long (default 60)"),
    )
    gateway.add_argument(
        "--url-draft",
        action="store_true",
        help=_(
            "take {revision} clients that declare elicitation.url to speak the URL-mode "
            "draft (SEP-1036): -32604 and elicitation/track"
        ).format(revision=Revision.V2025_06_18),
    )
    gateway.add_argument(
        "--no-answer-check",
        action="store_true",
        help=_("pass answers on without checking them against the question's schema"),
    )
    gateway.add_argument(
        "--no-url-verdicts",
        action="store_true",
        help=_("do not attach each link's safety verdict to URL-mode questions"),
    )
    gateway.add_argument(
        "--allow-blocked-links",
        action="store_true",
        help=_(
            "pass on links whose verdict is block (by default they never reach the person: "
            "the call ends with an error saying why)"
        ),
    )
    gateway.add_argument(
        "--audit",
        metavar="FILE",
        help=_("append a JSON line per question and what became of it (answers redacted)"),
    )
    person = gateway.add_argument_group(
        _("asking for hosts that cannot"),
        _(
            "Many hosts declare no elicitation, or no URL mode. With --ask the gateway declares "
            "both upstream and asks the person itself what the host cannot be asked, with the "
            "checks of mcp-elicit's own client: a link's verdict and consent before it opens, "
            "blocked links never offered, answers checked, --audit."
        ),
    )
    person.add_argument(
        "--ask",
        choices=UI_CHOICES,
        metavar="{terminal,web}",
        help=_(
            "ask the person at this terminal (never on stdin and stdout, which may be the "
            "host's pipes), or on a page in their browser, served on 127.0.0.1 only, at a "
            "secret address (web)"
        ),
    )
    person.add_argument(
        "--ask-always",
        action="store_true",
        help=_(
            "with --ask, ask every question here, even those the host could answer (by "
            "default a host that declared a mode is asked in it itself)"
        ),
    )
    person.add_argument(
        "--allow-http-loopback",
        action="store_true",
        help=_(
            "with --ask, also offer http:// links to this machine from a server given by "
            "URL, its sign-in links included"
        ),
    )
    gateway.set_defaults(run=run, command_parser=gateway)


def run(args: argparse.Namespace) -> int:
    from mcp_elicit.cli._gateway import run_gateway

    return run_gateway(args)
