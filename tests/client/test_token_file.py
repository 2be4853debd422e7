"""TokenFile: a signed-in client's tokens, one file per server, owner-only and sealed."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from mcp_elicit.client.token_file import TokenFile

pytestmark = pytest.mark.anyio

SERVER = "https://hotel.example/mcp"
ACCESS = "access-sentinel-7d1c"
REFRESH = "refresh-sentinel-93af"


def token(expires_in: int | None = 3600) -> OAuthToken:
    return OAuthToken(access_token=ACCESS, refresh_token=REFRESH, expires_in=expires_in)


def client_info() -> OAuthClientInformationFull:
    return OAuthClientInformationFull(
        client_id="c1", redirect_uris=[AnyUrl("http://127.0.0.1:5000/callback")]
    )


async def test_what_is_kept_comes_back_and_is_nowhere_in_plain_text(tmp_path: Path) -> None:
    folder = tmp_path / "sign-in"
    kept = TokenFile(SERVER, folder)
    assert await kept.get_tokens() is None and await kept.get_client_info() is None
    await kept.set_client_info(client_info())
    before = time.time()
    await kept.set_tokens(token())
    again = TokenFile(SERVER, folder)  # another process, later
    assert await again.get_tokens() == token()
    assert await again.get_client_info() == client_info()
    expiry = await again.expiry()
    # Early by a margin (a minute at most), never later than the token says.
    assert expiry is not None and before + 3600 - 61 <= expiry <= time.time() + 3600
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert sorted(p.name for p in folder.iterdir()) == sorted(["key", kept.path.name])
    for path in folder.iterdir():
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        data = path.read_bytes()
        assert ACCESS.encode() not in data and REFRESH.encode() not in data
        assert SERVER.encode() not in data  # the name and the contents say nothing of it
    assert again.forget() and not again.forget()
    assert await TokenFile(SERVER, folder).get_tokens() is None


async def test_a_short_lived_token_expires_early_by_half_its_life(tmp_path: Path) -> None:
    kept = TokenFile(SERVER, tmp_path)
    before = time.time()
    await kept.set_tokens(token(expires_in=4))
    expiry = await kept.expiry()
    assert expiry is not None and before + 2 <= expiry <= time.time() + 2
    await kept.set_tokens(token(expires_in=None))
    assert await kept.expiry() is None


async def test_a_file_for_another_server_or_another_key_or_damaged_is_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kept = TokenFile(SERVER, tmp_path)
    await kept.set_tokens(token())
    # Copied over another server's file: it opens, but says whose it is.
    other = TokenFile("https://other.example/mcp", tmp_path)
    other.path.write_bytes(kept.path.read_bytes())
    os.chmod(other.path, 0o600)
    assert await other.get_tokens() is None
    assert "written for another server" in caplog.text
    # Damaged.
    kept.path.write_bytes(b"not a token")
    assert await kept.get_tokens() is None
    assert "cannot be read" in caplog.text
    # Signing in again replaces it.
    await kept.set_tokens(token())
    assert await kept.get_tokens() == token()


async def test_a_file_others_could_read_is_made_owner_only_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kept = TokenFile(SERVER, tmp_path)
    await kept.set_tokens(token())
    os.chmod(kept.path, 0o644)
    assert await kept.get_tokens() == token()
    assert stat.S_IMODE(os.stat(kept.path).st_mode) == 0o600
    assert "was open to other users" in caplog.text


def test_clients_signing_in_at_once_agree_on_one_key(tmp_path: Path) -> None:
    keys: list[bytes] = []
    errors: list[BaseException] = []

    def make() -> None:
        try:
            keys.append(TokenFile(SERVER, tmp_path)._key().encrypt(b"x"))
        except BaseException as error:  # pragma: no cover - the failure being tested for
            errors.append(error)

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    one = TokenFile(SERVER, tmp_path)._key()
    assert all(one.decrypt(sealed) == b"x" for sealed in keys)
    assert [p.name for p in tmp_path.iterdir()] == ["key"]  # no draft left behind
