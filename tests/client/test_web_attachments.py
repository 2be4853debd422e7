"""Files attached to a free-text answer on the web renderer (the early content-array draft).

A message-only request (the early draft) is one free-text question: the page shows the text
box and a file input for images and audio. The browser tests drive headless Chromium (Debian's)
through Playwright with real files written in ``tmp_path`` and assert on what the renderer
answered (the exact bytes, the name, the MIME type), and once on what the server received;
the HTTP tests post what the page never would. The screenshot (``web-attachment.png``) lands
where ``tests/browser_support.py`` says (``make screenshots``: ``docs/images``).
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from playwright.async_api import expect

from mcp_elicit.client import ElicitationHandler, ElicitingClient
from mcp_elicit.client.form_requests import FREE_TEXT_FIELD, FREE_TEXT_SCHEMA
from mcp_elicit.client.prompts import (
    MAX_ATTACHMENT_BYTES,
    Accept,
    Attachment,
    Decision,
    Decline,
    FormPrompt,
)
from mcp_elicit.client.web import WebRenderer
from mcp_elicit.client.web.app import MAX_ANSWER_BODY, MAX_BODY
from mcp_elicit.forms import Form
from tests.browser_support import screenshot
from tests.client.web_support import browser_context, current_heading, no_serious_violations
from tests.client_support import booking_server

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

SERVER = "photo-desk"
QUESTION = "What does the stain on the carpet look like? Describe it, or attach a photo."
NOT_ATTACHABLE = (
    "Error: notes.txt is not an image or audio file (text/plain): only images and audio can "
    "be attached"
)


def png(width: int = 24, height: int = 16) -> bytes:
    """A real PNG: a red-to-blue gradient, RGB, 8 bits."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(
        b"\x00"
        + b"".join(bytes((255 * x // width, 64, 255 - 255 * x // width)) for x in range(width))
        for _ in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def free_text_prompt() -> FormPrompt:
    """What the handler shows for a message-only request."""
    return FormPrompt(SERVER, QUESTION, Form.from_schema(FREE_TEXT_SCHEMA), free_text=True)


def png_of_size(size: int) -> bytes:
    """``size`` bytes that are a PNG by their signature (a real one, then zeros)."""
    return (png(2, 2) + bytes(size))[:size] if size >= len(png(2, 2)) else png(2, 2)[:size]


def plain_prompt() -> FormPrompt:
    schema = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}}
    return FormPrompt(SERVER, "Your name?", Form.from_schema(schema))


@dataclass
class Asked:
    answer: Decision | None = None
    done: anyio.Event = field(default_factory=anyio.Event)

    async def result(self, timeout: float = 15.0) -> Decision:
        with anyio.fail_after(timeout):
            await self.done.wait()
        assert self.answer is not None
        return self.answer


@asynccontextmanager
async def asking(*prompts: FormPrompt) -> AsyncIterator[tuple[WebRenderer, list[Asked]]]:
    """A running renderer asked ``prompts``, each answer recorded as the renderer gives it.

    Several tests here play the page with plain HTTP, which keeps no request open, so the
    renderer takes the page for closed and cancels what it showed after ``closed_after``
    (5 s by default): on a busy machine posting megabytes of attachments took longer. These
    tests are not about that (tests/client/test_web_browser.py closes a real page), so the
    grace is long."""
    async with (
        WebRenderer(opener=None, announce=None, closed_after=120.0) as renderer,
        anyio.create_task_group() as tasks,
    ):
        asked = [Asked() for _ in prompts]
        for prompt, record in zip(prompts, asked, strict=True):

            async def ask(prompt: FormPrompt = prompt, record: Asked = record) -> None:
                record.answer = await renderer.ask_form(prompt)
                record.done.set()

            tasks.start_soon(ask)
        yield renderer, asked
        tasks.cancel_scope.cancel()


async def open_question(context: Any, renderer: WebRenderer) -> Any:
    page = await context.new_page()
    await page.goto(renderer.url)
    await expect(await current_heading(page)).to_have_text(QUESTION)
    return page


# -- in the browser ----------------------------------------------------------------------------


async def test_a_png_and_text_reach_the_renderers_answer_byte_for_byte(tmp_path: Path) -> None:
    photo = tmp_path / "stain.png"
    photo.write_bytes(png())
    async with asking(free_text_prompt()) as (renderer, (asked,)), browser_context() as context:
        page = await open_question(context, renderer)
        files = page.get_by_label("Attach images or audio")
        await expect(files).to_have_attribute("type", "file")
        await expect(files).to_have_attribute("accept", "image/*,audio/*")
        await expect(files).to_have_attribute("multiple", "")
        await expect(page.locator("#attach-hint")).to_contain_text("images and audio files only")
        await expect(page.locator("#attach-list-heading")).to_have_text("No files attached.")

        await page.get_by_label("Your answer").fill("A brown ring, about a hand wide.")
        await files.set_input_files(str(photo))
        listed = page.locator("#attach-list li")
        await expect(listed).to_have_count(1)
        await expect(listed).to_contain_text(f"stain.png ({len(png())} bytes)")
        await expect(page.locator("#attach-list-heading")).to_have_text("1 file attached:")
        await expect(page.get_by_role("button", name="Remove stain.png")).to_be_visible()
        await expect(page.locator("#said")).to_have_text("Attached stain.png.")
        await expect(page.locator(".error:visible")).to_have_count(0)
        await no_serious_violations(page)
        await screenshot(page, "web-attachment")

        await page.get_by_role("button", name="Review answers").click()
        await expect(page.locator("#review-heading")).to_be_focused()
        lines = page.locator(".review dl")
        await expect(lines).to_contain_text("A brown ring, about a hand wide.")
        await expect(lines.locator(".review-files li")).to_have_text(
            [f"stain.png ({len(png())} bytes)"]
        )
        await no_serious_violations(page)
        await page.get_by_role("button", name="Submit").click()
        answer = await asked.result()
        await expect(await current_heading(page)).to_have_text("Nothing to answer right now")

    assert answer == Accept(
        content={FREE_TEXT_FIELD: "A brown ring, about a hand wide."},
        attachments=(Attachment("stain.png", "image/png", png()),),
    )


async def test_a_text_file_is_refused_by_name_and_nothing_typed_is_lost(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture\n")
    photo = tmp_path / "stain.png"
    photo.write_bytes(png(8, 8))
    # The page's own policy enforced: reading the files needs nothing it forbids.
    async with (
        asking(free_text_prompt()) as (renderer, (asked,)),
        browser_context(csp=True) as context,
    ):
        page = await open_question(context, renderer)
        text = page.get_by_label("Your answer")
        files = page.get_by_label("Attach images or audio")
        error = page.locator("#attach-error")

        # Neither text nor a file: not an answer yet.
        await page.get_by_role("button", name="Review answers").click()
        await expect(page.locator("#f0-error")).to_have_text(
            "Error: Type an answer or attach a file"
        )
        await expect(text).to_be_focused()

        await text.fill("It looks like coffee.\nSee the photo.")
        await expect(page.locator("#f0-error")).to_be_hidden()
        await files.set_input_files(str(notes))
        # Checked as soon as it is chosen, by name and rule, next to the file input.
        await expect(error).to_have_text(NOT_ATTACHABLE)
        await expect(files).to_have_attribute("aria-invalid", "true")
        await page.get_by_role("button", name="Review answers").click()
        await expect(page.locator(".summary")).to_have_text(
            "One answer needs fixing: Attach images or audio."
        )
        await expect(files).to_be_focused()
        await expect(page.locator("#review-heading")).to_be_hidden()
        await expect(text).to_have_value("It looks like coffee.\nSee the photo.")

        await page.get_by_role("button", name="Remove notes.txt").click()
        await expect(error).to_be_hidden()
        await expect(files).not_to_have_attribute("aria-invalid", "true")
        await expect(files).to_be_focused()  # the list is empty: back to the input
        await files.set_input_files(str(photo))
        await expect(page.locator("#attach-list li")).to_have_count(1)
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit").click()
        answer = await asked.result()

    assert answer == Accept(
        content={FREE_TEXT_FIELD: "It looks like coffee.\nSee the photo."},
        attachments=(Attachment("stain.png", "image/png", png(8, 8)),),
    )


async def test_only_files_reach_the_server_as_the_drafts_image_items(tmp_path: Path) -> None:
    """Through the handler: no text, two files; the early-draft server gets one image item
    and one audio item, in the order they were attached, and no text item."""
    photo = tmp_path / "stain.png"
    photo.write_bytes(png())
    sound = tmp_path / "hum.wav"
    sound.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt ")
    results: list[Any] = []
    async with WebRenderer(opener=None, announce=None) as renderer:
        handler = ElicitationHandler(renderer, opener=None)
        async with (
            ElicitingClient(booking_server(), handler, protocol="2025-11-25") as client,
            browser_context() as context,
            anyio.create_task_group() as tasks,
        ):

            async def call() -> None:
                result = await client.call_tool("raw", {"params": {"message": QUESTION}})
                results.append(result.structured_content)

            tasks.start_soon(call)
            page = await context.new_page()
            await page.goto(renderer.url)
            await expect(await current_heading(page)).to_have_text(QUESTION)
            files = page.get_by_label("Attach images or audio")
            await files.set_input_files([str(photo), str(sound)])
            await expect(page.locator("#attach-list li")).to_have_count(2)
            await page.get_by_role("button", name="Review answers").click()
            await expect(page.locator(".review-files li")).to_have_count(2)
            await page.get_by_role("button", name="Submit").click()
            with anyio.fail_after(15):
                while not results:
                    await anyio.sleep(0.05)
    assert results == [
        {
            "content": [
                {
                    "type": "image",
                    "data": base64.b64encode(png()).decode(),
                    "mimeType": "image/png",
                },
                {
                    "type": "audio",
                    "data": base64.b64encode(sound.read_bytes()).decode(),
                    "mimeType": "audio/wav",
                },
            ]
        }
    ]


# -- what the page never sends --------------------------------------------------------------------


async def pending_ids(http: Any, renderer: WebRenderer, count: int) -> list[str]:
    with anyio.fail_after(10):
        while (
            len(prompts := (await http.get(f"{renderer.url}api/state")).json()["prompts"]) < count
        ):
            await anyio.sleep(0.05)
    return [p["id"] for p in prompts]


def sent(name: str, data: bytes | str, mime_type: str = "image/png") -> dict[str, str]:
    encoded = data if isinstance(data, str) else base64.b64encode(data).decode()
    return {"name": name, "mimeType": mime_type, "data": encoded}


async def test_a_bad_file_is_refused_by_name_and_the_question_still_waits() -> None:
    async with asking(free_text_prompt()) as (renderer, (asked,)):
        async with httpx2.AsyncClient(timeout=30) as http:
            (prompt_id,) = await pending_ids(http, renderer, 1)
            answer = f"{renderer.url}api/answer"

            async def refused(files: list[dict[str, Any]], text: str = "see") -> str:
                body = {"id": prompt_id, "action": "accept", "values": {"response": text}}
                reply = await http.post(answer, json=body | {"attachments": files})
                assert reply.status_code == 422, reply.text
                message: str = reply.json()["problems"]["attachments"]
                return message

            for bad in ("not base64!", "iVBORw0KGgo", "iVBORw0KGgo=\n", "iVBORw0KGgo=AAAA"):
                assert await refused([sent("a.png", bad)]) == (
                    "Error: a.png did not arrive whole (its data is not valid base64): attach "
                    "it again"
                )
            assert await refused([sent("notes.txt", b"hi", "text/plain")]) == NOT_ATTACHABLE
            # Too large: the size allowed is for all the files together.
            big = [
                sent("a.png", png_of_size(MAX_ATTACHMENT_BYTES - 10)),
                sent("b.png", png_of_size(11)),
            ]
            assert await refused(big) == (
                "Error: b.png is too large: attachments may hold 10 MB in all"
            )
            # The same rules, from the sizes alone, while the person is choosing.
            checked = await http.post(
                f"{renderer.url}api/validate",
                json={
                    "id": prompt_id,
                    "values": {"response": ""},
                    "attachments": [
                        {
                            "name": "huge.wav",
                            "mimeType": "audio/wav",
                            "size": MAX_ATTACHMENT_BYTES + 1,
                        },
                        {"name": "notes.txt", "mimeType": "", "size": 3},
                        {"name": "ok.png", "mimeType": "image/png", "size": 3},
                    ],
                },
            )
            assert checked.status_code == 200
            assert checked.json()["problems"] == {
                "attachments": "Error: huge.wav is too large: attachments may hold 10 MB in all\n"
                + NOT_ATTACHABLE
            }
            assert not asked.done.is_set()  # none of that was an answer

            # Text may be empty only with a file.
            empty = {"id": prompt_id, "action": "accept", "values": {"response": "  "}}
            reply = await http.post(answer, json=empty)
            assert reply.status_code == 422
            assert reply.json()["problems"] == {
                "response": "Error: Type an answer or attach a file"
            }

            reply = await http.post(answer, json={**empty, "attachments": [sent("ok.png", png())]})
            assert reply.status_code == 200
        assert await asked.result() == Accept(
            content={"response": "  "}, attachments=(Attachment("ok.png", "image/png", png()),)
        )


async def test_the_body_limit_admits_the_files_for_a_free_text_answer_only() -> None:
    # Exactly the attachments allowed, as base64: within the limit.
    assert MAX_BODY + len(base64.b64encode(bytes(MAX_ATTACHMENT_BYTES))) <= MAX_ANSWER_BODY
    async with asking(free_text_prompt(), plain_prompt()) as (renderer, (free, plain)):
        async with httpx2.AsyncClient(timeout=60) as http:
            free_id, plain_id = await pending_ids(http, renderer, 2)
            answer = f"{renderer.url}api/answer"
            headers = {"Content-Type": "application/json"}

            over = b'{"id": "%s", "pad": "' % free_id.encode()
            over += b"x" * (MAX_ANSWER_BODY + 1 - len(over) - 2) + b'"}'
            reply = await http.post(answer, content=over, headers=headers)
            assert reply.status_code == 413
            assert reply.json() == {"error": "the request is too large"}

            # Another question's answer keeps the small limit, even while a free-text one waits.
            padded = {"id": plain_id, "action": "accept", "values": {"name": "x" * MAX_BODY}}
            reply = await http.post(answer, json=padded)
            assert reply.status_code == 413
            # So does checking a free-text answer: the page sends no bytes to check.
            reply = await http.post(
                f"{renderer.url}api/validate",
                json={"id": free_id, "values": {"response": "x" * MAX_BODY}},
            )
            assert reply.status_code == 413

            most = png_of_size(MAX_ATTACHMENT_BYTES)
            files = [sent("black.png", most)]
            reply = await http.post(
                answer,
                json={"id": free_id, "action": "accept", "values": {}, "attachments": files},
            )
            assert reply.status_code == 200, reply.text[:200]
            reply = await http.post(answer, json={"id": plain_id, "action": "decline"})
            assert reply.status_code == 200
        got = await free.result()
        assert isinstance(got, Accept) and got.attachments[0].data == most
        assert await plain.result() == Decline()


async def test_attachments_are_refused_for_any_other_question_or_action() -> None:
    async with asking(plain_prompt(), free_text_prompt()) as (renderer, (plain, free)):
        async with httpx2.AsyncClient(timeout=10) as http:
            plain_id, free_id = await pending_ids(http, renderer, 2)
            files = [sent("a.png", png())]
            for path, body in [
                ("answer", {"id": plain_id, "action": "accept", "values": {"name": "Ada"}}),
                ("validate", {"id": plain_id, "values": {"name": "Ada"}}),
            ]:
                reply = await http.post(
                    f"{renderer.url}api/{path}", json=body | {"attachments": files}
                )
                assert reply.status_code == 400
                assert reply.json() == {"error": "only a free-text question takes attachments"}
            reply = await http.post(
                f"{renderer.url}api/answer",
                json={"id": free_id, "action": "decline", "attachments": files},
            )
            assert reply.status_code == 400
            assert reply.json() == {"error": "only an answer has attachments"}
            # Not in the page's shape at all: a bad request, not a message for the person.
            for wrong in ({"name": "a.png"}, "a.png", [{"name": 1, "data": ""}]):
                reply = await http.post(
                    f"{renderer.url}api/answer",
                    json={"id": free_id, "action": "accept", "values": {}, "attachments": wrong},
                )
                assert reply.status_code == 400, wrong
            assert not plain.done.is_set() and not free.done.is_set()

            reply = await http.post(
                f"{renderer.url}api/answer",
                json={"id": plain_id, "action": "accept", "values": {"name": "Ada"}},
            )
            assert reply.status_code == 200
        assert await plain.result() == Accept(content={"name": "Ada"})
