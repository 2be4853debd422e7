"""Push era on both sides (``mcp_elicit.gateway.push_to_push``): the server's -32042 / -32604
as the client's revision has it (relayed end to end in test_eras.py, test_peers.py and
test_check_through.py)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.gateway.bridge import Bridge
from mcp_elicit.gateway.links import Links
from mcp_elicit.gateway.push_to_push import PushToPush
from mcp_elicit.gateway.pushing import PushedQuestions
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol import FORM_AND_URL, FORM_ONLY
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision
from tests.gateway.support import ScriptedUpstream, request_context

pytestmark = pytest.mark.anyio

LINK = {
    "mode": "url",
    "message": "Sign in",
    "url": "https://a.example.com/x",
    "elicitationId": "e1",
}
REQUIRED = MCPError(-32042, "Sign in first", {"elicitations": [LINK]})
CLIENT = Peer("2025-11-25", Revision.V2025_11_25, FORM_AND_URL)
DRAFT = Peer("2025-06-18", Revision.URL_DRAFT, FORM_AND_URL)


def relay() -> tuple[PushToPush, Links]:
    links = Links()
    upstream = cast(Upstream, ScriptedUpstream("2025-11-25"))
    return PushToPush(upstream, PushedQuestions(Bridge(), links)), links


def error_for(error: MCPError, client: Peer) -> MCPError:
    way, _ = relay()
    return way.url_error_for(error, client, request_context(client.version))


def test_an_error_in_the_clients_revision_passes_as_it_came() -> None:
    assert error_for(REQUIRED, CLIENT) is REQUIRED


def test_the_draft_client_gets_its_own_code_with_the_same_links() -> None:
    converted = error_for(REQUIRED, DRAFT)
    assert converted.code == -32604 and converted.message == "Sign in first"
    [item] = converted.data["elicitations"]
    assert item["url"] == LINK["url"]


def test_a_client_without_url_mode_is_told_so() -> None:
    plain = Peer("2025-06-18", Revision.V2025_06_18, FORM_ONLY)
    said = error_for(REQUIRED, plain)
    assert said.code == -32600 and "has no URL mode" in said.message


def test_any_other_error_is_untouched() -> None:
    other = MCPError(-32603, "boom")
    assert error_for(other, CLIENT) is other


async def test_the_links_completion_reaches_the_client_they_were_sent_to() -> None:
    way, links = relay()
    ctx: Any = request_context(CLIENT.version)
    way.url_error_for(REQUIRED, CLIENT, ctx)
    await links.complete("e1")  # the upstream's notice
    assert ctx.session.completed == ["e1"]
