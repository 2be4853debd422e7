"""Signing in to a server that requires MCP authorization: ``ElicitingClient(sign_in=...)``.

Real parts: ``oidc-provider`` as the MCP authorization server with open dynamic client
registration, an MCP server that verifies its tokens (``protected_resource``), the SDK's OAuth
client, and the person signing in in a real Chromium. The renderer here stands for the person
at the consent screen; the browser part is Chromium's.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer

from mcp_elicit.client import (
    Accept,
    AuditLog,
    Decision,
    Decline,
    ElicitationHandler,
    ElicitingClient,
    FormPrompt,
    Notice,
    Policy,
    UrlPrompt,
)
from mcp_elicit.client.sign_in import SignIn, SignInRefused, SignInRequired
from mcp_elicit.client.token_file import TokenFile
from mcp_elicit.server.oauth import JwtVerifier, protected_resource
from mcp_elicit.urls import UrlPolicy
from tests.browser_support import chromium
from tests.cli.support import environment
from tests.fake_browser import FakeBrowser
from tests.oidc_support import (
    Provider,
    consent,
    sign_in,
    sign_in_where_opened,
    start_provider,
    wait_until_expired,
)
from tests.server_support import serve_on_loopback

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.node, pytest.mark.slow]

TIMEOUT = 120.0
LOOPBACK = Policy(url_policy=UrlPolicy(allow_http_loopback=True))


def provider_config(ttl: int = 600) -> dict[str, Any]:
    return {
        "name": "Hotel accounts",
        "registration": True,
        "resources": [{"indicator": "*", "scope": "mcp:tools", "accessTokenTTL": ttl}],
        "refreshTokens": "always",
    }


@contextlib.asynccontextmanager
async def protected_server(provider: Provider) -> AsyncIterator[str]:
    """An MCP server whose requests need Hotel accounts' tokens; ``whoami`` says whose."""
    from tests.peer_servers.secret_server import free_port

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    # No leeway: a token is refused the moment it expires (the default allows 30 s of skew).
    verifier = JwtVerifier(provider.issuer, url, leeway=0)
    server = MCPServer(
        "hotel", **{**protected_resource(provider.issuer, url), "token_verifier": verifier}
    )

    @server.tool()
    async def whoami() -> str:
        token = get_access_token()
        assert token is not None
        return f"you are {token.subject}"

    async with serve_on_loopback(server.streamable_http_app(), port=port, log_level="warning"):
        yield url


@dataclass
class Person:
    """At the consent screen (``answer``), and in Chromium when a link opens: signs in as
    ``account`` and allows (or denies) at the provider."""

    browser: Any
    tasks: anyio.abc.TaskGroup
    account: str = "alice"
    answer: Decision = field(default_factory=Accept)
    allow: bool = True
    prompts: list[UrlPrompt] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    landed: list[str] = field(default_factory=list)
    before_browser: Any = None

    # -- the renderer -------------------------------------------------------------------------

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        raise AssertionError("no form here")

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        self.prompts.append(prompt)
        return self.answer

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        await completed.wait()
        return Accept()

    async def notify(self, notice: Notice) -> None:
        self.notices.append(notice)

    # -- the browser ---------------------------------------------------------------------------

    def opener(self, url: str) -> bool:
        self.opened.append(url)
        self.tasks.start_soon(self._go, url)
        return True

    async def _go(self, url: str) -> None:
        if self.before_browser is not None:
            await self.before_browser(url)
        context = await self.browser.new_context()
        page = await context.new_page()
        await page.goto(url)
        await sign_in(page, self.account)
        if await page.get_by_role("button", name="Allow").count():
            await consent(page, allow=self.allow)
        self.landed.append(page.url)
        await context.close()


@contextlib.asynccontextmanager
async def world(tmp_path: Path, ttl: int = 600) -> AsyncIterator[tuple[Provider, str, Any]]:
    with start_provider(provider_config(ttl)) as provider:
        async with protected_server(provider) as url, chromium() as browser:
            yield provider, url, browser


@contextlib.contextmanager
def person_in(browser: Any, tasks: anyio.abc.TaskGroup, **options: Any) -> Iterator[Person]:
    yield Person(browser, tasks, **options)


def handler_for(person: Person, audit: Path | None = None) -> ElicitationHandler:
    return ElicitationHandler(
        person,
        policy=LOOPBACK,
        opener=person.opener,
        audit=AuditLog(audit) if audit is not None else None,
    )


async def whoami(url: str, handler: ElicitationHandler, **options: Any) -> str:
    async with ElicitingClient(url, handler, **options) as client:
        result = await client.call_tool("whoami", {})
    block = result.content[0]
    assert block.type == "text"
    return block.text


# -- signing in ------------------------------------------------------------------------------------


async def test_alice_signs_in_once_and_her_tokens_are_kept_owner_only_and_sealed(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sign-in"
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (provider, url, browser), anyio.create_task_group() as tasks:
            alice = Person(browser, tasks)
            handler = handler_for(alice, audit=tmp_path / "audit.jsonl")
            settings = SignIn(directory=folder)
            assert await whoami(url, handler, sign_in=settings) == "you are alice"

            # She was asked first, on a screen that says it is a sign-in, with the link
            # checked like any URL-mode link; only then did the browser open it.
            [prompt] = alice.prompts
            assert prompt.sign_in and prompt.url.startswith(f"{provider.issuer}/auth?")
            assert prompt.verdict.display_host is not None
            assert prompt.verdict.display_host.ascii == "127.0.0.1"
            assert alice.opened == [prompt.url]
            # The provider sent her browser back to our loopback listener. (The call can return
            # before the browser's task has seen its page load: on a busy machine it had not.)
            with anyio.fail_after(30):
                while not alice.landed:
                    await anyio.sleep(0.05)
            [landed] = alice.landed
            assert landed.startswith("http://127.0.0.1:") and "/callback?" in landed

            # Kept: one file for this server, owner-only, in an owner-only folder, sealed.
            storage = TokenFile(url, folder)
            tokens = await storage.get_tokens()
            assert tokens is not None and tokens.refresh_token
            assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
            for path in folder.iterdir():
                assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
            sealed = storage.path.read_bytes()
            assert tokens.access_token.encode() not in sealed
            assert tokens.refresh_token.encode() not in sealed
            audit = (tmp_path / "audit.jsonl").read_text()
            [event] = [json.loads(line) for line in audit.splitlines()]
            assert event["kind"] == "sign-in" and event["outcome"] == "accept"
            assert tokens.access_token not in audit

            # Another client later: the kept token is used; nobody is asked again.
            assert await whoami(url, handler, sign_in=settings) == "you are alice"
            assert len(alice.prompts) == 1 and len(alice.opened) == 1


async def test_an_expired_token_is_refreshed_without_asking(tmp_path: Path) -> None:
    folder = tmp_path / "sign-in"
    with anyio.fail_after(TIMEOUT):
        async with (
            world(tmp_path, ttl=3) as (_, url, browser),
            anyio.create_task_group() as tasks,
        ):
            alice = Person(browser, tasks)
            handler = handler_for(alice)
            assert await whoami(url, handler, sign_in=SignIn(directory=folder)) == "you are alice"
            first = await TokenFile(url, folder).get_tokens()
            assert first is not None
            await wait_until_expired(first.access_token)

            assert await whoami(url, handler, sign_in=SignIn(directory=folder)) == "you are alice"
            again = await TokenFile(url, folder).get_tokens()
            assert again is not None and again.access_token != first.access_token
            assert len(alice.prompts) == 1  # refreshed, not asked


async def test_a_forged_callback_is_refused_and_the_real_one_still_signs_in(
    tmp_path: Path,
) -> None:
    seen: list[tuple[int, str]] = []

    async def forge(url: str) -> None:
        # Another program on this machine answers the loopback port first: a wrong state,
        # and the right state under another Host name (DNS rebinding).
        from urllib.parse import parse_qs, urlsplit

        query = parse_qs(urlsplit(url).query)
        callback = query["redirect_uri"][0]
        state = query["state"][0]
        async with httpx2.AsyncClient() as http:
            wrong = await http.get(callback, params={"code": "forged", "state": "not-it"})
            seen.append((wrong.status_code, wrong.text))
            port = urlsplit(callback).port
            rebound = await http.get(
                callback,
                params={"code": "forged", "state": state},
                headers={"Host": f"evil.example:{port}"},
            )
            seen.append((rebound.status_code, rebound.text))

    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (_, url, browser), anyio.create_task_group() as tasks:
            alice = Person(browser, tasks, before_browser=forge)
            handler = handler_for(alice)
            sign = SignIn(directory=tmp_path / "s")
            assert await whoami(url, handler, sign_in=sign) == "you are alice"
    assert [status for status, _ in seen] == [400, 400]
    assert "Not this sign-in" in seen[0][1]
    assert "only at 127.0.0.1" in seen[1][1]


# -- not signing in --------------------------------------------------------------------------------


async def test_declining_the_sign_in_opens_nothing_and_keeps_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "sign-in"
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (_, url, browser), anyio.create_task_group() as tasks:
            alice = Person(browser, tasks, answer=Decline())
            with pytest.raises(SignInRefused, match="declined the sign-in"):
                await whoami(url, handler_for(alice), sign_in=SignIn(directory=folder))
            assert len(alice.prompts) == 1 and alice.opened == []
            tokens = await TokenFile(url, folder).get_tokens()
            assert tokens is None


async def test_denying_at_the_provider_is_refused_with_its_error(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (_, url, browser), anyio.create_task_group() as tasks:
            alice = Person(browser, tasks, allow=False)
            with pytest.raises(SignInRefused, match="access_denied"):
                await whoami(url, handler_for(alice), sign_in=SignIn(directory=tmp_path / "s"))
            assert len(alice.opened) == 1


async def test_a_blocked_sign_in_link_is_never_shown_or_opened(tmp_path: Path) -> None:
    # By default a host does not open http:// links to this machine from a remote server;
    # the provider here is one.
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (_, url, browser), anyio.create_task_group() as tasks:
            alice = Person(browser, tasks)
            handler = ElicitationHandler(alice, opener=alice.opener)
            with pytest.raises(SignInRefused, match="was blocked"):
                await whoami(url, handler, sign_in=SignIn(directory=tmp_path / "s"))
            assert alice.prompts == [] and alice.opened == []
            assert any("Blocked its sign-in link" in n.text for n in alice.notices)


async def test_without_sign_in_a_protected_server_says_so(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (_, url, browser), anyio.create_task_group() as tasks:
            alice = Person(browser, tasks)
            with pytest.raises(SignInRequired, match=r"requires sign-in.*signing in is off"):
                await whoami(url, handler_for(alice))
            # Nobody to ask: a script must consent ahead.
            nobody = ElicitationHandler(None, policy=LOOPBACK)
            with pytest.raises(SignInRequired, match=r"nobody to ask.*--sign-in yes"):
                await whoami(url, nobody, sign_in=SignIn(directory=tmp_path / "s"))
            assert alice.opened == []


async def test_a_static_token_header_works_and_a_bad_one_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "sign-in"
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (_, url, browser), anyio.create_task_group() as tasks:
            alice = Person(browser, tasks)
            handler = handler_for(alice)
            await whoami(url, handler, sign_in=SignIn(directory=folder))
            tokens = await TokenFile(url, folder).get_tokens()
            assert tokens is not None
            bearer = {"Authorization": f"Bearer {tokens.access_token}"}
            assert await whoami(url, handler, headers=bearer) == "you are alice"
            with pytest.raises(SignInRequired, match="refused the Authorization header"):
                await whoami(url, handler, headers={"Authorization": "Bearer not-a-token"})


def test_sign_in_settings_that_cannot_work_are_refused() -> None:
    handler = ElicitationHandler(None)
    with pytest.raises(ValueError, match="http\\(s\\):// URL"):
        ElicitingClient(object(), handler, sign_in=True)
    with pytest.raises(ValueError, match="not both"):
        ElicitingClient(
            "http://127.0.0.1:1/mcp", handler, sign_in=True, headers={"Authorization": "x"}
        )
    with pytest.raises(ValueError, match="own http_client"):
        ElicitingClient(
            "http://127.0.0.1:1/mcp", handler, sign_in=True, http_client=httpx2.AsyncClient()
        )


# -- mcp-elicit call, a process of its own ---------------------------------------------------------


async def test_mcp_elicit_call_signs_in_with_consent_given_ahead_and_keeps_tokens_owner_only(
    tmp_path: Path,
) -> None:
    """``--sign-in yes``: the script consents ahead; the browser (``$BROWSER``, here a script
    that hands the redirect file to Chromium) still has to finish the sign-in."""
    fake_browser = FakeBrowser(tmp_path)
    browser_script, opened = fake_browser.script, fake_browser.opened
    env = {**environment(tmp_path), "BROWSER": str(browser_script)}
    env.pop("XDG_RUNTIME_DIR", None)  # the redirect files go to the state directory
    state = Path(env["XDG_STATE_HOME"])

    async def run(*options: str) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-m", "mcp_elicit", "call", "whoami", url, *options]
        command.append("--allow-http-loopback")  # the provider is on http://127.0.0.1
        return await anyio.run_process(command, env=env, check=False, stdin=subprocess.DEVNULL)

    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path) as (provider, url, browser):
            # Never signing in: the server's 401 is said, and nothing opens.
            refused = await run("--sign-in", "no")
            assert refused.returncode == 1
            assert "requires sign-in" in refused.stderr.decode()
            assert "Traceback" not in refused.stderr.decode()
            assert not opened.exists()

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(sign_in_where_opened, browser, fake_browser)
                done = await run("--sign-in", "yes")
                tasks.cancel_scope.cancel()
            out, err = done.stdout.decode(), done.stderr.decode()
            assert done.returncode == 0, err
            assert out.strip() == "you are alice"
            assert f"opening {provider.issuer}/auth?" in err  # told where the browser went
            assert "Traceback" not in err and "OAuth flow error" not in err
            assert "Traceback" not in err

            # Kept for next time, owner-only: no browser, no consent needed now.
            folder = state / "mcp-elicit" / "sign-in"
            assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
            assert {p.name for p in folder.iterdir()} == {"key", TokenFile(url, folder).path.name}
            for path in folder.iterdir():
                assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
            opened.unlink()
            again = await run()
            assert again.returncode == 0 and again.stdout.decode().strip() == "you are alice"
            assert not opened.exists()


def test_a_token_storage_given_as_it_is_is_refused_with_the_fix(tmp_path: Path) -> None:
    """``storage`` maps a server's URL to its storage: one storage for every server would
    hand one server's tokens to another (a newcomer passed a TokenStorage, and got
    "'Keep' object is not callable" at the first call)."""
    one = TokenFile("https://a.example/mcp", tmp_path)
    with pytest.raises(TypeError, match=r"storage=lambda url: MyStorage\(url\)"):
        SignIn(storage=one)  # type: ignore[arg-type]
    chosen = SignIn(storage=lambda url: TokenFile(url, tmp_path))
    assert isinstance(chosen.storage_for("https://b.example/mcp"), TokenFile)
