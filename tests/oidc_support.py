"""A real OpenID provider for the tests, and "Example Files", a resource server behind it
(a helper module, not tests).

- :func:`start_provider` — ``with start_provider(config) as op``: one oidc-provider instance
  (``peers/oidc/provider.mjs`` on Node 22, its config schema documented at the top of that
  file) on a free 127.0.0.1 port; ``op.issuer``, ``op.jwks_uri``, the endpoints, and
  ``op.stderr()`` (its log). Stopped with SIGTERM on exit. Without Node 22 the test is
  skipped, or fails under ``CI=true`` (``tests.peers.node22``).
- :func:`sign_in`, :func:`consent`, :func:`cancel_sign_in`, :func:`authorize_in_browser` —
  the provider's sign-in and consent pages driven with Playwright: type the account name
  (only the configured accounts can sign in), then Allow or Deny; :func:`serve_callback` —
  a client's redirect URI on a loopback port, recording what came back;
  :func:`authorize_over_http` — the same steps without a browser (the forms posted), for the
  authorization response itself, undelivered.
- :func:`files_app` / :func:`serve_files` — Example Files: ``GET /files`` answers the files
  of the token's ``sub`` for a JWT access token signed by the provider (its JWKS), with
  ``iss`` = the issuer, ``aud`` = the audience and ``exp`` in the future (joserfc, no leeway),
  401 otherwise; ``app.state.received`` holds every ``Authorization`` header value it got.

Refresh tokens are issued to a client that has the ``refresh_token`` grant when the granted
scope holds ``offline_access``, and oidc-provider keeps ``offline_access`` only in an
authorization request with ``prompt=consent`` (as OpenID Connect Core says; the MCP SDK's
client sends it): ask for both. ``"refreshTokens": "always"`` in the config drops the
condition. The consent page grants every scope asked for, ``offline_access`` included.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jws import extract_compact
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from tests.client_support import redirect_target
from tests.fake_browser import FakeBrowser
from tests.peers import NODE_MODULES, OIDC_PROVIDER, missing, node22
from tests.server_support import serve_on_loopback

ACCOUNTS = ("alice", "bob")
FILES: dict[str, list[str]] = {
    "alice": ["alice-notes.txt", "alice-budget.ods"],
    "bob": ["bob-photos.zip"],
}
READY_TIMEOUT = 20.0
ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"]


@dataclass
class Provider:
    """A running provider. The endpoint properties are oidc-provider's fixed routes; the
    discovery document (``metadata_url``) says the same."""

    issuer: str
    jwks_uri: str
    process: subprocess.Popen[bytes]
    stderr_log: Path
    config: dict[str, Any]

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    @property
    def authorization_endpoint(self) -> str:
        return f"{self.issuer}/auth"

    @property
    def token_endpoint(self) -> str:
        return f"{self.issuer}/token"

    @property
    def revocation_endpoint(self) -> str:
        return f"{self.issuer}/token/revocation"

    @property
    def introspection_endpoint(self) -> str:
        return f"{self.issuer}/token/introspection"

    @property
    def registration_endpoint(self) -> str:
        return f"{self.issuer}/reg"

    @property
    def userinfo_endpoint(self) -> str:
        return f"{self.issuer}/me"

    def stderr(self) -> str:
        """What the provider logged so far (requests, refusals, oidc-provider's notices)."""
        return self.stderr_log.read_text(errors="replace")


def provider_command() -> list[str]:
    """argv that runs the provider script with Node 22 (append the config file)."""
    node = node22()
    if not (NODE_MODULES / "oidc-provider" / "package.json").is_file():
        missing("oidc-provider (peers/node_modules/oidc-provider)")
    return [str(node), str(OIDC_PROVIDER)]


@contextlib.contextmanager
def start_provider(config: Mapping[str, Any]) -> Iterator[Provider]:
    """Start a provider with ``config`` (see ``peers/oidc/provider.mjs``); wait for its ready
    line (an error carrying its log after :data:`READY_TIMEOUT` or an early exit); stop it
    after."""
    command = provider_command()
    with tempfile.TemporaryDirectory(prefix="oidc-provider-") as folder:
        config_file = Path(folder) / "config.json"
        config_file.write_text(json.dumps(dict(config)))
        stderr_log = Path(folder) / "stderr.log"
        with stderr_log.open("wb") as stderr:
            process = subprocess.Popen(
                [*command, str(config_file)],
                stdin=subprocess.PIPE,  # it exits when this closes, even if we are killed
                stdout=subprocess.PIPE,
                stderr=stderr,
                env={**os.environ, "NODE_ENV": "test", "OIDC_PROVIDER_EXIT_WITH_STDIN": "1"},
            )
        try:
            ready = _ready_line(process, stderr_log)
            yield Provider(
                issuer=ready["issuer"],
                jwks_uri=ready["jwks_uri"],
                process=process,
                stderr_log=stderr_log,
                config=dict(config),
            )
        finally:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - it exits on SIGTERM
                process.kill()
                process.wait()
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()


def _ready_line(process: subprocess.Popen[bytes], stderr_log: Path) -> dict[str, str]:
    assert process.stdout is not None
    deadline = time.monotonic() + READY_TIMEOUT
    line = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(timeout=left):
                raise RuntimeError(_failure("did not start in time", process, stderr_log))
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                raise RuntimeError(_failure("exited before it was ready", process, stderr_log))
            line += chunk
    ready = json.loads(line)
    if not (isinstance(ready, dict) and {"issuer", "jwks_uri"} <= ready.keys()):
        raise RuntimeError(_failure(f"printed {line!r}", process, stderr_log))
    return {"issuer": str(ready["issuer"]), "jwks_uri": str(ready["jwks_uri"])}


def _failure(what: str, process: subprocess.Popen[bytes], stderr_log: Path) -> str:
    process.poll()
    log = stderr_log.read_text(errors="replace")
    return f"the OpenID provider {what} (exit code {process.returncode}); its stderr:\n{log}"


# -- the browser steps -------------------------------------------------------------------------


async def sign_in(page: Any, account: str) -> None:
    """On the provider's sign-in page: type ``account``, press Sign in, wait for the next
    page (the consent page, the redirect, or this page again saying "Unknown account")."""
    await page.get_by_label("Account").fill(account)
    async with page.expect_navigation():
        await page.get_by_role("button", name="Sign in").click()


async def sign_in_and_consent(page: Any, account: str) -> None:
    """Sign in as ``account``, then Allow if the provider asks (it does not once a grant
    covers the request)."""
    await sign_in(page, account)
    if await page.get_by_role("button", name="Allow").count():
        await consent(page)


async def cancel_sign_in(page: Any) -> None:
    """On the sign-in page: press Cancel (the client gets ``error=access_denied``)."""
    async with page.expect_navigation():
        await page.get_by_role("button", name="Cancel").click()


async def consent(page: Any, allow: bool = True) -> None:
    """On the consent page: press Allow (grant everything asked for) or Deny (the client
    gets ``error=access_denied``); wait for the redirect."""
    async with page.expect_navigation():
        await page.get_by_role("button", name="Allow" if allow else "Deny").click()


async def sign_in_where_opened(browser: Any, opened: FakeBrowser, account: str = "alice") -> None:
    """The person at the browser ``opened`` was given: the redirect file's link followed,
    ``account`` signed in, consent given if asked (a kept grant asks none)."""
    given = (await opened.wait_async(timeout=60))[0]
    link = redirect_target(Path(given.removeprefix("file://")))
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(link)
    await sign_in(page, account)
    if await page.get_by_role("button", name="Allow").count():
        await consent(page)
    await context.close()


async def authorize_in_browser(
    browser: Any,
    authorization_url: str,
    redirect_uri: str,
    *,
    account: str,
    allow: bool = True,
) -> str:
    """The whole browser step of an authorization request in a fresh browser context: open
    ``authorization_url``, sign in as ``account``, Allow or Deny (no consent page when the
    grant already covers the request); return the URL the provider sent the browser back to
    (``redirect_uri`` with ``code``, ``state`` and ``iss``, or with ``error``). Something must
    answer at ``redirect_uri`` (:func:`serve_callback`)."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(authorization_url)
        await sign_in(page, account)
        if not page.url.startswith(redirect_uri):
            if await page.get_by_role("button", name="Sign in").count():
                text = await page.inner_text("main")
                raise AssertionError(f"signing in as {account!r} failed: {text}")
            await consent(page, allow=allow)
        if not page.url.startswith(redirect_uri):
            raise AssertionError(f"the browser did not come back to {redirect_uri}: {page.url}")
        return str(page.url)
    finally:
        await context.close()


@dataclass
class Callback:
    """A client's redirect URI, served: ``url``; ``received`` the full URLs requested."""

    url: str
    received: list[str]


@contextlib.asynccontextmanager
async def serve_callback(path: str = "/callback") -> AsyncIterator[Callback]:
    """A redirect URI on a free loopback port that answers "back at the client" (Chromium
    follows redirects before Playwright's routing sees them, so something real must answer)."""
    received: list[str] = []

    async def back(request: Request) -> PlainTextResponse:
        received.append(str(request.url))
        return PlainTextResponse("back at the client")

    app = Starlette(routes=[Route(path, back)])
    async with serve_on_loopback(app, log_level="warning") as port:
        yield Callback(f"http://127.0.0.1:{port}{path}", received)


# -- Example Files -----------------------------------------------------------------------------


class _Keys:
    """The provider's JWKS, fetched on first use and again for a key id it has not seen."""

    def __init__(self, issuer: str, jwks_uri: str | None) -> None:
        self.issuer = issuer
        self.jwks_uri = jwks_uri
        self.keys: KeySet | None = None

    async def fetch(self) -> KeySet:
        async with httpx2.AsyncClient(timeout=10) as http:
            if self.jwks_uri is None:
                response = await http.get(f"{self.issuer}/.well-known/openid-configuration")
                response.raise_for_status()
                metadata = response.json()
                if metadata.get("issuer") != self.issuer:
                    raise ValueError(f"metadata of {metadata.get('issuer')!r}, not {self.issuer!r}")
                self.jwks_uri = str(metadata["jwks_uri"])
            response = await http.get(self.jwks_uri)
            response.raise_for_status()
            self.keys = KeySet.import_key_set(response.json())
            return self.keys

    async def decode(self, token: str) -> dict[str, Any]:
        keys = self.keys or await self.fetch()
        try:
            return jwt.decode(token, keys, algorithms=ALGORITHMS).claims
        except JoseError:
            if self.keys is not None and _kid(token) not in {k.kid for k in self.keys}:
                return jwt.decode(token, await self.fetch(), algorithms=ALGORITHMS).claims
            raise


def _kid(token: str) -> str | None:
    try:
        kid = extract_compact(token.encode()).headers().get("kid")
    except JoseError:
        return None
    return kid if isinstance(kid, str) else None


def files_app(
    issuer: str,
    audience: str,
    *,
    jwks_uri: str | None = None,
    files: Mapping[str, Sequence[str]] = FILES,
    scope: str | None = None,
) -> Starlette:
    """Example Files: ``GET /files`` with ``Authorization: Bearer JWT`` →
    ``{"owner": sub, "files": [...]}`` when the token is signed by ``issuer``'s keys (its
    JWKS at ``jwks_uri``, by default found through its discovery document), has that ``iss``,
    ``audience`` among its ``aud`` and an ``exp`` still ahead (no leeway), and carries
    ``scope`` when one is given (403 ``insufficient_scope`` otherwise); 401 with
    ``WWW-Authenticate: Bearer`` for anything else. ``app.state.received``: every
    ``Authorization`` header value that reached it, in order."""
    keys = _Keys(issuer, jwks_uri)
    received: list[str] = []

    def refuse(status: int, error: str | None, description: str) -> JSONResponse:
        challenge = f'Bearer error="{error}"' if error else "Bearer"
        return JSONResponse(
            {"error": error or "unauthorized", "error_description": description},
            status_code=status,
            headers={"WWW-Authenticate": challenge},
        )

    async def list_files(request: Request) -> JSONResponse:
        header = request.headers.get("authorization")
        if header is None:
            return refuse(401, None, "no access token")
        received.append(header)
        kind, _, token = header.partition(" ")
        if kind.lower() != "bearer" or not token:
            return refuse(401, "invalid_request", "not a bearer token")
        try:
            claims = await keys.decode(token.strip())
            jwt.JWTClaimsRegistry(
                leeway=0,
                iss={"essential": True, "value": issuer},
                aud={"essential": True, "value": audience},
                exp={"essential": True},
                sub={"essential": True},
            ).validate(claims)
        except (JoseError, ValueError, httpx2.HTTPError) as error:
            return refuse(401, "invalid_token", f"{type(error).__name__}: {error}")
        granted = str(claims.get("scope") or "").split()
        if scope is not None and scope not in granted:
            return refuse(403, "insufficient_scope", f"the token lacks {scope}")
        owner = str(claims["sub"])
        return JSONResponse({"owner": owner, "files": list(files.get(owner, []))})

    app = Starlette(routes=[Route("/files", list_files)])
    app.state.received = received
    return app


@dataclass
class FilesServer:
    """Example Files, served: ``url`` is its ``/files`` endpoint."""

    url: str
    app: Starlette

    @property
    def received(self) -> list[str]:
        received: list[str] = self.app.state.received
        return received


@contextlib.asynccontextmanager
async def serve_files(issuer: str, audience: str, **options: Any) -> AsyncIterator[FilesServer]:
    """:func:`files_app` served on a free loopback port (``options`` go to it)."""
    app = files_app(issuer, audience, **options)
    async with serve_on_loopback(app, log_level="warning") as port:
        yield FilesServer(f"http://127.0.0.1:{port}/files", app)


async def wait_until_expired(access_token: str) -> None:
    """Sleep until the JWT's ``exp`` has passed (read without checking it: the time only)."""
    exp = json.loads(extract_compact(access_token.encode()).payload)["exp"]
    await anyio.sleep(max(0.0, exp - time.time()) + 0.5)


async def authorize_over_http(
    authorization_url: str, back_to: str, *, account: str, allow: bool = True
) -> str:
    """The browser step of an authorization request without a browser: follow the provider's
    redirects, sign in as ``account`` and Allow (or Deny) on its pages by posting their forms,
    until a redirect leads to a URL starting with ``back_to``; return that URL (the
    authorization response: ``code``, ``state``, ``iss``; or ``error``), unvisited."""
    url = authorization_url
    async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as http:
        for _ in range(12):
            if url.startswith(back_to):
                return url
            response = await http.get(url)
            if response.is_redirect:
                url = str(response.url.join(response.headers["location"]))
                continue
            form = re.search(r'action="(/interaction/[^"/]+)/(login|consent)"', response.text)
            if response.status_code != 200 or form is None:
                raise AssertionError(f"stuck at the provider: {url}: {response.text[:500]}")
            path, step = form.groups()
            data = (
                {"login": account}
                if step == "login"
                else {"decision": "allow" if allow else "deny"}
            )
            posted = await http.post(str(response.url.join(f"{path}/{step}")), data=data)
            if not posted.is_redirect:
                raise AssertionError(f"{step} at the provider failed: {posted.text[:500]}")
            url = str(posted.url.join(posted.headers["location"]))
    raise AssertionError(f"no redirect to {back_to} after many steps; last at {url}")
