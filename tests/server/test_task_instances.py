"""Two server instances on one Redis or PostgreSQL store, and a 2026-07-28 extension task
(``io.modelcontextprotocol/tasks``) started through A (design ``docs/tasks-design.md`` §4, "B
serving a task that runs on A"; rule 13 of ``mcp_elicit.server.tasks``).

Both are real server processes (``tests/peer_servers/secret_server.py --tasks``) with the same
deployment key, sharing a Redis prefix or a PostgreSQL schema of this test's own. The client
is a raw 2026-07-28 client declaring the extension in each request's ``_meta``. A runs the
tool; B answers everything else:

- ``tasks/get`` through B shows A's question; ``tasks/update`` through B answers it; A's tool
  goes on (woken by the store's task feed) and B's ``tasks/get`` returns the result;
- kill -9 of A while the task waits for input: through B the task is ``failed`` with the
  "stopped" reason within the stated bound (20 s: 15 s lease and a 5 s sweep, plus the
  inline check of ``tasks/get``), and the keys answered before are still named;
- ``tasks/cancel`` through B cancels it, and A's tool does not finish it afterwards;
- a graceful stop of A (SIGTERM) fails it at once ("The server stopped"), not after the lease.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.peer_servers.secret_server import HttpServer, Wire, mcp_http, start_http
from tests.server.instances_support import shared_store
from tests.server.task_support import RawModern

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.services]

BOUND = 20.0
"""Design §4: a task is failed within 20 s of its owner's kill -9."""
SKEW = 2.0
"""Slack for the clocks of one machine and a poll's round trip (design §4 allows 1 s of skew
between hosts)."""
ADA = {"action": "accept", "content": {"name": "Ada"}}
GRACE = {"action": "accept", "content": {"name": "Grace"}}


@asynccontextmanager
async def two_instances(
    tmp_path: Path, key: str, engine: str
) -> AsyncIterator[tuple[HttpServer, HttpServer]]:
    async with shared_store(engine) as url:
        logs = tmp_path / "logs"
        a = start_http(store=url, key=key, logs=logs, name="a", extra=["--tasks"])
        b = start_http(store=url, key=key, logs=logs, name="b", extra=["--tasks"])
        try:
            yield a, b
        finally:
            a.stop()
            b.stop()


@asynccontextmanager
async def client(server: HttpServer) -> AsyncIterator[RawModern]:
    async with mcp_http("alice", Wire()) as http:
        yield RawModern(server.url, http)


async def until(raw: RawModern, task_id: str, wanted: Any, *, within: float) -> dict[str, Any]:
    """Poll ``tasks/get`` until ``wanted(task)`` holds."""
    with anyio.fail_after(within):
        while True:
            got = await raw.result("tasks/get", {"taskId": task_id})
            if wanted(got):
                return got
            await anyio.sleep(0.1)


def asking(message: str) -> Any:
    def asked(task: dict[str, Any]) -> bool:
        requests = task.get("inputRequests") or {}
        return task["status"] == "input_required" and any(
            r["params"]["message"] == message for r in requests.values()
        )

    return asked


async def test_a_task_on_a_is_read_and_answered_through_b(
    tmp_path: Path, key: str, engine: str
) -> None:
    async with (
        two_instances(tmp_path, key, engine) as (a, b),
        client(a) as on_a,
        client(b) as on_b,
    ):
        created = await on_a.result("tools/call", {"name": "test_task_ask", "arguments": {}})
        assert created["resultType"] == "task"
        task_id = created["taskId"]
        first = await until(on_b, task_id, asking("Who travels?"), within=30)
        assert list(first["inputRequests"]) == ["q-1"]
        acked = await on_b.result(
            "tasks/update", {"taskId": task_id, "inputResponses": {"q-1": ADA}}
        )
        assert acked == {"resultType": "complete"}
        # A's tool got the answer (through the feed, or its poll) and asked again.
        second = await until(on_b, task_id, asking("And who else?"), within=30)
        assert list(second["inputRequests"]) == ["q-2"]
        await on_b.result("tasks/update", {"taskId": task_id, "inputResponses": {"q-2": GRACE}})
        done = await until(on_b, task_id, lambda t: t["status"] == "completed", within=30)
        assert done["result"]["content"][0]["text"] == "booked Ada and Grace"
        # A reads the same record.
        seen_on_a = await on_a.result("tasks/get", {"taskId": task_id})
        assert seen_on_a["status"] == "completed"


async def asked_on_a_seen_on_b(on_a: RawModern, on_b: RawModern) -> str:
    """A task started through A, its first question shown through B: the task's id."""
    created = await on_a.result("tools/call", {"name": "test_task_ask", "arguments": {}})
    task_id: str = created["taskId"]
    await until(on_b, task_id, asking("Who travels?"), within=30)
    return task_id


async def test_kill_9_of_the_owner_fails_the_task_through_b_within_the_bound(
    tmp_path: Path, key: str, engine: str
) -> None:
    async with (
        two_instances(tmp_path, key, engine) as (a, b),
        client(a) as on_a,
        client(b) as on_b,
    ):
        task_id = await asked_on_a_seen_on_b(on_a, on_b)
        await on_b.result("tasks/update", {"taskId": task_id, "inputResponses": {"q-1": ADA}})
        await until(on_b, task_id, asking("And who else?"), within=30)

        a.kill()
        killed = time.monotonic()
        failed = await until(on_b, task_id, lambda t: t["status"] != "input_required", within=60)
        took = time.monotonic() - killed
        assert failed["status"] == "failed", failed
        assert took <= BOUND + SKEW, f"failed {took:.1f} s after the kill"
        error = failed["error"]
        assert error["code"] == -32603
        assert "stopped" in error["message"]
        assert error["data"]["answeredKeys"] == ["q-1"]  # named, never their values
        assert "Ada" not in str(failed)
        # The answer to the next question has nowhere to go: the task stays as it ended.
        acked = await on_b.result(
            "tasks/update", {"taskId": task_id, "inputResponses": {"q-2": GRACE}}
        )
        assert acked["resultType"] == "complete"
        again = await on_b.result("tasks/get", {"taskId": task_id})
        assert again["status"] == "failed"


async def test_a_task_on_a_is_cancelled_through_b(tmp_path: Path, key: str, engine: str) -> None:
    async with (
        two_instances(tmp_path, key, engine) as (a, b),
        client(a) as on_a,
        client(b) as on_b,
    ):
        task_id = await asked_on_a_seen_on_b(on_a, on_b)
        assert await on_b.result("tasks/cancel", {"taskId": task_id}) == {"resultType": "complete"}
        seen_on_a = await on_a.result("tasks/get", {"taskId": task_id})
        assert seen_on_a["status"] == "cancelled"
        # A's tool was stopped, not finished later: the task stays cancelled.
        await anyio.sleep(1.0)
        assert (await on_b.result("tasks/get", {"taskId": task_id}))["status"] == "cancelled"


async def test_a_graceful_stop_of_the_owner_fails_its_task_at_once(
    tmp_path: Path, key: str, engine: str
) -> None:
    async with (
        two_instances(tmp_path, key, engine) as (a, b),
        client(a) as on_a,
        client(b) as on_b,
    ):
        task_id = await asked_on_a_seen_on_b(on_a, on_b)
        stopping = time.monotonic()
        a.stop()
        failed = await until(on_b, task_id, lambda t: t["status"] != "input_required", within=30)
        # Not the sweeper after the lease (15 s): A failed it on its way out.
        assert time.monotonic() - stopping < 10.0
        assert failed["status"] == "failed"
        assert failed["error"]["message"] == "The server stopped"
