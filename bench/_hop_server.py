"""The server benchmark 21 calls: ``tests/peer_servers/numbered_server.py`` (tool ``ask``, one
form question, as benchmarks 3 and 13) with one more tool, ``plain(n)``, that asks nothing and
returns ``"{n}:plain"``. The numbered server itself is left as it is (the HTTP tests and the
other benchmarks use it); this script registers the extra tool on its ``server`` and runs it.

    .venv/bin/python bench/_hop_server.py              # stdio
    .venv/bin/python bench/_hop_server.py --http PORT  # 127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.peer_servers import numbered_server

SCRIPT = Path(__file__).resolve()


@numbered_server.server.tool()
async def plain(n: int) -> str:
    """Ask nothing; return ``n:plain``."""
    return f"{n}:plain"


def plain_reply(n: int) -> str:
    return f"{n}:plain"


def command() -> list[str]:
    """This server's command line (``http_server`` adds ``--http PORT``)."""
    return [sys.executable, str(SCRIPT)]


def stdio_params() -> StdioServerParameters:
    """This server as a stdio subprocess."""
    return StdioServerParameters(command=sys.executable, args=[str(SCRIPT)], env=dict(os.environ))


if __name__ == "__main__":
    numbered_server.main()
