"""``mcp-elicit url check``, run (its command line: :mod:`mcp_elicit.cli.url_command`): the
URL-mode safety verdict, for people or (``--json``) programs."""

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


def check(args: argparse.Namespace) -> int:
    policy = UrlPolicy(
        allow_http_loopback=bool(args.allow_http_loopback),
        allow_private=bool(args.allow_private),
    )
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
    else:
        lines.append("  registrable domain: (none)")
    if (who := result.who_controls) is not None:
        lines.append(f"      ({who})")
    lines.append("")
    if result.reasons:
        lines.append("Reasons:")
        for reason in result.reasons:
            lines.append(f"  [{reason.severity}] {reason.code}: {reason.message}")
    else:
        lines.append("No reasons to warn or block.")
    return "\n".join(lines) + "\n"
