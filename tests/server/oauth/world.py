"""The world the downstream OAuth tests run in (a helper module, not tests).

Two real OpenID providers (``oidc-provider`` on Node 22): "Hotel accounts", the MCP
authorization server where browsers sign in too, and "Example Files", a third party with its
own resource server that accepts only its own tokens. With ``mix_up``, a third: "Example
Photos", a malicious provider the server is registered with too, which plays the OAuth mix-up
on Example Files (``peers/oidc/provider.mjs``, ``mixUp``). The MCP server
(``examples/oauth_server.py``) runs as a process of its own on a SQLite store, so a
test can kill it; the MCP client is ours, with alice's (or bob's) access token from Hotel
accounts; the person is a real Chromium driven with Playwright.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client

from mcp_elicit.client import (
    AuditLog,
    ElicitationHandler,
    ElicitingClient,
    Policy,
    ScriptedRenderer,
)
from mcp_elicit.server import DeploymentKey, Elicitation
from mcp_elicit.server.keys import decode_key_text
from mcp_elicit.server.oauth.signin import user_id
from mcp_elicit.urls import UrlPolicy
from tests.oidc_support import (
    Callback,
    FilesServer,
    Provider,
    authorize_in_browser,
    consent,
    serve_callback,
    serve_files,
    sign_in,
    start_provider,
)
from tests.paths import EXAMPLES
from tests.peer_servers.secret_server import (
    HttpServer,
    RecordingTransport,
    Wire,
    free_port,
    server_env,
)

SCRIPT = EXAMPLES / "oauth_server.py"
SERVER_ID = "hotel-files-e2e"  # what examples/oauth_server.py sets
FILES_AUDIENCE = "https://files.example/api"
PAGES_CLIENT = "hotel-pages"
FILES_CLIENT = "hotel"
PHOTOS_CLIENT = "hotel-photos"
# Each provider's redirect URI (docs/oauth.md), and the one they all shared before.
FILES_CALLBACK = "/elicit/oauth/callback/example-files"
PHOTOS_CALLBACK = "/elicit/oauth/callback/example-photos"
RETIRED_CALLBACK = "/elicit/oauth/callback"

MixUp = Literal["rewrites", "keeps"]
"""How the malicious provider sends the person on to Example Files: with the redirect URI
rewritten to Example Files' own callback here, or with the one it received (its own)."""


@dataclass
class World:
    mcp_as: Provider
    files_as: Provider
    files: FilesServer
    host_callback: Callback
    port: int
    tmp: Path
    key: str
    secrets: dict[str, str]
    flow_ttl: float
    photos_as: Provider | None = None
    files_public: bool = False
    servers: list[HttpServer] = field(default_factory=list)

    @property
    def providers(self) -> tuple[Provider, ...]:
        found = (self.mcp_as, self.files_as, self.photos_as)
        return tuple(p for p in found if p is not None)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.origin}/mcp"

    @property
    def store_path(self) -> Path:
        return self.tmp / "store.db"

    @property
    def logs(self) -> Path:
        return self.tmp / "logs"

    def start(
        self, name: str = "server", *, files_secret: str | None = None, url_draft: bool = False
    ) -> HttpServer:
        """Start (or start again) the MCP server process on the same port, store and key.
        ``files_secret``: a client secret for Example Files other than the right one;
        ``url_draft``: the server also speaks the URL-mode draft (-32604, track)."""
        config = {
            "port": self.port,
            "store": f"sqlite:///{self.store_path}",
            "mcp_issuer": self.mcp_as.issuer,
            "pages_client_id": PAGES_CLIENT,
            "pages_client_secret": self.secrets["pages"],
            "files_issuer": self.files_as.issuer,
            "files_client_id": FILES_CLIENT,
            "files_client_secret": (
                None if self.files_public else files_secret or self.secrets["files"]
            ),
            "files_url": self.files.url,
            "files_audience": FILES_AUDIENCE,
            "flow_ttl": self.flow_ttl,
            "url_draft": url_draft,
            # Sign-in and consent in a browser on a busy machine can take longer than the
            # default 20 s; a shorter hold would show the person the same link again.
            "url_resume_wait": 90.0,
        }
        if self.photos_as is not None:
            config |= {
                "photos_issuer": self.photos_as.issuer,
                "photos_client_id": PHOTOS_CLIENT,
                "photos_client_secret": self.secrets["photos"],
            }
        config_file = self.tmp / f"{name}.json"
        config_file.write_text(json.dumps(config))
        self.logs.mkdir(exist_ok=True)
        out, err = self.logs / f"{name}.out", self.logs / f"{name}.err"
        with out.open("ab") as stdout, err.open("ab") as stderr:
            process = subprocess.Popen(
                [sys.executable, str(SCRIPT), str(config_file)],
                stdout=stdout,
                stderr=stderr,
                env=server_env(self.key, self.logs),
            )
        server = HttpServer(process, self.port, out, err)
        self.servers.append(server)
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError("the server exited:\n" + err.read_text(errors="replace")[-4000:])
            try:
                httpx2.get(f"{self.origin}/.well-known/oauth-protected-resource/mcp", timeout=1)
                return server
            except httpx2.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)

    async def vault_entry(self, account: str) -> dict[str, Any]:
        """What the vault keeps of ``account``'s Example Files token, opened with the
        deployment key as the server would (the test's way to learn the refresh token)."""
        entry = (await self.vault_entries(account, "example-files"))["example-files"]
        assert entry is not None, f"nothing stored for {account}"
        return entry

    async def vault_entries(self, account: str, *providers: str) -> dict[str, Any]:
        """What the vault keeps of ``account``'s token at each of ``providers`` (``None``:
        nothing)."""
        elicitation = Elicitation(
            key=DeploymentKey(decode_key_text(self.key) or b""),
            store=f"sqlite:///{self.store_path}",
            server_id=SERVER_ID,
        )
        try:
            user = user_id(self.mcp_as.issuer, account)
            entries: dict[str, Any] = {}
            for name in providers:
                found = await elicitation.vault.get(user, f"oauth:{name}")
                entries[name] = json.loads(found.get_secret_value()) if found else None
            return entries
        finally:
            await elicitation.store.aclose()

    def mix_up_received(self) -> list[dict[str, Any]]:
        """What reached the malicious provider's token endpoint (codes, verifiers)."""
        assert self.photos_as is not None
        response = httpx2.get(f"{self.photos_as.issuer}/mixup/received", timeout=10)
        response.raise_for_status()
        received: list[dict[str, Any]] = response.json()
        return received

    def server_output(self) -> bytes:
        return b"".join(p.read_bytes() for p in sorted(self.logs.iterdir()))

    def store_bytes(self) -> bytes:
        parts = [self.store_path, Path(f"{self.store_path}-wal"), Path(f"{self.store_path}-shm")]
        return b"".join(p.read_bytes() for p in parts if p.exists())

    async def mcp_token(self, browser: Any, account: str) -> str:
        """``account``'s access token for the MCP server, from Hotel accounts (code + PKCE
        through authlib, the person signing in in a browser of their own)."""
        async with AsyncOAuth2Client(
            client_id="host-app",
            token_endpoint_auth_method="none",
            redirect_uri=self.host_callback.url,
            code_challenge_method="S256",
            scope="openid mcp",
        ) as oauth:
            verifier = generate_token(48)
            url, state = oauth.create_authorization_url(
                self.mcp_as.authorization_endpoint, code_verifier=verifier, resource=self.mcp_url
            )
            back = await authorize_in_browser(browser, url, self.host_callback.url, account=account)
            token = await oauth.fetch_token(
                self.mcp_as.token_endpoint,
                authorization_response=back,
                code_verifier=verifier,
                state=state,
            )
        return str(token["access_token"])


@contextlib.asynccontextmanager
async def world(
    tmp_path: Path, *, files_ttl: int = 300, flow_ttl: float = 600, mix_up: MixUp | None = None
) -> AsyncIterator[World]:
    """The world; with ``mix_up``, Example Photos (malicious, see :data:`MixUp`) too, and this
    server a public client at Example Files (so that a stolen code and verifier are all it
    takes), registered there with every callback this server has, or had: the worst
    registration an operator could leave, so that nothing but the server's own checks stops
    the attack."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    passwords = {
        "pages": secrets.token_urlsafe(16),
        "files": secrets.token_urlsafe(16),
        "photos": secrets.token_urlsafe(16),
    }
    async with serve_callback() as host_callback:
        mcp_config = {
            "name": "Hotel accounts",
            "accounts": ["alice", "bob"],
            # A host registers itself (RFC 7591), as mcp-elicit's own client does.
            "registration": True,
            "resources": [{"indicator": f"http://127.0.0.1:{port}/mcp", "scope": "mcp"}],
            "clients": [
                {
                    "client_id": PAGES_CLIENT,
                    "client_secret": passwords["pages"],
                    "redirect_uris": [f"http://127.0.0.1:{port}/elicit/signin/callback"],
                },
                {
                    "client_id": "host-app",
                    "token_endpoint_auth_method": "none",
                    "redirect_uris": [host_callback.url],
                },
            ],
        }
        files_client: dict[str, Any] = {
            "client_id": FILES_CLIENT,
            "client_secret": passwords["files"],
            "redirect_uris": [origin + FILES_CALLBACK],
            "grant_types": ["authorization_code", "refresh_token"],
        }
        if mix_up is not None:
            files_client = {
                "client_id": FILES_CLIENT,
                "token_endpoint_auth_method": "none",
                "redirect_uris": [
                    origin + FILES_CALLBACK,
                    origin + PHOTOS_CALLBACK,
                    origin + RETIRED_CALLBACK,
                ],
                "grant_types": ["authorization_code", "refresh_token"],
            }
        files_config = {
            "name": "Example Files",
            "accounts": ["alice", "bob"],
            "resources": [
                {"indicator": FILES_AUDIENCE, "scope": "files:read", "accessTokenTTL": files_ttl}
            ],
            "clients": [files_client],
        }
        with (
            start_provider(mcp_config) as mcp_as,
            start_provider(files_config) as files_as,
            contextlib.ExitStack() as more,
        ):
            photos_as = None
            if mix_up is not None:
                photos_as = more.enter_context(
                    start_provider(photos_config(origin, files_as, passwords["photos"], mix_up))
                )
            async with serve_files(files_as.issuer, FILES_AUDIENCE, scope="files:read") as files:
                made = World(
                    mcp_as=mcp_as,
                    files_as=files_as,
                    files=files,
                    host_callback=host_callback,
                    port=port,
                    tmp=tmp_path,
                    key=secrets.token_urlsafe(32),
                    secrets=passwords,
                    flow_ttl=flow_ttl,
                    photos_as=photos_as,
                    files_public=mix_up is not None,
                )
                try:
                    yield made
                finally:
                    for server in made.servers:
                        server.stop()


def photos_config(origin: str, files_as: Provider, secret: str, mix_up: MixUp) -> dict[str, Any]:
    """Example Photos, malicious: this server is its client as it is Example Files', and its
    authorization endpoint sends the person on to Example Files as this server (with the
    ``state`` and PKCE challenge it received), its token endpoint redeeming there whatever
    code and verifier reach it."""
    rewrites = {origin + PHOTOS_CALLBACK: origin + FILES_CALLBACK} if mix_up == "rewrites" else {}
    return {
        "name": "Example Photos",
        "accounts": ["alice", "bob"],
        "resources": [{"indicator": "https://photos.example/api", "scope": "photos:read"}],
        "clients": [
            {
                "client_id": PHOTOS_CLIENT,
                "client_secret": secret,
                "redirect_uris": [origin + PHOTOS_CALLBACK, origin + RETIRED_CALLBACK],
            }
        ],
        "mixUp": {
            "authorizationEndpoint": files_as.authorization_endpoint,
            "tokenEndpoint": files_as.token_endpoint,
            "clientId": FILES_CLIENT,
            "redirectUris": rewrites,
            "params": {"scope": "files:read", "resource": FILES_AUDIENCE},
        },
    }


# -- the person and their client ---------------------------------------------------------------


class Person:
    """A person at a browser of their own (a Playwright context): links the client opens for
    them arrive in :attr:`links`; :meth:`go` follows one through sign-in and consent."""

    def __init__(self, world: World, context: Any, account: str) -> None:
        self.world = world
        self.context = context
        self.account = account
        self.send, self.links = anyio.create_memory_object_stream[str](10)
        self.opened: list[str] = []
        self.pages: list[str] = []  # every page the browser asked for, redirects included
        context.on(
            "request",
            lambda request: (
                self.pages.append(request.url) if request.is_navigation_request() else None
            ),
        )

    def opener(self, url: str) -> bool:
        self.opened.append(url)
        self.send.send_nowait(url)
        return True

    async def go(
        self, url: str, *, allow: bool = True, stop_at: Callable[[str], bool] | None = None
    ) -> Any:
        """Open ``url`` and answer every sign-in and consent page on the way as
        :attr:`account` (at Example Files, Allow, or Deny with ``allow=False``); return the
        page where the browser stopped (this server's pages, or where ``stop_at`` says)."""
        page = await self.context.new_page()
        await page.goto(url)
        for _ in range(8):
            here = page.url
            if stop_at is not None and stop_at(here):
                break
            at_provider = here.startswith(tuple(p.issuer for p in self.world.providers))
            if not at_provider:
                break
            if await page.get_by_label("Account").count():
                await sign_in(page, self.account)
            elif await page.get_by_role("button", name="Allow").count():
                # Signing in to the server's pages is always allowed; ``allow`` is the
                # person's answer to Example Files.
                third_party = here.startswith(self.world.files_as.issuer)
                await consent(page, allow=allow or not third_party)
            else:
                raise AssertionError(
                    f"stuck at the provider: {here}: {await page.inner_text('body')}"
                )
        return page

    async def at_consent(self, url: str) -> Any:
        """Open ``url`` and stop at Example Files' consent page, signed in there."""
        page = await self.go(
            url,
            stop_at=lambda here: (
                here.startswith(self.world.files_as.issuer) and "/interaction/" in here
            ),
        )
        if await page.get_by_label("Account").count():
            await sign_in(page, self.account)
        return page

    async def follow_links(self, *, allow: bool = True) -> None:
        """Follow each link the client opens (a task, until cancelled)."""
        async for url in self.links:
            page = await self.go(url, allow=allow)
            await page.close()


def handler_for(person: Person, answers: int = 4, audit: Path | None = None) -> ElicitationHandler:
    """Our client's handler: the person agrees to open links (a script standing in for the
    consent screen), and the opener hands them to :class:`Person`. Loopback http is allowed:
    the whole world runs on 127.0.0.1."""
    return ElicitationHandler(
        ScriptedRenderer([{"action": "accept"}] * answers, completion_wait=60.0),
        opener=person.opener,
        policy=Policy(url_policy=UrlPolicy(allow_http_loopback=True)),
        audit=AuditLog(audit, redact=False) if audit is not None else None,
    )


@contextlib.asynccontextmanager
async def client_for(
    world: World, token: str, handler: ElicitationHandler, protocol: str, wire: Wire
) -> AsyncIterator[ElicitingClient]:
    http = httpx2.AsyncClient(
        transport=RecordingTransport(wire),
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30.0, read=300.0),
    )
    async with (
        http,
        ElicitingClient(world.mcp_url, handler, protocol=protocol, http_client=http) as client,
    ):
        yield client
