"""``mcp_elicit.integrations`` itself: importing it loads no framework (each is an extra)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.slow  # a fresh interpreter
def test_importing_the_integrations_package_loads_no_framework() -> None:
    probe = (
        "import json, sys\nimport mcp_elicit.integrations\nprint(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = json.loads(done.stdout)
    frameworks = ("pydantic_ai", "fastmcp", "google.adk", "langchain", "langgraph")
    assert [m for m in loaded if m.startswith(frameworks)] == []
