"""Helpers for the gateway's tests (a helper module, not tests): the processes the slow tests
start (a Python server of the repository's on a loopback port, and ``mcp-elicit gateway`` in
front of an upstream), and fakes for unit-testing the ways through without a session."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
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


@dataclass
class Ended:
    """How a process run by :func:`stdio_process` ended once its stdin was closed."""

    code: int | None = None  # None: still running after the wait (then killed)
    seconds: float = 0.0  # from stdin closed to the process gone
    stderr: str = ""


@asynccontextmanager
async def stdio_process(
    argv: list[str], ended: Ended, *, stderr: Path, wait: float
) -> AsyncIterator[tuple[Any, Any]]:
    """``argv`` (a server over stdio: ``mcp-elicit gateway``) as an SDK transport, to give
    ``mcp.Client``. On exit its stdin is closed and nothing else: it is waited for up to
    ``wait`` seconds and ``ended`` says how it went. Not the SDK's ``stdio_client``, which
    terminates a server still running 2 s after its stdin closed and keeps its exit code."""
    with stderr.open("wb") as errors:
        process = await anyio.open_process(argv, stderr=errors, env=dict(os.environ), cwd=ROOT)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](0)
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def read() -> None:
        pending = b""
        async with to_client:
            async for chunk in stdout:
                *lines, pending = (pending + chunk).split(b"\n")
                for line in filter(bytes.strip, lines):
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    try:
                        await to_client.send(SessionMessage(message))
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                        return  # the client has gone; what the gateway says now is unread

    async def write() -> None:
        async with from_client:
            async for sent in from_client:
                line = sent.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send(line.encode() + b"\n")

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            try:
                yield from_server, to_server
            finally:
                await to_server.aclose()
                await stdin.aclose()  # the client is gone: all the gateway is told
                began = time.monotonic()
                with anyio.move_on_after(wait):
                    await process.wait()
                ended.seconds = time.monotonic() - began
                ended.code = process.returncode
                tasks.cancel_scope.cancel()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        ended.stderr = stderr.read_text(errors="replace")


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
