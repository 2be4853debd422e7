"""``call`` and ``connect`` keep a stdio server's stderr off the screen: it goes to the
server's log (named once on stderr), and an error names the log when the server stops.

In-process through ``mcp_elicit.cli.main``. The server is a child process with one stderr:
its lines in the log file are lines that did not reach the screen. (``capfd`` alone would not
prove it: the SDK's default ``errlog`` is the ``sys.stderr`` of import time, under pytest its
collection-time capture. ``tests/cli/test_connect_tmux.py`` reads the real screen.)
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from mcp_elicit.cli import main
from tests.paths import EXAMPLES, PEER_SERVERS

NOISY = [sys.executable, str(PEER_SERVERS / "noisy_server.py")]
BOOKING = [sys.executable, str(EXAMPLES / "booking_server.py")]

pytestmark = pytest.mark.slow  # each starts a server process


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "mcp-elicit" / "servers"


def answers(tmp_path: Path, *items: dict[str, object]) -> str:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(list(items)))
    return str(path)


def test_call_keeps_the_servers_stderr_in_its_log(
    logs: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    file = answers(tmp_path, {"action": "accept", "content": {"name": "Ada"}})
    status = main(["call", "ask", "--answers", file, "--", *NOISY])
    out, err = capfd.readouterr()
    assert status == 0, err
    assert out == "Hello, Ada.\n"  # the result on stdout, exactly as before
    log = logs / "noisy_server.log"
    assert err.splitlines() == [f"mcp-elicit: server log: {log}"]
    text = log.read_text()
    assert "noisy: starting" in text and "noisy: asking for a name" in text
    if sys.platform != "win32":
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        assert stat.S_IMODE(logs.stat().st_mode) == 0o700


def test_call_json_output_is_unchanged(
    logs: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    status = main(["call", "greet", "--json", "--args", '{"name": "Ada"}', "--", *NOISY])
    out, err = capfd.readouterr()
    assert status == 0, err
    result = json.loads(out)  # stdout is the result alone, as JSON
    assert result["content"] == [{"type": "text", "text": "Hello, Ada."}]
    assert result["isError"] is False
    assert "noisy:" not in out + err
    assert "noisy: greeting Ada" in (logs / "noisy_server.log").read_text()


def test_the_sdk_servers_own_log_lines_stay_off_the_screen(
    logs: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # The official SDK logs a failed tool at INFO on stderr: in the log, not on our screen.
    argv = ["call", "link_account", "--protocol", "2025-06-18", "--answers", answers(tmp_path)]
    status = main([*argv, "--", *BOOKING])
    out, err = capfd.readouterr()
    assert status == 1  # a tool error
    assert "which protocol 2025-06-18 does not have" in out
    assert "Tool 'link_account' failed" not in out + err
    assert "Tool 'link_account' failed" in (logs / "booking_server.log").read_text()


def test_call_names_the_log_when_the_server_crashes_at_start(
    logs: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    status = main(["call", "greet", "--answers", answers(tmp_path), "--", *NOISY, "--crash"])
    out, err = capfd.readouterr()
    log = logs / "noisy_server.log"
    assert (status, out) == (1, "")
    assert err.splitlines()[-1] == f"mcp-elicit: greet: the server stopped; see its log: {log}"
    assert "noisy:" not in err
    assert "cannot start: no configuration" in log.read_text()


def test_call_names_the_log_when_the_server_dies_in_the_call(
    logs: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    status = main(["call", "die", "--answers", answers(tmp_path), "--", *NOISY])
    out, err = capfd.readouterr()
    log = logs / "noisy_server.log"
    assert (status, out) == (1, "")
    assert err.splitlines()[-1] == f"mcp-elicit: die: the server stopped; see its log: {log}"
    assert "noisy: dying" in log.read_text() and "noisy:" not in err


def test_connect_names_the_log_when_the_server_crashes_at_start(
    logs: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # It fails while connecting, before any prompt: no terminal needed.
    status = main(["connect", "--", *NOISY, "--crash"])
    out, err = capfd.readouterr()
    log = logs / "noisy_server.log"
    assert status == 1
    assert err.splitlines() == [f"mcp-elicit: server log: {log}"]
    assert out.splitlines() == [f"mcp-elicit: the server stopped; see its log: {log}"]
    assert "cannot start: no configuration" in log.read_text()


def test_a_server_that_cannot_be_found_is_said_so(
    logs: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "no-such-server")
    status = main(["call", "greet", "--answers", answers(tmp_path), "--", missing])
    _, err = capfd.readouterr()
    assert status == 1
    assert "cannot start the server:" in err and "no such file" in err
    assert "stopped" not in err
