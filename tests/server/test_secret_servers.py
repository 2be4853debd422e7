"""Two servers run by the same OS user share the default key file and the default store: a
secret typed for one of them must not reach the other, and a flow one of them started must
not be usable on the other's pages.

The attack (issue 13, break 1): the vault bound a secret to (user, name) only, so server B's
``secret(ctx, "OPENAI_API_KEY", ...)`` returned the key the person had typed on server A's
page, without asking. Flows and secrets are now bound to the server too (its ``server_id``):
in the store's key, and in the vault's authenticated data, so that a row moved from one
server to the other does not open either.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.flows import FlowNotFound, FlowStatus
from mcp_elicit.server import Accepted, Elicitation, secret, stored_secret
from mcp_elicit.server.identity import LOCAL_USER
from mcp_elicit.server.keys import KEY_VARIABLE
from mcp_elicit.server.pages import SECRET_PURPOSE
from mcp_elicit.server.runtime import default_server_id
from mcp_elicit.testing import connect, enter_secret

pytestmark = pytest.mark.anyio

NAME = "OPENAI_API_KEY"
TIMEOUT = 60.0


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's state directory, where the default key file and store live."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    return tmp_path / "state" / "mcp-elicit"


def server_named(name: str, **options: object) -> tuple[MCPServer, Elicitation]:
    """A server on the defaults: the default key file and the default store."""
    server = MCPServer(name)
    elicitation = Elicitation(server, **options)  # type: ignore[arg-type]

    @server.tool()
    async def connect_service(ctx: Context) -> str:
        answer = await secret(ctx, NAME, "Your OpenAI key, to summarise your notes.")
        # A test server: it returns the value so that the test sees which one it got.
        return answer.value.get_secret_value() if isinstance(answer, Accepted) else str(answer)

    @server.tool()
    async def stored(ctx: Context) -> str:
        key = await stored_secret(ctx, NAME)
        return "nothing stored" if key is None else key.get_secret_value()

    return server, elicitation


async def call(
    server: MCPServer, elicitation: Elicitation, tool: str, typed: str, protocol: str
) -> tuple[str, int]:
    """The tool's text, and how many links the person was sent."""
    async with connect(
        server,
        protocol=protocol,
        answers=[{"action": "accept"}],
        links=enter_secret(typed),
        elicitation=elicitation,
    ) as mcp:
        result = await mcp.call(tool)
    return result.text, len(mcp.opened)


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_secret_typed_for_one_server_is_not_given_to_another(
    state_home: Path, protocol: str
) -> None:
    alpha, alpha_elicitation = server_named("alpha")
    beta, beta_elicitation = server_named("beta")
    with anyio.fail_after(TIMEOUT):
        assert await call(alpha, alpha_elicitation, "connect_service", "sk-alpha", protocol) == (
            "sk-alpha",
            1,
        )
        # The same store file and the same key: only the server differs.
        assert alpha_elicitation.store.url == beta_elicitation.store.url
        assert str(state_home) in alpha_elicitation.store.url
        assert alpha_elicitation.key.derive("vault") == beta_elicitation.key.derive("vault")

        # Beta has nothing stored, and asks the person rather than taking alpha's key.
        assert await call(beta, beta_elicitation, "stored", "-", protocol) == ("nothing stored", 0)
        assert await call(beta, beta_elicitation, "connect_service", "sk-beta", protocol) == (
            "sk-beta",
            1,
        )
        # Each keeps its own, reused without asking again.
        assert await call(alpha, alpha_elicitation, "connect_service", "-", protocol) == (
            "sk-alpha",
            0,
        )
        assert await call(beta, beta_elicitation, "stored", "-", protocol) == ("sk-beta", 0)
    for elicitation in (alpha_elicitation, beta_elicitation):
        await elicitation.store.aclose()


async def test_the_default_server_id_is_the_name_and_the_program(
    state_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two programs that both call their server "weather": the path of the main module tells
    them apart. The same program started again has the same id, and reads what it stored."""
    main = sys.modules["__main__"]
    monkeypatch.setattr(main, "__file__", "/srv/weather-a/server.py", raising=False)
    _, first = server_named("weather")
    first_id = first.runtime.server_id
    assert first_id == default_server_id("weather")
    assert "weather" in first_id and "/srv/weather-a/server.py" in first_id
    await first.vault.put(LOCAL_USER, NAME, "sk-for-a")

    monkeypatch.setattr(main, "__file__", "/srv/weather-b/server.py", raising=False)
    _, other = server_named("weather")
    assert other.runtime.server_id != first_id
    assert await other.vault.get(LOCAL_USER, NAME) is None

    monkeypatch.setattr(main, "__file__", "/srv/weather-a/server.py", raising=False)
    _, restarted = server_named("weather")
    assert restarted.runtime.server_id == first_id
    got = await restarted.vault.get(LOCAL_USER, NAME)
    assert got is not None and got.get_secret_value() == "sk-for-a"

    # A deployment may set it: several instances of one server share it whatever their paths.
    _, pinned = server_named("weather", server_id="weather-prod")
    assert pinned.runtime.server_id == "weather-prod"
    assert await pinned.vault.get(LOCAL_USER, NAME) is None
    for elicitation in (first, other, restarted, pinned):
        await elicitation.store.aclose()


async def test_a_server_built_with_server_options_learns_its_name_when_installed(
    state_home: Path,
) -> None:
    early = Elicitation()
    MCPServer("gamma", **early.server_options())
    late = Elicitation()
    late.install(MCPServer("delta", **late.server_options()))
    assert late.runtime.server_id == default_server_id("delta")
    assert late.runtime.server_id != Elicitation(MCPServer("gamma")).runtime.server_id


async def test_a_flow_of_one_server_is_not_usable_on_anothers_pages(state_home: Path) -> None:
    _, alpha = server_named("alpha")
    _, beta = server_named("beta")
    flow = await alpha.flows.start(
        user=LOCAL_USER, purpose=SECRET_PURPOSE, details={"name": NAME, "message": "m"}
    )
    with anyio.fail_after(TIMEOUT):
        async with (
            beta.running(serve_pages_on_loopback=True, close_store=False),
            httpx2.AsyncClient(timeout=10.0) as browser,
        ):
            # Beta's page for alpha's flow id: nothing here, as for an id never made.
            page = await browser.get(beta.flow_url(flow.id))
            assert page.status_code == 404 and "<form" not in page.text
            head = await browser.head(beta.flow_url(flow.id))
            assert head.status_code == 404
        # Beta's flows do not see it, and cannot finish it.
        assert await beta.flows.get(flow.id) is None
        for finish in (beta.flows.open, beta.flows.complete, beta.flows.decline):
            with pytest.raises(FlowNotFound):
                await finish(flow.id, user=LOCAL_USER)
    same = await alpha.flows.get(flow.id)
    assert same is not None and same.status is FlowStatus.PENDING
    for elicitation in (alpha, beta):
        await elicitation.store.aclose()


async def test_a_row_moved_to_another_server_does_not_open(state_home: Path) -> None:
    """Someone with write access to the shared store relabels alpha's row as beta's: the
    vault's authenticated data names the server, so beta reads nothing."""
    _, alpha = server_named("alpha")
    _, beta = server_named("beta")
    await alpha.vault.put(LOCAL_USER, NAME, "sk-alpha")
    await alpha.store.aclose()
    await beta.store.aclose()
    with sqlite3.connect(state_home / "flows.db") as db:
        moved = db.execute(
            "UPDATE secrets SET server_id = ? WHERE server_id = ?",
            (beta.runtime.server_id, alpha.runtime.server_id),
        ).rowcount
    assert moved == 1
    _, beta_again = server_named("beta")
    assert await beta_again.vault.get(LOCAL_USER, NAME) is None
    await beta_again.store.aclose()
