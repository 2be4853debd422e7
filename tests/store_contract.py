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
    FinishFeed,
    FlowExists,
    FlowRecord,
    FlowStatus,
    SealedSecret,
    Store,
    StoreError,
    TaskExists,
    TaskFeed,
    TaskRecord,
    TooManyFlows,
    TooManyTasks,
    open_store,
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
    server: str = "",
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
        server=server,
    )


def sealed(user: str = "user-1", name: str = "api_key", value: bytes = b"x", **kw: Any) -> Any:
    """A vault entry (``server`` and ``created_at`` by keyword)."""
    return SealedSecret(user, name, value, kw.get("created_at", NOW), kw.get("server", "srv"))


class StoreContract:
    """Every engine passes these. The test module provides a ``store`` fixture."""

    pytestmark = pytest.mark.anyio

    # --- shape --------------------------------------------------------------------------------

    async def test_is_a_store_with_a_url(self, store: Store) -> None:
        assert isinstance(store, Store)
        assert isinstance(store.url, str) and "://" in store.url

    # --- flows: create and get ----------------------------------------------------------------

    async def test_create_then_get_round_trips_every_field(self, store: Store) -> None:
        record = flow(details=DETAILS, server='["weather","/srv/w/main.py"] é')
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

    @pytest.mark.parametrize(
        "flow_id", ["a\x00b", "\x00", "x:flow:y", "../x", "a b", "", "é", "\ud800", "a" * 129]
    )
    async def test_an_id_of_another_shape_is_no_flow_and_no_error(
        self, store: Store, flow_id: str
    ) -> None:
        """Ids come from a page's URL: one of another shape (a NUL, a separator, a lone
        surrogate) reads as no flow on every engine, never as an error of the engine."""
        assert await store.get_flow(flow_id) is None
        assert await store.flow_result(flow_id) is None
        opened = await store.set_flow_status(flow_id, FlowStatus.OPENED, expected=LIVE, now=NOW)
        assert opened is None
        assert await store.complete_flow(flow_id, now=NOW, result=b"r") is None
        with pytest.raises(StoreError, match="not a flow id"):
            await store.create_flow(flow(flow_id))

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

    # --- flows: the limit on live flows per owner ---------------------------------------------

    async def test_create_with_a_limit_refuses_past_it(self, store: Store) -> None:
        for i in range(3):
            await store.create_flow(flow(f"f{i}", server="s"), limit=3)
        with pytest.raises(TooManyFlows) as raised:
            await store.create_flow(flow("f3", server="s"), limit=3)
        assert raised.value.limit == 3 and isinstance(raised.value, StoreError)
        assert await store.get_flow("f3") is None
        # Another user, another server, or no limit: not counted against this owner.
        await store.create_flow(flow("other-user", user="user-2", server="s"), limit=3)
        await store.create_flow(flow("other-server", server="t"), limit=3)
        await store.create_flow(flow("no-limit", server="s"))
        # A taken id is still FlowExists, limit or not.
        with pytest.raises(FlowExists):
            await store.create_flow(flow("f0", server="s"), limit=100)

    async def test_the_limit_counts_only_live_unexpired_flows(self, store: Store) -> None:
        for status in FlowStatus:
            if status not in LIVE:
                await store.create_flow(flow(f"done-{status}", status=status, server="s"))
        await store.create_flow(flow("overdue", expires_at=NOW, server="s"))  # not after NOW
        await store.create_flow(flow("opened", status=FlowStatus.OPENED, server="s"))
        await store.create_flow(flow("new", server="s"), limit=2)
        with pytest.raises(TooManyFlows):
            await store.create_flow(flow("one-too-many", server="s"), limit=2)
        # Later, past the live flows' expiry, they no longer count either.
        await store.create_flow(flow("later", server="s", created_at=LATER), limit=1)

    async def test_concurrent_creates_never_pass_the_limit(self, store: Store) -> None:
        refused: list[str] = []

        async def create(i: int) -> None:
            try:
                await store.create_flow(flow(f"f{i}", server="s"), limit=5)
            except TooManyFlows:
                refused.append(f"f{i}")

        async with anyio.create_task_group() as group:
            for i in range(20):
                group.start_soon(create, i)
        assert len(refused) == 15
        stored = [i for i in range(20) if await store.get_flow(f"f{i}") is not None]
        assert len(stored) == 5

    # --- flows: completing with a result, in one step -----------------------------------------

    @pytest.mark.parametrize("status", sorted(LIVE))
    async def test_complete_flow_keeps_the_result_and_the_secret(
        self, store: Store, status: FlowStatus
    ) -> None:
        await store.create_flow(flow(status=status, server="s", details=DETAILS))
        entry = sealed(server="s", value=b"\x00entry\xff")
        done = await store.complete_flow("flow-1", now=NOW + 5, result=b"\x00r\xff", secret=entry)
        assert done == FlowRecord(
            "flow-1",
            "user-1",
            "connect",
            FlowStatus.COMPLETED,
            NOW,
            NOW + 5,
            LATER,
            DETAILS,
            "s",
        )
        assert type(done.updated_at) is float
        assert await store.get_flow("flow-1") == done
        result = await store.flow_result("flow-1")
        assert result == b"\x00r\xff" and type(result) is bytes
        assert await store.get_secret("user-1", "api_key", server="s") == entry

    async def test_complete_flow_without_a_result_or_a_secret(self, store: Store) -> None:
        await store.create_flow(flow())
        done = await store.complete_flow("flow-1", now=NOW + 1)
        assert done is not None and done.status is FlowStatus.COMPLETED
        assert await store.flow_result("flow-1") is None

    @pytest.mark.parametrize(
        ("status", "now"),
        [
            (FlowStatus.COMPLETED, NOW + 1),
            (FlowStatus.DECLINED, NOW + 1),
            (FlowStatus.EXPIRED, NOW + 1),
            (FlowStatus.PENDING, LATER),  # at the second of its expiry: too late
            (FlowStatus.OPENED, LATER + 1),
        ],
    )
    async def test_complete_flow_of_a_flow_that_is_not_live_writes_nothing(
        self, store: Store, status: FlowStatus, now: float
    ) -> None:
        """A Save that lost to a Decline, or to the expiry: the flow is unchanged, and neither
        the result nor the secret is stored (break 2 of issue 13)."""
        before = flow(status=status, server="s")
        await store.create_flow(before)
        entry = sealed(server="s")
        assert await store.complete_flow("flow-1", now=now, result=b"r", secret=entry) is None
        assert await store.get_flow("flow-1") == before
        assert await store.flow_result("flow-1") is None
        assert await store.get_secret("user-1", "api_key", server="s") is None
        missing = await store.complete_flow("nope", now=NOW, result=b"r", secret=entry)
        assert missing is None and await store.flow_result("nope") is None
        assert await store.get_secret("user-1", "api_key", server="s") is None

    async def test_complete_racing_decline_has_one_winner_and_stores_only_if_it_won(
        self, store: Store
    ) -> None:
        for i in range(10):
            await store.create_flow(flow(f"f{i}", server="s"))
        won: dict[str, str] = {}

        async def complete(flow_id: str) -> None:
            entry = sealed(name=flow_id, server="s")
            if await store.complete_flow(flow_id, now=NOW + 1, result=b"r", secret=entry):
                won.setdefault(flow_id, "completed")

        async def decline(flow_id: str) -> None:
            declined = FlowStatus.DECLINED
            if await store.set_flow_status(flow_id, declined, expected=LIVE, now=NOW + 1):
                won.setdefault(flow_id, "declined")

        async with anyio.create_task_group() as group:
            for i in range(10):
                first, second = (complete, decline) if i % 2 else (decline, complete)
                group.start_soon(first, f"f{i}")
                group.start_soon(second, f"f{i}")
        assert len(won) == 10
        for flow_id, winner in won.items():
            got = await store.get_flow(flow_id)
            assert got is not None and got.status.value == winner
            stored = await store.get_secret("user-1", flow_id, server="s")
            assert (stored is not None) is (winner == "completed"), flow_id
            assert ((await store.flow_result(flow_id)) is not None) is (winner == "completed")

    async def test_the_result_is_purged_with_its_flow(self, store: Store) -> None:
        await store.create_flow(flow())
        await store.complete_flow("flow-1", now=NOW + 1, result=b"r")
        assert await store.purge_flows(NOW + 2) == 1
        assert await store.flow_result("flow-1") is None
        await store.create_flow(flow())  # the id is free again, without the old result
        assert await store.flow_result("flow-1") is None

    # --- secrets ------------------------------------------------------------------------------

    async def test_put_then_get_a_secret(self, store: Store) -> None:
        secret = sealed(value=b"\x00sealed\xff")
        await store.put_secret(secret)
        got = await store.get_secret("user-1", "api_key", server="srv")
        assert got == secret and got is not None and type(got.sealed) is bytes
        assert type(got.created_at) is float

    async def test_put_replaces_the_secret(self, store: Store) -> None:
        await store.put_secret(sealed(value=b"old"))
        await store.put_secret(sealed(value=b"new", created_at=NOW + 1))
        got = await store.get_secret("user-1", "api_key", server="srv")
        assert got == sealed(value=b"new", created_at=NOW + 1)

    async def test_secrets_are_keyed_by_server_user_and_name(self, store: Store) -> None:
        keys = [(s, u, n) for s in ("s1", "s2", "") for u in ("ann", "bob") for n in ("a", "b")]
        for server, user, name in keys:
            value = f"{server}/{user}/{name}".encode()
            await store.put_secret(sealed(user, name, value, server=server))
        for server, user, name in keys:
            got = await store.get_secret(user, name, server=server)
            assert got is not None and got.sealed == f"{server}/{user}/{name}".encode()
            assert (got.server, got.user, got.name) == (server, user, name)
        assert await store.delete_secret("ann", "a", server="s1") is True
        assert await store.get_secret("ann", "a", server="s1") is None
        for server, user, name in keys[1:]:
            assert await store.get_secret(user, name, server=server) is not None

    async def test_missing_secret_is_none_and_delete_says_whether_it_was_there(
        self, store: Store
    ) -> None:
        assert await store.get_secret("user-1", "nope", server="srv") is None
        assert await store.delete_secret("user-1", "nope", server="srv") is False
        await store.put_secret(sealed())
        assert await store.get_secret("user-1", "api_key", server="other") is None
        assert await store.delete_secret("user-1", "api_key", server="other") is False
        assert await store.delete_secret("user-1", "api_key", server="srv") is True
        assert await store.delete_secret("user-1", "api_key", server="srv") is False
        assert await store.get_secret("user-1", "api_key", server="srv") is None

    @pytest.mark.parametrize(
        "raw",
        [b"", bytes(range(256)), b"\x00" * 64, bytes(range(256)) * 4096],
        ids=["empty", "every-byte", "nuls", "one-mib"],
    )
    async def test_sealed_bytes_are_preserved_exactly(self, store: Store, raw: bytes) -> None:
        await store.put_secret(sealed(name="blob", value=raw))
        got = await store.get_secret("user-1", "blob", server="srv")
        assert got is not None and got.sealed == raw and type(got.sealed) is bytes
        await store.create_flow(flow())
        await store.complete_flow("flow-1", now=NOW + 1, result=raw)
        assert await store.flow_result("flow-1") == raw

    # --- ended browser sessions ---------------------------------------------------------------

    async def test_a_session_never_ended_is_not_ended(self, store: Store) -> None:
        assert await store.session_ended("session-1", now=NOW) is False

    async def test_an_ended_session_stays_ended_until_it_would_have_expired(
        self, store: Store
    ) -> None:
        await store.end_session("session-1", until=NOW + 100, now=NOW)
        assert await store.session_ended("session-1", now=NOW) is True
        assert await store.session_ended("session-1", now=NOW + 99.5) is True
        assert await store.session_ended("session-1", now=NOW + 100) is False
        assert await store.session_ended("session-2", now=NOW) is False

    async def test_ending_a_session_again_never_shortens_it(self, store: Store) -> None:
        await store.end_session("session-1", until=NOW + 100, now=NOW)
        await store.end_session("session-1", until=NOW + 10, now=NOW + 1)
        assert await store.session_ended("session-1", now=NOW + 50) is True
        await store.end_session("session-1", until=NOW + 200, now=NOW + 2)
        assert await store.session_ended("session-1", now=NOW + 150) is True

    async def test_ending_a_session_already_expired_keeps_nothing_it_needs(
        self, store: Store
    ) -> None:
        await store.end_session("session-1", until=NOW - 1, now=NOW)
        assert await store.session_ended("session-1", now=NOW) is False

    @pytest.mark.parametrize("session_id", ["a:b", "a\x00b", "", "é", "a" * 129])
    async def test_a_session_id_of_another_shape_is_a_store_error(
        self, store: Store, session_id: str
    ) -> None:
        with pytest.raises(StoreError, match="not a session id"):
            await store.end_session(session_id, until=NOW + 1, now=NOW)
        with pytest.raises(StoreError, match="not a session id"):
            await store.session_ended(session_id, now=NOW)

    # --- callers at once ------------------------------------------------------------------------

    async def test_twenty_creates_at_once_with_a_limit_of_five_store_five(
        self, store: Store
    ) -> None:
        refused: list[int] = []

        async def create(n: int) -> None:
            try:
                await store.create_flow(flow(f"f{n}"), limit=5)
            except TooManyFlows:
                refused.append(n)

        async with anyio.create_task_group() as tasks:
            for n in range(20):
                tasks.start_soon(create, n)
        stored = [n for n in range(20) if await store.get_flow(f"f{n}") is not None]
        assert len(stored) == 5 and len(refused) == 15

    async def test_ten_completions_at_once_exactly_one_wins(self, store: Store) -> None:
        await store.create_flow(flow())
        won: list[int] = []

        async def complete(n: int) -> None:
            secret = SealedSecret("user-1", "api_key", f"v{n}".encode(), NOW, "")
            done = await store.complete_flow(
                "flow-1", now=NOW + 1, result=b"r%d" % n, secret=secret
            )
            if done is not None:
                won.append(n)

        async with anyio.create_task_group() as tasks:
            for n in range(10):
                tasks.start_soon(complete, n)
        [winner] = won
        assert await store.flow_result("flow-1") == b"r%d" % winner
        kept = await store.get_secret("user-1", "api_key", server="")
        assert kept is not None and kept.sealed == f"v{winner}".encode()

    # --- closing ------------------------------------------------------------------------------

    async def test_aclose_is_idempotent_and_a_closed_store_refuses_work(self, store: Store) -> None:
        await store.create_flow(flow())
        await store.aclose()
        await store.aclose()
        with pytest.raises(StoreError, match="closed"):
            await store.get_flow("flow-1")
        with pytest.raises(StoreError, match="closed"):
            await store.put_secret(sealed())
        with pytest.raises(StoreError, match="closed"):
            await store.complete_flow("flow-1", now=NOW, result=b"r")
        with pytest.raises(StoreError, match="closed"):
            await store.flow_result("flow-1")


class FeedContract:
    """Engines with a :class:`FinishFeed` pass these too. ``open_store(store.url)`` must open
    another instance on the same data (test URLs carry no password)."""

    pytestmark = pytest.mark.anyio

    async def test_the_finish_feed_carries_ids_to_another_instance(self, store: Store) -> None:
        assert isinstance(store, FinishFeed)
        other = open_store(store.url)
        assert isinstance(other, FinishFeed)
        heard: list[str] = []
        try:
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    listening = anyio.Event()

                    async def listen() -> None:
                        async for flow_id in other.finished_flows(listening.set):
                            heard.append(flow_id)
                            return

                    tasks.start_soon(listen)
                    # Once listening() was called, one announcement is enough: none is
                    # missed after the subscription is in place.
                    await listening.wait()
                    await store.announce_finished("flow-9")
        finally:
            await other.aclose()
        assert heard == ["flow-9"]


# --- tasks ------------------------------------------------------------------------------------


def task(
    task_id: str = "task-1",
    *,
    server: str = "srv",
    user: str = "user-1",
    version: int = 1,
    status: str = "working",
    terminal: bool = False,
    created_at: float = NOW,
    expires_at: float = LATER,
    lease_until: float = NOW + 15,
    payload: bytes = b"\x00sealed\xff",
) -> TaskRecord:
    return TaskRecord(
        id=task_id,
        server=server,
        user=user,
        version=version,
        status=status,
        terminal=terminal,
        created_at=created_at,
        expires_at=expires_at,
        lease_until=lease_until,
        payload=payload,
    )


class TaskContract:
    """Task records, on every engine: the store keeps them and compares versions, nothing
    more (the rules are the tasks layer's)."""

    pytestmark = pytest.mark.anyio

    async def test_create_then_get_round_trips_every_field(self, store: Store) -> None:
        record = task(server='["weather","/srv/w/main.py"] é', payload=bytes(range(256)) * 3)
        await store.create_task(record)
        got = await store.get_task(record.id)
        assert got == record
        assert got is not None and type(got.payload) is bytes and got.terminal is False
        assert all(type(t) is float for t in (got.created_at, got.expires_at, got.lease_until))

    async def test_a_missing_task_is_none(self, store: Store) -> None:
        assert await store.get_task("nope") is None

    @pytest.mark.parametrize("task_id", ["a\x00b", "x:task:y", "../x", "", "é", "a" * 129])
    async def test_an_id_of_another_shape_is_no_task_and_cannot_be_made(
        self, store: Store, task_id: str
    ) -> None:
        assert await store.get_task(task_id) is None
        assert not await store.replace_task(task(task_id, version=2), expected_version=1)
        assert await store.tasks_of("srv", "user-1", after=task_id) == []
        with pytest.raises(StoreError, match="not a task id"):
            await store.create_task(task(task_id))

    async def test_a_taken_id_raises_task_exists_and_keeps_the_first(self, store: Store) -> None:
        await store.create_task(task(payload=b"first"))
        with pytest.raises(TaskExists):
            await store.create_task(task(payload=b"second"))
        with pytest.raises(TaskExists):
            await store.create_task(task(payload=b"second"), limit=100)
        got = await store.get_task("task-1")
        assert got is not None and got.payload == b"first"

    async def test_replace_is_a_compare_and_set_on_the_version(self, store: Store) -> None:
        await store.create_task(task())
        moved = task(version=2, status="input_required", lease_until=NOW + 30, payload=b"v2")
        assert await store.replace_task(moved, expected_version=1)
        assert await store.get_task("task-1") == moved
        stale = task(version=2, status="cancelled", terminal=True, payload=b"late")
        assert not await store.replace_task(stale, expected_version=1)
        assert await store.get_task("task-1") == moved

    async def test_replace_keeps_the_owner_and_the_creation_time(self, store: Store) -> None:
        await store.create_task(task())
        other = task(server="other", user="someone", created_at=NOW + 5, version=2)
        assert await store.replace_task(other, expected_version=1)
        got = await store.get_task("task-1")
        assert got is not None and (got.server, got.user, got.created_at) == ("srv", "user-1", NOW)
        assert got.version == 2

    async def test_replace_of_a_missing_task_writes_nothing(self, store: Store) -> None:
        assert not await store.replace_task(task(version=2), expected_version=1)
        assert await store.get_task("task-1") is None

    async def test_many_writers_at_one_version_have_exactly_one_winner(self, store: Store) -> None:
        await store.create_task(task())
        won: list[int] = []

        async def write(n: int) -> None:
            mine = task(version=2, payload=b"writer-%d" % n)
            if await store.replace_task(mine, expected_version=1):
                won.append(n)

        async with anyio.create_task_group() as tasks:
            for n in range(20):
                tasks.start_soon(write, n)
        [winner] = won
        got = await store.get_task("task-1")
        assert got is not None and got.payload == b"writer-%d" % winner and got.version == 2

    async def test_the_limit_counts_every_stored_task_of_the_owner(self, store: Store) -> None:
        await store.create_task(task("t1"), limit=2)
        await store.create_task(task("t2", status="completed", terminal=True), limit=2)
        with pytest.raises(TooManyTasks) as refused:
            await store.create_task(task("t3"), limit=2)
        assert refused.value.limit == 2
        assert await store.get_task("t3") is None
        # Other owners have limits of their own; without a limit nothing is counted.
        await store.create_task(task("t4", user="user-2"), limit=2)
        await store.create_task(task("t5", server="other"), limit=2)
        await store.create_task(task("t6"))

    async def test_concurrent_creates_never_pass_the_limit(self, store: Store) -> None:
        refused: list[int] = []

        async def create(n: int) -> None:
            try:
                await store.create_task(task(f"t{n}"), limit=5)
            except TooManyTasks:
                refused.append(n)

        async with anyio.create_task_group() as tasks:
            for n in range(20):
                tasks.start_soon(create, n)
        stored = [n for n in range(20) if await store.get_task(f"t{n}") is not None]
        assert len(stored) == 5 and len(refused) == 15

    async def test_tasks_of_pages_an_owners_tasks_oldest_first(self, store: Store) -> None:
        # Created out of order; "b" and "c" at the same moment go by id.
        for task_id, at in [("d", NOW + 3), ("c", NOW + 1), ("a", NOW), ("b", NOW + 1)]:
            await store.create_task(task(task_id, created_at=at))
        await store.create_task(task("x", user="user-2"))
        await store.create_task(task("y", server="other"))

        def ids(records: list[TaskRecord]) -> list[str]:
            return [r.id for r in records]

        assert ids(await store.tasks_of("srv", "user-1")) == ["a", "b", "c", "d"]
        assert ids(await store.tasks_of("srv", "user-1", limit=2)) == ["a", "b"]
        assert ids(await store.tasks_of("srv", "user-1", after="b", limit=2)) == ["c", "d"]
        assert ids(await store.tasks_of("srv", "user-1", after="d")) == []
        assert await store.tasks_of("srv", "user-1", limit=0) == []
        # A cursor that is no task of this owner is a stale one: nothing.
        assert await store.tasks_of("srv", "user-1", after="x") == []
        assert await store.tasks_of("srv", "user-1", after="gone") == []
        [mine] = await store.tasks_of("srv", "user-2")
        assert mine == task("x", user="user-2")

    async def test_stale_tasks_are_live_ones_past_their_lease_or_ttl(self, store: Store) -> None:
        now = NOW + 100
        await store.create_task(task("lapsed", lease_until=now - 1))
        await store.create_task(task("lease-ends-now", lease_until=now))  # not yet: lease < now
        await store.create_task(task("expired", lease_until=now + 15, expires_at=now))
        await store.create_task(task("both", lease_until=now - 1, expires_at=now - 1))
        await store.create_task(task("fine", lease_until=now + 15))
        await store.create_task(
            task("done", status="failed", terminal=True, lease_until=0.0, expires_at=now - 1)
        )
        assert sorted(await store.stale_tasks(now)) == ["both", "expired", "lapsed"]

    async def test_a_replace_moves_a_task_in_and_out_of_the_stale_ones(self, store: Store) -> None:
        now = NOW + 100
        await store.create_task(task(lease_until=now - 1))
        assert await store.stale_tasks(now) == ["task-1"]
        renewed = task(version=2, lease_until=now + 15)
        assert await store.replace_task(renewed, expected_version=1)
        assert await store.stale_tasks(now) == []
        lapsed = task(version=3, lease_until=now - 5)
        assert await store.replace_task(lapsed, expected_version=2)
        assert await store.stale_tasks(now) == ["task-1"]
        failed = task(version=4, status="failed", terminal=True, lease_until=now - 5)
        assert await store.replace_task(failed, expected_version=3)
        assert await store.stale_tasks(now) == []

    async def test_purge_deletes_only_terminal_tasks_past_before(self, store: Store) -> None:
        before = NOW + 1000
        await store.create_task(task("old-done", status="completed", terminal=True))
        await store.create_task(task("old-live", lease_until=0.0))
        await store.create_task(
            task("new-done", status="cancelled", terminal=True, expires_at=before)
        )
        assert await store.purge_tasks(before) == 1
        assert await store.get_task("old-done") is None
        assert await store.get_task("old-live") is not None
        assert await store.get_task("new-done") is not None
        assert [r.id for r in await store.tasks_of("srv", "user-1")] == ["new-done", "old-live"]
        assert await store.purge_tasks(before) == 0

    async def test_a_purged_task_no_longer_counts_toward_the_limit(self, store: Store) -> None:
        await store.create_task(task("t1", status="completed", terminal=True), limit=1)
        with pytest.raises(TooManyTasks):
            await store.create_task(task("t2"), limit=1)
        assert await store.purge_tasks(LATER + 1) == 1
        await store.create_task(task("t2"), limit=1)

    async def test_a_closed_store_refuses_task_work(self, store: Store) -> None:
        await store.create_task(task())
        await store.aclose()
        with pytest.raises(StoreError, match="closed"):
            await store.get_task("task-1")
        with pytest.raises(StoreError, match="closed"):
            await store.replace_task(task(version=2), expected_version=1)


class TaskFeedContract:
    """Engines with a :class:`TaskFeed` pass these too; ``open_store(store.url)`` opens another
    instance on the same data."""

    pytestmark = pytest.mark.anyio

    async def test_the_task_feed_carries_ids_to_another_instance(self, store: Store) -> None:
        assert isinstance(store, TaskFeed)
        other = open_store(store.url)
        assert isinstance(other, TaskFeed)
        heard: list[str] = []
        try:
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    listening = anyio.Event()

                    async def listen() -> None:
                        async for task_id in other.task_changes(listening.set):
                            heard.append(task_id)
                            return

                    tasks.start_soon(listen)
                    await listening.wait()
                    await store.announce_task("task-9")
        finally:
            await other.aclose()
        assert heard == ["task-9"]

    async def test_the_two_feeds_are_apart(self, store: Store) -> None:
        """A flow's finish is not a task's change, nor the reverse."""
        assert isinstance(store, TaskFeed) and isinstance(store, FinishFeed)
        heard: list[str] = []
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                listening = anyio.Event()

                async def listen() -> None:
                    async for task_id in store.task_changes(listening.set):
                        heard.append(task_id)
                        return

                tasks.start_soon(listen)
                await listening.wait()
                await store.announce_finished("flow-1")
                await store.announce_task("task-2")
        assert heard == ["task-2"]
