"""Free TCP ports for the servers the tests start as processes (a helper module, not tests).

Binding port 0, reading the port and letting it go, then handing the number to a process that
binds it a second or two later, is a race once tests run in parallel (pytest-xdist workers, and
the suites of other checkouts on the same machine): in between, the kernel may give the same
port to another ``bind(("127.0.0.1", 0))`` or to an outgoing connection as its source port, and
the server then fails to start, or worse, a test talks to another test's server.

So the ports here come from a range below the kernel's ephemeral range
(``net.ipv4.ip_local_port_range``), which neither ``bind`` to port 0 nor ``connect`` ever
picks; they are handed out in turn by one counter that every process on the machine shares
under a file lock (so two workers never get the same port), and each is probed before it is
handed out (a port something listens on, or is still closing, is skipped). A port comes round
again only after every other one in the range has been handed out: thousands of servers later.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

COUNTER = Path(tempfile.gettempdir()) / "mcp-elicit-tests-next-port"


def _range() -> range:
    """The ports below the ephemeral range: its lower half down to its first port."""
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
        first = int(text.split()[0])
    except (OSError, ValueError, IndexError):
        first = 32768  # Linux's default
    low = max(first // 2, 10000)
    if first - low < 1000:  # an unusual machine: nothing sensible below the range
        raise RuntimeError(f"no room for test ports below the ephemeral range ({first})")
    return range(low, first)


PORTS = _range()


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A loopback TCP port nothing listens on, that no other test (in this process, another
    worker, or another checkout's suite) is handed before thousands of others."""
    with _locked_counter() as counter:
        text = counter.read().strip()
        last = int(text) if text.isdigit() else PORTS.start - 1 + os.getpid() % len(PORTS)
        for step in range(1, len(PORTS) + 1):
            port = PORTS.start + (last - PORTS.start + step) % len(PORTS)
            if _bindable(port):
                counter.seek(0)
                counter.truncate()
                counter.write(str(port))
                return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


@contextlib.contextmanager
def _locked_counter() -> Iterator[TextIO]:
    fd = os.open(COUNTER, os.O_RDWR | os.O_CREAT, 0o666)
    with os.fdopen(fd, "r+", encoding="ascii") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)  # released when the file is closed
        yield counter
