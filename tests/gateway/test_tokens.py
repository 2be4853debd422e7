"""``mcp-elicit gateway --http --token-file``: the port served only to clients with a token, and
a held call answered only by the client that made it (issue 30, findings 2 and 10), through a
real gateway process in front of our conformance server (over stdio, on 2025-11-25, so that
calls are held for 2026-07-28 clients). Then the start-up warnings, and the tokens' rules."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mcp_elicit.cli._gateway import _warnings
from mcp_elicit.gateway import BearerTokens, Gateway, Safeguards
from mcp_elicit.gateway.tokens import MIN_TOKEN_LENGTH
from tests.gateway.support import CLI, ROOT, gateway, send_round
from tests.served import Served
from tests.server_support import booking_server

ADA = "ada-" + "a" * 28
BOB = "bob-" + "b" * 28
USER = {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}
ASK = {"message": "Who are you?"}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    where = tmp_path_factory.mktemp("tokens")
    tokens = where / "tokens"
    tokens.write_text(f"# one line per host\n{ADA}\n\n{BOB}\n", encoding="utf-8")
    served = gateway(
        lambda: ["--", *CLI[:1], str(ROOT / "examples/conformance_server.py"), "--stdio"],
        "2025-11-25",
        "--token-file",
        str(tokens),
        log=where / "log",
    )
    yield served
    served.stop()


async def _unused(context: Any, params: Any) -> Any:
    raise AssertionError("these calls are answered by hand, round by round")


@asynccontextmanager
async def client_with(url: str, token: str) -> AsyncIterator[Client]:
    """A 2026-07-28 client of the gateway's that sends ``token``."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    transport = streamable_http_client(url, http_client=http)
    async with http, Client(transport, mode="auto", elicitation_callback=_unused) as client:
        assert client.protocol_version == "2026-07-28"
        yield client


@pytest.mark.slow
@pytest.mark.anyio
async def test_without_the_token_the_port_serves_nothing(guarded: Served) -> None:
    url = guarded.url()
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    async with httpx2.AsyncClient(timeout=60) as http:
        bare = await http.post(url, json=ping)
        wrong = await http.post(url, json=ping, headers={"Authorization": f"Bearer {ADA[:-1]}x"})
    assert bare.status_code == 401
    assert bare.headers["www-authenticate"] == 'Bearer realm="mcp-elicit gateway"'
    assert "Authorization: Bearer" in bare.json()["error_description"]
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"].endswith('error="invalid_token"')
    async with client_with(url, ADA) as ada:  # with it, served
        tools = await ada.list_tools()
    assert "test_elicitation" in {tool.name for tool in tools.tools}


@pytest.mark.slow
@pytest.mark.anyio
async def test_another_client_with_the_state_is_refused_as_a_forged_one(guarded: Served) -> None:
    """Bob has Ada's ``requestState`` (a log, a shared proxy): his retry gets the error a
    forged state gets, Ada's call goes on, and Ada's retry answers it."""
    url = guarded.url()
    async with client_with(url, ADA) as ada, client_with(url, BOB) as bob:
        first = await send_round(ada, "test_elicitation", ASK)
        state = first["requestState"]
        with pytest.raises(MCPError) as foreign:
            await send_round(bob, "test_elicitation", ASK, state=state, responses={"q1": USER})
        with pytest.raises(MCPError) as forged:
            await send_round(bob, "test_elicitation", ASK, state=state[:-4] + "AAAA")
        assert (foreign.value.code, foreign.value.message, foreign.value.data) == (
            forged.value.code,
            forged.value.message,
            forged.value.data,
        )
        assert foreign.value.message == "Invalid or expired requestState"
        done = await send_round(ada, "test_elicitation", ASK, state=state, responses={"q1": USER})
    assert "ada@example.com" in done["content"][0]["text"]


@pytest.mark.slow
def test_the_verdict_warning_is_printed_once_at_start_up(guarded: Served) -> None:
    guarded.url()
    said = guarded.output()
    assert said.count("io.github.mcp-elicit/url-verdict") == 1
    assert "--no-url-verdicts" in said
    assert "--token-file" not in said  # the port is guarded: no warning about that


@pytest.mark.parametrize(
    ("verdicts", "http", "tokens", "expected"),
    [
        (True, None, None, ["url-verdict"]),
        (False, None, None, []),
        (False, 8000, None, ["--token-file"]),
        (False, 8000, BearerTokens([ADA]), []),
    ],
)
def test_the_start_up_warnings(
    capsys: pytest.CaptureFixture[str],
    verdicts: bool,
    http: int | None,
    tokens: BearerTokens | None,
    expected: list[str],
) -> None:
    gateway = Gateway(booking_server().server, safeguards=Safeguards(url_verdicts=verdicts))
    _warnings(gateway, argparse.Namespace(http=http), tokens)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(expected)
    for line, word in zip(lines, expected, strict=True):
        assert "warning" in line and word in line


def test_tokens_must_be_long_and_are_told_apart(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=str(MIN_TOKEN_LENGTH)):
        BearerTokens(["short"])
    with pytest.raises(ValueError, match="no token"):
        BearerTokens([])
    file = tmp_path / "tokens"
    file.write_text(f"{ADA}\n# a comment\n  {BOB}  \n", encoding="utf-8")
    tokens = BearerTokens.read(file)
    assert len(tokens) == 2
    assert tokens.who(ADA) == "gateway-token-1" and tokens.who(BOB) == "gateway-token-2"
    assert tokens.who(ADA[:-1]) is None and tokens.who("") is None
