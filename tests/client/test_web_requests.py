"""What the web renderer's API does with requests its page never sends (finding 15), and
with files whose declared type their bytes deny (attachments: sniffed, SVG refused, a cap).

The page server is played in process (its ASGI app through ``httpx2.ASGITransport``, no socket,
no browser): every hostile or malformed body on every endpoint is a 4xx whose error names the
problem, and no pending question is answered by it.
"""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest

from mcp_elicit.client.form_requests import FREE_TEXT_SCHEMA
from mcp_elicit.client.prompts import FormPrompt, UrlPrompt
from mcp_elicit.client.web.app import MAX_ANSWER_BODY, MAX_BODY, page_app
from mcp_elicit.client.web.presence import Presence
from mcp_elicit.client.web.queue import Queue
from mcp_elicit.forms import Form
from mcp_elicit.urls import check_url
from tests.client.terminal_support import png_bytes

pytestmark = pytest.mark.anyio

TOKEN = "t0ken"
PORT = 8123
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "nights": {"type": "number"},
        "room": {"type": "string", "enum": ["single", "double"]},
    },
}
LINK = "https://pages.example.com/elicit/flows/1"

SURROGATE = "the request holds text that is not valid Unicode (a lone surrogate, \\ud800)"
ONLY_A_FORM = "only a form has values to check"
DEEP = "the request is nested too deeply (more than 16 levels)"

# (what is wrong, the body with PROMPT where the pending question's id goes, the error)
HOSTILE: list[tuple[str, bytes, str]] = [
    ("a lone surrogate in a value", b'{"id":"PROMPT","values":{"name":"\\ud800"}}', SURROGATE),
    ("a lone surrogate as a key", b'{"id":"PROMPT","values":{"\\ud800":"x"}}', SURROGATE),
    ("a lone surrogate as the id", b'{"id":"\\ud800","values":{}}', SURROGATE),
    ("a lone low surrogate", b'{"id":"PROMPT","key":"\\udfff"}', SURROGATE.replace("d800", "dfff")),
    (
        "nested a thousand deep",
        b'{"id":"PROMPT","values":' + b"[" * 1000 + b"]" * 1000 + b"}",
        DEEP,
    ),
    ("nested a hundred thousand deep", b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}", DEEP),
    ("NaN", b'{"id":"PROMPT","values":{"nights":NaN}}', "NaN is not a JSON number"),
    (
        "Infinity",
        b'{"id":"PROMPT","values":{"nights":-Infinity}}',
        "-Infinity is not a JSON number",
    ),
    (
        "an integer of 5000 digits",
        b'{"id":"PROMPT","values":{"nights":' + b"9" * 5000 + b"}}",
        "the request is not JSON this page sends: a number too long",
    ),
    ("an id that is a list", b'{"id":["PROMPT"],"values":{}}', "id must be a string"),
    ("an action that is a list", b'{"id":"PROMPT","action":["accept"]}', "action must be a string"),
    ("an action that is an object", b'{"id":"PROMPT","action":{}}', "action must be a string"),
    (
        "a key that is a number",
        b'{"id":"PROMPT","action":"cancel","key":27}',
        "key must be a string",
    ),
    (
        "values that are a list",
        b'{"id":"PROMPT","action":"accept","values":[1]}',
        "values must be a JSON object",
    ),
    ("an array", b'["PROMPT"]', "the request must be a JSON object"),
    ("a string", b'"PROMPT"', "the request must be a JSON object"),
    ("null", b"null", "the request must be a JSON object"),
    ("nothing", b"", "the request is not JSON: expecting value"),
    ("not UTF-8", b'{"id":"\xff\xfe"}', "the request is not JSON: it is not UTF-8"),
    (
        "cut short",
        b'{"id":"PROMPT",',
        "the request is not JSON: expecting property name enclosed in double quotes",
    ),
]


@asynccontextmanager
async def api() -> AsyncIterator[tuple[httpx2.AsyncClient, Queue, dict[str, str]]]:
    """The page server's app with three questions pending: a form, a free-text question and
    a link; and a client that speaks to it as the page does."""
    queue = Queue()
    ids = {
        "form": queue.add("form", FormPrompt("desk", "Book", Form.from_schema(SCHEMA))).id,
        "free-text": queue.add(
            "form",
            FormPrompt("desk", "Say", Form.from_schema(FREE_TEXT_SCHEMA), free_text=True),
        ).id,
        "link": queue.add("url", UrlPrompt("desk", "Open", LINK, check_url(LINK))).id,
    }
    presence = Presence(grace=60.0, clock=time.monotonic)
    app = page_app(queue, presence, token=TOKEN, port=PORT, hold=0.01)
    transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)
    base = f"http://127.0.0.1:{PORT}/{TOKEN}/"
    async with httpx2.AsyncClient(transport=transport, base_url=base) as http:
        yield http, queue, ids


async def post(http: httpx2.AsyncClient, endpoint: str, body: bytes) -> httpx2.Response:
    return await http.post(
        f"api/{endpoint}", content=body, headers={"Content-Type": "application/json"}
    )


@pytest.mark.parametrize("endpoint", ["validate", "answer"])
@pytest.mark.parametrize("kind", ["form", "free-text", "link"])
@pytest.mark.parametrize(("what", "body", "error"), HOSTILE, ids=[h[0] for h in HOSTILE])
async def test_a_hostile_body_is_a_4xx_naming_the_problem(
    endpoint: str, kind: str, what: str, body: bytes, error: str
) -> None:
    async with api() as (http, queue, ids):
        reply = await post(http, endpoint, body.replace(b"PROMPT", ids[kind].encode()))
        assert reply.status_code == 400, reply.text
        if what == "values that are a list" and kind == "link":  # values at all, for a link
            error = {"validate": ONLY_A_FORM, "answer": "only a form's answer has values"}[endpoint]
        assert reply.json() == {"error": error}
        assert all(not pending.answered.is_set() for pending in queue.ordered())


@pytest.mark.parametrize("endpoint", ["validate", "answer"])
async def test_a_huge_body_is_refused_before_it_is_read_whole(endpoint: str) -> None:
    async with api() as (http, queue, ids):
        for kind, limit in (("form", MAX_BODY), ("free-text", MAX_ANSWER_BODY)):
            body = b'{"id":"%s","values":{"name":"' % ids[kind].encode()
            body += b"x" * (limit + 1) + b'"}}'
            reply = await post(http, endpoint, body)
            assert reply.status_code == 413, (kind, reply.text[:200])
            assert reply.json() == {"error": "the request is too large"}
        assert all(not pending.answered.is_set() for pending in queue.ordered())


async def test_the_state_endpoint_takes_any_since() -> None:
    async with api() as (http, _queue, ids):
        for since in ("%ED%A0%80", "%FF", "9" * 5000, "-1", "x", ""):
            reply = await http.get(f"api/state?since={since}")
            assert reply.status_code == 200, since
            assert [p["id"] for p in reply.json()["prompts"]] == list(ids.values())


async def test_well_formed_requests_still_work() -> None:
    """The checks refuse only what the page never sends."""
    async with api() as (http, queue, ids):
        checked = await post(
            http, "validate", b'{"id":"%s","values":{"name":"Ada \\u00e9"}}' % ids["form"].encode()
        )
        assert checked.status_code == 200, checked.text
        assert checked.json()["problems"] == {}
        answered: dict[str, Any] = {"id": ids["link"], "action": "cancel", "key": "Escape"}
        reply = await http.post("api/answer", json=answered)
        assert reply.status_code == 200 and reply.json() == {"ok": True}
        assert [p.id for p in queue.ordered()] == [ids["form"], ids["free-text"]]


# -- attachments: the browser's word for a file's type is not enough ------------------------------


def sent(name: str, data: bytes, mime_type: str) -> dict[str, str]:
    return {"name": name, "mimeType": mime_type, "data": base64.b64encode(data).decode()}


ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(120)
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>'
SVG_REFUSED = (
    "Error: {name} is an SVG image, which can carry scripts and links that run where it is "
    "shown: attach it as PNG or JPEG instead"
)


async def test_a_program_sent_as_a_png_is_refused_naming_the_file_and_both_types() -> None:
    async with api() as (http, queue, ids):
        body = {"id": ids["free-text"], "action": "accept", "values": {"response": "see"}}
        reply = await http.post(
            "api/answer", json=body | {"attachments": [sent("photo.png", ELF, "image/png")]}
        )
        assert reply.status_code == 422, reply.text
        assert reply.json()["problems"] == {
            "attachments": "Error: photo.png was sent as image/png, but its content is ELF "
            "executable: not attached"
        }
        assert not queue.get(ids["free-text"]).answered.is_set()  # type: ignore[union-attr]
        # The real picture goes.
        reply = await http.post(
            "api/answer", json=body | {"attachments": [sent("photo.png", png_bytes(), "image/png")]}
        )
        assert reply.status_code == 200, reply.text


async def test_an_svg_is_refused_saying_why_while_choosing_and_with_the_answer() -> None:
    async with api() as (http, _queue, ids):
        checking = {"name": "logo.svg", "mimeType": "image/svg+xml", "size": len(SVG)}
        reply = await http.post(
            "api/validate",
            json={"id": ids["free-text"], "values": {"response": "x"}, "attachments": [checking]},
        )
        assert reply.json()["problems"] == {"attachments": SVG_REFUSED.format(name="logo.svg")}
        body = {"id": ids["free-text"], "action": "accept", "values": {"response": "x"}}
        for name, mime_type in (("logo.svg", "image/svg+xml"), ("logo.png", "image/png")):
            files = [sent(name, SVG, mime_type)]
            reply = await http.post("api/answer", json=body | {"attachments": files})
            assert reply.status_code == 422
            assert reply.json()["problems"] == {"attachments": SVG_REFUSED.format(name=name)}


async def test_more_files_than_the_cap_are_refused_naming_it() -> None:
    async with api() as (http, _queue, ids):
        eleven = [sent(f"p{n}.png", png_bytes(), "image/png") for n in range(11)]
        sizes = [{"name": f["name"], "mimeType": "image/png", "size": 90} for f in eleven]
        too_many = "Error: 11 files attached: at most 10 files can go with one answer"
        base = {"id": ids["free-text"], "values": {"response": "x"}}
        reply = await http.post("api/validate", json=base | {"attachments": sizes})
        assert reply.json()["problems"] == {"attachments": too_many}
        reply = await http.post(
            "api/answer", json=base | {"action": "accept", "attachments": eleven}
        )
        assert reply.status_code == 422
        assert reply.json()["problems"] == {"attachments": too_many}
        reply = await http.post(
            "api/answer", json=base | {"action": "accept", "attachments": eleven[:10]}
        )
        assert reply.status_code == 200, reply.text
