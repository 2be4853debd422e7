"""``ask_text``: a free-text question whose answer may come back as the early content-array
draft's items (text, image, audio), on every revision.

An early-draft client (it negotiates 2025-03-26 and declares ``elicitation``) is asked the
message only and answers with items; images and audio reach the tool as bytes with their MIME
type, size-limited. Every released revision is asked a one-field form. Driven by our own
client (whose handler answers a message-only request in the draft's shape) and by a scripted
one that sends exactly what a test says, bad items included.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.client import ElicitationHandler, ElicitingClient
from mcp_elicit.client.prompts import Accept, Attachment, Cancel, Decline, FormPrompt, UrlPrompt
from mcp_elicit.protocol import FORM_ONLY
from mcp_elicit.server import (
    Accepted,
    Elicitation,
    Reply,
    ask,
    ask_text,
)
from tests.server_support import ERAS, Person, Who, connect, text

pytestmark = pytest.mark.anyio

EARLY = "2025-03-26"
# The smallest valid PNG (1x1, grey) and a WAV header with two silent samples.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg=="
)
WAV = (
    b"RIFF(\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00"
    b"\x02\x00\x10\x00data\x04\x00\x00\x00\x00\x00\x00\x00"
)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def build(max_bytes: int = 1024) -> MCPServer:
    elicitation = Elicitation()
    server = MCPServer("gallery", **elicitation.server_options())

    @server.tool()
    async def describe(ctx: Context) -> str:
        answer = await ask_text(
            ctx, "What is in the picture? Attach it if you can.", max_bytes=max_bytes
        )
        if not isinstance(answer, Accepted):
            return f"nothing: {type(answer).__name__}"
        reply: Reply = answer.value
        files = ", ".join(f"{f.kind} {f.mime_type} {digest(f.data)}" for f in reply.attachments)
        return f"text={reply.text!r} files=[{files}]"

    @server.tool()
    async def name(ctx: Context) -> str:
        answer = await ask(ctx, Who, "Who are you?")
        return str(answer)

    return server


def item(kind: str, data: bytes, mime: str) -> dict[str, Any]:
    return {"type": kind, "data": base64.b64encode(data).decode(), "mimeType": mime}


async def call(
    server: MCPServer, era: str, answers: list[dict[str, Any]], tool: str = "describe"
) -> tuple[str, Person]:
    person = Person(answers)
    async with connect(server, era, person, modes=FORM_ONLY) as client:
        result = await client.call_tool(tool, {})
    return text(result), person


async def test_an_early_draft_client_is_asked_the_message_only_and_its_files_reach_the_tool() -> (
    None
):
    answer = {
        "content": [
            {"type": "text", "text": "a grey dot"},
            item("image", PNG, "image/png"),
            item("audio", WAV, "audio/wav"),
        ]
    }
    out, person = await call(build(), EARLY, [answer])
    # The draft's request: the message and nothing else.
    assert person.seen == [{"message": "What is in the picture? Attach it if you can."}]
    assert out == (
        f"text='a grey dot' files=[image image/png {digest(PNG)}, audio audio/wav {digest(WAV)}]"
    )


async def test_an_early_draft_cancel_is_cancelled() -> None:
    out, _ = await call(build(), EARLY, [{"content": [], "cancelled": True}])
    assert out == "nothing: Cancelled"


@pytest.mark.parametrize(
    ("bad", "names"),
    [
        ({"type": "image", "data": "not base64!", "mimeType": "image/png"}, "content[0].data"),
        (item("image", PNG, "audio/wav"), "content[0].mimeType"),
        (item("audio", WAV, "wav"), "content[0].mimeType"),
        ({"type": "video", "data": "AA==", "mimeType": "video/mp4"}, "content[0].type"),
        ({"type": "text"}, "content[0].text"),
    ],
)
async def test_a_malformed_item_is_an_error_naming_it(bad: dict[str, Any], names: str) -> None:
    out, _ = await call(build(), EARLY, [{"content": [bad]}])
    assert names in out, out


async def test_files_larger_than_max_bytes_never_reach_the_tool() -> None:
    big = item("image", b"\x89PNG" + bytes(2000), "image/png")
    out, _ = await call(build(max_bytes=1024), EARLY, [{"content": [big]}])
    assert "too_large" in out or "at most 1024" in out, out
    assert "files=[" not in out


@pytest.mark.parametrize("era", ERAS)
async def test_a_released_revision_is_asked_one_text_field(era: str) -> None:
    answer = {"action": "accept", "content": {"response": "a grey dot"}}
    out, person = await call(build(), era, [answer])
    assert out == "text='a grey dot' files=[]"
    schema = person.seen[0]["requestedSchema"]
    assert list(schema["properties"]) == ["response"]


@pytest.mark.parametrize("era", ["2025-06-18", "2025-11-25"])
async def test_a_form_answered_with_the_drafts_items_is_read_liberally(era: str) -> None:
    answer = {"content": [{"type": "text", "text": "dot"}, item("image", PNG, "image/png")]}
    out, _ = await call(build(), era, [answer])
    assert out == f"text='dot' files=[image image/png {digest(PNG)}]"


async def test_a_form_question_to_an_early_draft_client_says_to_use_ask_text() -> None:
    out, person = await call(build(), EARLY, [], tool="name")
    assert "early content-array draft" in out and "ask_text" in out
    assert person.seen == []  # nothing was sent


async def test_ask_text_refuses_a_bad_max_bytes() -> None:
    # Checked before anything is asked (ctx is not even looked at).
    with pytest.raises(ValueError, match="max_bytes must be a whole number of bytes"):
        await ask_text(object(), "Say something", max_bytes=-1)


# -- both sides ours: the person types and attaches, the tool gets the bytes --------------------


class Attaching:
    """A renderer whose person types ``text`` and attaches ``files``, or says no."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.prompts: list[FormPrompt] = []

    async def ask_form(self, prompt: FormPrompt) -> Any:
        self.prompts.append(prompt)
        return self.answers.pop(0)

    async def ask_url(self, prompt: UrlPrompt) -> Any:
        raise AssertionError("no links here")

    async def notify(self, notice: Any) -> None:
        pass


async def test_our_client_and_server_carry_an_image_end_to_end() -> None:
    renderer = Attaching(
        [
            Accept({"response": "my cat"}, (Attachment("cat.png", "image/png", PNG),)),
            Accept({}, (Attachment("purr.wav", "audio/wav", WAV),)),
            Decline(),
            Cancel(),
        ]
    )
    handler = ElicitationHandler(renderer, opener=None)  # type: ignore[arg-type]
    async with ElicitingClient(build(), handler, protocol=EARLY) as client:
        assert client.protocol_version == EARLY
        outs = [text(await client.call_tool("describe", {})) for _ in range(4)]
    assert outs == [
        f"text='my cat' files=[image image/png {digest(PNG)}]",
        f"text='' files=[audio audio/wav {digest(WAV)}]",
        "nothing: Cancelled",  # the draft has no decline: a "no" is a cancel
        "nothing: Cancelled",
    ]
    assert all(p.free_text for p in renderer.prompts)


async def test_a_file_whose_bytes_deny_its_type_never_leaves_the_client() -> None:
    """Whatever renderer built the attachments, the handler reads each file's signature: a
    program labelled ``image/png`` is not sent, and the person is told why."""
    program = b"\x7fELF\x02\x01\x01\x00" + bytes(64)
    renderer = Attaching(
        [Accept({"response": "see"}, (Attachment("cat.png", "image/png", program),))]
    )
    told: list[Any] = []

    async def notify(notice: Any) -> None:
        told.append(notice)

    renderer.notify = notify  # type: ignore[method-assign]
    handler = ElicitationHandler(renderer, opener=None)  # type: ignore[arg-type]
    async with ElicitingClient(build(), handler, protocol=EARLY) as client:
        out = text(await client.call_tool("describe", {}))
    assert out == "nothing: Cancelled"
    [notice] = told
    assert "cat.png was sent as image/png, but its content is ELF executable" in notice.text
