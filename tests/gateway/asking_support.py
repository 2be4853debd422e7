"""Helpers for the tests of a gateway that asks the person itself (a helper module, not tests):
a server that asks forms and links, and a person of the gateway's whose screen is recorded."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.client import AuditLog, ElicitationHandler, Notice, ScriptedRenderer, UrlPrompt
from mcp_elicit.client.prompts import Decision, FormPrompt
from mcp_elicit.gateway import Gateway, Safeguards
from mcp_elicit.server import Accepted, DeploymentKey, Elicitation, ask, ask_url, confirm
from tests.server_support import FALLBACK, Booking, Person, connect, describe

SAFE_LINK = "https://pages.example.com/connect?x=1"
BLOCKED_LINK = "https://admin:hunter2@pages.example.com/connect"  # credentials: blocked


def asking_server() -> MCPServer:
    """Tools that ask: a confirmation, a form (with a fallback, and without), a safe link, a
    blocked one."""
    server = MCPServer("asks-a-lot")
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")

    @server.tool()
    async def go_ahead(ctx: Context) -> str:
        return "yes" if await confirm(ctx, "Go ahead?") else "no"

    @server.tool()
    async def book(ctx: Context) -> str:
        return describe(await ask(ctx, Booking, "Book a room?"))

    @server.tool()
    async def book_or_walk_in(ctx: Context) -> str:
        return describe(await ask(ctx, Booking, "Book a room?", fallback=Accepted(FALLBACK)))

    @server.tool()
    async def open_page(ctx: Context) -> str:
        return repr(await ask_url(ctx, SAFE_LINK, "Connect your account"))

    @server.tool()
    async def open_bad_page(ctx: Context) -> str:
        # Sent on purpose, for the client to block: the author's opt-out, by name.
        link = await ask_url(ctx, BLOCKED_LINK, "Connect your account", allow_sensitive_data=True)
        return repr(link)

    return server


@dataclass
class GatewayPerson:
    """The gateway's person: scripted answers, and what happened on their screen, in order
    (``("form", message)``, ``("url", prompt)``, ``("notice", text)``, ``("opened", url)``)."""

    answers: list[dict[str, Any]]
    screen: list[tuple[str, Any]] = field(default_factory=list)
    on_open: Callable[[str], None] | None = None  # told of each link opened, after the screen
    completion_wait: float = 2.0  # after accepting a link: seconds for the page to be finished

    def handler(
        self, *, completion_wait: float | None = None, **options: Any
    ) -> ElicitationHandler:
        wait = self.completion_wait if completion_wait is None else completion_wait
        renderer = _Recording(self.answers, notices=self._notice, completion_wait=wait)
        renderer.screen = self.screen
        return ElicitationHandler(renderer, opener=self._open, **options)

    @property
    def opened(self) -> list[str]:
        return [what for kind, what in self.screen if kind == "opened"]

    def _open(self, url: str) -> bool:
        self.screen.append(("opened", url))
        if self.on_open is not None:
            self.on_open(url)
        return True

    def _notice(self, notice: Notice) -> None:
        self.screen.append(("notice", notice.text))


class _Recording(ScriptedRenderer):
    screen: list[tuple[str, Any]]

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        self.screen.append(("form", prompt.message))
        return await super().ask_form(prompt)

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        self.screen.append(("url", prompt))
        return await super().ask_url(prompt)


async def call_through_audited_gateway(
    tool: str, upstream_era: str, client_era: str, person: Person
) -> tuple[Gateway, Any, list[dict[str, Any]]]:
    """``tool`` of :func:`asking_server` called through a gateway with an audit log, by a
    client of ``client_era`` whose person is ``person``: the gateway (closed), the call's
    result and the audit log's lines."""
    sink = io.StringIO()
    with anyio.fail_after(20):
        async with (
            Gateway(
                asking_server(),
                upstream_protocol=upstream_era,
                safeguards=Safeguards(audit=AuditLog(sink)),
            ) as gateway,
            connect(gateway.server, client_era, person) as client,
        ):
            result = await client.call_tool(tool, {})
    return gateway, result, [json.loads(line) for line in sink.getvalue().splitlines()]
