"""Helpers for the gateway's tests (a helper module, not tests): the processes the slow tests
start (a Python server of the repository's on a loopback port, and ``mcp-elicit gateway`` in
front of an upstream), and fakes for unit-testing the ways through without a session."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import mcp_types as types
from pydantic import TypeAdapter

from mcp_elicit.protocol import ElicitationModes
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


# -- fakes for the ways through, unit-tested without a session -------------------------------


@dataclass
class FakeSession:
    """What the ways through read of a downstream session."""

    client_capabilities: types.ClientCapabilities | None = None
    _connection: object = field(default_factory=object)
    completed: list[str] = field(default_factory=list)

    async def send_elicit_complete(self, elicitation_id: str, **options: Any) -> None:
        self.completed.append(elicitation_id)


def request_context(
    version: str,
    declared: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
) -> Any:
    """A downstream request's context, as much of it as the ways through read."""
    capabilities = None if declared is None else types.ClientCapabilities.model_validate(declared)
    return SimpleNamespace(
        protocol_version=version,
        session=FakeSession(capabilities),
        params=params,
        request_id=1,
    )


@dataclass
class ScriptedUpstream:
    """An upstream that answers each request with the next of ``results`` and keeps what it
    was sent."""

    version: str
    results: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rounds(self) -> bool:
        return self.version == "2026-07-28"

    async def request(
        self, method: str, params: Mapping[str, Any] | None, modes: ElicitationModes
    ) -> dict[str, Any]:
        self.sent.append(dict(params or {}))
        return self.results.pop(0)


# -- a 2026-07-28 client's rounds, sent by hand --------------------------------------------

_RAW = TypeAdapter(dict[str, Any])


async def send_round(
    client: Any,
    tool: str,
    arguments: dict[str, Any] | None = None,
    *,
    state: str | None = None,
    responses: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``tools/call`` on ``client`` (an ``mcp.Client`` on 2026-07-28) as one round: the raw
    result, an ``InputRequiredResult`` left for the test to answer."""
    params = types.CallToolRequestParams(
        name=tool, arguments=arguments or {}, input_responses=responses, request_state=state
    )
    request = types.CallToolRequest(params=params)
    result: dict[str, Any] = await client.session.send_request(request, _RAW)
    return result
