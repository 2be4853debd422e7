"""``mcp-elicit url check URL``: the URL-mode safety verdict, for people or (``--json``) programs.

Exit status: 0 when the link may be offered (allow or warn), 1 when it is blocked, 2 for bad
usage (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys

from mcp_elicit.urls import UrlPolicy, UrlVerdict, Verdict, check_url
from mcp_elicit.urls.characters import visible

_HEADLINES = {
    Verdict.ALLOW: "ALLOW  the link may be offered",
    Verdict.WARN: "WARN   offer the link only together with the reasons below",
    Verdict.BLOCK: "BLOCK  do not offer this link",
}


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``url`` (and its ``check`` subcommand) on the main parser's subcommands."""
    url = subparsers.add_parser(
        "url",
        help="check URLs a server asks a person to open (URL mode)",
        description="Check URLs a server asks a person to open (URL-mode elicitation).",
    )
    # required=True: a bare `mcp-elicit url` prints usage and exits 2.
    commands = url.add_subparsers(dest="url_command", metavar="SUBCOMMAND", required=True)
    check = commands.add_parser(
        "check",
        help="say whether a URL may be offered to a person, and why",
        description=(
            "Say whether a URL may be offered to a person to open: allow, warn or block, "
            "with the reasons. Nothing is fetched; with --resolve the host name is looked up "
            "in DNS. Exit status: 0 allow or warn, 1 block, 2 bad usage."
        ),
    )
    check.add_argument("url", metavar="URL", help="the URL to check (quote it for the shell)")
    check.add_argument(
        "--json",
        action="store_true",
        help="print {verdict, reasons, display_host, registrable_domain} as JSON",
    )
    check.add_argument(
        "--resolve",
        action="store_true",
        help="also resolve the host name and check the addresses it resolves to (DNS I/O)",
    )
    check.add_argument(
        "--allow-http-loopback",
        action="store_true",
        help="local development: accept http:// (and https://) to 127.0.0.1, ::1 and localhost",
    )
    check.set_defaults(run=_run_check)


def _run_check(args: argparse.Namespace) -> int:
    policy = UrlPolicy(allow_http_loopback=bool(args.allow_http_loopback))
    result = check_url(args.url, policy, resolve=bool(args.resolve))
    if args.json:
        json.dump(result.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(result))
    return 1 if result.verdict is Verdict.BLOCK else 0


def render_text(result: UrlVerdict) -> str:
    """The human report. The URL and hosts go through ``visible`` so that control characters
    and bidi overrides in a hostile URL cannot rewrite the terminal or reorder the report."""
    lines = [_HEADLINES[result.verdict], "", f"  URL:                {visible(result.url, None)}"]
    host = result.display_host
    if host is None:
        lines.append("  host:               (none usable)")
    else:
        lines.append(f"  host:               {visible(host.unicode, None)}")
        lines.append(f"  host (ASCII/DNS):   {host.ascii}")
    lines.append("")
    if result.registrable_domain is not None:
        lines.append(f"  registrable domain: {visible(result.registrable_domain, None)}")
        lines.append("      (whoever registered this name controls the link)")
    elif host is None:
        lines.append("  registrable domain: (none)")
    else:
        lines.append("  registrable domain: (none: IP address, single label or public suffix)")
    lines.append("")
    if result.reasons:
        lines.append("Reasons:")
        for reason in result.reasons:
            lines.append(f"  [{reason.severity}] {reason.code}: {reason.message}")
    else:
        lines.append("No reasons to warn or block.")
    return "\n".join(lines) + "\n"
