"""A secret asked for before a crash is answered after it: nothing lives only in the process.

The server runs as a real process on a SQLite store with a fixed deployment key. A flow is
started, the process is killed with SIGKILL while the flow is pending (no shutdown code
runs), and a new process on the same store, key and port takes over: the person completes
the page there, and the client's retry (on 2026-07-28, with the ``requestState`` the killed
process sealed) finishes the tool with the secret.
"""

from __future__ import annotations

import secrets
import signal
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from tests.peer_servers.secret_server import (
    MESSAGE,
    HttpServer,
    Wire,
    assert_nowhere,
    browser,
    fingerprint_of,
    flow_id_of,
    free_port,
    sdk_client,
    start_http,
    store_bytes,
    text_of,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TIMEOUT = 120.0  # two server start-ups on a busy two-core machine


@pytest.fixture
def processes() -> Iterator[list[HttpServer]]:
    started: list[HttpServer] = []
    try:
        yield started
    finally:
        for process in started:
            process.stop()


class Deployment:
    """One store, one key, one port: successive server processes of the same deployment."""

    def __init__(self, tmp_path: Path, key: str, processes: list[HttpServer]) -> None:
        self.store_path = tmp_path / "flows.db"
        self.key = key
        self.logs = tmp_path / "logs"
        self.port = free_port()
        self._processes = processes

    def start(self, name: str, *, key: str | None = None) -> HttpServer:
        process = start_http(
            store=f"sqlite:///{self.store_path}",
            key=key or self.key,
            logs=self.logs,
            port=self.port,
            name=name,
        )
        self._processes.append(process)
        return process

    def output(self) -> bytes:
        return b"".join(p.read_bytes() for p in sorted(self.logs.iterdir()))

    def assert_no_trace_of(self, sentinel: str, wire: Wire) -> None:
        """The secret is in no MCP message, no server log line, and not in the store files."""
        assert_nowhere(
            sentinel,
            wire=wire.data(),
            server_output=self.output(),
            store=store_bytes(self.store_path),
        )


def crash(process: HttpServer) -> None:
    process.kill()
    assert process.process.returncode == -signal.SIGKILL


async def test_a_pending_secret_survives_sigkill_on_2026_07_28(
    tmp_path: Path, key: str, sentinel: str, processes: list[HttpServer]
) -> None:
    deployment = Deployment(tmp_path, key, processes)
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        first = deployment.start("first")
        async with sdk_client(first, wire) as client:
            asked = await client.session.call_tool("connect_service", {}, allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult), asked
        assert asked.input_requests is not None and asked.request_state
        ((question, request),) = asked.input_requests.items()
        assert isinstance(request, types.ElicitRequest)
        assert isinstance(request.params, types.ElicitRequestURLParams)
        assert request.params.message == MESSAGE
        url = request.params.url
        flow_id = flow_id_of(url)
        state = asked.request_state
        # The person agreed to open the link; the page is not done yet.
        accepted: types.InputResponses = {question: types.ElicitResult(action="accept")}

        crash(first)

        second = deployment.start("second")
        assert second.origin == first.origin
        async with sdk_client(second, wire) as client:
            # Retried before the page is done: the same flow, the same link (the flow id
            # came back in the state the dead process sealed, and the flow from the store).
            waiting = await client.session.call_tool(
                "connect_service",
                {},
                input_responses=accepted,
                request_state=state,
                allow_input_required=True,
            )
            assert isinstance(waiting, types.InputRequiredResult), waiting
            assert waiting.input_requests is not None and waiting.request_state
            ((question, again),) = waiting.input_requests.items()
            assert isinstance(again, types.ElicitRequest)
            assert isinstance(again.params, types.ElicitRequestURLParams)
            assert again.params.url == url

            # The person completes the page the dead process made, on the new process.
            async with browser("alice") as person:
                await person.enter(url, sentinel)

            done = await client.session.call_tool(
                "connect_service",
                {},
                input_responses={question: types.ElicitResult(action="accept")},
                request_state=waiting.request_state,
                allow_input_required=True,
            )
            assert isinstance(done, types.CallToolResult), done
            text = text_of(done)
            assert text.startswith("connected with ") and fingerprint_of(sentinel) in text

            # And the first round's state, from before the crash, still opens too.
            replay = await client.session.call_tool(
                "connect_service",
                {},
                input_responses=accepted,
                request_state=state,
                allow_input_required=True,
            )
            assert isinstance(replay, types.CallToolResult)
            assert fingerprint_of(sentinel) in text_of(replay)
    assert flow_id.encode() in wire.data()
    second.stop()
    deployment.assert_no_trace_of(sentinel, wire)


async def test_a_pending_minus_32042_survives_sigkill_on_2025_11_25(
    tmp_path: Path, key: str, sentinel: str, processes: list[HttpServer]
) -> None:
    deployment = Deployment(tmp_path, key, processes)
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        first = deployment.start("first")
        async with sdk_client(first, wire, mode="legacy") as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("connect_later", {})
        error = raised.value.error
        assert error.code == -32042 and isinstance(error.data, dict)
        url = error.data["elicitations"][0]["url"]

        crash(first)

        second = deployment.start("second")
        async with browser("alice") as person:
            await person.enter(url, sentinel)
        # The process that promised a completion notice is gone, and nobody sends it: the
        # client retries on its own (clients must not wait for the notice forever).
        async with sdk_client(second, wire, mode="legacy") as client:
            text = text_of(await client.call_tool("connect_later", {}))
    assert text.startswith("ok: ") and fingerprint_of(sentinel) in text
    second.stop()
    deployment.assert_no_trace_of(sentinel, wire)


async def test_a_blocked_secret_call_killed_mid_wait_is_answered_after_restart(
    tmp_path: Path, key: str, sentinel: str, processes: list[HttpServer]
) -> None:
    """2025-11-25's blocking ``secret()``: the process dies while the tool waits for the
    page. The call fails, but the flow is in the store: the page still takes the secret,
    and calling the tool again on the new process finds it in the vault."""
    deployment = Deployment(tmp_path, key, processes)
    wire = Wire()
    links: list[str] = []
    consented = anyio.Event()
    first = deployment.start("first")

    async def consent(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        links.append(params.url)
        consented.set()
        return types.ElicitResult(action="accept")

    failures: list[BaseException] = []

    async def call(client: Client) -> None:
        try:
            await client.call_tool("connect_service", {})
        except Exception as error:  # the stream broke under the call
            failures.append(error)

    with anyio.fail_after(TIMEOUT):
        async with (
            sdk_client(first, wire, mode="legacy", callback=consent) as client,
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(call, client)
            await consented.wait()
            await anyio.sleep(1.0)  # the tool is in flows.wait now, polling the store
            crash(first)
        assert len(failures) == 1, "the call did not fail when its server died"
        (url,) = links

        second = deployment.start("second")
        async with browser("alice") as person:
            await person.enter(url, sentinel)
        async with sdk_client(second, wire, mode="legacy") as client:
            text = text_of(await client.call_tool("connect_service", {}))
    assert fingerprint_of(sentinel) in text
    second.stop()
    deployment.assert_no_trace_of(sentinel, wire)


async def test_another_deployment_key_opens_nothing(
    tmp_path: Path, key: str, sentinel: str, processes: list[HttpServer]
) -> None:
    """The other side of "nothing lost": a process with another key cannot use what the
    first one sealed. The old ``requestState`` is refused, and the stored secret reads as
    absent (so the person is asked again), never as garbage or someone else's value."""
    deployment = Deployment(tmp_path, key, processes)
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        first = deployment.start("first")
        async with sdk_client(first, wire) as client:
            asked = await client.session.call_tool("connect_service", {}, allow_input_required=True)
            assert isinstance(asked, types.InputRequiredResult)
            assert asked.input_requests is not None and asked.request_state
            ((question, request),) = asked.input_requests.items()
            assert isinstance(request, types.ElicitRequest)
            assert isinstance(request.params, types.ElicitRequestURLParams)
            async with browser("alice") as person:
                await person.enter(request.params.url, sentinel)
        crash(first)

        other = deployment.start("other-key", key=secrets.token_urlsafe(32))
        async with sdk_client(other, wire) as client:
            with pytest.raises(MCPError) as raised:
                await client.session.call_tool(
                    "connect_service",
                    {},
                    input_responses={question: types.ElicitResult(action="accept")},
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
            assert raised.value.error.code == -32602
            fresh = await client.session.call_tool("connect_service", {}, allow_input_required=True)
            assert isinstance(fresh, types.InputRequiredResult)  # asked again
