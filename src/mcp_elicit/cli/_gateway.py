"""``mcp-elicit gateway``, run (the parser is in :mod:`.gateway_command`)."""

from __future__ import annotations

import argparse
import sys

import anyio

from mcp_elicit.cli._io import UsageError
from mcp_elicit.cli._running import server_of
from mcp_elicit.client import AuditLog
from mcp_elicit.gateway import DEFAULT_HOLD_LIMIT, LINK_WAIT, Gateway, Safeguards
from mcp_elicit.i18n import _


def run_gateway(args: argparse.Namespace) -> int:
    target = server_of(args)
    if args.header and not isinstance(target, str):  # the gateway's own words are a developer's
        raise UsageError(_("headers are for an upstream given by its http(s):// URL"))
    audit = None
    if args.audit:
        try:
            audit = AuditLog(args.audit)
        except OSError as error:
            raise UsageError(
                _("--audit: cannot open {path}: {why}").format(path=args.audit, why=error.strerror)
            ) from None
    safeguards = Safeguards(
        validate_answers=not args.no_answer_check,
        url_verdicts=not args.no_url_verdicts,
        block_links=not args.allow_blocked_links,
        audit=audit,
    )
    try:
        gateway = Gateway(
            target,
            safeguards=safeguards,
            upstream_protocol=args.upstream_protocol,
            headers=dict(args.header),
            hold_limit=args.hold_limit or DEFAULT_HOLD_LIMIT,
            link_wait=args.link_wait or LINK_WAIT,
            url_draft=args.url_draft,
        )
    except ValueError as error:  # what the gateway refuses (headers for a stdio upstream)
        raise UsageError(str(error)) from None
    try:
        anyio.run(_serve, gateway, args)
    finally:
        if audit is not None:
            audit.close()
    return 0


async def _serve(gateway: Gateway, args: argparse.Namespace) -> None:
    async with gateway:
        upstream = gateway.upstream
        kind = _("multi round-trip") if upstream.rounds else _("push")
        print(
            _("mcp-elicit gateway: upstream {version} ({kind})").format(
                version=upstream.version, kind=kind
            ),
            file=sys.stderr,
        )
        if args.http is None:
            await gateway.serve_stdio()
            return
        import uvicorn

        app = gateway.http_app(host=args.host)
        print(
            _("mcp-elicit gateway: serving {url}").format(
                url=f"http://{args.host}:{args.http}/mcp"
            ),
            file=sys.stderr,
        )
        config = uvicorn.Config(app, host=args.host, port=args.http, log_level="warning")
        await uvicorn.Server(config).serve()
