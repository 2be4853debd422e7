"""The hosted pages' form reader on bodies and headers no browser sends (found by fuzzing)."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from mcp_elicit.server.pages.body import FormRefused, read_form

pytestmark = pytest.mark.anyio


def request(content_length: bytes, body: bytes = b"a=1") -> Request:
    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": body, "more_body": False}

    headers = [
        (b"content-type", b"application/x-www-form-urlencoded"),
        (b"content-length", content_length),
    ]
    return Request({"type": "http", "method": "POST", "headers": headers}, receive)


@pytest.mark.parametrize(
    "declared",
    [b"\xb2", "①".encode(), b"9" * 5000, b"-1", b"1e3", b" 3"],
    ids=["superscript-two", "circled-one", "5000-digits", "negative", "exponent", "space"],
)
async def test_a_content_length_int_cannot_read_is_refused_not_a_crash(declared: bytes) -> None:
    with pytest.raises(FormRefused) as refused:
        await read_form(request(declared))
    assert refused.value.status_code == 413


async def test_a_plain_content_length_still_reads_the_form() -> None:
    assert await read_form(request(b"3")) == {"a": "1"}
