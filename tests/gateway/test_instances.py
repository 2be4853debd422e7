"""Several gateway instances (issue 32): a 2026-07-28 retry that lands on instance B completes
the call held on instance A, through B's internal hop to A; a lost A is said at once; a
client can neither read nor redirect the hop. First the route's seal and the router on their
own, then real ``mcp-elicit gateway --instance-url`` processes (each in front of its own
2025-11-25 upstream, so that calls are held), directly and behind nginx."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.server.request_state import InvalidRequestState
from mcp.shared.exceptions import MCPError

from mcp_elicit.gateway import Instance
from mcp_elicit.gateway.instances import HOP_HEADER, HeldCallRouter, RoutedStateCodec
from tests.gateway.support import CLI, ROOT
from tests.nginx_support import nginx
from tests.peer_servers.numbered_server import number_of, reply_for
from tests.ports import free_port
from tests.served import Served

KEY = os.urandom(32)
A = Instance("http://10.0.0.1:8000/mcp", [KEY])
B = Instance("http://10.0.0.2:8000/mcp", [KEY])


# -- the route: sealed with the state, read by any instance, changed by none ------------------


def test_a_state_minted_by_one_instance_opens_at_another_and_names_its_maker() -> None:
    token = A.codec().seal(b'{"s": "held"}')
    at_b = B.codec()
    assert at_b.unseal(token) == b'{"s": "held"}'
    route, _sealed = at_b.read(token)
    assert route == A.url
    assert "held" not in token  # the state itself is sealed; only the route is readable


def test_a_route_cannot_be_changed_moved_or_made_without_the_key() -> None:
    codec = A.codec()
    token = codec.seal(b"one")
    prefix, route, mac, sealed = token.split(".", 3)
    elsewhere = RoutedStateCodec(Instance("http://attacker.example/mcp", [KEY]))
    # Another URL put in front of the same state and MAC:
    forged = ".".join([prefix, elsewhere.seal(b"x").split(".")[1], mac, sealed])
    with pytest.raises(InvalidRequestState, match="route"):
        codec.read(forged)
    # This route and MAC moved onto another state:
    other = codec.seal(b"two").split(".", 3)[3]
    with pytest.raises(InvalidRequestState, match="route"):
        codec.read(".".join([prefix, route, mac, other]))
    # A deployment with another key: neither its routes nor its states open here.
    stranger = Instance(A.url, [os.urandom(32)]).codec().seal(b"one")
    with pytest.raises(InvalidRequestState):
        codec.unseal(stranger)
    # Not a routed state at all (the SDK's own token shape):
    with pytest.raises(InvalidRequestState, match="not routed"):
        codec.read(sealed)


def test_after_a_rotation_the_previous_key_still_opens_and_routes() -> None:
    new = os.urandom(32)
    token = A.codec().seal(b"before")
    rotated = Instance(B.url, [new, KEY]).codec()
    assert rotated.unseal(token) == b"before"
    assert rotated.read(token)[0] == A.url
    assert Instance(B.url, [new]).codec().read(rotated.seal(b"after"))[0] == B.url


@pytest.mark.parametrize(
    ("url", "keys", "said"),
    [
        ("10.0.0.1:8000/mcp", [KEY], "http(s)://"),
        ("ftp://10.0.0.1/mcp", [KEY], "http(s)://"),
        (A.url, [], "key every instance shares"),
        (A.url, [b"short"], "at least 32 bytes"),
    ],
)
def test_an_instance_is_refused_naming_what_is_wrong(
    url: str, keys: list[bytes], said: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        Instance(url, keys)


# -- the router, in front of an app that records what reached it ------------------------------


class Behind:
    """The gateway's app stand-in: records each request it was given."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.bodies.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"behind"})


def retry(state: str, request_id: int = 7) -> bytes:
    params = {"name": "ask", "arguments": {"n": 1}, "requestState": state}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(message).encode()


@asynccontextmanager
async def routed(instance: Instance) -> AsyncIterator[tuple[Behind, httpx2.AsyncClient]]:
    behind = Behind()
    router = HeldCallRouter(behind, instance, connect_timeout=1.0)
    transport = httpx2.ASGITransport(app=router)
    try:
        async with httpx2.AsyncClient(transport=transport, base_url="http://gw") as http:
            yield behind, http
    finally:
        await router.aclose()


@pytest.mark.anyio
async def test_the_router_keeps_here_what_is_not_another_instances_retry() -> None:
    mine = B.codec().seal(b"mine")
    forged_route = A.codec().seal(b"theirs").replace("r1.", "r1.x", 1)
    unrouted = "v1.AAAA"
    async with routed(B) as (behind, http):
        for body in (
            retry(mine),  # minted here
            retry(forged_route),  # a route that does not verify: the boundary refuses it
            retry(unrouted),
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
            b"not json at all",
        ):
            answer = await http.post("/mcp", content=body)
            assert answer.text == "behind"
        # Passed on once already: never again, whatever its route.
        hopped = await http.post(
            "/mcp", content=retry(A.codec().seal(b"theirs")), headers={HOP_HEADER: "1"}
        )
        assert hopped.text == "behind"
    assert len(behind.bodies) == 6
    assert behind.bodies[0] == retry(mine)  # the body reaches the app whole


@pytest.mark.anyio
async def test_a_retry_for_an_instance_that_is_gone_is_answered_at_once() -> None:
    gone = Instance(f"http://127.0.0.1:{free_port()}/mcp", [KEY])  # nothing listens there
    async with routed(B) as (behind, http):
        started = time.monotonic()
        answer = await http.post("/mcp", content=retry(gone.codec().seal(b"held"), 41))
        took = time.monotonic() - started
    assert behind.bodies == []
    assert took < 2.0
    error = answer.json()
    assert error["id"] == 41
    assert error["error"]["code"] == -32602
    assert "holding this call has stopped" in error["error"]["message"]
    assert "127.0.0.1" not in error["error"]["message"]  # the inside of the deployment stays in


# -- real gateway processes ----------------------------------------------------------------------


def _instance(where: Path, name: str, key: str) -> Served:
    upstream = [sys.executable, str(ROOT / "tests/peer_servers/numbered_server.py")]
    return Served(
        lambda port: [
            *CLI,
            "gateway",
            "--http",
            str(port),
            "--upstream-protocol",
            "2025-11-25",
            "--no-url-verdicts",
            "--instance-url",
            f"http://127.0.0.1:{port}/mcp",
            "--instance-tag",
            name,
            "--",
            *upstream,
        ],
        log=where / f"{name}.log",
        env={"MCP_ELICIT_KEY": key},
    )


@pytest.fixture
def pair(tmp_path: Path, key: str) -> Iterator[tuple[Served, Served]]:
    a, b = _instance(tmp_path, "a", key), _instance(tmp_path, "b", key)
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


async def _answer(context: ClientRequestContext, params: types.ElicitRequestParams) -> Any:
    assert isinstance(params, types.ElicitRequestFormParams)
    return types.ElicitResult(
        action="accept", content={"value": reply_for(number_of(params.message))}
    )


class RetriesElsewhere(httpx2.AsyncBaseTransport):
    """Every request to the first instance, except the retries (those that carry a
    ``requestState``), which go to the second: as a load balancer may send them."""

    def __init__(self, retry_port: int) -> None:
        self.retry_port = retry_port
        self.retried = 0
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST" and b'"requestState"' in request.content:
            self.retried += 1
            request.url = request.url.copy_with(port=self.retry_port)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def client_of(url: str, transport: httpx2.AsyncBaseTransport | None = None) -> Any:
    http = httpx2.AsyncClient(timeout=60, transport=transport)
    async with (
        http,
        Client(streamable_http_client(url, http_client=http), mode="auto", **_callback()) as c,
    ):
        assert c.protocol_version == "2026-07-28"
        yield c


def _callback() -> dict[str, Any]:
    return {"elicitation_callback": _answer}


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_retry_landing_on_b_completes_the_call_held_on_a(
    pair: tuple[Served, Served],
) -> None:
    a, b = pair
    a_url, _ = a.url(), b.url()
    elsewhere = RetriesElsewhere(b.port)
    with anyio.fail_after(90):
        async with client_of(a_url, elsewhere) as client:
            for n in (3, 4):
                result = await client.call_tool("ask", {"n": n})
                assert not result.is_error, result
                assert [c.text for c in result.content if isinstance(c, types.TextContent)] == [
                    f"{n}:{reply_for(n)}"
                ]
    assert elsewhere.retried == 2  # each call's answer went to B, and reached A's held call


@pytest.mark.slow
@pytest.mark.anyio
async def test_with_the_holder_killed_the_retry_on_b_is_told_at_once(
    pair: tuple[Served, Served],
) -> None:
    a, b = pair
    a_url, _ = a.url(), b.url()
    elsewhere = RetriesElsewhere(b.port)
    asked = anyio.Event()
    told: dict[str, float] = {}

    async def kill_a_then_answer(context: ClientRequestContext, params: Any) -> Any:
        assert a.process is not None
        a.process.send_signal(signal.SIGKILL)  # the call is held on A, mid-question
        a.process.wait(timeout=10)
        asked.set()
        told["answered"] = time.monotonic()
        return await _answer(context, params)

    with anyio.fail_after(60):
        http = httpx2.AsyncClient(timeout=60, transport=elsewhere)
        transport = streamable_http_client(a_url, http_client=http)
        async with (
            http,
            Client(transport, mode="auto", elicitation_callback=kill_a_then_answer) as c,
        ):
            with pytest.raises(MCPError) as lost:
                await c.call_tool("ask", {"n": 5})
            told["error"] = time.monotonic()
    assert asked.is_set() and elsewhere.retried == 1
    assert "holding this call has stopped" in str(lost.value)
    assert told["error"] - told["answered"] < 5.0  # at once, not after a timeout
    assert "Traceback" not in b.output()


@pytest.mark.slow
@pytest.mark.anyio
async def test_behind_nginx_every_call_completes_wherever_its_retries_land(
    pair: tuple[Served, Served], tmp_path: Path
) -> None:
    a, b = pair
    a.url(), b.url()
    with nginx(tmp_path / "nginx", free_port(), {"a": a.port, "b": b.port}) as lb:
        with anyio.fail_after(120):
            async with client_of(lb.url) as client:
                for n in range(1, 7):
                    result = await client.call_tool("ask", {"n": n})
                    assert not result.is_error, (result, a.output(), b.output())
                    text = [c.text for c in result.content if isinstance(c, types.TextContent)]
                    assert text == [f"{n}:{reply_for(n)}"]
        routed = lb.routed()
        # Round-robin: the calls' requests, and so their retries, were spread over both.
        assert _served_by(routed) == {f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"}, routed
        # A 2025-11-25 client: its session, tagged, stays on one instance, questions and all.
        with anyio.fail_after(120):
            http = httpx2.AsyncClient(timeout=60)
            transport = streamable_http_client(lb.url, http_client=http)
            async with http, Client(transport, mode="legacy", **_callback()) as client:
                assert client.protocol_version == "2025-11-25"
                for n in (7, 8):
                    result = await client.call_tool("ask", {"n": n})
                    text = [c.text for c in result.content if isinstance(c, types.TextContent)]
                    assert text == [f"{n}:{reply_for(n)}"], (result, a.output(), b.output())
        session = [line for line in lb.routed()[len(routed) :] if line.split(" ")[2] != "-"]
    assert session and len(_served_by(session)) == 1, session
    tags = {line.split(" ")[2].split(".")[0] for line in session}
    assert len(tags) == 1 and tags <= {"a", "b"}, session


def _served_by(routed: list[str]) -> set[str]:
    """The instances that answered the POSTs in nginx's access log."""
    return {line.split(" -> ")[1].split(" ")[0] for line in routed if line.startswith("POST")}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "key", "said"),
    [
        (["--instance-url", "http://127.0.0.1:1/mcp"], "k" * 43, "--instance-url is for --http"),
        (["--http", "1", "--instance-url", "http://127.0.0.1:1/mcp"], None, "MCP_ELICIT_KEY"),
        (["--http", "1", "--instance-url", "127.0.0.1:1"], "k" * 43, "http(s)://"),
        (["--http", "1", "--instance-tag", "A.B"], None, "--instance-tag: 'A.B' is not a tag"),
        (["--instance-tag", "a"], None, "--instance-tag is for --http"),
    ],
)
def test_the_instance_options_are_refused_naming_what_is_wrong(
    options: list[str], key: str | None, said: str
) -> None:
    env = {
        n: v for n, v in os.environ.items() if n not in ("MCP_ELICIT_KEY", "MCP_ELICIT_INSTANCE")
    }
    if key is not None:
        env["MCP_ELICIT_KEY"] = key
    done = subprocess.run(
        [*CLI, "gateway", *options, "https://tools.example.com/mcp"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
