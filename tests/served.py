"""A server process on a loopback port, shared by the tests of a module (a helper, not tests).

It starts on first use, inside a test, so the marker checks of ``tests/markers.py`` (and the
fail-in-CI / skip-elsewhere of ``tests/peers.py``) apply to it as to any other subprocess;
a module-scoped fixture makes one and stops it at the end of the module::

    @pytest.fixture(scope="module")
    def server(tmp_path_factory) -> Iterator[Served]:
        served = Served(lambda port: [...argv...], log=tmp_path_factory.mktemp("s") / "log")
        yield served
        served.stop()
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from tests import markers
from tests.ports import free_port

START_TIMEOUT = 60.0  # a Python server on a busy two-core machine


class Served:
    """``argv_of(port)`` started on a free port; :meth:`url` starts it if it is not running."""

    def __init__(
        self,
        argv_of: Callable[[int], list[str]],
        *,
        log: Path,
        env: Mapping[str, str] | None = None,
        path: str = "/mcp",
    ) -> None:
        self.argv_of = argv_of
        self.log = log
        self.env = {**os.environ, **(env or {})}
        self.path = path
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def url(self) -> str:
        if self.process is None or self.process.poll() is not None:
            self._start()
        return f"http://127.0.0.1:{self.port}{self.path}"

    def _start(self) -> None:
        markers.require("slow", "node")
        self.port = free_port()
        argv = self.argv_of(self.port)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=self.env
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    raise AssertionError(f"{argv} exited:\n{self.output()}") from None
                time.sleep(0.1)
        self.stop()
        raise AssertionError(f"{argv} did not listen within {START_TIMEOUT:g} s:\n{self.output()}")

    def output(self) -> str:
        """What the server wrote (stdout and stderr), for failure messages."""
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
