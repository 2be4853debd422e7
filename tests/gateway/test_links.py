"""Links (``mcp_elicit.gateway.links``): a URL-mode link's completion, as the gateway knows it.
The URL-mode draft's ``elicitation/track`` is answered only for the client the link was sent
to; another client's id and one never sent get the same error, so ids cannot be probed."""

from __future__ import annotations

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.gateway.links import Links

pytestmark = pytest.mark.anyio

ALICE, BOB = object(), object()


async def test_track_reports_progress_until_the_link_completes() -> None:
    links = Links()
    links.watch("e1", None, None, owner=ALICE)
    steps: list[int] = []

    async def progress(step: int) -> None:
        steps.append(step)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(links.track, "e1", ALICE, progress)
        await anyio.sleep(0.05)
        await links.complete("e1")
    assert steps == [1]
    await links.track("e1", ALICE, progress)  # complete already: at once
    assert steps == [1]


@pytest.mark.parametrize(("elicitation_id", "owner"), [("e1", BOB), ("never-sent", ALICE)])
async def test_another_clients_link_and_an_unknown_one_get_the_same_error(
    elicitation_id: str, owner: object
) -> None:
    links = Links()
    links.watch("e1", None, None, owner=ALICE)

    async def progress(step: int) -> None:
        raise AssertionError("nothing to report on a link that is not yours")

    with pytest.raises(MCPError) as refused:
        await links.track(elicitation_id, owner, progress)
    assert str(refused.value) == f"unknown elicitation {elicitation_id!r}"


async def test_a_link_resolved_by_the_gateway_is_not_announced_twice() -> None:
    sent: list[str] = []

    class Session:
        async def send_elicit_complete(self, elicitation_id: str) -> None:
            sent.append(elicitation_id)

    links = Links()
    links.watch("e1", Session(), 7, owner=ALICE)
    links.resolved("e1")  # told its client itself (the 2026-07-28 upstream's case)
    await links.complete("e1")
    assert sent == []
    links.watch("e2", Session(), 8, owner=ALICE)
    await links.complete("e2")  # the upstream's notice: passed on once
    await links.complete("e2")
    assert sent == ["e2"]
