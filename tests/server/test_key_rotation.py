"""Key rotation: a new deployment key seals, the previous ones still open until retired, for
everything sealed under the key: vault entries, ``requestState``, the pages' form tokens, and
the sealed cookies and OAuth ``state``."""

from __future__ import annotations

import secrets

import pytest
from mcp.server.request_state import AESGCMRequestStateCodec
from starlette.requests import Request

from mcp_elicit.server import DeploymentKey, Elicitation
from mcp_elicit.server.keys import PREVIOUS_VARIABLE
from mcp_elicit.server.oauth.sealed import Sealer
from mcp_elicit.server.pages.csrf import COOKIE_NAME, Csrf

pytestmark = pytest.mark.anyio

OLD, NEW = secrets.token_bytes(32), secrets.token_bytes(32)


def rotated() -> DeploymentKey:
    return DeploymentKey(NEW, previous=[OLD])


async def test_a_vault_entry_sealed_under_the_old_key_opens_after_the_rotation() -> None:
    before = Elicitation(key=DeploymentKey(OLD), store="memory://", server_id="s")
    await before.runtime.vault.put("alice", "api_key", "sk-old")
    store = before.runtime.store  # the same store: what the instances share
    after = Elicitation(key=rotated(), store=store, server_id="s")
    assert (await after.runtime.vault.get("alice", "api_key")).get_secret_value() == "sk-old"  # type: ignore[union-attr]
    # Stored again, it is on the new key: an instance with only the new key opens it.
    await after.runtime.vault.put("alice", "api_key", "sk-old")
    only_new = Elicitation(key=DeploymentKey(NEW), store=store, server_id="s")
    assert await only_new.runtime.vault.get("alice", "api_key") is not None
    # And one with only the old key no longer does: the new key sealed it.
    only_old = Elicitation(key=DeploymentKey(OLD), store=store, server_id="s")
    assert await only_old.runtime.vault.get("alice", "api_key") is None


def test_request_state_sealed_under_the_old_key_opens_after_the_rotation() -> None:
    sealed = AESGCMRequestStateCodec(DeploymentKey(OLD).derive_all("request-state")).seal(b"s")
    codec = Elicitation(key=rotated(), store="memory://").request_state_security.codec
    assert codec.unseal(sealed) == b"s"
    fresh = codec.seal(b"t")
    new_only = AESGCMRequestStateCodec(DeploymentKey(NEW).derive_all("request-state"))
    assert new_only.unseal(fresh) == b"t"  # sealed with the new key
    with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK's own error type
        new_only.unseal(sealed)  # retired: the old key's state no longer opens


def request_with(cookie: str) -> Request:
    return Request({"type": "http", "headers": [(b"cookie", f"{COOKIE_NAME}={cookie}".encode())]})


def test_a_form_token_of_the_old_key_is_accepted_and_new_tokens_use_the_new_one() -> None:
    cookie = Csrf(OLD).new_cookie()
    old_token = Csrf(DeploymentKey(OLD).derive("csrf")).token(cookie, "flow-1")
    csrf = Csrf(rotated().derive_all("csrf"))
    assert csrf.token_is_valid(request_with(cookie), "flow-1", old_token)
    assert csrf.token(cookie, "flow-1") == Csrf(DeploymentKey(NEW).derive("csrf")).token(
        cookie, "flow-1"
    )
    retired = Csrf(DeploymentKey(NEW).derive_all("csrf"))
    assert not retired.token_is_valid(request_with(cookie), "flow-1", old_token)
    assert not csrf.token_is_valid(request_with(cookie), "flow-2", old_token)  # still per flow


def test_a_sealed_cookie_of_the_old_key_opens_after_the_rotation() -> None:
    old = Sealer(DeploymentKey(OLD).derive_all("csrf"), "browser-session")
    token = old.seal({"user": "alice"}, ttl=60)
    now = Sealer(rotated().derive_all("csrf"), "browser-session")
    assert now.open(token) == {"user": "alice"}
    assert Sealer(DeploymentKey(NEW).derive_all("csrf"), "browser-session").open(token) is None


def test_previous_keys_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_ELICIT_KEY", NEW.hex())
    monkeypatch.setenv(PREVIOUS_VARIABLE, f" {OLD.hex()} ,")
    key = DeploymentKey.load()
    assert [k.fingerprint for k in key.previous] == [DeploymentKey(OLD).fingerprint]
    assert key.derive_all("vault") == [
        DeploymentKey(NEW).derive("vault"),
        DeploymentKey(OLD).derive("vault"),
    ]
    assert NEW.hex() not in repr(key) and OLD.hex() not in repr(key)
    monkeypatch.setenv(PREVIOUS_VARIABLE, f"{OLD.hex()},not-a-key")
    with pytest.raises(ValueError, match=f"{PREVIOUS_VARIABLE}: key 2 must hold"):
        DeploymentKey.load()
