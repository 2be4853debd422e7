"""Free text, with a picture: ``ask_text`` and the early content-array draft, both sides.

Run as it is, it plays both parts in one process: a client that speaks the early draft
(``protocol="2025-03-26"``) whose person types a caption and attaches a picture, and a
server whose tool receives the picture as bytes with its MIME type. With ``--stdio`` it
serves the tool over stdio instead, for a real person:

    python examples/free_text.py
    mcp-elicit connect --protocol 2025-03-26 -- python examples/free_text.py --stdio
"""

from __future__ import annotations

import base64
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.client import ElicitationHandler, ElicitingClient
from mcp_elicit.client.prompts import Accept, Decision, FormPrompt, Notice, UrlPrompt, attachment
from mcp_elicit.server import Accepted, Elicitation, ask_text

elicitation = Elicitation(store="memory://")
server = MCPServer("gallery", **elicitation.server_options())


@server.tool()
async def caption(ctx: Context) -> str:
    """Ask for a caption, and a picture if the client can send one."""
    answer = await ask_text(ctx, "Caption your picture, and attach it.", max_bytes=2_000_000)
    if not isinstance(answer, Accepted):
        return f"No caption ({answer})."
    reply = answer.value
    pictures = ", ".join(f"{len(i.data)} bytes of {i.mime_type}" for i in reply.images)
    return f"Caption: {reply.text!r}; pictures: {pictures or 'none'}"


# A 1x1 grey PNG: the picture the scripted person attaches.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg=="
)


class Person:
    """A renderer with a script: types a caption, attaches the picture."""

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        assert prompt.free_text  # the early draft's message-only question
        return Accept({"response": "A grey dot"}, (attachment("dot.png", PNG),))

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        raise AssertionError("this example opens no links")

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        raise AssertionError("this example opens no links")

    async def notify(self, notice: Notice) -> None:
        print(notice.text)


async def main() -> None:
    handler = ElicitationHandler(Person(), opener=None)
    async with ElicitingClient(server, handler, protocol="2025-03-26") as client:
        result = await client.call_tool("caption", {})
    text = result.content[0].text  # type: ignore[union-attr]
    print(text)
    assert text == f"Caption: 'A grey dot'; pictures: {len(PNG)} bytes of image/png", text


if __name__ == "__main__":
    if "--stdio" in sys.argv:
        elicitation.run(server)
    else:
        anyio.run(main)
