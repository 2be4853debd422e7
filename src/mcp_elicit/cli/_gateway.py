"""``mcp-elicit gateway``, run (the parser is in :mod:`.gateway_command`)."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
import traceback
from contextlib import AsyncExitStack
from typing import Any

import anyio

from mcp_elicit.cli._io import UsageError
from mcp_elicit.cli._running import server_of
from mcp_elicit.client import AuditLog, ElicitationHandler, Policy
from mcp_elicit.gateway import (
    DEFAULT_HOLD_LIMIT,
    LINK_WAIT,
    BearerTokens,
    Gateway,
    Instance,
    Limits,
    Safeguards,
)
from mcp_elicit.i18n import _
from mcp_elicit.revisions import Revision
from mcp_elicit.server import logs
from mcp_elicit.urls import UrlPolicy

# The options that set a Limits field, by the field.
_LIMIT_OPTIONS = {
    "held_calls": "max_held_calls",
    "held_calls_per_client": "max_held_calls_per_client",
    "upstream_sessions": "max_upstream_sessions",
    "upstream_sessions_per_client": "max_upstream_sessions_per_client",
    "idle_session_close": "idle_session_close",
    "question_bytes": "max_question_bytes",
    "questions_per_call": "max_questions_per_call",
}


def run_gateway(args: argparse.Namespace) -> int:
    # A server process of ours: one-line records (MCP_ELICIT_LOG_FORMAT=json for JSON), at
    # WARNING: the person may be answering questions on this terminal.
    try:
        logs.configure(level=logging.WARNING)
    except ValueError as error:
        raise UsageError(str(error)) from None
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
    tokens = _tokens(args)
    args.instance_tag = _instance_tag(args)
    page, ask = _person(args, audit)
    limits = dataclasses.replace(
        Limits(),
        **{
            field: getattr(args, option)
            for field, option in _LIMIT_OPTIONS.items()
            if getattr(args, option) is not None
        },
    )
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
            limits=limits,
            ask=ask,
            ask_always=args.ask_always,
            instance=_instance(args),
        )
    except ValueError as error:  # what the gateway refuses (headers for a stdio upstream)
        raise UsageError(str(error)) from None
    try:
        anyio.run(_serve, gateway, args, tokens, page)
    except (UsageError, KeyboardInterrupt):
        raise
    except Exception as error:  # a bug: the traceback for its report, then one plain line
        traceback.print_exc()
        print(
            _(
                "mcp-elicit gateway: stopped on an unexpected error ({error}); the calls it "
                "held are lost. Start it again; the traceback above says where it failed."
            ).format(error=_innermost(error)),
            file=sys.stderr,
        )
        return 1
    finally:
        if audit is not None:
            audit.close()
    return 0


def _instance_tag(args: argparse.Namespace) -> str | None:
    """``--instance-tag``, else ``MCP_ELICIT_INSTANCE`` (as servers read it), checked."""
    from mcp_elicit.server.instances import TAG

    if args.http is None:
        if args.instance_tag:
            raise UsageError(_("--instance-tag is for --http (a stdio client has one gateway)"))
        return None  # MCP_ELICIT_INSTANCE may be set for a server: no session ids on stdio
    tag = args.instance_tag or os.environ.get("MCP_ELICIT_INSTANCE") or None
    if tag is None:
        return None
    if not TAG.fullmatch(tag):
        raise UsageError(
            _(
                "--instance-tag: {tag!r} is not a tag: 1-32 lower-case letters, digits and '-'"
            ).format(tag=tag)
        )
    return tag


def _instance(args: argparse.Namespace) -> Instance | None:
    """``--instance-url``: this gateway among several, with the key they all share."""
    if args.instance_url is None:
        return None
    if args.http is None:
        raise UsageError(_("--instance-url is for --http (a stdio client has one gateway)"))
    from mcp_elicit.server.keys import KEY_VARIABLE, DeploymentKey

    if os.environ.get(KEY_VARIABLE) is None:
        # A key file of its own would seal what no other instance can open: every retry that
        # landed elsewhere would be refused as an invalid state.
        raise UsageError(
            _(
                "--instance-url: set {variable} to the same key on every instance (a key of "
                "this instance's own could not be opened by the others)"
            ).format(variable=KEY_VARIABLE)
        )
    try:
        key = DeploymentKey.load()
        return Instance(args.instance_url, key.derive_all("gateway"))
    except ValueError as error:
        raise UsageError(f"--instance-url: {error}") from None


def _innermost(error: BaseException) -> str:
    """The first error inside task groups' exception groups, as "Type: message"."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


def _person(
    args: argparse.Namespace, audit: AuditLog | None
) -> tuple[Any, ElicitationHandler | None]:
    """``--ask``: the web renderer's page (to run while serving) and the handler that asks the
    gateway's own person."""
    if args.ask is None:
        if args.ask_always or args.allow_http_loopback:
            raise UsageError(_("--ask-always and --allow-http-loopback are for --ask"))
        return None, None
    policy = Policy(url_policy=UrlPolicy(allow_http_loopback=args.allow_http_loopback))
    if args.ask == "web":
        from mcp_elicit.client.web import WebRenderer

        page = WebRenderer()
        return page, ElicitationHandler(page, policy=policy, audit=audit)
    from mcp_elicit.client.terminal import TerminalRenderer

    terminal_input, terminal_output = _terminal()
    renderer = TerminalRenderer(input=terminal_input, output=terminal_output)
    return None, ElicitationHandler(renderer, policy=policy, audit=audit)


def _terminal() -> tuple[Any, Any]:
    """The person's terminal, for prompt_toolkit: not stdin and stdout, which are the host's
    pipes when the host runs the gateway over stdio. ``/dev/tty`` when the gateway has one;
    else the terminal its stderr goes to (a host started by a person at a terminal passes its
    own stderr on, and the SDK starts a stdio server in a session of its own, with no
    controlling terminal), opened without becoming the gateway's controlling terminal."""
    from prompt_toolkit.input import create_input
    from prompt_toolkit.output import create_output

    paths = ["/dev/tty", *(os.ttyname(fd) for fd in (2, 0, 1) if os.isatty(fd))]
    why = ""
    for path in paths:
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        except OSError as error:
            why = error.strerror or str(error)
            continue
        typed = os.fdopen(fd, "r", encoding="utf-8")
        shown = os.fdopen(os.dup(fd), "w", encoding="utf-8")
        return create_input(stdin=typed), create_output(stdout=shown)
    raise UsageError(
        _(
            "--ask terminal: there is no terminal to ask on ({why}); use --ask web, or run "
            "the gateway from a terminal"
        ).format(why=why)
    )


def _tokens(args: argparse.Namespace) -> BearerTokens | None:
    if args.token_file is None:
        return None
    if args.http is None:
        raise UsageError(_("--token-file is for --http (a stdio client is the one that ran it)"))
    try:
        return BearerTokens.read(args.token_file)
    except OSError as error:
        raise UsageError(
            _("--token-file: cannot read {path}: {why}").format(
                path=args.token_file, why=error.strerror
            )
        ) from None
    except ValueError as error:  # no token, or a short one (the message names its line)
        raise UsageError(
            _("--token-file: {path}: {why}").format(path=args.token_file, why=error)
        ) from None


def _warnings(gateway: Gateway, args: argparse.Namespace, tokens: BearerTokens | None) -> None:
    """What the operator should know before the first client comes, said once."""
    if gateway.bridge.safeguards.url_verdicts:
        print(
            _(
                "mcp-elicit gateway: warning: link verdicts reach 2025 clients only: for "
                "{revision} clients the SDK's server strips _meta from input requests, so "
                "io.github.mcp-elicit/url-verdict is lost. A {revision} host must check each "
                "link itself (mcp-elicit's client does), or connect on {push_revision} to "
                "receive the verdict; --no-url-verdicts silences this."
            ).format(revision=Revision.V2026_07_28, push_revision=Revision.V2025_11_25),
            file=sys.stderr,
        )
    if args.http is not None and tokens is None:
        print(
            _(
                "mcp-elicit gateway: warning: no --token-file: any process that can reach "
                "port {port} can call the upstream through this gateway and answer the calls "
                "it holds."
            ).format(port=args.http),
            file=sys.stderr,
        )


async def _serve(
    gateway: Gateway, args: argparse.Namespace, tokens: BearerTokens | None = None, page: Any = None
) -> None:
    if page is not None:  # --ask web: the page is served while the gateway runs
        async with AsyncExitStack() as stack:
            try:
                await stack.enter_async_context(page)
            except OSError as error:  # no loopback socket to serve the page on
                raise UsageError(
                    _("cannot serve the answer page on 127.0.0.1: {why}").format(why=error)
                ) from None
            await _serve(gateway, args, tokens)
        return
    async with gateway:
        upstream = gateway.upstream
        kind = _("multi round-trip") if upstream.rounds else _("push")
        print(
            _("mcp-elicit gateway: upstream {version} ({kind})").format(
                version=upstream.version, kind=kind
            ),
            file=sys.stderr,
        )
        _warnings(gateway, args, tokens)
        if args.http is None:
            await gateway.serve_stdio()
            return
        import uvicorn

        app = gateway.http_app(host=args.host, tokens=tokens)
        if args.instance_tag:  # 2025-era sessions stay here, as a server's do (docs/deploy.md)
            from mcp_elicit.server.instances import SessionTag

            app = SessionTag(app, args.instance_tag)
        print(
            _("mcp-elicit gateway: serving {url}").format(
                url=f"http://{args.host}:{args.http}/mcp"
            ),
            file=sys.stderr,
        )
        config = uvicorn.Config(app, host=args.host, port=args.http, **logs.uvicorn_logging())
        await uvicorn.Server(config).serve()
