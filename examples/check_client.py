"""A client for ``mcp-elicit check client``: ``check_client.py [--protocol R] [--modes M]
[--no-tasks] URL``.

    mcp-elicit check client -- python examples/check_client.py

It connects (the newest revision both sides have, or ``--protocol``), calls every tool the
server lists, and answers as a person at a keyboard would: a form with its defaults, and the
fields that have none filled in; a link agreed to, then "done" once the page says it is. The
person's link is never really opened here (``opener``): this is a test double of a person, as
scripted answers are. Everything else is the real client: its checks of each request, its
URL safety verdicts, its validation of the answer before it is sent. On 2026-07-28 it declares
the tasks extension and follows a task to its end (``--no-tasks``: it declares none, and a task
it is answered anyway is an error, printed, and the next tool is called).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio

from mcp_elicit.client import (
    Accept,
    Decision,
    ElicitationHandler,
    ElicitingClient,
    FormPrompt,
    Notice,
    Policy,
    TaskError,
    UrlPrompt,
)
from mcp_elicit.protocol.capabilities import ElicitationModes
from mcp_elicit.urls import UrlPolicy

FILLED: dict[str, Any] = {"email": "person@example.com", "age": 42, "plan": "basic"}


class Person:
    """Accepts forms (defaults, and plausible values where there are none) and links."""

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        content = dict(prompt.form.defaults())
        for field in prompt.form.fields:
            if field.name not in content and field.required:
                content[field.name] = FILLED.get(field.name, "check")
        return Accept(content)

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        return Accept({})  # a link the client's checks block never gets here

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        await completed.wait()
        return Accept({})

    async def notify(self, notice: Notice) -> None:
        print(f"{notice.level}: {notice.text}", file=sys.stderr)


async def main(url: str, protocol: str, modes: str, tasks: bool) -> int:
    # The scripted server's links are on this machine, over http.
    links = UrlPolicy(allow_http_loopback=True)
    declared = ElicitationModes(form="form" in modes, url="url" in modes)
    handler = ElicitationHandler(
        Person(),
        policy=Policy(url_policy=links, modes=declared),  # the default rate limit too
        opener=lambda link: print(f"would open {link}", file=sys.stderr),
    )
    async with ElicitingClient(url, handler, protocol=protocol, tasks=tasks) as client:
        print(f"connected: {client.server_name}, protocol {client.protocol_version}")
        for tool in await client.list_tools():
            try:
                result = await client.call_tool(tool.name, {})
            except TaskError as error:  # a task that failed, or was sent where none may be
                print(f"{tool.name}: {error}", file=sys.stderr)
                continue
            print(f"{tool.name}: {'error' if result.is_error else 'ok'}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--protocol", default="auto")
    parser.add_argument("--modes", default="form,url", help="the modes to declare")
    parser.add_argument(
        "--no-tasks", action="store_true", help="do not declare the tasks extension (2026-07-28)"
    )
    parser.add_argument("url")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.url, args.protocol, args.modes, not args.no_tasks))
