"""``mcp-elicit url check``, run (its command line: :mod:`mcp_elicit.cli.url_command`): the
URL-mode safety verdict, for people or (``--json``) programs."""

from __future__ import annotations

import argparse
import json
import sys

from mcp_elicit.cli._io import for_programs
from mcp_elicit.i18n import N_, _, aligned
from mcp_elicit.urls import UrlPolicy, UrlVerdict, Verdict, check_url
from mcp_elicit.urls.characters import visible

_HEADLINES = {
    Verdict.ALLOW: N_("ALLOW  the link may be offered"),
    Verdict.WARN: N_("WARN   offer the link only together with the reasons below"),
    Verdict.BLOCK: N_("BLOCK  do not offer this link"),
}


def run_url_check(args: argparse.Namespace) -> int:
    policy = UrlPolicy(
        allow_http_loopback=bool(args.allow_http_loopback),
        allow_private=bool(args.allow_private),
    )
    with for_programs(args.json):
        result = check_url(args.url, policy, resolve=bool(args.resolve))
    if args.json:
        json.dump(result.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(result))
    return 1 if result.verdict is Verdict.BLOCK else 0


def render_text(result: UrlVerdict) -> str:
    """The human report. The URL and hosts go through ``visible`` so that control characters
    and bidi overrides in a hostile URL cannot rewrite the terminal or reorder the report.
    The labels are aligned by their width on screen (a Chinese label is twice as wide)."""
    first: list[tuple[str, str]] = [(_("URL:"), visible(result.url, None))]
    host = result.display_host
    if host is None:
        first.append((_("host:"), _("(none usable)")))
    else:
        first.append((_("host:"), visible(host.unicode, None)))
        first.append((_("host (ASCII/DNS):"), host.ascii))
    domain = (
        visible(result.registrable_domain, None)
        if result.registrable_domain is not None
        else _("(none)")
    )
    rows = [*first, ("", ""), (_("registrable domain:"), domain)]
    block = aligned(rows)
    lines = [_(_HEADLINES[result.verdict]), "", *block]
    if (who := result.who_controls) is not None:
        lines.append(_("      ({who})").format(who=who))
    lines.append("")
    if result.reasons:
        lines.append(_("Reasons:"))
        for reason in result.reasons:
            lines.append(f"  [{reason.severity}] {reason.code}: {reason.message}")
    else:
        lines.append(_("No reasons to warn or block."))
    return "\n".join(lines) + "\n"
