"""The vault: secrets round-trip, are never stored in plain text, and open only for the
server, user and name they were sealed for; a flow's own value opens only for that flow."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from pydantic import SecretStr

from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import FlowRecord, FlowStatus, MemoryStore, SealedSecret, SQLiteStore, Store

pytestmark = pytest.mark.anyio

SENTINEL = "sk-SENTINEL-3f9a1c77e0b2-do-not-store"


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    opened: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "v.db")
    yield opened
    await opened.aclose()


@pytest.fixture
def key() -> bytes:
    return DeploymentKey.generate().derive("vault")


async def test_round_trip(store: Store, key: bytes) -> None:
    vault = Vault(store, key)
    await vault.put("alice", "openai", SENTINEL)
    got = await vault.get("alice", "openai")
    assert isinstance(got, SecretStr)
    assert got.get_secret_value() == SENTINEL
    assert SENTINEL not in repr(got) and SENTINEL not in str(got)


async def test_unicode_values_and_names(store: Store, key: bytes) -> None:
    vault = Vault(store, key)
    await vault.put("zoë@example.com", "clé-ключ", "пароль 🔑")
    got = await vault.get("zoë@example.com", "clé-ключ")
    assert got is not None and got.get_secret_value() == "пароль 🔑"


async def test_missing_replace_and_forget(store: Store, key: bytes) -> None:
    vault = Vault(store, key)
    assert await vault.get("alice", "openai") is None
    assert await vault.forget("alice", "openai") is False
    await vault.put("alice", "openai", "first")
    await vault.put("alice", "openai", "second")
    got = await vault.get("alice", "openai")
    assert got is not None and got.get_secret_value() == "second"
    assert await vault.forget("alice", "openai") is True
    assert await vault.get("alice", "openai") is None
    assert await vault.forget("alice", "openai") is False


async def test_users_and_names_are_separate(store: Store, key: bytes) -> None:
    vault = Vault(store, key)
    await vault.put("alice", "openai", "a-openai")
    await vault.put("bob", "openai", "b-openai")
    await vault.put("alice", "github", "a-github")
    for user, name, value in [
        ("alice", "openai", "a-openai"),
        ("bob", "openai", "b-openai"),
        ("alice", "github", "a-github"),
    ]:
        got = await vault.get(user, name)
        assert got is not None and got.get_secret_value() == value
    assert await vault.get("bob", "github") is None


@pytest.mark.parametrize(
    ("user", "name", "value", "message"),
    [("alice", "n", "", "value"), ("", "n", "v", "user"), ("alice", "", "v", "name")],
    ids=["empty-value", "empty-user", "empty-name"],
)
async def test_empty_inputs_are_refused(
    store: Store, key: bytes, user: str, name: str, value: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        await Vault(store, key).put(user, name, value)
    with pytest.raises(ValueError, match=message):
        Vault(store, key).seal_for_flow("flow-1", user, name, value)
    assert await store.get_secret(user, name, server="") is None


async def test_the_store_holds_no_plaintext(
    store: Store, key: bytes, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    vault = Vault(store, key)
    await vault.put("alice", "openai", SENTINEL)
    sealed = await store.get_secret("alice", "openai", server="")
    assert sealed is not None
    for encoding in ("utf-8", "utf-16-le", "utf-16-be"):
        assert SENTINEL.encode(encoding) not in sealed.sealed
    assert SENTINEL.encode()[:12] not in sealed.sealed
    # A second seal of the same value differs: a fresh nonce every time.
    await vault.put("alice", "openai", SENTINEL)
    again = await store.get_secret("alice", "openai", server="")
    assert again is not None and again.sealed != sealed.sealed
    if isinstance(store, SQLiteStore):
        await store.aclose()
        on_disk = b"".join(p.read_bytes() for p in tmp_path.glob("v.db*"))
        assert b"openai" in on_disk, "the search looks where the row is"
        assert SENTINEL.encode() not in on_disk
        assert SENTINEL.encode()[:12] not in on_disk


async def test_another_instance_with_the_same_key_reads_it(tmp_path: Path, key: bytes) -> None:
    first, second = SQLiteStore(tmp_path / "v.db"), SQLiteStore(tmp_path / "v.db")
    try:
        await Vault(first, key).put("alice", "openai", SENTINEL)
        got = await Vault(second, key).get("alice", "openai")
        assert got is not None and got.get_secret_value() == SENTINEL
    finally:
        await first.aclose()
        await second.aclose()


def unreadable_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "mcp_elicit.server.vault" and r.levelno == logging.WARNING
    ]


def assert_warned_without_value(caplog: pytest.LogCaptureFixture, name: str) -> None:
    warnings = unreadable_warnings(caplog)
    assert len(warnings) == 1
    text = caplog.text + "".join(str(r.args) for r in warnings)
    assert name in warnings[0].getMessage()
    assert SENTINEL not in text
    assert SENTINEL[:12] not in text


@pytest.mark.parametrize(
    ("server", "user", "name"),
    [
        ("weather", "mallory", "openai"),
        ("weather", "alice", "github"),
        ("weather", "ali", "ceopenai"),
        ("calendar", "alice", "openai"),
        ("weatheralice", "x", "openai"),
    ],
    ids=["other-user", "other-name", "shifted-boundary", "other-server", "server-user-boundary"],
)
async def test_a_moved_secret_does_not_open(
    store: Store,
    key: bytes,
    caplog: pytest.LogCaptureFixture,
    server: str,
    user: str,
    name: str,
) -> None:
    # Someone with write access to the database copies alice's row to another user, name or
    # server (two servers sharing one store and key: break 1 of issue 13).
    vault = Vault(store, key, server="weather")
    await vault.put("alice", "openai", SENTINEL)
    sealed = await store.get_secret("alice", "openai", server="weather")
    assert sealed is not None
    await store.put_secret(dataclasses.replace(sealed, server=server, user=user, name=name))
    there = Vault(store, key, server=server)
    with caplog.at_level(logging.WARNING):
        assert await there.get(user, name) is None
    assert_warned_without_value(caplog, name)
    got = await vault.get("alice", "openai")
    assert got is not None and got.get_secret_value() == SENTINEL


async def test_servers_sharing_a_store_and_key_have_separate_vaults(
    store: Store, key: bytes
) -> None:
    weather, calendar = Vault(store, key, server="weather"), Vault(store, key, server="calendar")
    await weather.put("alice", "openai", "for-weather")
    assert await calendar.get("alice", "openai") is None
    await calendar.put("alice", "openai", "for-calendar")
    for vault, value in ((weather, "for-weather"), (calendar, "for-calendar")):
        got = await vault.get("alice", "openai")
        assert got is not None and got.get_secret_value() == value
    assert await calendar.forget("alice", "openai") is True
    assert await weather.get("alice", "openai") is not None


async def completed_with(store: Store, flow_id: str, sealed: bytes) -> None:
    await store.create_flow(
        FlowRecord(flow_id, "alice", "secret", FlowStatus.PENDING, 1.0, 1.0, 9e9, {}, "weather")
    )
    assert await store.complete_flow(flow_id, now=2.0, result=sealed) is not None


async def test_a_flows_value_opens_for_that_flow_only(
    store: Store, key: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """What one flow's page received, kept with that flow: break 3 of issue 13. It opens for
    its flow, user, name and server, and as nothing else (not as another flow's value, nor
    as a vault entry, nor for another server)."""
    vault = Vault(store, key, server="weather")
    sealed = vault.seal_for_flow("flow-1", "alice", "openai", SENTINEL)
    assert SENTINEL.encode() not in sealed
    await completed_with(store, "flow-1", sealed)
    got = await vault.of_flow("flow-1", "alice", "openai")
    assert got is not None and got.get_secret_value() == SENTINEL
    assert await vault.of_flow("no-such-flow", "alice", "openai") is None

    await completed_with(store, "flow-2", sealed)  # the same bytes under another flow
    elsewhere = Vault(store, key, server="calendar")
    with caplog.at_level(logging.WARNING):
        assert await vault.of_flow("flow-2", "alice", "openai") is None
        assert await vault.of_flow("flow-1", "bob", "openai") is None
        assert await vault.of_flow("flow-1", "alice", "github") is None
        assert await elsewhere.of_flow("flow-1", "alice", "openai") is None
    assert len(unreadable_warnings(caplog)) == 4
    assert SENTINEL not in caplog.text
    # Nor does a flow's value open as the vault entry of the same user and name.
    entry = vault.seal("alice", "openai", SENTINEL)
    await store.put_secret(dataclasses.replace(entry, sealed=sealed))
    assert await vault.get("alice", "openai") is None


async def test_a_value_sealed_before_servers_were_bound_reads_as_absent(
    store: Store, key: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """Version 1 bound only the user and the name: such a value must not open for any
    server (it would for all of them). It reads as absent, so the secret is asked again."""
    nonce = b"\x00" * 12
    parts = [b"mcp-elicit/vault", b"\x01", b"alice", b"openai"]
    aad = b"".join(len(p).to_bytes(4, "big") + p for p in parts)
    old = b"\x01" + nonce + AESGCM(key).encrypt(nonce, SENTINEL.encode(), aad)
    await store.put_secret(SealedSecret("alice", "openai", old, 1.0, "weather"))
    with caplog.at_level(logging.WARNING):
        assert await Vault(store, key, server="weather").get("alice", "openai") is None
    assert_warned_without_value(caplog, "openai")


@pytest.mark.parametrize("where", [0, 1, 13, -1, -17], ids=lambda i: f"byte{i}")
async def test_tampering_reads_as_absent_and_is_logged_without_the_value(
    store: Store, key: bytes, caplog: pytest.LogCaptureFixture, where: int
) -> None:
    vault = Vault(store, key)
    await vault.put("alice", "openai", SENTINEL)
    sealed = await store.get_secret("alice", "openai", server="")
    assert sealed is not None
    altered = bytearray(sealed.sealed)
    altered[where] ^= 0x01
    await store.put_secret(dataclasses.replace(sealed, sealed=bytes(altered)))
    with caplog.at_level(logging.DEBUG):
        assert await vault.get("alice", "openai") is None
    assert_warned_without_value(caplog, "openai")


@pytest.mark.parametrize(
    "sealed", [b"", b"\x02", b"\x02" + b"\0" * 12, b"\x03" + b"\0" * 40, b"\x01" + b"\0" * 40]
)
async def test_truncated_or_unknown_formats_read_as_absent(
    store: Store, key: bytes, caplog: pytest.LogCaptureFixture, sealed: bytes
) -> None:
    vault = Vault(store, key)
    await vault.put("alice", "openai", SENTINEL)
    stored = await store.get_secret("alice", "openai", server="")
    assert stored is not None
    await store.put_secret(dataclasses.replace(stored, sealed=sealed))
    with caplog.at_level(logging.WARNING):
        assert await vault.get("alice", "openai") is None
    assert len(unreadable_warnings(caplog)) == 1


async def test_another_key_cannot_open_it(
    store: Store, key: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    await Vault(store, key).put("alice", "openai", SENTINEL)
    other = DeploymentKey.generate().derive("vault")
    with caplog.at_level(logging.WARNING):
        assert await Vault(store, other).get("alice", "openai") is None
    assert_warned_without_value(caplog, "openai")


async def test_key_rotation(store: Store) -> None:
    old, new = (DeploymentKey.generate().derive("vault") for _ in range(2))
    await Vault(store, old).put("alice", "sealed-before", "old value")
    rotated = Vault(store, keys=[new, old])
    got = await rotated.get("alice", "sealed-before")
    assert got is not None and got.get_secret_value() == "old value"
    await rotated.put("alice", "sealed-after", "new value")
    # The first key seals: an instance that has only the new key reads what rotated wrote.
    got = await Vault(store, new).get("alice", "sealed-after")
    assert got is not None and got.get_secret_value() == "new value"
    assert await Vault(store, old).get("alice", "sealed-after") is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"key": b"k" * 16},
        {"keys": [b"k" * 32, b"k" * 31]},
        {"key": b"k" * 32, "keys": [b"k" * 32]},
    ],
    ids=["none", "short", "short-in-keys", "both"],
)
def test_bad_keys_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="key"):
        Vault(MemoryStore(), **kwargs)  # type: ignore[arg-type]
