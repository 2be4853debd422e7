"""The server side's URL mode through real processes and real HTTP.

``tests/peer_servers/secret_server.py`` runs as a subprocess on a SQLite store in the test's
directory, with its log at DEBUG. The MCP clients are the official SDK's (with every byte of
their HTTP traffic recorded) or raw JSON-RPC written here; the person is an HTTP client with
a cookie jar that opens the hosted page, reads its CSRF field and posts the secret.

The secret is a fresh sentinel per test. After each flow the tests search for it in every
MCP byte the client sent and received, in everything the server process wrote, and in the
store's files: it must be in none of them (DESIGN.md, "Security rules").
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.flows import Flows
from mcp_elicit.stores import SQLiteStore
from tests.peer_servers.secret_server import (
    MESSAGE,
    HttpServer,
    Notices,
    Wire,
    assert_nowhere,
    assert_server_logged_traffic,
    browser,
    fingerprint_of,
    flow_id_of,
    person_who_enters,
    sdk_client,
    server_env,
    start_http,
    stdio_command,
    store_bytes,
    text_of,
    user_of_token,
)
from tests.server.wire_support import PUSH, RawHttp

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TIMEOUT = 90.0  # a whole test, on a busy two-core machine
MODERN = "2026-07-28"
DRAFT = "2025-06-18"


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "flows.db"


@pytest.fixture
def server(tmp_path: Path, key: str, store_path: Path) -> Iterator[HttpServer]:
    running = start_http(store=f"sqlite:///{store_path}", key=key, logs=tmp_path / "logs")
    try:
        yield running
    finally:
        running.stop()


# -- 1. the SDK client, a blocking secret(), both eras --------------------------------------


async def test_secret_on_2025_11_25_sdk_client(
    server: HttpServer, sentinel: str, store_path: Path
) -> None:
    wire, notices = Wire(), Notices()
    asked: list[types.ElicitRequestParams] = []
    with anyio.fail_after(TIMEOUT):
        async with sdk_client(
            server,
            wire,
            mode="legacy",
            callback=person_who_enters(sentinel, asked),
            notices=notices,
        ) as client:
            assert client.protocol_version == PUSH
            result = await client.call_tool("connect_service", {})
            text = text_of(result)
            # The completion notice rides the call's own stream, before its result.
            assert len(asked) == 1
            request = asked[0]
            assert isinstance(request, types.ElicitRequestURLParams)
            assert request.mode == "url" and request.message == MESSAGE
            assert request.url.startswith(server.origin + "/elicit/flows/")
            flow_id = flow_id_of(request.url)
            assert request.elicitation_id == flow_id
            assert notices.completed() == [flow_id]

            # Asked again, the stored secret is reused: no second link.
            again = text_of(await client.call_tool("connect_service", {}))
            assert again == text and len(asked) == 1

    assert (
        text == f"connected with key ending in {sentinel[-4:]} (sha256 {fingerprint_of(sentinel)}…)"
    )
    assert sentinel not in text
    raw = wire.data()
    assert b'"mode":"url"' in raw and flow_id.encode() in raw
    assert b"notifications/elicitation/complete" in raw
    server.stop()
    assert_server_logged_traffic(server)
    assert_nowhere(sentinel, wire=raw, server_output=server.output(), store=store_bytes(store_path))


async def test_secret_on_2026_07_28_sdk_client(
    server: HttpServer, sentinel: str, store_path: Path
) -> None:
    wire = Wire()
    asked: list[types.ElicitRequestParams] = []
    with anyio.fail_after(TIMEOUT):
        async with sdk_client(server, wire, callback=person_who_enters(sentinel, asked)) as client:
            assert client.protocol_version == MODERN
            # The SDK's loop: an InputRequiredResult, the callback, the retry, the result.
            text = text_of(await client.call_tool("connect_service", {}))
    assert len(asked) == 1
    request = asked[0]
    assert isinstance(request, types.ElicitRequestURLParams)
    assert request.mode == "url" and request.message == MESSAGE
    assert request.elicitation_id is None  # 2026-07-28 has none: requestState correlates
    assert request.url.startswith(server.origin + "/elicit/flows/")
    flow_id_of(request.url)
    assert text.endswith(f"(sha256 {fingerprint_of(sentinel)}…)")
    raw = wire.data()
    assert b"input_required" in raw or b"inputRequests" in raw
    assert b"-32042" not in raw
    server.stop()
    assert b" DEBUG " in server.output()  # (2026-07-28's JSON responses are not logged)
    assert_nowhere(sentinel, wire=raw, server_output=server.output(), store=store_bytes(store_path))


async def test_2026_07_28_secret_waits_for_a_person_still_on_the_page(
    server: HttpServer, sentinel: str
) -> None:
    """The client accepts the link and retries at once, as the SDK's loop does; the person
    finishes on the page a second later. The held retry returns the tool's result: the link
    is asked for once, not again while they type."""
    asked: list[types.ElicitRequestParams] = []
    links, opened = anyio.create_memory_object_stream[str](1)

    async def accepts_and_opens_later(
        context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params)
        assert isinstance(params, types.ElicitRequestURLParams)
        links.send_nowait(params.url)
        return types.ElicitResult(action="accept")

    async def person() -> None:
        url = await opened.receive()
        await anyio.sleep(1.0)
        async with browser() as someone:
            await someone.enter(url, sentinel)

    with anyio.fail_after(TIMEOUT):
        async with (
            sdk_client(server, Wire(), callback=accepts_and_opens_later) as client,
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(person)
            text = text_of(await client.call_tool("connect_service", {}))
    assert text.endswith(f"(sha256 {fingerprint_of(sentinel)}…)")
    assert len(asked) == 1


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_declined_on_the_page(server: HttpServer, mode: str) -> None:
    """The person follows the link, then chooses Decline on the page: the tool hears
    ``Declined`` (2025-11-25: from the flow it waited on; 2026-07-28: on the retry)."""
    wire = Wire()
    asked: list[types.ElicitRequestParams] = []
    with anyio.fail_after(TIMEOUT):
        async with sdk_client(
            server, wire, mode=mode, callback=person_who_enters(None, asked)
        ) as client:
            assert client.protocol_version == (PUSH if mode == "legacy" else MODERN)
            text = text_of(await client.call_tool("connect_service", {}))
    assert text == "declined" and len(asked) == 1
    assert b"notifications/elicitation/complete" not in wire.data()


# -- 2. the same-user rule and CSRF, on the real server ------------------------------------


async def start_flow_2025(server: HttpServer, wire: Wire, user: str = "alice") -> dict[str, Any]:
    """``connect_later`` through the SDK client on 2025-11-25: the -32042 it fails with."""
    async with sdk_client(server, wire, mode="legacy", user=user) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("connect_later", {})
    error = raised.value.error
    assert error.code == -32042, error
    assert isinstance(error.data, dict)
    return dict(error.data["elicitations"][0])


async def test_another_users_browser_and_forged_forms_are_refused(
    server: HttpServer, sentinel: str, store_path: Path
) -> None:
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        # The two people are two users on the MCP side too.
        async with sdk_client(server, wire, mode="legacy", user="alice") as client:
            alice = text_of(await client.call_tool("whoami", {}))
        async with sdk_client(server, wire, mode="legacy", user="bob") as client:
            bob = text_of(await client.call_tool("whoami", {}))
        assert alice == user_of_token("alice") and bob == user_of_token("bob")

        request = await start_flow_2025(server, wire)
        url = request["url"]
        status_url = url + "/status"
        async with browser("alice") as owner, browser("bob") as other, browser(None) as nobody:
            # Another user's browser sees no form, not even the flow's state.
            page, token = await other.open(url)
            assert page.status_code == 403 and token is None
            assert "not made for you" in page.text
            assert (await other.http.get(status_url)).status_code == 403
            # A browser signed in as nobody is refused the same way.
            page, token = await nobody.open(url)
            assert page.status_code == 403 and token is None

            page, token = await owner.open(url)
            assert page.status_code == 200 and token is not None
            # Bob with Alice's cookie and a valid token for this flow: still not Alice.
            other.http.cookies = httpx2.Cookies(owner.http.cookies)
            refused = await other.post(url, {"csrf": token, "action": "submit", "value": "x"})
            assert refused.status_code == 403 and "not made for you" in refused.text
            # Alice's browser, but a forged token, no token, or a token for another flow.
            forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
            for fields in (
                {"csrf": forged, "action": "submit", "value": "x"},
                {"action": "submit", "value": "x"},
                {"csrf": "", "action": "submit", "value": "x"},
            ):
                answer = await owner.post(url, fields)
                assert answer.status_code == 403, fields
                assert "could not be accepted" in answer.text
            second = await start_flow_2025(server, wire)
            _, token_for_second = await owner.open(second["url"])
            assert token_for_second is not None and token_for_second != token
            crossed = await owner.post(
                url, {"csrf": token_for_second, "action": "submit", "value": "x"}
            )
            assert crossed.status_code == 403
            # A cross-site post with the right token: the browser's own word refuses it.
            cross_site = await owner.http.post(
                url,
                data={"csrf": token, "action": "submit", "value": "x"},
                headers={"Sec-Fetch-Site": "cross-site"},
            )
            assert cross_site.status_code == 403
            # No cookie at all (a fresh browser for the same user): refused.
            async with browser("alice") as fresh:
                bare = await fresh.post(url, {"csrf": token, "action": "submit", "value": "x"})
                assert bare.status_code == 403

            # Nothing changed: the flow is still waiting, and nothing is stored.
            waiting = await owner.http.get(status_url)
            assert waiting.status_code == 200 and "Waiting for you" in waiting.text
            async with sdk_client(server, wire, mode="legacy", user="bob") as client:
                with pytest.raises(MCPError) as raised:
                    await client.call_tool("connect_later", {})
                assert raised.value.error.code == -32042

            # Alice herself completes it.
            answer = await owner.post(url, {"csrf": token, "action": "submit", "value": sentinel})
            assert answer.status_code == 303
            done = await owner.http.get(status_url)
            assert "Done" in done.text
            # Bob, asking again, is still asked: his vault is his own.
            async with sdk_client(server, wire, mode="legacy", user="bob") as client:
                with pytest.raises(MCPError) as raised:
                    await client.call_tool("connect_later", {})
                assert raised.value.error.code == -32042
            async with sdk_client(server, wire, mode="legacy", user="alice") as client:
                ok = text_of(await client.call_tool("connect_later", {}))
            assert ok.startswith("ok: ") and fingerprint_of(sentinel) in ok
    server.stop()
    assert_nowhere(
        sentinel, wire=wire.data(), server_output=server.output(), store=store_bytes(store_path)
    )


async def test_request_state_of_one_user_is_refused_to_another(
    server: HttpServer, sentinel: str
) -> None:
    """2026-07-28: Bob echoing the ``requestState`` Alice's round produced gets -32602,
    not Alice's flow, not her link, and never her secret."""
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        async with sdk_client(server, wire, user="alice") as client:
            asked = await client.session.call_tool("connect_service", {}, allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult)
        assert asked.input_requests is not None and asked.request_state
        ((question, request),) = asked.input_requests.items()
        assert isinstance(request, types.ElicitRequest)
        assert isinstance(request.params, types.ElicitRequestURLParams)
        async with browser("alice") as person:
            await person.enter(request.params.url, sentinel)
        accepted: types.InputResponses = {question: types.ElicitResult(action="accept")}
        async with sdk_client(server, wire, user="bob") as client:
            with pytest.raises(MCPError) as raised:
                await client.session.call_tool(
                    "connect_service",
                    {},
                    input_responses=accepted,
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
            assert raised.value.error.code == -32602
        async with sdk_client(server, wire, user="alice") as client:
            done = await client.session.call_tool(
                "connect_service",
                {},
                input_responses=accepted,
                request_state=asked.request_state,
                allow_input_required=True,
            )
            assert isinstance(done, types.CallToolResult)
            assert fingerprint_of(sentinel) in text_of(done)


# -- 4. -32042 on the wire, raw JSON-RPC over HTTP ----------------------------------------


async def test_minus_32042_on_the_wire_then_complete_and_retry(
    server: HttpServer, sentinel: str, store_path: Path
) -> None:
    wire = Wire()
    raw = RawHttp(server, wire)
    try:
        with anyio.fail_after(TIMEOUT):
            await raw.initialize()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(raw.listen)
                await raw.stream_open.wait()

                answer = await raw.request("tools/call", {"name": "connect_later", "arguments": {}})
                error = answer["error"]
                assert error["code"] == -32042
                (item,) = error["data"]["elicitations"]
                assert item["mode"] == "url" and item["message"] == MESSAGE
                flow_id = item["elicitationId"]
                assert item["url"] == f"{server.origin}/elicit/flows/{flow_id}"
                assert "result" not in answer

                async with browser("alice") as person:
                    await person.enter(item["url"], sentinel)
                while not any(
                    m.get("method") == "notifications/elicitation/complete" for m in raw.stream
                ):
                    await raw.streamed.wait()
                (notice,) = [
                    m for m in raw.stream if m.get("method") == "notifications/elicitation/complete"
                ]
                assert notice["params"] == {"elicitationId": flow_id}
                assert "id" not in notice

                retried = await raw.request(
                    "tools/call", {"name": "connect_later", "arguments": {}}
                )
                text = retried["result"]["content"][0]["text"]
                assert text.startswith("ok: ") and fingerprint_of(sentinel) in text
                tasks.cancel_scope.cancel()
    finally:
        await raw.aclose()
    server.stop()
    assert_nowhere(
        sentinel, wire=wire.data(), server_output=server.output(), store=store_bytes(store_path)
    )


async def test_a_flow_deleted_while_its_notice_is_awaited_does_not_stop_the_server(
    server: HttpServer, store_path: Path
) -> None:
    """After a -32042 the server watches the flow to send its completion notice. The flow
    vanishing from the store under it (an operator's cleanup) costs that notice, not the
    server: the watcher ran in the server-wide task group, so it used to take the whole
    process down."""
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        await start_flow_2025(server, wire)
        with contextlib.closing(sqlite3.connect(store_path)) as db, db:
            assert db.execute("DELETE FROM flows").rowcount == 1
        await anyio.sleep(2.5)  # the watcher reads the store once a second
        assert server.process.poll() is None, server.stderr.read_text()[-3000:]
        async with sdk_client(server, wire, mode="legacy") as client:
            assert text_of(await client.call_tool("whoami", {})) == user_of_token("alice")
    assert b"no completion notice will be sent" in server.output()


async def minus_32042(raw: RawHttp) -> dict[str, Any]:
    """``connect_later`` on ``raw``'s session: the one elicitation its -32042 carries."""
    answer = await raw.request("tools/call", {"name": "connect_later", "arguments": {}})
    assert answer["error"]["code"] == -32042, answer
    (item,) = answer["error"]["data"]["elicitations"]
    return dict(item)


async def completion_notices(raw: RawHttp, count: int) -> list[str]:
    """Wait for ``count`` completion notices on the GET stream; their elicitation ids."""

    def told() -> list[str]:
        return [
            m["params"]["elicitationId"]
            for m in raw.stream
            if m.get("method") == "notifications/elicitation/complete"
        ]

    while len(told()) < count:
        await raw.streamed.wait()
    return told()


async def test_two_flows_completed_elsewhere_are_both_told_on_the_wire(
    server: HttpServer, store_path: Path
) -> None:
    """Two -32042 links outstanding in one session; both flows are completed through the
    flows API by another instance on the same store (so the server learns it only by
    reading the store). One watcher serves both, and both notices reach the client."""
    wire = Wire()
    raw = RawHttp(server, wire)
    other = SQLiteStore(store_path)
    try:
        with anyio.fail_after(TIMEOUT):
            await raw.initialize()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(raw.listen)
                await raw.stream_open.wait()
                first, second = await minus_32042(raw), await minus_32042(raw)
                assert first["elicitationId"] != second["elicitationId"]
                elsewhere = Flows(other)
                for item in (second, first):
                    await elsewhere.complete(item["elicitationId"], user=user_of_token("alice"))
                told = await completion_notices(raw, 2)
                assert sorted(told) == sorted([first["elicitationId"], second["elicitationId"]])
                tasks.cancel_scope.cancel()
    finally:
        await raw.aclose()
        await other.aclose()
    assert server.process.poll() is None


async def test_a_decline_on_the_page_is_not_told_and_the_retry_gets_a_fresh_link(
    server: HttpServer,
) -> None:
    """The spec's notice says a URL elicitation "is completed", and a client may retry on it
    automatically: after a decline that retry would only send the person the link again. So
    a declined flow gets no notice (docs/url-mode.md); calling the tool again (by hand)
    answers a fresh -32042, for a new flow."""
    wire = Wire()
    raw = RawHttp(server, wire)
    try:
        with anyio.fail_after(TIMEOUT):
            await raw.initialize()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(raw.listen)
                await raw.stream_open.wait()
                declined = await minus_32042(raw)
                async with browser("alice") as person:
                    await person.decline(declined["url"])
                    retry = await minus_32042(raw)
                    assert retry["elicitationId"] != declined["elicitationId"]
                    assert retry["url"] != declined["url"]
                    # Completing the new link is the sync point: when its notice is here,
                    # the watcher has long since seen the decline, finished first.
                    await person.enter(retry["url"], "sk-not-the-point")
                assert await completion_notices(raw, 1) == [retry["elicitationId"]]
                await anyio.sleep(1.5)  # a full read of the store more, for good measure
                assert await completion_notices(raw, 1) == [retry["elicitationId"]]
                tasks.cancel_scope.cancel()
    finally:
        await raw.aclose()


async def test_the_pages_refuse_a_host_name_that_is_not_theirs(server: HttpServer) -> None:
    """DNS rebinding: a page on another name that resolves to 127.0.0.1 reaches the hosted
    pages with its own name in ``Host``. The real server answers only its own names."""
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        item = await start_flow_2025(server, wire)
        async with browser("alice") as person:
            for host in (f"evil.example:{server.port}", f"127.0.0.1:{server.port + 1}"):
                refused = await person.http.get(item["url"], headers={"Host": host})
                assert refused.status_code == 400, host
                assert refused.headers["x-frame-options"] == "DENY"
                assert refused.headers["referrer-policy"] == "no-referrer"
            for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}"):
                page = await person.http.get(item["url"], headers={"Host": host})
                assert page.status_code == 200, host
    assert b"refused a request for Host 'evil.example:" in server.output()


# -- 6. 2026-07-28: never -32042 ------------------------------------------------------------


async def test_2026_07_28_gets_an_input_request_not_minus_32042(
    server: HttpServer, sentinel: str, store_path: Path
) -> None:
    """``secret_required`` on 2026-07-28: an input request, never -32042. The retry that
    follows "I opened the link" is held while the person is on the page (``url_resume_wait``,
    20 s here), and answered with the tool's result once they are done."""
    wire = Wire()
    with anyio.fail_after(TIMEOUT):
        async with sdk_client(server, wire) as client:
            assert client.protocol_version == MODERN
            first = await client.session.call_tool("connect_later", {}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult), first
            assert first.input_requests is not None and first.request_state
            ((key, request),) = first.input_requests.items()
            assert isinstance(request, types.ElicitRequest)
            params = request.params
            assert isinstance(params, types.ElicitRequestURLParams)
            assert params.mode == "url" and params.message == MESSAGE
            assert params.elicitation_id is None
            assert params.url.startswith(server.origin + "/elicit/flows/")

            accepted: types.InputResponses = {key: types.ElicitResult(action="accept")}
            results: list[Any] = []

            async def retry() -> None:
                results.append(
                    await client.session.call_tool(
                        "connect_later",
                        {},
                        input_responses=accepted,
                        request_state=first.request_state,
                        allow_input_required=True,
                    )
                )

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(retry)
                await anyio.sleep(1.0)  # the retry is in, and held: the page is not done
                assert results == []
                async with browser("alice") as person:
                    await person.enter(params.url, sentinel)
            (done,) = results
            assert isinstance(done, types.CallToolResult), done
            assert fingerprint_of(sentinel) in text_of(done)
    raw = wire.data()
    assert b"-32042" not in raw and b"-32604" not in raw
    assert b'"elicitationId"' not in raw
    # The on-the-wire shape of the input request.
    assert re.search(rb'"inputRequests":\{"[^"]+":\{"method":"elicitation/create"', raw), raw[:2000]
    server.stop()
    assert_nowhere(sentinel, wire=raw, server_output=server.output(), store=store_bytes(store_path))


async def test_2026_07_28_a_retry_before_the_page_is_done_gets_the_same_link(
    tmp_path: Path, key: str, store_path: Path, sentinel: str
) -> None:
    """Past ``url_resume_wait`` the link is asked for again: the same flow's link (a new flow
    per retry would strand what the person is typing on the first page)."""
    server = start_http(
        store=f"sqlite:///{store_path}", key=key, logs=tmp_path / "logs", resume_wait=0.3
    )
    try:
        with anyio.fail_after(TIMEOUT):
            async with sdk_client(server, Wire()) as client:

                async def call(state: str | None, responses: Any) -> Any:
                    return await client.session.call_tool(
                        "connect_later",
                        {},
                        input_responses=responses,
                        request_state=state,
                        allow_input_required=True,
                    )

                first = await call(None, None)
                assert isinstance(first, types.InputRequiredResult)
                ((key_, request),) = first.input_requests.items()
                accepted = {key_: types.ElicitResult(action="accept")}
                again = await call(first.request_state, accepted)
                assert isinstance(again, types.InputRequiredResult), again
                assert again.input_requests is not None
                assert again.input_requests[key_].params.url == request.params.url
                async with browser("alice") as person:
                    await person.enter(request.params.url, sentinel)
                done = await call(again.request_state, accepted)
                assert isinstance(done, types.CallToolResult)
                assert fingerprint_of(sentinel) in text_of(done)
        with sqlite3.connect(store_path) as db:
            (flows,) = db.execute("SELECT count(*) FROM flows").fetchone()
        assert flows == 1
    finally:
        server.stop()


# -- 5. the URL-mode draft on stdio: -32604 and elicitation/track ---------------------------


class StdioPeer:
    """A server process spoken to in newline-delimited JSON-RPC, written by hand."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.received: list[dict[str, Any]] = []
        self.sent: list[bytes] = []
        self.raw = bytearray()
        self._arrived = anyio.Event()
        self._next = 0

    async def read(self) -> None:
        assert self.process.stdout is not None
        buffer = b""
        async for chunk in self.process.stdout:
            self.raw += chunk
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    self.received.append(json.loads(line))
                    self._arrived.set()
                    self._arrived = anyio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        data = (json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode()
        self.sent.append(data)
        await self.process.stdin.send(data)

    async def start_request(self, method: str, params: dict[str, Any]) -> int:
        self._next += 1
        await self.send({"id": self._next, "method": method, "params": params})
        return self._next

    async def wait_for(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            for message in self.received:
                if check(message):
                    return message
            await self._arrived.wait()

    async def answer(self, ident: int) -> dict[str, Any]:
        return await self.wait_for(lambda m: m.get("id") == ident and "method" not in m)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.answer(await self.start_request(method, params))

    async def initialize(self, capabilities: dict[str, Any]) -> dict[str, Any]:
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": DRAFT,
                "capabilities": capabilities,
                "clientInfo": {"name": "draft-test-client", "version": "0"},
            },
        )
        await self.send({"method": "notifications/initialized"})
        return answer


@asynccontextmanager
async def stdio_server(
    tmp_path: Path, key: str, store: str, name: str, *options: str
) -> AsyncIterator[StdioPeer]:
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    with (logs / f"{name}.err").open("ab") as stderr:
        process = await anyio.open_process(
            stdio_command(store, *options), env=server_env(key, logs), stderr=stderr
        )
    peer = StdioPeer(process)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(peer.read)
            try:
                yield peer
            finally:
                tasks.cancel_scope.cancel()
    finally:
        if process.returncode is None:
            process.terminate()
            with anyio.move_on_after(15):
                await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
        await process.aclose()


async def test_url_draft_minus_32604_and_track_on_stdio(
    tmp_path: Path, key: str, store_path: Path, sentinel: str
) -> None:
    store = f"sqlite:///{store_path}"
    tool = {"name": "connect_later", "arguments": {}}
    with anyio.fail_after(TIMEOUT):
        async with (
            stdio_server(tmp_path, key, store, "alice", "--url-draft", "--user", "alice") as alice,
            stdio_server(tmp_path, key, store, "bob", "--url-draft", "--user", "bob") as bob,
        ):
            draft: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}}
            assert (await alice.initialize(draft))["result"]["protocolVersion"] == DRAFT
            await bob.initialize(draft)

            answer = await alice.request("tools/call", tool)
            error = answer["error"]
            assert error["code"] == -32604, answer
            (item,) = error["data"]["elicitations"]
            assert item["mode"] == "url" and item["message"] == MESSAGE
            flow_id = item["elicitationId"]
            # The stdio server's pages are on a loopback port of its own.
            assert re.fullmatch(
                rf"http://127\.0\.0\.1:\d+/elicit/flows/{re.escape(flow_id)}", item["url"]
            )

            # An unknown id, and another user's id, are refused alike.
            unknown = await alice.request("elicitation/track", {"elicitationId": "no-such-flow"})
            assert "error" in unknown and "result" not in unknown
            bobs = (await bob.request("tools/call", tool))["error"]["data"]["elicitations"][0]
            theirs = await alice.request(
                "elicitation/track", {"elicitationId": bobs["elicitationId"]}
            )
            assert "error" in theirs and "result" not in theirs
            assert theirs["error"]["code"] == unknown["error"]["code"]
            assert theirs["error"]["message"].replace(bobs["elicitationId"], "ID") == unknown[
                "error"
            ]["message"].replace("no-such-flow", "ID")

            # Tracked while pending: progress against our token, and no answer yet.
            token = "track-1"
            ident = await alice.start_request(
                "elicitation/track", {"elicitationId": flow_id, "_meta": {"progressToken": token}}
            )
            progress = await alice.wait_for(
                lambda m: (
                    m.get("method") == "notifications/progress"
                    and m["params"].get("progressToken") == token
                )
            )
            assert progress["params"]["progress"] >= 1
            assert not any(m.get("id") == ident for m in alice.received)

            async with browser(None) as person:  # LocalIdentity: whoever reaches loopback
                await person.enter(item["url"], sentinel)
            tracked = await alice.answer(ident)
            assert tracked == {"jsonrpc": "2.0", "id": ident, "result": {"status": "complete"}}

            retried = await alice.request("tools/call", tool)
            text = retried["result"]["content"][0]["text"]
            assert text.startswith("ok: ") and fingerprint_of(sentinel) in text
            # A finished flow tracks as complete at once.
            again = await alice.request("elicitation/track", {"elicitationId": flow_id})
            assert again["result"] == {"status": "complete"}
            # Bob's flow is still his, still pending, untouched by Alice's secret.
            assert "error" in await bob.request("tools/call", tool)

    output = b"".join(p.read_bytes() for p in (tmp_path / "logs").glob("*.err"))
    mcp = bytes(alice.raw) + b"".join(alice.sent) + bytes(bob.raw) + b"".join(bob.sent)
    assert_nowhere(sentinel, mcp=mcp, server_output=output, store=store_bytes(store_path))


async def test_url_draft_is_off_unless_asked(tmp_path: Path, key: str, store_path: Path) -> None:
    """Without ``--url-draft``, a 2025-06-18 client that declares URL mode gets no -32604:
    2025-06-18 has no URL mode, so the tool says it cannot show links."""
    with anyio.fail_after(TIMEOUT):
        async with stdio_server(tmp_path, key, f"sqlite:///{store_path}", "plain") as peer:
            await peer.initialize({"elicitation": {"url": {}}})
            answer = await peer.request("tools/call", {"name": "connect_later", "arguments": {}})
    assert "result" in answer and answer["result"]["isError"] is True
    assert "error" not in answer


async def test_url_draft_blocking_secret_on_stdio(
    tmp_path: Path, key: str, store_path: Path, sentinel: str
) -> None:
    """``secret()`` on the draft pushes ``elicitation/create`` (mode url, elicitationId = the
    flow id, a loopback URL), waits for the page, and returns only the masked key."""
    with anyio.fail_after(TIMEOUT):
        async with stdio_server(
            tmp_path, key, f"sqlite:///{store_path}", "draft", "--url-draft"
        ) as peer:
            await peer.initialize({"elicitation": {"url": {}}})
            call = await peer.start_request(
                "tools/call", {"name": "connect_service", "arguments": {}}
            )
            pushed = await peer.wait_for(lambda m: m.get("method") == "elicitation/create")
            params = pushed["params"]
            assert params["mode"] == "url" and params["message"] == MESSAGE
            assert params["url"].endswith(f"/elicit/flows/{params['elicitationId']}")
            await peer.send({"id": pushed["id"], "result": {"action": "accept"}})
            async with browser(None) as person:
                await person.enter(params["url"], sentinel)
            answer = await peer.answer(call)
    text = answer["result"]["content"][0]["text"]
    assert text.startswith("connected with ") and fingerprint_of(sentinel) in text
    assert not any(m.get("method") == "notifications/elicitation/complete" for m in peer.received)
    output = b"".join(p.read_bytes() for p in (tmp_path / "logs").glob("*.err"))
    mcp = bytes(peer.raw) + b"".join(peer.sent)
    assert_nowhere(sentinel, mcp=mcp, server_output=output, store=store_bytes(store_path))
