"""The loopback page a sign-in comes back to (``mcp_elicit.client._loopback``): what it shows
of a peer's words (finding 9). A real listener on 127.0.0.1, reached with plain HTTP: no
browser, no provider."""

from __future__ import annotations

import html

import httpx2
import pytest

from mcp_elicit.client._loopback import LoopbackCallback, free_port

pytestmark = pytest.mark.anyio

STATE = "s-3f9a"
# What an authorization server (or whoever sends the browser here) may put in its words: a
# right-to-left override that turns what follows round, a terminal escape, an invisible
# space, markup.
HOSTILE = "\u202egnp.exe\u202c retry at evil.example \x1b[31mnow\x1b[0m\u200b<script>x()</script>"
RAW = ("\u202e", "\u202c", "\x1b", "\u200b", "<script>")


async def page_for(server: str, **query: str) -> httpx2.Response:
    port = free_port()
    async with LoopbackCallback(port, STATE, server=server) as listener:
        async with httpx2.AsyncClient() as http:
            reply = await http.get(
                f"http://127.0.0.1:{port}/callback", params={"state": STATE, **query}
            )
        assert listener.response is not None
    return reply


async def test_a_providers_hostile_error_description_is_shown_cleaned_and_escaped() -> None:
    reply = await page_for("mcp.example.com", error="access_denied", error_description=HOSTILE)
    assert reply.status_code == 200
    page = reply.text
    for raw in RAW:
        assert raw not in page
    shown = html.unescape(page)
    assert "\\u{202e}gnp.exe\\u{202c} retry at evil.example \\u{001b}[31mnow\\u{001b}[0m" in shown
    assert "\\u{200b}<script>x()</script>" in shown  # as text: escaped in the page
    assert "&lt;script&gt;" in page


async def test_a_hostile_error_code_alone_is_shown_cleaned() -> None:
    reply = await page_for("mcp.example.com", error="denied\u202e\x1b[2J")
    assert "\u202e" not in reply.text and "\x1b" not in reply.text
    assert "denied\\u{202e}\\u{001b}[2J" in html.unescape(reply.text)


async def test_a_hostile_server_name_is_shown_cleaned_on_the_signed_in_page() -> None:
    reply = await page_for("mcp.example.com\u202e\u2066<b>moc.elgoog", code="c0de")
    assert reply.status_code == 200
    page = reply.text
    assert "\u202e" not in page and "\u2066" not in page and "<b>" not in page
    assert "mcp.example.com\\u{202e}\\u{2066}&lt;b&gt;moc.elgoog" in page
