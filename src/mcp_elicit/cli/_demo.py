"""``mcp-elicit demo``, run (its command line: :mod:`mcp_elicit.cli.demo_command`): Hotel MCP,
a real server process, and this terminal (or a page in the browser) as its host."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from mcp_elicit.cli._host import say
from mcp_elicit.cli._running import announce_log, describe_failure, stopped_server
from mcp_elicit.client import ElicitationHandler, ElicitingClient, Policy
from mcp_elicit.client.server_log import client_state_directory, logged
from mcp_elicit.i18n import N_, _
from mcp_elicit.urls import UrlPolicy

if TYPE_CHECKING:
    from mcp_elicit.client.renderer import Renderer
    from mcp_elicit.client.web import WebRenderer
    from mcp_elicit.demo.showcase import DemoStep


def demo(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        say(
            _(
                "the demo asks you questions, so it needs a terminal; "
                "for a tour that needs none: mcp-elicit demo --tour"
            )
        )
        return 2
    from mcp_elicit.demo.showcase import server_command

    state = _state_dir()
    store = args.store or f"sqlite:///{state / 'demo.db'}"
    renderer: Renderer
    page: WebRenderer | None = None
    if args.ui == "web":
        from mcp_elicit.client.web import WebRenderer

        renderer = page = WebRenderer()
    else:
        from mcp_elicit.client.terminal import TerminalRenderer

        renderer = TerminalRenderer()
    handler = ElicitationHandler(
        renderer,
        # The server's page is on http://127.0.0.1: allowed here, for this local demo only.
        policy=Policy(url_policy=UrlPolicy(allow_http_loopback=True)),
        # The default opener (a file only this user can read, never the link on a command
        # line); on the web page, the person's click on "Open link" opens it instead.
    )
    if args.remote:
        if args.store:
            say(_("--store is for the local demo; the remote one makes its own store"))
            return 2
        return anyio.run(_remote, args, state, handler, page)
    # The server's own log lines go to its log file, not into the middle of a question.
    server = logged(server_command(store, state / "demo.key"))
    client = ElicitingClient(server, handler, protocol=args.protocol)
    where = _("the server keeps its flows and secrets in {store}").format(store=store)
    return anyio.run(_hosted, lambda: _session(client, where, _where(page)), page)


async def _remote(
    args: argparse.Namespace, state: Path, handler: ElicitationHandler, page: WebRenderer | None
) -> int:
    from mcp_elicit.client.sign_in import SignIn
    from mcp_elicit.demo.remote import REMOTE_STEPS, RemoteUnavailable, introduce, remote_world

    try:
        async with remote_world(state) as world:
            introduce(world, sys.stdout)
            # Signed in afresh each run: the providers (and their keys) are new each run too.
            sign_in = SignIn(directory=world.logs / "sign-in")
            client = ElicitingClient(
                world.mcp_url, handler, protocol=args.protocol, sign_in=sign_in
            )
            where = _("you are signed in at {issuer}").format(issuer=world.hotel_issuer)
            return await _hosted(lambda: _session(client, where, _where(page), REMOTE_STEPS), page)
    except RemoteUnavailable as error:
        say(str(error))
        return 1


async def _hosted(session: Callable[[], Awaitable[int]], page: WebRenderer | None) -> int:
    if page is None:
        return await session()
    try:
        async with page:
            return await session()
    except OSError as error:  # no loopback socket to serve the page on
        print(
            "mcp-elicit: "
            + _("cannot serve the answer page on 127.0.0.1: {why}").format(why=error),
            flush=True,
        )
        return 1


def _where(page: WebRenderer | None) -> tuple[str, str]:
    return WHERE_TERMINAL if page is None else WHERE_WEB


# How the demo introduces its host: who is the host, and the keys that matter.
WHERE_TERMINAL = (N_("this terminal as its host."), N_("Esc cancels a question; Ctrl-D stops."))
WHERE_WEB = (
    N_("this terminal as its host, with a page in your browser for its questions."),
    N_("The page is served on 127.0.0.1 only; Esc there cancels a question. Ctrl-D here stops."),
)


async def _session(
    client: ElicitingClient,
    kept: str,
    where: tuple[str, str],
    steps: Sequence[DemoStep] | None = None,
) -> int:
    from prompt_toolkit import PromptSession

    from mcp_elicit.cli._connect import repl
    from mcp_elicit.demo.showcase import STEPS, run_steps

    prompts: PromptSession[str] = PromptSession()

    async def pause(text: str) -> bool:
        stopped = stopped_server(client.server)
        if stopped is not None:  # the steps left cannot run
            say(_("the server stopped; see its log: {path}").format(path=stopped.log_path))
            return False
        try:
            await prompts.prompt_async(text)
        except EOFError:
            return False
        return True

    announce_log(client.server)
    try:
        async with client:
            host, keys = where
            print(
                _("mcp-elicit demo: {server}, a real MCP server process, and {host}").format(
                    server=client.server_name, host=_(host)
                ),
                _("Protocol {protocol}; {kept}.").format(
                    protocol=client.protocol_version, kept=kept
                ),
                _(keys),
                sep="\n",
                flush=True,
            )
            if await run_steps(client, sys.stdout, pause, steps or STEPS):
                print(
                    "\n"
                    + _(
                        "Your turn: 'tools' lists Hotel MCP's tools, 'call TOOL {{json}}' calls "
                        "one, 'quit' ends the demo."
                    ).format(),
                    flush=True,
                )
                return await repl(client, prompts)
            return 1 if stopped_server(client.server) else 0
    except Exception as error:
        print(f"mcp-elicit: {describe_failure(error, server=client.server)}", flush=True)
        return 1


def _state_dir() -> Path:
    path = client_state_directory()
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
