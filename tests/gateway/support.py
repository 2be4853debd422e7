"""The processes the gateway's slow tests start (a helper module, not tests): a Python server
of the repository's on a loopback port, and ``mcp-elicit gateway`` in front of an upstream."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from tests.served import Served

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "mcp_elicit"]


def python_server(script: str, port_option: str, *, log: Path) -> Served:
    """``script`` (a path from the repository's root), started with ``PORT_OPTION PORT``."""
    return Served(
        lambda port: [sys.executable, str(ROOT / script), port_option, str(port)], log=log
    )


def gateway(
    upstream: Callable[[], list[str]], upstream_era: str, *options: str, log: Path
) -> Served:
    """``mcp-elicit gateway`` over HTTP, speaking ``upstream_era`` to ``upstream()`` (a URL, or
    ``--`` and a command), started (with its upstream) by the first test that asks its URL.
    The check servers' links lead nowhere (``.invalid``): blocked links are let through."""
    return Served(
        lambda port: [
            *CLI,
            "gateway",
            "--http",
            str(port),
            "--upstream-protocol",
            upstream_era,
            "--allow-blocked-links",
            *options,
            *upstream(),
        ],
        log=log,
    )
