"""Servers for the check tests: ours (examples/conformance_server.py), the breaking relay in
front of it, the broken servers the HTTP-only checks are shown failing against, and the
servers on the SDK alone that break one rule each, all in one process (``rule_breakers``)."""

from __future__ import annotations

import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from tests.peer_servers.secret_server import free_port, server_env

ROOT = Path(__file__).resolve().parents[2]
OURS = ROOT / "examples" / "conformance_server.py"
BREAKER = ROOT / "tests" / "peer_servers" / "breaker.py"
SECRET_SERVER = ROOT / "tests" / "peer_servers" / "secret_server.py"
BROADCAST_SERVER = ROOT / "tests" / "peer_servers" / "broadcast_server.py"
RULE_BREAKERS = ROOT / "tests" / "peer_servers" / "rule_breakers.py"


@contextmanager
def serving(command: Sequence[str], port: int, logs: Path) -> Iterator[str]:
    """Run ``command`` until it answers on ``port``; yield its ``/mcp`` URL."""
    logs.mkdir(parents=True, exist_ok=True)
    env = server_env(secrets.token_urlsafe(32), logs, log="WARNING")
    with (logs / "server.log").open("ab") as log:
        process = subprocess.Popen(list(command), stdout=log, stderr=log, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise AssertionError((logs / "server.log").read_text(errors="replace")[-3000:])
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture(autouse=True)
def _state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stdio server's log goes to the test's own state directory."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture(scope="module")
def our_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, str(OURS), "--port", str(port)]
    with serving(command, port, tmp_path_factory.mktemp("ours")) as url:
        yield url


@pytest.fixture(scope="session")
def rule_breakers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of tests/peer_servers/rule_breakers.py: add ``NAME/mcp``."""
    port = free_port()
    command = [sys.executable, str(RULE_BREAKERS), "--http", str(port)]
    with serving(command, port, tmp_path_factory.mktemp("rule-breakers")) as url:
        yield url.removesuffix("mcp")


def our_stdio() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(OURS), "--stdio"])


def broken_stdio(check: str) -> StdioServerParameters:
    """Our server behind the relay that breaks ``check``'s rule."""
    return StdioServerParameters(
        command=sys.executable,
        args=[str(BREAKER), check, "--", sys.executable, str(OURS), "--stdio"],
    )
