"""Links are opened so that only the person's own account can learn them
(``mcp_elicit.client.opening``), and the audit log is theirs alone.

The attack: another user of the machine reads the browser's command line
(``/proc/PID/cmdline``, world-readable; ``ps`` shows it) to learn the web renderer's token or
a hosted page's flow link, then answers in the person's place. The tests start the real
opener with a stand-in browser that keeps its command line while it sleeps, and read that
command line, the redirect file, its directory and the audit log as user ``nobody``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_elicit.client import opening
from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.opening import links_directory, write_redirect
from tests import markers
from tests.client_support import redirect_target

FLOW = "F-0b9a2f4c3d8e6f5a4b3c2d1e0f7c1d4e"
LINK = f"https://pages.example.com/elicit/flows/{FLOW}?step=1&x=<\"'>"
TOKEN = "tOkEn-Qm9vZ2xlLXNlY3JldC1wYXRoLTI1Ni1iaXRzLXJhbmRvbQ"
PAGE = f"http://127.0.0.1:51234/{TOKEN}/"

NOBODY = 65534


@pytest.fixture
def shared() -> Iterator[Path]:
    """A directory every user may enter and list, standing in for ``$XDG_RUNTIME_DIR``'s
    place: what keeps others out is then only the modes the opener sets itself (pytest's own
    temporary directories are owner-only, which would hide a mistake)."""
    path = Path(tempfile.mkdtemp(prefix="mcp-elicit-shared-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def as_another_user(*command: str) -> subprocess.CompletedProcess[bytes]:
    """``command`` run as ``nobody`` (the tests run as root, which may switch users)."""
    markers.require("slow")
    if os.geteuid() != 0:
        pytest.fail("reading as another user needs root (setpriv); the suite runs as root")
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "setpriv (util-linux) is needed to act as another user"
    switch = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.run([*switch, *command], capture_output=True, timeout=20, check=False)


# -- the redirect file, as its owner sees it ---------------------------------------------------


def test_a_redirect_file_is_owner_only_in_an_owner_only_directory(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    path = write_redirect(LINK, linger=None)
    try:
        assert path.parent == links_directory() == shared / "mcp-elicit" / "links"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700
        assert FLOW not in path.name  # a random name that says nothing
        assert redirect_target(path) == LINK  # quotes and brackets escaped, not lost
        page = path.read_text(encoding="utf-8")
        assert "<script" not in page and "\"'>" not in page
    finally:
        opening.remove_redirect(path)
    assert not path.exists()


def test_without_a_runtime_directory_the_state_directory_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = write_redirect(PAGE, linger=None)
    try:
        assert path.parent == tmp_path / "state" / "mcp-elicit" / "links"
        assert redirect_target(path) == PAGE
    finally:
        opening.remove_redirect(path)


def test_a_redirect_file_goes_once_the_browser_has_had_it(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    path = write_redirect(LINK, linger=0.05)
    deadline = time.monotonic() + 5
    while path.exists():
        assert time.monotonic() < deadline, "the redirect file was never removed"
        time.sleep(0.02)
    # And what is left at exit goes then.
    kept = write_redirect(LINK, linger=None)
    opening._remove_all()
    assert not kept.exists()


def test_a_links_directory_others_may_enter_is_tightened(
    shared: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    loose = shared / "mcp-elicit" / "links"
    loose.mkdir(parents=True)
    loose.chmod(0o755)
    loose.parent.chmod(0o755)
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.client._private"):
        path = write_redirect(LINK, linger=None)
    opening.remove_redirect(path)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700
    assert stat.S_IMODE(loose.parent.stat().st_mode) == 0o700
    assert "now owner-only" in caplog.text


def test_a_links_directory_of_another_user_is_refused(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    (shared / "mcp-elicit" / "links").mkdir(parents=True, mode=0o700)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 4242)  # as if it were theirs
    with pytest.raises(PermissionError, match="belongs to another user"):
        write_redirect(LINK, linger=None)
    assert list((shared / "mcp-elicit" / "links").iterdir()) == []


# -- the attack: another user reads the browser's command line ---------------------------------

# A browser that writes down its process id, then sleeps holding its command line.
_BROWSER = """#!/bin/sh
echo $$ > {pid}
sleep 60
"""
_OPENERS = {
    "the handler's link": ("mcp_elicit.client.handler", "open_in_browser", LINK, FLOW),
    "the web renderer's page": ("mcp_elicit.client.web.renderer", "open_page", PAGE, TOKEN),
}


@pytest.mark.slow
@pytest.mark.parametrize("which", list(_OPENERS))
def test_another_user_learns_nothing_from_the_browsers_command_line_or_the_file(
    shared: Path, tmp_path: Path, which: str
) -> None:
    module, name, url, secret = _OPENERS[which]
    pid_file = tmp_path / "browser.pid"
    browser = shared / "browser.sh"
    browser.write_text(_BROWSER.format(pid=pid_file))
    browser.chmod(0o755)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "BROWSER": str(browser),
        "XDG_RUNTIME_DIR": str(shared),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    # The link goes in on stdin: this test's own command lines must not hold it either.
    code = f"import sys; from {module} import {name}; print({name}(sys.stdin.read()))"
    opener = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    try:
        assert opener.stdin is not None
        opener.stdin.write(url.encode())
        opener.stdin.close()
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text().strip()):
            assert opener.poll() is None, "the opener ended before the browser started"
            assert time.monotonic() < deadline, "the stand-in browser never started"
            time.sleep(0.05)
        browser_pid = int(pid_file.read_text())

        # Another user reads the browser's command line: they can (it is world-readable)...
        read = as_another_user("cat", f"/proc/{browser_pid}/cmdline")
        assert read.returncode == 0, read.stderr
        # ...and learn only the name of a file: no token, no flow.
        assert secret.encode() not in read.stdout, read.stdout
        argv = read.stdout.split(b"\0")
        (given,) = [a.decode() for a in argv if a.startswith(b"file://")]
        path = Path(given.removeprefix("file://"))
        assert path.parent == shared / "mcp-elicit" / "links"

        # The file itself, and its directory, are closed to them.
        cat = as_another_user("cat", str(path))
        assert cat.returncode != 0 and secret.encode() not in cat.stdout
        assert b"Permission denied" in cat.stderr
        listing = as_another_user("ls", str(path.parent))
        assert listing.returncode != 0 and b"Permission denied" in listing.stderr
        # While the person's browser, as them, reads where it leads.
        assert redirect_target(path) == url
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        if pid_file.exists() and pid_file.read_text().strip():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), 9)  # the stand-in browser this test started
        opener.kill()
        opener.wait(timeout=10)


@pytest.mark.slow
def test_another_user_cannot_read_the_audit_log(shared: Path) -> None:
    path = shared / "audit.jsonl"
    log = AuditLog(path)
    log.record({"server": "s", "mode": "url", "url": LINK, "outcome": "accept"})
    log.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    read = as_another_user("cat", str(path))
    assert read.returncode != 0 and b"Permission denied" in read.stderr
    assert b"pages.example.com" not in read.stdout
    # Nor is the flow in it for the owner to leak later: the link is redacted.
    assert FLOW not in path.read_text(encoding="utf-8")
