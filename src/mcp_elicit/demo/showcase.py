"""The guided part of ``mcp-elicit demo``: Hotel MCP's tools, one step at a time, each
introduced before it runs, over a real client session (``ElicitingClient``) and a real
server process (:mod:`mcp_elicit.demo.hotel_server`)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import ElicitingClient, UrlElicitationLoop
from mcp_elicit.i18n import N_, _
from mcp_elicit.revisions import LATEST, Revision


@dataclass(frozen=True)
class DemoStep:
    title: str
    tool: str
    intro: str
    arguments: dict[str, Any] = field(default_factory=dict)
    # Said instead of ``intro`` when the session speaks one of these revisions.
    intro_for: dict[str, str] = field(default_factory=dict)


STEPS: tuple[DemoStep, ...] = (
    DemoStep(
        N_("a form"),
        "book_room",
        N_(
            "Hotel MCP asks for your stay with one form: a date, a choice with titles, and\n"
            "defaults (1 night, a standard room, and no breakfast: "
            "a default of False counts too).\n"
            "Try an arrival date like 2026-13-01 to see a message, then fix it. A second question\n"
            "asks for extras, several at once."
        ),
        intro_for={
            Revision.V2025_06_18: N_(
                "Hotel MCP asks for your stay with one form: a date and a choice with\n"
                "titles. {revision} allows defaults on booleans only, so the server sends just\n"
                "that one, and it has no multi-select: the extras question is skipped, and the\n"
                "server says so instead of sending something this revision cannot express."
            )
        },
    ),
    DemoStep(
        N_("a confirmation"),
        "cancel_booking",
        N_(
            "Cancelling cannot be undone, so the server asks first. Answer no to keep the\n"
            "booking, yes to cancel it; declining or cancelling the question keeps it too."
        ),
    ),
    DemoStep(
        N_("starting fresh"),
        "forget_weather_key",
        N_("So that the next step asks for a key even if an earlier demo stored one."),
    ),
    DemoStep(
        N_("a secret, through URL mode"),
        "connect_weather",
        N_(
            "The weather service needs an API key. A key must not travel through your MCP\n"
            "client, so the server sends you to its own page instead (on 127.0.0.1). You see\n"
            "the full link and its domain before anything opens. On the page, type anything\n"
            "that looks like a key (say demo-key-123) and press Save: the key goes from your\n"
            "browser to the server, which stores it encrypted in its SQLite store."
        ),
        intro_for={
            Revision.V2025_06_18: N_(
                "The weather service needs an API key. {revision} has no URL mode,\n"
                "and a key must never be asked for in a form: watch the server refuse, with a\n"
                "message that says why. (Run the demo with --protocol {url_mode} or {newest}\n"
                "to see the page.)"
            )
        },
    ),
    DemoStep(
        N_("the stored secret"),
        "forecast",
        N_("This tool uses the stored key: no question this time."),
        arguments={"city": "Lisbon"},
    ),
)

Pause = Callable[[str], Awaitable[bool]]
"""Shows a prompt and waits; ``False`` when the person wants to stop (Ctrl-D)."""


def server_command(store: str, key_file: Path) -> StdioServerParameters:
    """The demo server as a child process on stdio, with the person's environment."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_elicit.demo.hotel_server", "--store", store, "--key-file", str(key_file)],
        env=dict(os.environ),
    )


async def run_steps(
    client: ElicitingClient, out: TextIO, pause: Pause, steps: Sequence[DemoStep] = STEPS
) -> bool:
    """Each step: its introduction, a pause, the tool call (the person answers whatever it
    asks), its result. ``False`` when the person stopped before the end."""

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    revision = client.protocol_version or ""
    for number, step in enumerate(steps, 1):
        say()
        say(
            _("── Step {number} of {total}: {title} ({tool}) ──").format(
                number=number, total=len(steps), title=_(step.title), tool=step.tool
            )
        )
        # What a revision does differently is said in its words; a version is a field.
        intro = step.intro_for.get(revision)
        say(
            _(intro).format(revision=revision, url_mode=Revision.V2025_11_25, newest=LATEST)
            if intro is not None
            else _(step.intro)
        )
        if not await pause(_("Press Enter to call {tool}… ").format(tool=step.tool)):
            return False
        say(describe_result(await call_tool(client, step.tool, step.arguments)))
    return True


async def call_tool(client: ElicitingClient, tool: str, arguments: dict[str, Any]) -> Any:
    """The result, or the error that stands for it (the demo goes on after either)."""
    try:
        return await client.call_tool(tool, arguments)
    except (MCPError, UrlElicitationLoop, TimeoutError) as error:
        return error


def describe_result(result: Any) -> str:
    if isinstance(result, MCPError):
        return _("Error {code}: {message}").format(code=result.code, message=result.message)
    if isinstance(result, Exception):
        return _("Error: {message}").format(message=result)
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    texts = [
        item["text"] if item.get("type") == "text" else json.dumps(item)
        for item in dumped.get("content", [])
    ]
    head = _("Result (error):") if dumped.get("isError") else _("Result:")
    return "\n".join([head, *(f"  {text}" for text in texts)])
