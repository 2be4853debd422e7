"""What a host or a sans-IO test imports of the client loads no SDK session code.

``mcp_elicit.client`` imports each public name from its module on first use (PEP 562): the
prompts, the policy, the renderer protocol, the audit log, scripted answers and the handler's
pipeline need no SDK client or server, and importing them must not pay for one. Only
:class:`~mcp_elicit.client.ElicitingClient` (the connection) loads the SDK.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import mcp_elicit.client

LIGHT = (
    "mcp_elicit.client",
    "mcp_elicit.client.prompts",
    "mcp_elicit.client.policy",
    "mcp_elicit.client.renderer",
    "mcp_elicit.client.audit",
    "mcp_elicit.client.scripted",
    "mcp_elicit.client.handler",
    "mcp_elicit.client.call_round",
)
# Names taken from the package that live in light modules.
LIGHT_NAMES = ("Policy", "Accept", "Decision", "Renderer", "AuditLog", "ElicitationHandler")


def loaded_after(code: str) -> list[str]:
    """The SDK client and server modules a fresh interpreter has loaded after ``code``."""
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = json.loads(done.stdout)
    return [m for m in loaded if m == "mcp" or m.startswith(("mcp.client", "mcp.server"))]


@pytest.mark.slow  # fresh interpreters: this one has loaded everything already
@pytest.mark.parametrize("module", LIGHT)
def test_a_light_module_loads_no_sdk_client_or_server(module: str) -> None:
    assert loaded_after(f"import {module}") == []


@pytest.mark.slow
def test_names_from_light_modules_keep_the_package_light() -> None:
    names = ", ".join(LIGHT_NAMES)
    assert loaded_after(f"from mcp_elicit.client import {names}") == []


@pytest.mark.slow
def test_the_connection_loads_the_sdk_on_first_use() -> None:
    # The control: the probe sees the SDK when something does load it.
    assert "mcp.client" in loaded_after("from mcp_elicit.client import ElicitingClient")


def test_the_package_lists_its_public_names_and_no_twin() -> None:
    # Each name importing from where the reference says: tests/test_reference.py.
    assert set(mcp_elicit.client.__all__) <= set(dir(mcp_elicit.client))
    with pytest.raises(AttributeError, match="no attribute 'Answer'"):
        mcp_elicit.client.Answer  # noqa: B018  # the server's name, not the client's
