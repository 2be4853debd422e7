"""A stdio server's stderr goes to its log file in the state directory, not onto ours."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import ElicitationHandler, ElicitingClient, ScriptedRenderer
from mcp_elicit.client.server_log import (
    LoggedStdioServer,
    ServerLogError,
    client_state_directory,
    log_name,
    logged,
    open_log,
    server_log_path,
)
from mcp_elicit.client.targets import describe, server_for
from tests.paths import PEER_SERVERS

NOISY = [sys.executable, str(PEER_SERVERS / "noisy_server.py")]


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "mcp-elicit"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["python", "examples/booking_server.py"], "booking_server"),
        (["/usr/bin/python3.11", "-u", "-m", "pkg.server", "--store", "x"], "pkg.server"),
        (["npx", "-y", "@modelcontextprotocol/server-everything", "stdio"], "server-everything"),
        (["node", "peers/node_modules/server-everything/dist/index.js"], "server-everything.index"),
        (["uvx", "mcp-server-fetch"], "mcp-server-fetch"),
        (["./my-server", "--port", "1"], "my-server"),
        (["python", "-c", "print(1)"], "python"),
        (["env", "DEBUG=1", "deno", "run", "--allow-net", "srv.ts"], "srv"),
        (["C:\\Tools\\srv.exe"], "srv"),
        (["my server!"], "my_server"),
        (["../.."], "server"),
    ],
)
def test_the_log_is_named_after_the_server_not_its_interpreter(
    command: list[str], name: str
) -> None:
    assert log_name(command) == name


def test_the_state_directory_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert client_state_directory() == tmp_path / "mcp-elicit"
    assert server_log_path(["python", "s.py"]) == tmp_path / "mcp-elicit" / "servers" / "s.log"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert client_state_directory() == tmp_path / "home" / ".local" / "state" / "mcp-elicit"


def test_the_log_is_owner_only_and_appended(state: Path) -> None:
    path = state / "servers" / "s.log"
    with open_log(path) as log:
        log.write("one\n")
    path.chmod(0o644)  # widened by someone: narrowed again on the next open
    (state / "servers").chmod(0o755)
    with open_log(path) as log:
        log.write("two\n")
    assert path.read_text() == "one\ntwo\n"
    assert mode(path) == 0o600
    assert mode(state / "servers") == 0o700 and mode(state) == 0o700


def test_the_log_is_never_opened_through_a_symbolic_link(state: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep\n")
    (state / "servers").mkdir(parents=True)
    (state / "servers" / "s.log").symlink_to(target)
    with pytest.raises(ServerLogError, match=r"cannot open the server's log .*s\.log"):
        open_log(state / "servers" / "s.log")
    assert target.read_text() == "keep\n"


def test_targets_give_the_logged_transport_only_when_asked(state: Path) -> None:
    plain = server_for(None, ["python", "s.py"])
    assert isinstance(plain, StdioServerParameters)
    server = server_for(None, ["python", "s.py", "--x"], log_stderr=True)
    assert isinstance(server, LoggedStdioServer)
    assert server.log_path == state / "servers" / "s.log"
    assert server.command == ["python", "s.py", "--x"]
    assert describe(server) == "python s.py --x"
    assert server_for("https://example.com/mcp", log_stderr=True) == "https://example.com/mcp"
    assert not (state / "servers").exists()  # nothing is written before the server starts


def _client(server: LoggedStdioServer, answers: list[dict[str, object]]) -> ElicitingClient:
    handler = ElicitationHandler(ScriptedRenderer(answers))
    return ElicitingClient(server, handler, protocol="2025-11-25")


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_servers_stderr_is_in_its_log_and_not_on_ours(
    state: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    server = logged(StdioServerParameters(command=NOISY[0], args=NOISY[1:]))
    async with _client(server, [{"action": "accept", "content": {"name": "Ada"}}]) as client:
        greeted = await client.call_tool("greet", {"name": "Ada"})
        asked = await client.call_tool("ask", {})
    texts = [getattr(result.content[0], "text", None) for result in (greeted, asked)]
    assert texts == ["Hello, Ada.", "Hello, Ada."]
    assert not server.stopped
    out, err = capfd.readouterr()
    assert "noisy:" not in out + err
    log = (state / "servers" / "noisy_server.log").read_text()
    assert "noisy: starting" in log and "noisy: greeting Ada" in log
    assert "noisy: asking for a name" in log and "noisy: answered: accept" in log
    assert log.startswith("--- ") and "mcp-elicit started the server" in log.splitlines()[0]
    if sys.platform != "win32":
        assert mode(state / "servers" / "noisy_server.log") == 0o600

    async with _client(server, []) as client:  # a second session: appended, marked
        await client.call_tool("greet", {"name": "Bo"})
    log = (state / "servers" / "noisy_server.log").read_text()
    assert log.count("mcp-elicit started the server") == 2 and "greeting Bo" in log


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_server_that_crashes_at_start_is_stopped(state: Path) -> None:
    server = logged(StdioServerParameters(command=NOISY[0], args=[*NOISY[1:], "--crash"]))
    with pytest.raises(MCPError):
        async with _client(server, []):
            pass
    assert server.stopped
    assert "cannot start: no configuration" in server.log_path.read_text()


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_server_that_dies_in_a_call_is_stopped(state: Path) -> None:
    server = logged(StdioServerParameters(command=NOISY[0], args=NOISY[1:]))
    async with _client(server, []) as client:
        await client.call_tool("greet", {"name": "Ada"})
        assert not server.stopped
        with pytest.raises(MCPError):
            await client.call_tool("die", {})
        assert server.stopped
    assert "noisy: dying" in server.log_path.read_text()


@pytest.mark.slow
@pytest.mark.anyio
async def test_sessions_in_different_tasks_each_close_their_own_server(state: Path) -> None:
    """One instance serving two sessions at once, each in a task of its own (as the gateway's
    upstream sessions are), the earlier one ending first: it closes its own server, and the
    later session goes on. It used to close the server entered last, from the wrong task:
    "Attempted to exit cancel scope in a different task", and the gateway died."""
    server = logged(StdioServerParameters(command=NOISY[0], args=NOISY[1:]))
    first_open, second_open, first_closed = anyio.Event(), anyio.Event(), anyio.Event()
    greeted: list[str] = []

    async def first() -> None:
        async with _client(server, []) as client:
            first_open.set()
            await second_open.wait()
            await client.call_tool("greet", {"name": "Ada"})
        first_closed.set()

    async def second() -> None:
        await first_open.wait()
        async with _client(server, []) as client:
            second_open.set()
            await first_closed.wait()  # still in use after the first one has ended
            result = await client.call_tool("greet", {"name": "Bo"})
            greeted.append(getattr(result.content[0], "text", ""))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(first)
            tasks.start_soon(second)
    assert greeted == ["Hello, Bo."]
    assert server._open == {}  # every server it started was closed


def test_a_log_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    """The server logs' folder follows the same rule as the audit log and the links."""
    import os

    from mcp_elicit.client._private import private_directory

    folder = tmp_path / "servers"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)  # the tests run as root: another user's folder
    with pytest.raises(PermissionError, match="belongs to another user"):
        private_directory(folder)
