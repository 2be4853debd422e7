"""``ask``, ``confirm``, ``choose``, ``secret``, ``secret_required`` and ``UrlRequired`` inside
the tools of a fastmcp ``FastMCP`` server, on every revision, with our client and with the
official SDK's; the secret is typed on the server's real hosted page (over HTTP)."""

from __future__ import annotations

import datetime
import importlib.util
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from fastmcp import Context, FastMCP
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_elicit import _sdk
from mcp_elicit.protocol import FORM_ONLY
from mcp_elicit.server import (
    Accepted,
    DeploymentKey,
    Elicitation,
    UrlRequired,
    ask,
    choose,
    confirm,
    secret,
    secret_required,
    stored_secret,
)
from mcp_elicit.server.frameworks import fastmcp_middleware_type
from mcp_elicit.testing import connect, decline_page, enter_secret
from tests.paths import EXAMPLES

pytestmark = pytest.mark.anyio

ERAS = ["2025-06-18", "2025-11-25", "2026-07-28"]
URL_ERAS = ["2025-11-25", "2026-07-28"]
SDK_MODES = {"2025-11-25": "legacy", "2026-07-28": "auto"}


@dataclass
class Stay:
    guest: str
    arrival: datetime.date
    nights: int = 1


@dataclass
class Built:
    mcp: FastMCP
    elicitation: Elicitation
    seen: list[Any]


def build(*, installed_after: bool = False) -> Built:
    """A fastmcp server whose tools ask; ``seen`` holds the typed values the bodies got.
    ``installed_after``: ``Elicitation(mcp)`` on a server built without its options."""
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://", url_resume_wait=10.0)
    if installed_after:
        mcp = FastMCP("fastmcp-desk")
        elicitation.install(mcp)
    else:
        mcp = FastMCP("fastmcp-desk", **elicitation.fastmcp_options())
    seen: list[Any] = []

    @mcp.tool()
    async def book(ctx: Context) -> str:
        stay = await ask(ctx, Stay, "Who is staying, and when?")
        room = await choose(ctx, "Which room?", {"std": "Standard", "ste": "Suite"})
        key = await secret(ctx, "DESK_KEY", "Your desk key, to confirm the booking")
        seen.append((stay, room, key))
        got = key.value.get_secret_value() if isinstance(key, Accepted) else None
        return f"{stay} {room} key={'yes' if got else 'no'}"

    @mcp.tool()
    async def cancel(ctx: Context) -> str:
        return "cancelled" if await confirm(ctx, "Cancel the booking?") else "kept"

    @mcp.tool()
    async def sync(ctx: Context) -> str:
        key = await stored_secret(ctx, "SYNC_KEY")
        if key is None:
            raise await secret_required(ctx, "SYNC_KEY", "Your sync key, to sync files")
        return f"synced with a key of {len(key.get_secret_value())} characters"

    @mcp.tool()
    async def visit(ctx: Context) -> str:
        raise UrlRequired("https://example.com/terms", "Read the terms first")

    return Built(mcp, elicitation, seen)


STAY = {"action": "accept", "content": {"guest": "Ada", "arrival": "2026-03-01", "nights": 2}}
SUITE = {"action": "accept", "content": {"choice": "ste"}}
CONSENT = {"action": "accept"}


# -- our client ----------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", URL_ERAS)
@pytest.mark.parametrize("installed_after", [False, True], ids=["options", "installed-after"])
async def test_ask_choose_and_a_secret_on_the_hosted_page(
    protocol: str, installed_after: bool, sentinel: str
) -> None:
    built = build(installed_after=installed_after)
    with anyio.fail_after(30):
        async with connect(
            built.mcp,
            protocol=protocol,
            answers=[STAY, SUITE, CONSENT],
            links=enter_secret(sentinel),
            elicitation=built.elicitation,
        ) as mcp:
            result = await mcp.call("book")
    assert not result.is_error, result.text
    assert result.text.endswith("key=yes")
    stay, room, key = built.seen[-1]
    assert stay == Accepted(Stay("Ada", datetime.date(2026, 3, 1), 2))
    assert room == Accepted("ste")
    assert key.value.get_secret_value() == sentinel
    assert [q.mode for q in mcp.asked] == ["form", "form", "url"]
    link = mcp.asked[2].url
    assert link is not None and link.startswith("http://127.0.0.1:") and "/elicit/flows/" in link
    # What went to the client never held the secret.
    assert sentinel not in json.dumps([dict(q.params) for q in mcp.asked])


async def test_a_secret_declined_on_the_page_is_declined_in_the_tool() -> None:
    built = build()
    with anyio.fail_after(30):
        async with connect(
            built.mcp,
            protocol="2025-11-25",
            answers=[STAY, SUITE, CONSENT],
            links=decline_page(),
            elicitation=built.elicitation,
        ) as mcp:
            result = await mcp.call("book")
    assert result.text.endswith("key=no")
    assert built.seen[-1][2].__class__.__name__ == "Declined"


@pytest.mark.parametrize("protocol", ERAS)
async def test_confirm_on_every_revision(protocol: str) -> None:
    built = build()
    ticked = {"action": "accept", "content": {"confirm": True}}
    async with connect(built.mcp, protocol=protocol, answers=[ticked, CONSENT]) as mcp:
        assert (await mcp.call("cancel")).text == "cancelled"
        assert (await mcp.call("cancel")).text == "kept"  # a bare accept is not a yes
    assert mcp.asked[0].schema is not None and "confirm" in mcp.asked[0].schema["properties"]


async def test_on_2025_06_18_a_secret_is_refused_saying_the_revision_lacks_url_mode() -> None:
    built = build()
    async with connect(built.mcp, protocol="2025-06-18", answers=[STAY, SUITE]) as mcp:
        result = await mcp.call("book")
    assert result.is_error
    assert "2025-06-18, which has no URL mode" in result.text


@pytest.mark.parametrize("protocol", URL_ERAS)
async def test_secret_required_then_the_retry_succeeds(protocol: str) -> None:
    """-32042 and the completion notice on 2025-11-25; an input request on 2026-07-28."""
    built = build()
    with anyio.fail_after(30):
        async with connect(
            built.mcp,
            protocol=protocol,
            answers=[CONSENT],
            links=enter_secret("sk-sync-1234"),
            elicitation=built.elicitation,
        ) as mcp:
            result = await mcp.call("sync")
    assert result.text == "synced with a key of 12 characters"
    assert [q.mode for q in mcp.asked] == ["url"]
    # Only 2025-11-25 names the elicitation; 2026-07-28 has no elicitationId.
    assert ("elicitationId" in mcp.asked[0].params) is (protocol == "2025-11-25")


async def test_a_form_only_client_on_2026_07_28_gets_32021_naming_url_mode() -> None:
    built = build()
    async with connect(built.mcp, protocol="2026-07-28", modes=FORM_ONLY) as mcp:
        for tool in ("sync", "visit"):
            with pytest.raises(MCPError) as raised:
                await mcp.call(tool)
            assert raised.value.code == -32021
            assert raised.value.error.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}


async def test_a_form_only_client_on_2025_11_25_gets_a_tool_error_saying_why() -> None:
    built = build()
    async with connect(built.mcp, protocol="2025-11-25", modes=FORM_ONLY) as mcp:
        result = await mcp.call("visit")
    assert result.is_error
    assert "did not declare elicitation URL mode" in result.text


# -- the official SDK client ---------------------------------------------------------------------


def sdk_person(answers: list[dict[str, Any]], secret_value: str, asked: list[Any]) -> Any:
    """The SDK client's elicitation callback, acting for a person: forms from ``answers``; a
    link is opened and ``secret_value`` typed on the page before the consent is returned."""
    enter = enter_secret(secret_value)

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        if isinstance(params, types.ElicitRequestURLParams):
            await enter(params.url)
            return types.ElicitResult(action="accept")
        return types.ElicitResult.model_validate(answers.pop(0))

    return callback


@pytest.mark.parametrize("protocol", URL_ERAS)
async def test_the_sdk_client_books_with_a_secret_on_the_hosted_page(
    protocol: str, sentinel: str
) -> None:
    built = build()
    asked: list[Any] = []
    callback = sdk_person([STAY, SUITE], sentinel, asked)
    server = _sdk.lowlevel_server_of(built.mcp)
    with anyio.fail_after(30):
        async with (
            built.elicitation.running(serve_pages_on_loopback=True),
            Client(server, mode=SDK_MODES[protocol], elicitation_callback=callback) as client,
        ):
            assert client.protocol_version == protocol
            result = await client.call_tool("book", {})
    text = result.content[0]
    assert isinstance(text, types.TextContent) and text.text.endswith("key=yes"), text
    assert built.seen[-1][2].value.get_secret_value() == sentinel
    assert [type(p).__name__ for p in asked] == [
        "ElicitRequestFormParams",
        "ElicitRequestFormParams",
        "ElicitRequestURLParams",
    ]


# -- the example -----------------------------------------------------------------------------------


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """examples/fastmcp_server.py, imported as a reader's program would run it, with its key
    and store in the test's state directory."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv("MCP_ELICIT_KEY", secrets.token_hex(32))
    spec = importlib.util.spec_from_file_location("fastmcp_example", EXAMPLES / "fastmcp_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    try:
        yield module
    finally:
        del sys.modules[spec.name]


@pytest.mark.parametrize("protocol", URL_ERAS)
async def test_the_example_forecasts_with_the_key_typed_on_its_page(
    example: Any, protocol: str
) -> None:
    place = {"action": "accept", "content": {"city": "Oslo"}}
    metric = {"action": "accept", "content": {"choice": "metric"}}
    with anyio.fail_after(30):
        async with connect(
            example.mcp,
            protocol=protocol,
            answers=[place, metric, CONSENT],
            links=enter_secret("wk-0123456789"),
            elicitation=example.elicitation,
        ) as mcp:
            result = await mcp.call("forecast")
    assert result.text == "3-day forecast for Oslo in metric (key of 13 characters)."


@pytest.mark.slow
def test_the_example_runs_over_stdio(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            [
                {"action": "accept", "content": {"city": "Oslo", "days": 2}},
                {"action": "accept", "content": {"choice": "imperial"}},
                {"action": "decline"},
            ]
        )
    )
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    env.pop("MCP_ELICIT_KEY", None)
    command = [sys.executable, "-m", "mcp_elicit", "call", "forecast"]
    options = ["--answers", str(answers), "--protocol", "2025-11-25", "--allow-http-loopback"]
    server = [sys.executable, str(EXAMPLES / "fastmcp_server.py")]
    done = subprocess.run(
        [*command, *options, "--", *server],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "No forecast without a key (Declined())."
    assert (tmp_path / "mcp-elicit" / "key").stat().st_mode & 0o777 == 0o600


def test_without_fastmcp_installed_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in [n for n in sys.modules if n == "fastmcp" or n.startswith("fastmcp.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "fastmcp", None)
    # The middleware's class is made once, importing fastmcp: make it again.
    fastmcp_middleware_type.cache_clear()
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://")
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'mcp-elicit\[fastmcp\]'"):
        elicitation.fastmcp_options()


@pytest.mark.parametrize(
    ("option", "refusal"),
    [
        ({"url_draft": True}, r"the URL-mode draft \(url_draft=True\) is not offered on fastmcp"),
        ({"tasks": True}, r"tasks \(tasks=True\) are offered on MCPServer only"),
    ],
)
def test_what_fastmcp_cannot_carry_is_refused_both_ways_of_installing(
    option: dict[str, Any], refusal: str
) -> None:
    def made(server: FastMCP | None = None) -> Elicitation:
        return Elicitation(server, key=DeploymentKey.generate(), store="memory://", **option)

    with pytest.raises(ValueError, match=refusal):
        made().fastmcp_options()
    with pytest.raises(ValueError, match=refusal):
        made().install(FastMCP("refused"))
    with pytest.raises(ValueError, match=refusal):
        made(FastMCP("refused"))
