"""``Sealer``: what the browser carries for us opens only here, for its purpose, in time."""

from __future__ import annotations

import time

import pytest

from mcp_elicit.server.oauth.sealed import Sealer

KEY = b"k" * 32


def test_a_sealed_value_opens_for_its_purpose_only() -> None:
    session = Sealer(KEY, "browser-session")
    token = session.seal({"user": "alice"}, ttl=60)
    assert session.open(token) == {"user": "alice"}
    assert "alice" not in token  # encrypted, not only signed
    assert Sealer(KEY, "oauth-state").open(token) is None
    assert Sealer(b"o" * 32, "browser-session").open(token) is None


def test_tampered_expired_and_junk_values_do_not_open(monkeypatch: pytest.MonkeyPatch) -> None:
    session = Sealer(KEY, "browser-session")
    token = session.seal({"user": "alice"}, ttl=60)
    flipped = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    for junk in [None, "", "v1.", flipped, "x" * 5000, token + "="]:
        assert session.open(junk) is None
    later = time.time() + 61
    monkeypatch.setattr(time, "time", lambda: later)
    assert session.open(token) is None


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        Sealer(b"short", "x")
