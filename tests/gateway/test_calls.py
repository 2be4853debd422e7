"""The dispatcher (``mcp_elicit.gateway.calls``): :meth:`Calls.call` picks the way through by
the two peers' eras, and hands it the client as it negotiated and declared."""

from __future__ import annotations

from typing import Any, cast

import pytest

from mcp_elicit.gateway.calls import Calls, WayThrough
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision
from tests.gateway.support import ScriptedUpstream, request_context

pytestmark = pytest.mark.anyio

URL_DECLARED = {"elicitation": {"form": {}, "url": {}}}


class Recorder:
    def __init__(self, name: str, seen: list[tuple[str, Peer]]) -> None:
        self.name = name
        self.seen = seen

    async def call(self, ctx: Any, down: Peer, method: str) -> dict[str, Any]:
        self.seen.append((self.name, down))
        return {"way": self.name, "method": method}


def calls(upstream_era: str, seen: list[tuple[str, Peer]], *, url_draft: bool = False) -> Calls:
    ways: dict[tuple[bool, bool], WayThrough] = {
        (False, False): Recorder("push→push", seen),
        (False, True): Recorder("push→rounds", seen),
        (True, False): Recorder("rounds→push", seen),
        (True, True): Recorder("rounds→rounds", seen),
    }
    return Calls(cast(Upstream, ScriptedUpstream(upstream_era)), ways, url_draft)


@pytest.mark.parametrize(
    ("upstream_era", "client_era", "way"),
    [
        ("2025-11-25", "2025-06-18", "push→push"),
        ("2025-06-18", "2025-11-25", "push→push"),
        ("2025-11-25", "2026-07-28", "push→rounds"),
        ("2026-07-28", "2025-11-25", "rounds→push"),
        ("2026-07-28", "2026-07-28", "rounds→rounds"),
    ],
)
async def test_the_way_through_is_picked_by_both_eras(
    upstream_era: str, client_era: str, way: str
) -> None:
    seen: list[tuple[str, Peer]] = []
    ctx = request_context(client_era, URL_DECLARED)
    result = await calls(upstream_era, seen).call(ctx, "tools/call")
    assert result == {"way": way, "method": "tools/call"}
    [(_, down)] = seen
    assert down.version == client_era and down.modes.url == (client_era != "2025-06-18")


@pytest.mark.parametrize(("url_draft", "revision"), [(False, "2025-06-18"), (True, "url-draft")])
async def test_a_2025_06_18_client_declaring_url_speaks_the_draft_only_when_opted_in(
    url_draft: bool, revision: str
) -> None:
    seen: list[tuple[str, Peer]] = []
    ctx = request_context("2025-06-18", URL_DECLARED)
    await calls("2025-11-25", seen, url_draft=url_draft).call(ctx, "tools/call")
    [(way, down)] = seen
    assert way == "push→push" and down.revision is Revision.parse(revision)
