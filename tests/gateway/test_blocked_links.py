"""A link the gateway's policy blocks, between every pair of eras, in-process: the client is
never shown it, and the call ends with a result saying the gateway blocked it and why (the
verdict's reasons), not a ``cancel`` answered in the person's name in silence
(``mcp_elicit.gateway.bridge.LinkBlocked``)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from mcp_elicit.client import ElicitingClient
from mcp_elicit.gateway import Gateway
from mcp_elicit.protocol import FORM_AND_URL
from tests.gateway.asking_support import asking_server, call_through_audited_gateway
from tests.gateway.support import CLI
from tests.peers import server_everything_command
from tests.served import Served
from tests.server_support import Person, _ScriptedHandler, connect, text

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("client_era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("upstream_era", ["2025-11-25", "2026-07-28"])
async def test_a_blocked_link_ends_the_call_saying_the_gateway_blocked_it_and_why(
    upstream_era: str, client_era: str
) -> None:
    person = Person([{"action": "accept"}])
    # open_bad_page asks for a link with a password in it.
    gateway, result, lines = await call_through_audited_gateway(
        "open_bad_page", upstream_era, client_era, person
    )
    said = text(result)
    assert result.is_error
    assert said.startswith("The gateway blocked a link the server asked you to open")
    assert "user name and password" in said  # the verdict's reason
    assert "hunter2" not in said  # which quotes the link without its password
    assert person.seen == []  # the client never had it
    [line] = lines
    assert (line["action"], line["why"], line["url_reasons"]) == (
        "cancel",
        "url-blocked",
        ["credentials"],
    )
    assert len(gateway.held) == 0  # a held call given up, not left waiting


async def test_a_blocked_link_is_logged_as_one_line_with_its_reasons_and_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Blocking is the policy working: one warning naming why, not the SDK's "handler ...
    raised" error with a traceback (a push-era server, a 2026-07-28 client: the held call)."""
    with anyio.fail_after(20):
        async with (
            Gateway(asking_server(), upstream_protocol="2025-11-25") as gateway,
            connect(gateway.server, "2026-07-28", Person()) as client,
        ):
            result = await client.call_tool("open_bad_page", {})
    assert result.is_error
    blocked = [r for r in caplog.records if "blocked a link" in r.getMessage()]
    assert [(r.levelname, r.name) for r in blocked] == [("WARNING", "mcp_elicit.gateway.bridge")]
    assert "credentials" in blocked[0].getMessage()
    assert "hunter2" not in blocked[0].getMessage()
    assert [r for r in caplog.records if r.exc_info or r.levelname == "ERROR"] == []


@pytest.mark.slow
@pytest.mark.node
def test_the_gateway_still_serves_after_blocking_a_link_that_follows_an_accepted_one(
    tmp_path: Path,
) -> None:
    """The newcomer's sequence: server-everything behind ``mcp-elicit gateway`` (its stdio
    sessions logged), a 2026-07-28 client accepts a link, then is asked one the gateway
    blocks. The gateway used to die there (each upstream session closed the server entered
    last: "exit cancel scope in a different task"); now the next call is served."""
    served = Served(
        lambda port: [*CLI, "gateway", "--http", str(port), "--", *server_everything_command()],
        log=tmp_path / "gateway.log",
    )
    try:

        async def run() -> list[tuple[bool, str]]:
            handler = _ScriptedHandler(Person([{"action": "accept"}] * 3), FORM_AND_URL)
            out: list[tuple[bool, str]] = []
            async with ElicitingClient(served.url(), handler, protocol="2026-07-28") as client:
                for tool, args in (
                    ("trigger-url-elicitation", {"url": "https://example.com/connect/ok"}),
                    ("trigger-url-elicitation", {"url": "https://user:secret@example.com/x"}),
                    ("echo", {"message": "still here"}),
                ):
                    result = await client.call_tool(tool, args)
                    out.append((bool(result.is_error), text(result)))
            return out

        accepted, blocked, echoed = anyio.run(run)
        assert served.process is not None and served.process.poll() is None
    finally:
        served.stop()
    assert not accepted[0]
    assert blocked[0] and blocked[1].startswith("The gateway blocked a link")
    assert echoed == (False, "Echo: still here")
    log = served.output()
    assert "Traceback" not in log
    assert "blocked a link the server asked to open (credentials)" in log
