"""An official-SDK server that asks for a secret through URL mode, for the URL-mode and restart
tests. It runs as a real process, with the hosted pages, on a real store.

    .venv/bin/python tests/peer_servers/secret_server.py --store sqlite:////tmp/s.db  # stdio
    .venv/bin/python tests/peer_servers/secret_server.py --store ... --http PORT [--auth]
    .venv/bin/python tests/peer_servers/secret_server.py --store ... --url-draft [--user NAME]

The deployment key comes from ``MCP_ELICIT_KEY`` (every process of one test shares it, so a
restarted server opens what the killed one sealed). ``SECRET_SERVER_LOG=DEBUG`` logs
everything, the SDK's own debug lines included, as plain lines on stderr: the tests search
that output for the secret.

Tools:

- ``connect_service`` asks for ``SERVICE_API_KEY`` with ``secret()`` (a blocking URL-mode
  question) and returns only a masked confirmation, never the key;
- ``connect_later`` returns ``ok`` with the same masked confirmation when the key is stored,
  else raises ``secret_required`` (-32042 / -32604 / an ``InputRequiredResult``);
- ``whoami`` returns the user the request is bound to;
- ``test_url_elicitation_required`` is ``connect_later`` under the name ``mcp-elicit check
  server`` calls (its track checks need two users: ``--auth``).

Also, for the tests: :func:`start_http` (a server process on a port, logs in files), and the
other side of the conversation: :class:`RecordingTransport` (every byte an MCP client sends and
receives over HTTP), :func:`sdk_client` (the official SDK client on it), :class:`Browser` (a
person at the hosted page) and :func:`assert_nowhere` (the search for a leaked secret).

Who the user is
---------------

stdio and plain ``--http``: :class:`LocalIdentity` (one user; ``--user`` names it).

``--auth`` (HTTP only) is a TEST IDENTITY, NOT AN EXAMPLE TO COPY. The MCP side is real: the
SDK's bearer-token middleware and :class:`AccessTokenIdentity` (the user is the verified
token's issuer and subject). But the token verifier below accepts any token spelled
``user-<name>`` as ``<name>``'s, and the browser side is ``tests.identities.HeaderIdentity``,
which believes an ``X-Test-User`` header that anyone can send. Both exist only so that a test
can play two people. A real server verifies tokens its authorization server issued, and signs
browsers in against the same identity provider.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import AnyHttpUrl, SecretStr

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run as a script: make `tests.identities` importable
    sys.path.insert(0, str(REPO))

from tests import warm_python  # noqa: E402
from tests.identities import TEST_USER_HEADER, HeaderIdentity  # noqa: E402
from tests.ports import free_port as free_port  # noqa: E402  (the tests import it from here)

from mcp_elicit.server import (  # noqa: E402
    Accepted,
    Cancelled,
    Declined,
    Elicitation,
    Identity,
    LocalIdentity,
    TaskSettings,
    ask,
    secret,
    secret_required,
    stored_secret,
)

SCRIPT = Path(__file__).resolve()
SERVER_NAME = "secret-server"
SECRET_NAME = "SERVICE_API_KEY"
MESSAGE = "Your Service API key, so that this server can connect to the Service for you."
TOKEN_PREFIX = "user-"
ISSUER = "https://issuer.test"


@dataclass
class Traveller:
    name: str


def masked(value: SecretStr) -> str:
    """What a tool may say about a key: its last four characters and a short fingerprint."""
    raw = value.get_secret_value()
    fingerprint = hashlib.sha256(raw.encode()).hexdigest()[:8]
    return f"key ending in {raw[-4:]} (sha256 {fingerprint}…)"


def fingerprint_of(raw: str) -> str:
    """The fingerprint :func:`masked` shows, for the tests to compare."""
    return hashlib.sha256(raw.encode()).hexdigest()[:8]


def user_of_token(name: str) -> str:
    """The user :class:`AccessTokenIdentity` makes of ``Bearer user-<name>`` here: what a test
    browser must claim (``X-Test-User``) to be that same person."""
    return json.dumps([ISSUER, name], separators=(",", ":"))


class AnyNameTokens:
    """TEST ONLY: ``user-<name>`` is a valid token for ``<name>``. See the module docstring."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if not token.startswith(TOKEN_PREFIX) or len(token) == len(TOKEN_PREFIX):
            return None
        name = token[len(TOKEN_PREFIX) :]
        return AccessToken(
            token=token,
            client_id="secret-server-tests",
            scopes=[],
            subject=name,
            claims={"iss": ISSUER},
        )


def build(
    *,
    store: str,
    url_draft: bool,
    auth_port: int | None,
    user: str,
    resume_wait: float = 20.0,
    tasks: bool = False,
) -> tuple[MCPServer, Elicitation]:
    identity: Identity
    if auth_port is not None:
        server = MCPServer(
            SERVER_NAME,
            token_verifier=AnyNameTokens(),
            auth=AuthSettings(
                issuer_url=AnyHttpUrl(ISSUER),
                resource_server_url=AnyHttpUrl(f"http://127.0.0.1:{auth_port}/mcp"),
                validate_token_resource=False,
            ),
        )
        identity = HeaderIdentity()
    else:
        server = MCPServer(SERVER_NAME)
        identity = LocalIdentity(user)
    elicitation = Elicitation(
        server,
        store=store,
        identity=identity,
        url_draft=url_draft,
        url_resume_wait=resume_wait,
        # Only the check tool of the tasks extension (server-task-unknown-id with two test
        # users) and the form of the multi-instance task tests run as tasks.
        tasks=TaskSettings(
            default="forbidden",
            tools={"test_task_slow": "optional", "test_task_ask": "optional"},
        )
        if tasks
        else False,
    )
    if tasks:

        @server.tool()
        async def test_task_slow(ctx: Context, seconds: float) -> str:
            """Works for ``seconds``; a task when the call declares the tasks extension."""
            await anyio.sleep(seconds)
            return f"Worked for {seconds:g} s."

        @server.tool()
        async def test_task_ask(ctx: Context) -> str:
            """Asks who travels (a form), then another name: tests/server/test_task_instances.py
            answers the first through another instance, and kills this one at the second."""
            first = await ask(ctx, Traveller, "Who travels?")
            if not isinstance(first, Accepted):
                return "not booked"
            second = await ask(ctx, Traveller, "And who else?")
            names = [a.value.name for a in (first, second) if isinstance(a, Accepted)]
            return "booked " + " and ".join(names)

    @server.tool()
    async def connect_service(ctx: Context) -> str:
        """Ask for the Service API key on this server's page; confirm without showing it."""
        match await secret(ctx, SECRET_NAME, MESSAGE):
            case Accepted(value):
                return f"connected with {masked(value)}"
            case Declined():
                return "declined"
            case Cancelled(reason):
                return f"cancelled: {reason}"
        raise AssertionError("unreachable")

    @server.tool()
    async def connect_later(ctx: Context) -> str:
        """Use the stored key, or send the person to the page and ask to be called again."""
        value = await stored_secret(ctx, SECRET_NAME)
        if value is None:
            raise await secret_required(ctx, SECRET_NAME, MESSAGE)
        return f"ok: {masked(value)}"

    # The name `mcp-elicit check server` looks for: the track checks run on this server
    # with two test users (server-track-foreign-id).
    server.tool(name="test_url_elicitation_required")(connect_later)

    @server.tool()
    async def whoami(ctx: Context) -> str:
        """The user this request is bound to."""
        return elicitation.user_of(ctx)

    return server, elicitation


def configure_logging(level: str) -> None:
    # Plain lines, never wrapped (the SDK's default handler wraps them, which could split a
    # secret across lines and hide it from the tests' search).
    logging.basicConfig(
        level=level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )


# -- starting it (for the tests) -----------------------------------------------------------


def server_env(key: str, state_dir: Path, *, log: str = "DEBUG") -> dict[str, str]:
    """The environment of a server process: the deployment key, DEBUG logging, and a state
    directory of the test's own (nothing is written to the real home)."""
    env = dict(os.environ)
    env.update(
        MCP_ELICIT_KEY=key,
        SECRET_SERVER_LOG=log,
        XDG_STATE_HOME=str(state_dir),
        PYTHONUNBUFFERED="1",
    )
    return env


def stdio_command(store: str, *options: str) -> list[str]:
    return [sys.executable, str(SCRIPT), "--store", store, *options]


@dataclass
class HttpServer:
    """One server process on Streamable HTTP; its stdout and stderr go to files."""

    process: subprocess.Popen[bytes]
    port: int
    stdout: Path
    stderr: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.origin}/mcp"

    def output(self) -> bytes:
        """Everything the process wrote so far."""
        return self.stdout.read_bytes() + self.stderr.read_bytes()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        warm_python.kill(self.process)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def start_http(
    *,
    store: str,
    key: str,
    logs: Path,
    port: int | None = None,
    auth: bool = True,
    name: str = "server",
    timeout: float = 60.0,
    resume_wait: float | None = None,
    extra: Sequence[str] = (),
) -> HttpServer:
    """Start this server on ``127.0.0.1:port`` (a free one by default) and wait until it
    answers HTTP. ``logs`` gets ``<name>.out`` and ``<name>.err``."""
    logs.mkdir(parents=True, exist_ok=True)
    chosen = port if port is not None else free_port()
    stdout, stderr = logs / f"{name}.out", logs / f"{name}.err"
    command = [sys.executable, str(SCRIPT), "--store", store, "--http", str(chosen)]
    if auth:
        command.append("--auth")
    if resume_wait is not None:
        command += ["--resume-wait", str(resume_wait)]
    command += list(extra)
    with stdout.open("ab") as out, stderr.open("ab") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=server_env(key, logs))
    running = HttpServer(process, chosen, stdout, stderr)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(
                f"the server exited with status {process.returncode}:\n"
                + stderr.read_text(errors="replace")[-4000:]
            )
        try:
            with socket.create_connection(("127.0.0.1", chosen), timeout=1.0):
                return running
        except OSError:
            if time.monotonic() > deadline:
                running.kill()
                raise RuntimeError(f"the server did not listen on {chosen}") from None
            time.sleep(0.1)


# -- talking to it (for the tests): the MCP client's recorded traffic -----------------------


class Wire:
    """Every byte an MCP client sent and received over HTTP: request lines, headers and
    bodies, response headers and bodies (SSE streams included, as they arrive)."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def data(self) -> bytes:
        return b"".join(self.chunks)


class _Tee(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, chunks: list[bytes]) -> None:
        self._inner = inner
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._chunks.append(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class RecordingTransport(httpx2.AsyncHTTPTransport):
    def __init__(self, wire: Wire) -> None:
        super().__init__()
        self._wire = wire

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        head = f"{request.method} {request.url}\n".encode()
        headers = b"".join(k + b": " + v + b"\n" for k, v in request.headers.raw)
        self._wire.chunks.append(head + headers + b"\n" + body + b"\n")
        response = await super().handle_async_request(request)
        self._wire.chunks.append(
            f"HTTP {response.status_code}\n".encode()
            + b"".join(k + b": " + v + b"\n" for k, v in response.headers.raw)
        )
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        response.stream = _Tee(response.stream, self._wire.chunks)
        return response


def mcp_http(user: str, wire: Wire) -> httpx2.AsyncClient:
    """The MCP client's HTTP client: ``user``'s (test) bearer token, every byte recorded."""
    return httpx2.AsyncClient(
        transport=RecordingTransport(wire),
        headers={"Authorization": f"Bearer user-{user}"},
        timeout=httpx2.Timeout(30.0, read=300.0),
    )


# -- the person, in a browser ---------------------------------------------------------------


class Browser:
    """A person's browser signed in as ``user`` (the test identity's header), with a cookie
    jar. It never talks MCP."""

    def __init__(self, user: str | None, *, header: str | None = None) -> None:
        headers = {}
        if header is not None:
            headers[TEST_USER_HEADER] = header
        elif user is not None:
            headers[TEST_USER_HEADER] = user_of_token(user)
        self.http = httpx2.AsyncClient(headers=headers, timeout=30.0)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def open(self, url: str) -> tuple[httpx2.Response, str | None]:
        """GET the page; the CSRF token from its form, if it showed one."""
        page = await self.http.get(url)
        found = CSRF_FIELD.search(page.text)
        return page, found.group(1) if found else None

    async def post(self, url: str, fields: dict[str, str]) -> httpx2.Response:
        return await self.http.post(url, data=fields)

    async def enter(self, url: str, value: str) -> None:
        """Open the page and submit ``value``, as a person does."""
        page, token = await self.open(url)
        assert page.status_code == 200, page.text
        assert token is not None
        answer = await self.post(url, {"csrf": token, "action": "submit", "value": value})
        assert answer.status_code == 303, answer.text
        assert answer.headers["location"].endswith("/status")

    async def decline(self, url: str) -> None:
        """Open the page and choose Decline."""
        page, token = await self.open(url)
        assert page.status_code == 200 and token is not None, page.text
        answer = await self.post(url, {"csrf": token, "action": "decline"})
        assert answer.status_code == 303, answer.text


@asynccontextmanager
async def browser(user: str | None = "alice", **options: Any) -> AsyncIterator[Browser]:
    opened = Browser(user, **options)
    try:
        yield opened
    finally:
        await opened.aclose()


FLOW_PATH = re.compile(r"/elicit/flows/([A-Za-z0-9_-]{16,})$")
CSRF_FIELD = re.compile(r'<input type="hidden" name="csrf" value="([^"]+)">')


def flow_id_of(url: str) -> str:
    found = FLOW_PATH.search(url)
    assert found is not None, url
    return found.group(1)


# -- the official SDK client, acting for the person ------------------------------------------


ElicitationCallback = ElicitationFnT


def person_who_enters(
    value: str | None, asked: list[types.ElicitRequestParams]
) -> ElicitationCallback:
    """An elicitation callback that does what a person would: open the link in a browser,
    enter ``value`` on the page (``None``: choose Decline there), and accept the link."""

    async def callback(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params)
        assert isinstance(params, types.ElicitRequestURLParams), params
        async with browser() as person:
            if value is None:
                await person.decline(params.url)
            else:
                await person.enter(params.url, value)
        return types.ElicitResult(action="accept")

    return callback


async def never_asked(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """Declares elicitation (form and URL) for a client that expects no request."""
    raise AssertionError(f"unexpected elicitation: {params}")


class Notices:
    """What the SDK client's message handler received."""

    def __init__(self) -> None:
        self.received: list[Any] = []
        self.arrived = anyio.Event()

    async def __call__(self, message: Any) -> None:
        self.received.append(message)
        self.arrived.set()
        self.arrived = anyio.Event()

    def completed(self) -> list[str]:
        return [
            m.params.elicitation_id
            for m in self.received
            if isinstance(m, types.ElicitCompleteNotification)
        ]


@asynccontextmanager
async def sdk_client(
    server: HttpServer,
    wire: Wire,
    *,
    mode: ConnectMode = "auto",
    user: str = "alice",
    callback: ElicitationCallback | None = None,
    notices: Notices | None = None,
) -> AsyncIterator[Client]:
    async with (
        mcp_http(user, wire) as http,
        Client(
            streamable_http_client(server.url, http_client=http),
            mode=mode,
            elicitation_callback=callback or never_asked,
            message_handler=notices,
            cache=None,
        ) as client,
    ):
        yield client


def text_of(result: types.CallToolResult) -> str:
    assert not result.is_error, result
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


# -- where the secret must never be -------------------------------------------------------


def store_bytes(store_path: Path) -> bytes:
    parts = [store_path, Path(f"{store_path}-wal"), Path(f"{store_path}-shm")]
    return b"".join(p.read_bytes() for p in parts if p.exists())


def assert_nowhere(sentinel: str, **places: bytes) -> None:
    needle = sentinel.encode()
    for name, data in places.items():
        assert data, f"nothing recorded in {name}: the search would prove nothing"
        assert needle not in data, f"the secret appears in {name}"


def assert_server_logged_traffic(server: HttpServer) -> None:
    """The log is at DEBUG and shows the MCP messages the server sent (the SDK logs each SSE
    chunk): a secret in one of them would have been seen."""
    assert b'data: {"jsonrpc":"2.0"' in server.output()


# -- running it ---------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--store", required=True, help="store URL, e.g. sqlite:////tmp/x.db")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    parser.add_argument(
        "--auth", action="store_true", help="TEST bearer tokens and X-Test-User browsers"
    )
    parser.add_argument("--url-draft", action="store_true", help="speak the URL-mode draft")
    parser.add_argument("--tasks", action="store_true", help="serve test_task_slow as a task")
    parser.add_argument("--user", default="local", help="the LocalIdentity user")
    parser.add_argument(
        "--resume-wait", type=float, default=20.0, help="Elicitation(url_resume_wait=...)"
    )
    parser.add_argument("--public-url", help="where browsers reach the pages (a load balancer)")
    parser.add_argument("--instance", help="this instance's tag behind a load balancer")
    args = parser.parse_args()
    if args.auth and args.http is None:
        parser.error("--auth needs --http")
    _, elicitation = build(
        store=args.store,
        url_draft=args.url_draft,
        auth_port=args.http if args.auth else None,
        user=args.user,
        resume_wait=args.resume_wait,
        tasks=args.tasks,
    )
    configure_logging(os.environ.get("SECRET_SERVER_LOG", "WARNING"))
    if args.http is None:
        anyio.run(elicitation.run_async, "stdio")
    else:
        if args.public_url:
            elicitation.public_url = args.public_url
        anyio.run(
            lambda: elicitation.run_async("streamable-http", port=args.http, instance=args.instance)
        )


if __name__ == "__main__":
    main()
