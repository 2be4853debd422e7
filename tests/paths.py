"""Where things are, for tests at any depth of this folder."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
PEER_SERVERS = TESTS / "peer_servers"
EXAMPLES = ROOT / "examples"
DOCS = ROOT / "docs"
SRC = ROOT / "src"
VENV_BIN = Path(sys.prefix) / "bin"  # where `mcp-elicit` and `python` are installed
