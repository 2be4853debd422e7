"""The store contract as tests, for every engine.

An engine joins by adding a factory: an async context manager that takes pytest's
``tmp_path`` and yields an open, EMPTY store (and closes and cleans it up afterwards), e.g.

    @asynccontextmanager
    async def redis_store(tmp_path: Path) -> AsyncIterator[Store]:
        store = open_store(os.environ["TEST_REDIS_URL"])
        ...  # empty it
        yield store
        await store.aclose()

added to ``FACTORIES`` in ``tests/stores/test_stores.py`` (or to a module of its own that defines a
``store`` fixture with :func:`store_fixture` and subclasses :class:`StoreContract`).
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_elicit.stores import (
    LIVE,
    FlowExists,
    FlowRecord,
    FlowStatus,
    SealedSecret,
    Store,
    StoreError,
)

StoreFactory = Callable[[Path], AbstractAsyncContextManager[Store]]

NOW = 1_700_000_000.0
LATER = NOW + 600.0
DETAILS: dict[str, Any] = {
    "message": "Sign in to Example to connect your account",
    "secret": "api_key",
    "nested": {"list": [1, 2.5, True, False, None, "x"], "empty": {}, "none": None},
    "unicode": 'é 日本 🙂 \u0000 "quoted" \\ back',
    "big": 2**53 + 1,
    "small": 0.1,
    "negative": -1e-300,
}


def store_fixture(factories: Mapping[str, StoreFactory]) -> Any:
    """A pytest fixture named ``store``, parametrised over ``factories`` by name."""

    @pytest.fixture(params=sorted(factories))
    async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
        async with factories[request.param](tmp_path) as opened:
            yield opened

    return store


def flow(
    flow_id: str = "flow-1",
    *,
    status: FlowStatus = FlowStatus.PENDING,
    user: str = "user-1",
    created_at: float = NOW,
    updated_at: float = NOW,
    expires_at: float = LATER,
    details: Mapping[str, Any] | None = None,
) -> FlowRecord:
    return FlowRecord(
        id=flow_id,
        user=user,
        purpose="connect",
        status=status,
        created_at=created_at,
        updated_at=updated_at,
        expires_at=expires_at,
        details={"message": "hello"} if details is None else details,
    )


class StoreContract:
    """Every engine passes these. The test module provides a ``store`` fixture."""

    pytestmark = pytest.mark.anyio

    # --- shape --------------------------------------------------------------------------------

    async def test_is_a_store_with_a_url(self, store: Store) -> None:
        assert isinstance(store, Store)
        assert isinstance(store.url, str) and "://" in store.url

    # --- flows: create and get ----------------------------------------------------------------

    async def test_create_then_get_round_trips_every_field(self, store: Store) -> None:
        record = flow(details=DETAILS)
        await store.create_flow(record)
        got = await store.get_flow(record.id)
        assert got == record
        assert got is not None
        assert got.status is FlowStatus.PENDING
        assert all(type(t) is float for t in (got.created_at, got.updated_at, got.expires_at))
        assert got.details["big"] == 2**53 + 1 and got.details["small"] == 0.1

    async def test_every_status_can_be_stored(self, store: Store) -> None:
        for status in FlowStatus:
            await store.create_flow(flow(f"flow-{status}", status=status))
        for status in FlowStatus:
            got = await store.get_flow(f"flow-{status}")
            assert got is not None and got.status is status

    async def test_get_of_a_missing_flow_is_none(self, store: Store) -> None:
        assert await store.get_flow("nope") is None

    async def test_get_does_not_apply_expiry(self, store: Store) -> None:
        await store.create_flow(flow(expires_at=NOW - 1))
        got = await store.get_flow("flow-1")
        assert got is not None and got.status is FlowStatus.PENDING

    async def test_a_taken_id_raises_flow_exists_and_keeps_the_first(self, store: Store) -> None:
        await store.create_flow(flow(user="first"))
        with pytest.raises(FlowExists, match="flow-1"):
            await store.create_flow(flow(user="second"))
        got = await store.get_flow("flow-1")
        assert got is not None and got.user == "first"
        assert issubclass(FlowExists, StoreError)

    async def test_details_that_are_not_json_are_refused(self, store: Store) -> None:
        for bad in ({"when": object()}, {"nan": math.nan}, {"inf": math.inf}):
            with pytest.raises(StoreError):
                await store.create_flow(flow(details=bad))
        assert await store.get_flow("flow-1") is None

    async def test_stored_details_are_a_copy(self, store: Store) -> None:
        details: dict[str, Any] = {"list": [1]}
        await store.create_flow(flow(details=details))
        details["list"].append(2)
        got = await store.get_flow("flow-1")
        assert got is not None and got.details == {"list": [1]}
        got.details["list"].append(3)
        again = await store.get_flow("flow-1")
        assert again is not None and again.details == {"list": [1]}

    async def test_flows_are_independent(self, store: Store) -> None:
        await store.create_flow(flow("a", user="ann"))
        await store.create_flow(flow("b", user="bob"))
        await store.set_flow_status("a", FlowStatus.OPENED, expected=LIVE, now=NOW + 1)
        b = await store.get_flow("b")
        assert b is not None and b.status is FlowStatus.PENDING and b.user == "bob"

    # --- flows: compare-and-set ---------------------------------------------------------------

    async def test_set_status_moves_the_flow_and_stamps_updated_at(self, store: Store) -> None:
        record = flow(details=DETAILS)
        await store.create_flow(record)
        opened = await store.set_flow_status(
            record.id, FlowStatus.OPENED, expected={FlowStatus.PENDING}, now=NOW + 5
        )
        assert opened is not None
        assert opened.status is FlowStatus.OPENED
        assert opened.updated_at == NOW + 5 and type(opened.updated_at) is float
        # Everything else is untouched, and the returned record is what is stored.
        assert opened == FlowRecord(
            record.id,
            record.user,
            record.purpose,
            FlowStatus.OPENED,
            record.created_at,
            NOW + 5,
            record.expires_at,
            DETAILS,
        )
        assert await store.get_flow(record.id) == opened
        done = await store.set_flow_status(
            record.id,
            FlowStatus.COMPLETED,
            expected=[FlowStatus.PENDING, FlowStatus.OPENED],
            now=NOW + 6,
        )
        assert done is not None and done.status is FlowStatus.COMPLETED
        assert done.created_at == NOW and done.updated_at == NOW + 6

    async def test_set_status_from_a_status_not_expected_is_none(self, store: Store) -> None:
        await store.create_flow(flow(status=FlowStatus.OPENED))
        for expected in ({FlowStatus.PENDING}, set(), {FlowStatus.COMPLETED}):
            result = await store.set_flow_status(
                "flow-1", FlowStatus.COMPLETED, expected=expected, now=NOW + 1
            )
            assert result is None
        got = await store.get_flow("flow-1")
        assert got == flow(status=FlowStatus.OPENED)

    async def test_set_status_of_an_expired_flow_is_none(self, store: Store) -> None:
        await store.create_flow(flow("at", expires_at=NOW + 10))
        await store.create_flow(flow("past", expires_at=NOW + 10))
        # expires_at > now is required: at the very second of expiry it is too late.
        for flow_id, now in (("at", NOW + 10), ("past", NOW + 11)):
            result = await store.set_flow_status(
                flow_id, FlowStatus.COMPLETED, expected=LIVE, now=now
            )
            assert result is None
            got = await store.get_flow(flow_id)
            assert got is not None and got.status is FlowStatus.PENDING
            assert got.updated_at == NOW
        just_before = await store.set_flow_status(
            "at", FlowStatus.COMPLETED, expected=LIVE, now=NOW + 9.999
        )
        assert just_before is not None and just_before.status is FlowStatus.COMPLETED

    async def test_set_status_of_a_missing_flow_is_none(self, store: Store) -> None:
        result = await store.set_flow_status(
            "nope", FlowStatus.COMPLETED, expected=set(FlowStatus), now=NOW
        )
        assert result is None
        assert await store.get_flow("nope") is None

    async def test_concurrent_completions_have_exactly_one_winner(self, store: Store) -> None:
        await store.create_flow(flow())
        results: list[FlowRecord | None] = []

        async def complete(i: int) -> None:
            status = FlowStatus.COMPLETED if i % 2 else FlowStatus.DECLINED
            results.append(
                await store.set_flow_status("flow-1", status, expected=LIVE, now=NOW + i)
            )

        async with anyio.create_task_group() as group:
            for i in range(1, 21):
                group.start_soon(complete, i)
        winners = [r for r in results if r is not None]
        assert len(results) == 20 and len(winners) == 1
        assert await store.get_flow("flow-1") == winners[0]

    # --- flows: expiry and purge --------------------------------------------------------------

    async def test_expire_flows_marks_only_live_flows_past_their_expiry(self, store: Store) -> None:
        cases = {
            "pending-past": (FlowStatus.PENDING, NOW - 1, True),
            "opened-past": (FlowStatus.OPENED, NOW - 1, True),
            "pending-at-now": (FlowStatus.PENDING, NOW, True),
            "pending-future": (FlowStatus.PENDING, NOW + 1, False),
            "opened-future": (FlowStatus.OPENED, NOW + 1, False),
            "completed-past": (FlowStatus.COMPLETED, NOW - 1, False),
            "declined-past": (FlowStatus.DECLINED, NOW - 1, False),
            "expired-past": (FlowStatus.EXPIRED, NOW - 1, False),
        }
        for flow_id, (status, expires_at, _) in cases.items():
            await store.create_flow(
                flow(flow_id, status=status, updated_at=NOW - 100, expires_at=expires_at)
            )
        assert await store.expire_flows(NOW) == 3
        for flow_id, (status, _, expires) in cases.items():
            got = await store.get_flow(flow_id)
            assert got is not None
            if expires:
                assert (got.status, got.updated_at) == (FlowStatus.EXPIRED, NOW), flow_id
            else:
                assert (got.status, got.updated_at) == (status, NOW - 100), flow_id
        assert await store.expire_flows(NOW) == 0

    async def test_purge_deletes_only_finished_flows_older_than_before(self, store: Store) -> None:
        cases = {
            "completed-old": (FlowStatus.COMPLETED, NOW - 10, True),
            "declined-old": (FlowStatus.DECLINED, NOW - 10, True),
            "expired-old": (FlowStatus.EXPIRED, NOW - 10, True),
            "completed-at-before": (FlowStatus.COMPLETED, NOW, False),
            "completed-new": (FlowStatus.COMPLETED, NOW + 10, False),
            "pending-old": (FlowStatus.PENDING, NOW - 10, False),
            "opened-old": (FlowStatus.OPENED, NOW - 10, False),
        }
        for flow_id, (status, updated_at, _) in cases.items():
            await store.create_flow(
                flow(flow_id, status=status, updated_at=updated_at, expires_at=NOW - 5)
            )
        assert await store.purge_flows(NOW) == 3
        for flow_id, (_, _, purged) in cases.items():
            assert (await store.get_flow(flow_id) is None) is purged, flow_id
        assert await store.purge_flows(NOW) == 0

    async def test_expire_then_purge(self, store: Store) -> None:
        await store.create_flow(flow(expires_at=NOW))
        assert await store.expire_flows(NOW + 1) == 1
        assert await store.purge_flows(NOW + 1) == 0  # updated_at == NOW + 1, not older
        assert await store.purge_flows(NOW + 2) == 1
        assert await store.get_flow("flow-1") is None

    # --- secrets ------------------------------------------------------------------------------

    async def test_put_then_get_a_secret(self, store: Store) -> None:
        secret = SealedSecret("user-1", "api_key", b"\x00sealed\xff", NOW)
        await store.put_secret(secret)
        got = await store.get_secret("user-1", "api_key")
        assert got == secret and got is not None and type(got.sealed) is bytes
        assert type(got.created_at) is float

    async def test_put_replaces_the_secret(self, store: Store) -> None:
        await store.put_secret(SealedSecret("user-1", "api_key", b"old", NOW))
        await store.put_secret(SealedSecret("user-1", "api_key", b"new", NOW + 1))
        got = await store.get_secret("user-1", "api_key")
        assert got == SealedSecret("user-1", "api_key", b"new", NOW + 1)

    async def test_secrets_are_keyed_by_user_and_name(self, store: Store) -> None:
        for user in ("ann", "bob"):
            for name in ("a", "b"):
                await store.put_secret(SealedSecret(user, name, f"{user}/{name}".encode(), NOW))
        for user in ("ann", "bob"):
            for name in ("a", "b"):
                got = await store.get_secret(user, name)
                assert got is not None and got.sealed == f"{user}/{name}".encode()
        assert await store.delete_secret("ann", "a") is True
        assert await store.get_secret("ann", "a") is None
        assert await store.get_secret("ann", "b") is not None
        assert await store.get_secret("bob", "a") is not None

    async def test_missing_secret_is_none_and_delete_says_whether_it_was_there(
        self, store: Store
    ) -> None:
        assert await store.get_secret("user-1", "nope") is None
        assert await store.delete_secret("user-1", "nope") is False
        await store.put_secret(SealedSecret("user-1", "api_key", b"x", NOW))
        assert await store.delete_secret("user-1", "api_key") is True
        assert await store.delete_secret("user-1", "api_key") is False
        assert await store.get_secret("user-1", "api_key") is None

    @pytest.mark.parametrize(
        "sealed",
        [b"", bytes(range(256)), b"\x00" * 64, bytes(range(256)) * 4096],
        ids=["empty", "every-byte", "nuls", "one-mib"],
    )
    async def test_sealed_bytes_are_preserved_exactly(self, store: Store, sealed: bytes) -> None:
        await store.put_secret(SealedSecret("user-1", "blob", sealed, NOW))
        got = await store.get_secret("user-1", "blob")
        assert got is not None and got.sealed == sealed and type(got.sealed) is bytes

    # --- closing ------------------------------------------------------------------------------

    async def test_aclose_is_idempotent_and_a_closed_store_refuses_work(self, store: Store) -> None:
        await store.create_flow(flow())
        await store.aclose()
        await store.aclose()
        with pytest.raises(StoreError, match="closed"):
            await store.get_flow("flow-1")
        with pytest.raises(StoreError, match="closed"):
            await store.put_secret(SealedSecret("user-1", "a", b"x", NOW))
