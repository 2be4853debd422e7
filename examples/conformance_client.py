"""The client the official conformance suite drives: ``conformance_client.py SERVER_URL``.

    node conformance/dist/index.js client --command "exec python examples/conformance_client.py" \
        --scenario elicitation-sep1034-client-defaults

It connects (negotiating the newest revision both sides have), calls every tool the mock
server lists, and answers every elicitation by accepting the form with its defaults: the
scenario checks that a client fills in every default (SEP-1034), and the 2026-07-28 one that
``requestState`` is echoed exactly and a result without ``resultType`` is taken as complete.

It is also a small example of a Renderer of your own.
"""

from __future__ import annotations

import sys

import anyio

from mcp_elicit.client import (
    Accept,
    Cancel,
    Decision,
    ElicitationHandler,
    ElicitingClient,
    FormPrompt,
    Notice,
    Policy,
    UrlPrompt,
)


class AcceptDefaults:
    """Accepts every form with the schema's defaults; refuses every link."""

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        return Accept(dict(prompt.form.defaults()))

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        return Cancel("no-person", no_person=True)

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        return Cancel()

    async def notify(self, notice: Notice) -> None:
        print(f"{notice.level}: {notice.text}", file=sys.stderr)


async def main(url: str) -> int:
    handler = ElicitationHandler(AcceptDefaults(), policy=Policy(rate_limit=None))
    async with ElicitingClient(url, handler) as client:
        print(f"connected: {client.server_name}, protocol {client.protocol_version}")
        for tool in await client.list_tools():
            result = await client.call_tool(tool.name, {})
            print(f"{tool.name}: {'error' if result.is_error else 'ok'}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: conformance_client.py SERVER_URL")
    sys.exit(anyio.run(main, sys.argv[1]))
