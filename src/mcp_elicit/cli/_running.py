"""What ``connect``, ``call`` and ``demo`` share once they run: the server and the handler
their options make (:mod:`mcp_elicit.cli._host`), and saying in one line what went wrong.

This imports the client and the SDK: only the modules that run those commands import it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from mcp_elicit.cli._host import say
from mcp_elicit.cli._io import UsageError
from mcp_elicit.client import AuditLog, ElicitationHandler, Policy
from mcp_elicit.client.handler import open_in_browser
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.server_log import LoggedStdioServer
from mcp_elicit.client.sign_in import SignIn
from mcp_elicit.client.targets import TargetError, server_for
from mcp_elicit.i18n import _
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.urls import UrlPolicy


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
        say(_("server log: {path}").format(path=server.log_path))


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
            raise UsageError(
                _("--audit: cannot open {path}: {why}").format(path=args.audit, why=error.strerror)
            ) from None
    modes = args.modes.split(",")  # one of _host.MODES
    policy = Policy(
        modes=ElicitationModes(form="form" in modes, url="url" in modes),
        url_policy=UrlPolicy(allow_http_loopback=args.allow_http_loopback),
    )
    return ElicitationHandler(renderer, policy=policy, audit=audit, opener=opener)


def connection_options(args: argparse.Namespace, server: object) -> dict[str, Any]:
    """``ElicitingClient``'s ``sign_in`` and ``headers`` from ``--sign-in`` and ``--header``
    (for a server given by URL; with a command they are a usage error)."""
    headers = dict(args.header)
    if not isinstance(server, str):
        if headers or args.sign_in != "ask":
            raise UsageError(_("--header and --sign-in are for a server given by its URL"))
        return {}
    if any(name.lower() == "authorization" for name in headers) or args.sign_in == "no":
        return {"headers": headers}
    ahead = SignIn(ask=False, announce=say, opener=open_in_browser)
    sign_in = SignIn() if args.sign_in == "ask" else ahead
    return {"headers": headers, "sign_in": sign_in}


def screen() -> Any:
    """Where the questions are drawn: the terminal. stdout when it is one; when stdout goes
    to a file or a pipe (`call ... --json > result.json`), stdout carries the result alone and
    the questions go to stderr, the terminal the person sees (``None`` when neither is one:
    prompt_toolkit's default)."""
    if sys.stdout.isatty() or not sys.stderr.isatty():
        return None
    from prompt_toolkit.output import create_output

    return create_output(stdout=sys.stderr)


def describe_failure(
    error: BaseException, *, tool: str | None = None, server: object = None
) -> str:
    """``error`` in one line. When ``server`` is a stdio server that has stopped, the line
    says so and where its log is (its stderr is there, not on the terminal)."""
    stopped = stopped_server(server)
    if stopped is not None:
        notice = _("the server stopped; see its log: {path}").format(path=stopped.log_path)
        if isinstance(error, MCPError) and error.code == CONNECTION_CLOSED:
            # "Connection closed" says nothing more
            return f"{tool}: {notice}" if tool else notice
        return _("{error} ({notice})").format(error=_describe(error, tool=tool), notice=notice)
    return _describe(error, tool=tool)


def stopped_server(server: object) -> LoggedStdioServer | None:
    """``server``, if it is a stdio server that stopped before we closed it."""
    if isinstance(server, LoggedStdioServer) and server.stopped:
        return server
    return None


def _describe(error: BaseException, *, tool: str | None = None) -> str:
    if isinstance(error, MCPError):
        # The message is the server's words: cleaned, as any peer text shown.
        said = _("error {code}: {message}").format(code=error.code, message=clean(error.message))
        return f"{tool}: {said}" if tool else said
    if isinstance(error, FileNotFoundError):
        return _("cannot start the server: {command}: no such file").format(
            command=error.filename or error
        )
    if isinstance(error, OSError):
        return _("cannot reach the server: {why}").format(why=error)
    # Transport errors (httpx2's ConnectError...) say little without their name, and nothing
    # of where: the server's URL is on the request they carry.
    text = str(error) or type(error).__name__
    if not type(error).__module__.startswith("httpx"):
        return text
    try:
        url = str(error.request.url)  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx raises RuntimeError when there is none
        return f"{type(error).__name__}: {text}"
    return _("cannot reach the server at {url}: {why}").format(
        url=url, why=f"{type(error).__name__}: {text}"
    )
