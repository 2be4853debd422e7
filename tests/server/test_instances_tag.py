"""SessionTag: the instance's tag in and out of ``Mcp-Session-Id`` (a pure ASGI check)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_elicit.server.instances import SessionTag

pytestmark = pytest.mark.anyio


async def exchange(tag: str, sent: bytes | None) -> tuple[list[Any], list[Any]]:
    """What the app behind sees of the request's headers, and what the client gets back."""
    seen: list[Any] = []
    out: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.extend(scope["headers"])
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"mcp-session-id", b"5f0c"), (b"x-other", b"v")],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> Any:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        out.append(message)

    headers = [(b"x-other", b"v")] + ([(b"mcp-session-id", sent)] if sent is not None else [])
    await SessionTag(app, tag)({"type": "http", "headers": headers}, receive, send)
    return seen, out[0]["headers"]


async def test_the_tag_goes_out_and_comes_back_off() -> None:
    seen, back = await exchange("b", None)
    assert (b"mcp-session-id", b"b.5f0c") in back and (b"x-other", b"v") in back
    seen, _ = await exchange("b", b"b.5f0c")
    assert (b"mcp-session-id", b"5f0c") in seen  # the SDK sees its own id


async def test_another_instances_session_reaches_the_sdk_as_it_is() -> None:
    # ...which answers 404: that session does not live here.
    seen, _ = await exchange("b", b"a.5f0c")
    assert (b"mcp-session-id", b"a.5f0c") in seen


@pytest.mark.parametrize("tag", ["", "A", "a.b", "a b", "x" * 33, "-a"])
def test_a_tag_a_header_or_nginx_could_not_carry_is_refused(tag: str) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None: ...

    with pytest.raises(ValueError, match="instance tag"):
        SessionTag(app, tag)
