"""The Redis engine: the whole store contract on a real Redis (``REDIS_URL``, by default the
machine's own on 127.0.0.1:6379), then what only Redis has to show: the key prefix, TTLs,
atomicity under concurrent callers, the finish feed, errors that name what is wrong."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from mcp_elicit.stores import LIVE, FlowStatus, SealedSecret, Store, StoreError, open_store
from mcp_elicit.stores.redis import RETENTION, RedisStore
from tests import markers
from tests.peers import missing
from tests.store_contract import (
    NOW,
    FeedContract,
    StoreContract,
    TaskContract,
    TaskFeedContract,
    flow,
    store_fixture,
    task,
)

pytestmark = [pytest.mark.anyio, pytest.mark.services]

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


@asynccontextmanager
async def redis_store(tmp_path: Path | None = None) -> AsyncIterator[RedisStore]:
    """An empty store under a prefix of its own; its keys deleted afterwards."""
    markers.require("services")
    prefix = f"test-{uuid.uuid4().hex}:"
    store = open_store(f"{REDIS_URL}?prefix={prefix}")
    assert isinstance(store, RedisStore)
    try:
        await store._redis.ping()
    except Exception as error:
        await store.aclose()
        missing(f"Redis at {REDIS_URL} ({error}); start it: see README")
    try:
        yield store
    finally:
        keys = [k async for k in store._redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await store._redis.delete(*keys)
        await store.aclose()


store = store_fixture({"redis": redis_store})


class TestRedisContract(StoreContract, FeedContract, TaskContract, TaskFeedContract):
    """The contract, unchanged, on Redis."""


# -- what only Redis has to show ---------------------------------------------------------------


async def test_two_prefixes_are_two_stores() -> None:
    async with redis_store() as one, redis_store() as other:
        await one.create_flow(flow())
        await one.put_secret(SealedSecret("u", "k", b"x", NOW, "s"))
        assert await other.get_flow("flow-1") is None
        assert await other.get_secret("u", "k", server="s") is None
        assert await one.get_flow("flow-1") is not None


async def test_overlapping_prefixes_do_not_reach_each_others_flows() -> None:
    """Issue 30, finding 16: deployments under "P:" and "P:flow:x:" with the same server id;
    the first read the second's flow "flow-1" through the id "x:flow:flow-1"."""
    async with redis_store() as outer:
        inner = open_store(f"{REDIS_URL}?prefix={outer.prefix}flow:x:")
        assert isinstance(inner, RedisStore)
        try:
            await inner.create_flow(flow())
            crafted = "x:flow:flow-1"
            assert await outer.get_flow(crafted) is None
            assert await outer.flow_result(crafted) is None
            moved = await outer.set_flow_status(
                crafted, FlowStatus.OPENED, expected=LIVE, now=NOW + 1
            )
            assert moved is None
            assert await outer.complete_flow(crafted, now=NOW + 1, result=b"x") is None
            assert await inner.get_flow("flow-1") == flow()  # untouched
        finally:
            keys = [k async for k in inner._redis.scan_iter(match=f"{inner.prefix}*")]
            if keys:
                await inner._redis.delete(*keys)
            await inner.aclose()


@pytest.mark.parametrize("flow_id", ["x:flow:y", "a\x00b", "../x", "a b", "", "é", "a" * 129])
async def test_an_id_of_another_shape_is_no_flow_and_cannot_be_made(flow_id: str) -> None:
    async with redis_store() as store:
        assert await store.get_flow(flow_id) is None
        with pytest.raises(StoreError, match="not a flow id"):
            await store.create_flow(flow(flow_id))


async def test_every_flow_key_has_a_ttl_and_a_secret_has_none() -> None:
    async with redis_store() as store:
        await store.create_flow(flow(expires_at=NOW + 600))
        await store.put_secret(SealedSecret("u", "k", b"x", NOW, "s"))
        ttls = {
            key.decode(): await store._redis.ttl(key)
            async for key in store._redis.scan_iter(match=f"{store.prefix}*")
        }
        flow_ttl = ttls.pop(f"{store.prefix}flow:flow-1")
        assert 600 + RETENTION - 5 <= flow_ttl <= 600 + RETENTION
        [secret_key] = [k for k in ttls if ":secret:" in k]
        assert ttls.pop(secret_key) == -1  # a vault entry lives until deleted
        assert all(ttl > 0 for key, ttl in ttls.items() if ":live:" in key)
        # Finishing resets it to the retention period.
        await store.complete_flow("flow-1", now=NOW + 1)
        assert await store._redis.ttl(f"{store.prefix}flow:flow-1") <= RETENTION


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("redis://", "not a Redis URL"),
        ("redis://h:notaport/0", "not a Redis URL"),
        ("redis://h/0?prefx=a", "unknown Redis store option 'prefx'"),
        ("redis://h/0?prefix=", "prefix must be non-empty"),
    ],
)
def test_a_bad_url_names_what_is_wrong(url: str, said: str) -> None:
    with pytest.raises(StoreError, match=said):
        open_store(url)


def test_the_password_is_never_shown() -> None:
    store = open_store("redis://app:hunter2@127.0.0.1:6379/0")
    assert "hunter2" not in store.url and "hunter2" not in repr(store)


async def test_an_unreachable_redis_is_a_store_error_without_the_password() -> None:
    store: Store = open_store("redis://app:hunter2@127.0.0.1:1/0")
    try:
        with pytest.raises(
            StoreError, match=r"Redis at redis://app:\*\*\*@127.0.0.1:1/0"
        ) as raised:
            await store.get_flow("x")
        assert "hunter2" not in str(raised.value)
    finally:
        await store.aclose()
    with pytest.raises(StoreError, match="closed"):
        await store.get_flow("x")


# -- a Redis of this test's own, with persistence ----------------------------------------------


def start_redis(folder: Path, port: int) -> subprocess.Popen[bytes]:
    """``redis-server`` on ``port`` keeping an append-only file in ``folder``."""
    markers.require("services")
    server = shutil.which("redis-server")
    if server is None:
        missing("redis-server (Debian's redis-server package)")
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("redis-server did not start")
        time.sleep(0.05)


async def test_a_flow_survives_redis_killed_and_started_again_with_aof(tmp_path: Path) -> None:
    from tests.peer_servers.secret_server import free_port

    port = free_port()
    process = start_redis(tmp_path, port)
    store = open_store(f"redis://127.0.0.1:{port}/0")
    try:
        await store.create_flow(flow())
        await store.put_secret(SealedSecret("user-1", "api_key", b"\x00sealed", NOW, ""))
        process.kill()  # SIGKILL: no chance to save anything more
        process.wait()
        with pytest.raises(StoreError, match=f"Redis at redis://127.0.0.1:{port}/0"):
            await store.get_flow("flow-1")  # down: a StoreError, not a crash
        process = start_redis(tmp_path, port)
        # The same store object goes on: the flow and the secret are there, and it completes.
        assert await store.get_flow("flow-1") == flow()
        done = await store.complete_flow("flow-1", now=NOW + 1, result=b"r")
        assert done is not None and done.status.value == "completed"
        kept = await store.get_secret("user-1", "api_key", server="")
        assert kept is not None and kept.sealed == b"\x00sealed"
    finally:
        await store.aclose()
        process.kill()
        process.wait()


async def test_a_task_dropped_by_its_ttl_leaves_the_sweep_too() -> None:
    """The hash's TTL is a backstop: a task Redis dropped itself is no stale task."""
    async with redis_store() as store:
        await store.create_task(task(lease_until=NOW))
        assert await store.stale_tasks(NOW + 1) == ["task-1"]
        await store._redis.delete(f"{store.prefix}task:task-1")
        assert await store.stale_tasks(NOW + 1) == []
        assert await store._redis.zcard(f"{store.prefix}tasks-lease") == 0


async def test_every_task_key_has_a_ttl_but_the_shared_indexes() -> None:
    async with redis_store() as store:
        await store.create_task(task(expires_at=NOW + 600))
        ttls = {
            key.decode().removeprefix(store.prefix): await store._redis.ttl(key)
            async for key in store._redis.scan_iter(match=f"{store.prefix}*")
        }
        assert 600 + RETENTION - 5 <= ttls.pop("task:task-1") <= 600 + RETENTION
        [owner] = [k for k in ttls if k.startswith("tasks-of:")]
        assert ttls.pop(owner) >= 600 + RETENTION - 5
        assert ttls == {"tasks-lease": -1, "tasks-expiry": -1}
