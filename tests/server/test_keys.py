"""The deployment key: where it comes from, how its file is protected, what it derives."""

from __future__ import annotations

import base64
import logging
import os
import pickle
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_elicit.server.keys import DeploymentKey, state_directory

RAW = bytes(range(32))
HINT = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


@pytest.fixture(autouse=True)
def no_key_in_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The developer's own key (or state directory) must never leak into a test.
    monkeypatch.delenv("MCP_ELICIT_KEY", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def umask_zero() -> Iterator[None]:
    # The most permissive umask: file modes must come from the code, not from the umask.
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def same(a: DeploymentKey, b: DeploymentKey) -> bool:
    return a.derive("vault") == b.derive("vault")


# --- derive ---------------------------------------------------------------------------------


def test_derive_gives_32_bytes_per_purpose_independent_and_stable() -> None:
    key = DeploymentKey(RAW)
    purposes = ["vault", "request-state", "csrf", "flow-link"]
    derived = [key.derive(p) for p in purposes]
    assert all(len(d) == 32 for d in derived)
    assert len(set(derived)) == len(purposes)
    assert key.derive("vault") == DeploymentKey(RAW).derive("vault")
    assert DeploymentKey.generate().derive("vault") != key.derive("vault")


def test_derive_is_pinned_hkdf_sha256() -> None:
    # Stored secrets must stay readable after an upgrade: the derivation never changes.
    # HKDF-SHA256, no salt, info "mcp-elicit/vault", computed independently with hmac.
    import hashlib
    import hmac

    prk = hmac.new(b"\0" * 32, RAW, hashlib.sha256).digest()
    expected = hmac.new(prk, b"mcp-elicit/vault\x01", hashlib.sha256).digest()
    assert DeploymentKey(RAW).derive("vault") == expected


def test_derive_needs_a_purpose() -> None:
    with pytest.raises(ValueError, match="purpose"):
        DeploymentKey(RAW).derive("")


def test_repr_and_pickle_never_show_the_key() -> None:
    key = DeploymentKey(RAW)
    text = repr(key) + str(key)
    for form in (RAW.hex(), base64.urlsafe_b64encode(RAW).decode().rstrip("="), repr(RAW)):
        assert form not in text
    assert key.fingerprint in text
    assert key.fingerprint == DeploymentKey(RAW).fingerprint
    with pytest.raises(TypeError):
        pickle.dumps(key)


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        DeploymentKey(b"x" * 31)


# --- from the environment -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        RAW.hex(),
        RAW.hex().upper(),
        base64.urlsafe_b64encode(RAW).decode().rstrip("="),
        base64.urlsafe_b64encode(RAW).decode(),
        base64.b64encode(RAW).decode(),  # `openssl rand -base64 32`
        f"  {RAW.hex()}\n",  # from $(cat file)
    ],
    ids=["hex", "HEX", "base64url", "base64url-padded", "base64-standard", "whitespace"],
)
def test_env_forms(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> None:
    monkeypatch.setenv("MCP_ELICIT_KEY", text)
    file = tmp_path / "key"
    assert same(DeploymentKey.load(file=file), DeploymentKey(RAW))
    assert not file.exists(), "a key from the environment must not create a file"


def test_a_key_from_secrets_token_urlsafe_works(monkeypatch: pytest.MonkeyPatch) -> None:
    import secrets

    monkeypatch.setenv("OTHER_KEY", secrets.token_urlsafe(32))
    assert len(DeploymentKey.load(env="OTHER_KEY").derive("csrf")) == 32


@pytest.mark.parametrize(
    "text",
    ["", "short", RAW[:31].hex(), base64.urlsafe_b64encode(RAW[:31]).decode(), "@#" * 30],
    ids=["empty", "not-encoded", "hex-31", "base64-31", "not-base64"],
)
def test_env_errors_name_the_variable_and_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str
) -> None:
    monkeypatch.setenv("MY_KEY", text)
    with pytest.raises(ValueError, match="MY_KEY") as caught:
        DeploymentKey.load(env="MY_KEY", file=tmp_path / "key")
    message = str(caught.value)
    assert HINT in message
    assert not text.strip() or text not in message, "the value must not be echoed"
    assert not (tmp_path / "key").exists(), "a bad variable must not fall back to a file"


# --- from the key file ----------------------------------------------------------------------


def test_file_is_created_owner_only_and_reused(tmp_path: Path, umask_zero: None) -> None:
    file = tmp_path / "new" / "dir" / "key"
    first = DeploymentKey.load(file=file)
    assert mode(file) == 0o600
    assert mode(file.parent) == 0o700
    assert same(DeploymentKey.load(file=file), first)
    assert sorted(p.name for p in file.parent.iterdir()) == ["key"], "no temporary left"


def test_default_file_is_under_xdg_state_home(tmp_path: Path) -> None:
    key = DeploymentKey.load()
    file = tmp_path / "state" / "mcp-elicit" / "key"
    assert mode(file) == 0o600
    assert same(DeploymentKey.load(file=file), key)


def test_default_file_without_xdg_is_under_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    DeploymentKey.load()
    assert mode(tmp_path / "home" / ".local" / "state" / "mcp-elicit" / "key") == 0o600


def test_the_file_can_be_copied_into_the_env_var(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # How a second instance joins the first: MCP_ELICIT_KEY=$(cat key).
    file = tmp_path / "key"
    from_file = DeploymentKey.load(file=file)
    monkeypatch.setenv("MCP_ELICIT_KEY", file.read_text())
    assert same(DeploymentKey.load(), from_file)


def test_a_file_of_raw_random_bytes_is_accepted(tmp_path: Path) -> None:
    # `head -c 32 /dev/urandom > key` — bytes that are not text.
    raw = b"\xff\xfe" + os.urandom(30)
    file = tmp_path / "key"
    file.write_bytes(raw)
    file.chmod(0o600)
    assert same(DeploymentKey.load(file=file), DeploymentKey(raw))


def test_a_short_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "key"
    file.write_text(RAW[:16].hex())
    file.chmod(0o600)
    with pytest.raises(ValueError, match=str(file)):
        DeploymentKey.load(file=file)


@pytest.mark.parametrize("bits", [0o644, 0o640, 0o604, 0o660, 0o606, 0o700])
def test_a_file_others_can_read_is_refused_like_ssh(tmp_path: Path, bits: int) -> None:
    file = tmp_path / "key"
    DeploymentKey.load(file=file)
    file.chmod(bits)
    if bits & 0o077 == 0:
        DeploymentKey.load(file=file)  # 0700: owner-only still
        return
    with pytest.raises(PermissionError) as caught:
        DeploymentKey.load(file=file)
    message = str(caught.value)
    assert str(file) in message
    assert f"chmod 600 {file}" in message
    assert f"{bits:04o}" in message


def test_a_loose_key_file_is_refused_not_repaired(tmp_path: Path) -> None:
    # Once readable by others it may have been read: only the operator can judge that.
    DeploymentKey.load()
    file = state_directory() / "key"
    file.chmod(0o644)
    with pytest.raises(PermissionError, match="readable or writable by others"):
        DeploymentKey.load()
    assert mode(file) == 0o644


# --- who owns the file and its directory ------------------------------------------------------

OTHER_UID = 65534  # nobody; the tests run as root, which may give files away


def test_a_key_file_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    # Another user who planted a key file (0600, theirs) chose the key: every secret sealed
    # under it is theirs to open. Root can still read it, so only the owner check stops it.
    file = tmp_path / "key"
    file.write_text(RAW.hex())
    file.chmod(0o600)
    os.chown(file, OTHER_UID, OTHER_UID)
    with pytest.raises(PermissionError) as caught:
        DeploymentKey.load(file=file)
    message = str(caught.value)
    assert str(file) in message
    assert f"uid {OTHER_UID}" in message
    assert "must be this user's own" in message
    assert RAW.hex() not in message


def test_the_default_key_file_owned_by_another_user_is_refused() -> None:
    DeploymentKey.load()
    file = state_directory() / "key"
    os.chown(file, OTHER_UID, OTHER_UID)
    with pytest.raises(PermissionError, match=f"{file}.*uid {OTHER_UID}"):
        DeploymentKey.load()


@pytest.mark.parametrize("bits", [0o755, 0o750, 0o705, 0o777, 0o1777])
def test_a_loose_state_directory_is_tightened_and_said(
    bits: int, caplog: pytest.LogCaptureFixture
) -> None:
    directory = state_directory()
    directory.mkdir(parents=True)
    directory.chmod(bits)
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.server.keys"):
        key = DeploymentKey.load()
    assert mode(directory) == 0o700
    (record,) = caplog.records
    said = record.getMessage()
    assert str(directory) in said
    assert f"{bits:04o}" in said
    assert "owner-only" in said
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.server.keys"):
        assert same(DeploymentKey.load(), key)
    assert caplog.records == [], "said once, when tightened"


def test_an_owner_only_state_directory_is_left_as_it_is(
    caplog: pytest.LogCaptureFixture,
) -> None:
    directory = state_directory()
    directory.mkdir(parents=True)
    directory.chmod(0o700)
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.server.keys"):
        DeploymentKey.load()
    assert mode(directory) == 0o700
    assert caplog.records == []


def test_a_state_directory_owned_by_another_user_is_refused() -> None:
    directory = state_directory()
    directory.mkdir(parents=True, mode=0o700)
    os.chown(directory, OTHER_UID, OTHER_UID)
    with pytest.raises(PermissionError) as caught:
        DeploymentKey.load()
    message = str(caught.value)
    assert str(directory) in message
    assert f"uid {OTHER_UID}" in message
    assert not (directory / "key").exists(), "nothing written into another user's directory"


@pytest.mark.parametrize("bits", [0o777, 0o1777, 0o775, 0o757])
def test_a_chosen_directory_others_can_write_is_refused_and_left_alone(
    tmp_path: Path, bits: int
) -> None:
    # file= somewhere like /tmp: another user could swap the key file for one of theirs.
    directory = tmp_path / "shared"
    directory.mkdir()
    directory.chmod(bits)
    with pytest.raises(PermissionError) as caught:
        DeploymentKey.load(file=directory / "key")
    message = str(caught.value)
    assert str(directory) in message
    assert f"{bits:04o}" in message
    assert mode(directory) == bits, "a directory the operator chose is never changed"
    assert not (directory / "key").exists()


def test_a_chosen_directory_others_can_only_read_is_accepted(tmp_path: Path) -> None:
    # Like /etc/mcp-elicit: others may list it; the file itself stays owner-only.
    directory = tmp_path / "etc"
    directory.mkdir()
    directory.chmod(0o755)
    DeploymentKey.load(file=directory / "key")
    assert mode(directory) == 0o755
    assert mode(directory / "key") == 0o600


def test_a_chosen_directory_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "theirs"
    directory.mkdir(mode=0o700)
    os.chown(directory, OTHER_UID, OTHER_UID)
    with pytest.raises(PermissionError, match=f"{directory}.*uid {OTHER_UID}"):
        DeploymentKey.load(file=directory / "key")


def load_in_threads(file: Path, count: int) -> list[DeploymentKey]:
    """``count`` threads released at the same instant, each loading ``file``."""
    start = threading.Barrier(count)
    keys: list[DeploymentKey] = []
    errors: list[BaseException] = []

    def load() -> None:
        start.wait()
        try:
            keys.append(DeploymentKey.load(file=file))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=load) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    return keys


def test_threads_racing_to_create_the_file_all_get_the_same_key(tmp_path: Path) -> None:
    for round_ in range(10):
        file = tmp_path / str(round_) / "key"
        keys = load_in_threads(file, 12)
        assert len(keys) == 12
        assert len({k.fingerprint for k in keys}) == 1
        assert same(keys[0], DeploymentKey.load(file=file))
        assert mode(file) == 0o600


@pytest.mark.slow
def test_processes_racing_to_create_the_file_all_get_the_same_key(tmp_path: Path) -> None:
    file = tmp_path / "state" / "key"
    go = time.time() + 1.5  # every process waits for the same instant, then loads
    script = (
        "import sys, time\n"
        "from mcp_elicit.server.keys import DeploymentKey\n"
        f"time.sleep(max(0.0, {go!r} - time.time()))\n"
        "print(DeploymentKey.load(file=sys.argv[1]).fingerprint)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MCP_ELICIT_KEY"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(6)
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    fingerprints = {out.strip() for out, _ in outputs}
    assert fingerprints == {DeploymentKey.load(file=file).fingerprint}
    assert mode(file) == 0o600
