"""The server the client benchmarks talk to: the one the client's HTTP tests use, so both
measure against the same thing (``tests/peer_servers/numbered_server.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.peer_servers.numbered_server import (
    AcceptingRenderer,
    http_server,
    number_of,
    raise_open_files_limit,
    reply_for,
    stdio_params,
)

__all__ = [
    "AcceptingRenderer",
    "http_server",
    "number_of",
    "raise_open_files_limit",
    "reply_for",
    "stdio_params",
]
