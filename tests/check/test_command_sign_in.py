"""``mcp-elicit check server --sign-in``: checking a server that requires MCP authorization,
the token got as ``call --sign-in`` gets one (issue 31, item 3).

Real parts, as in tests/client/test_sign_in.py: ``oidc-provider`` as the authorization
server, an MCP server with the check tools that verifies its tokens, the command in a process
of its own, and the person signing in in Chromium (``$BROWSER`` hands it the link).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

from mcp_elicit.check.tools import add_check_tools
from mcp_elicit.cli import main
from mcp_elicit.client.token_file import TokenFile
from mcp_elicit.server import Elicitation
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.oauth import protected_resource
from tests.browser_support import chromium
from tests.cli.support import environment
from tests.fake_browser import FakeBrowser
from tests.oidc_support import Provider, sign_in_where_opened, start_provider
from tests.peer_servers.secret_server import free_port
from tests.server_support import serve_on_loopback

TIMEOUT = 180.0
URL = "http://127.0.0.1:9/mcp"
# One check, on one revision: it calls a check tool, so it runs only with a token.
SCENARIO = ["--scenario", "server-url-request-shape", "--protocol", "2025-11-25"]


@contextlib.asynccontextmanager
async def protected_checked_server(provider: Provider) -> AsyncIterator[str]:
    """A server with the check tools whose every request needs the provider's token."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = MCPServer("hotel", **protected_resource(provider.issuer, url))
    add_check_tools(server, Elicitation(server, key=DeploymentKey.generate(), store="memory://"))
    async with serve_on_loopback(server.streamable_http_app(), port=port, log_level="warning"):
        yield url


@pytest.mark.anyio
@pytest.mark.browser
@pytest.mark.node
@pytest.mark.slow
async def test_check_signs_in_once_sends_the_token_and_reuses_it_without_a_browser(
    tmp_path: Path,
) -> None:
    fake_browser = FakeBrowser(tmp_path)
    env = {**environment(tmp_path), "BROWSER": str(fake_browser.script)}
    env.pop("XDG_RUNTIME_DIR", None)  # the redirect files go to the state directory
    state = Path(env["XDG_STATE_HOME"])

    async def check(url: str, *options: str) -> tuple[int, str, str]:
        command = [sys.executable, "-m", "mcp_elicit", "check", "server", *SCENARIO, url]
        done = await anyio.run_process(
            [*command, *options], env=env, check=False, stdin=subprocess.DEVNULL
        )
        return done.returncode, done.stdout.decode(), done.stderr.decode()

    config = {
        "name": "Hotel accounts",
        "registration": True,
        "resources": [{"indicator": "*", "scope": "mcp:tools", "accessTokenTTL": 600}],
        "refreshTokens": "always",
    }
    with anyio.fail_after(TIMEOUT), start_provider(config) as provider:
        async with protected_checked_server(provider) as url, chromium() as browser:
            # Without a token: the 401, said once, naming --sign-in; no check runs.
            status, out, err = await check(url)
            assert status == 2, err
            assert "the server requires sign-in (HTTP 401)" in err
            assert "--sign-in ask" in err and "passed" not in out

            # Asking with nobody at a terminal: one error, exit 2, nothing opened or checked.
            status, out, err = await check(url, "--sign-in", "ask", "--allow-http-loopback")
            assert status == 2, err
            assert "there is nobody to ask" in err and "Traceback" not in err
            assert fake_browser.links() == [] and "Checking" not in out

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(sign_in_where_opened, browser, fake_browser)
                status, out, err = await check(url, "--sign-in", "yes", "--allow-http-loopback")
                tasks.cancel_scope.cancel()
            assert status == 0, out + err
            assert "Passed: 1/1, 0 failed" in out
            assert f"opening {provider.issuer}/auth?" in err  # told where the browser went
            kept = await TokenFile(url, state / "mcp-elicit" / "sign-in").get_tokens()
            assert kept is not None
            assert kept.access_token not in out + err  # never printed

            # Kept for next time (as `call` keeps it): no browser now.
            status, out, err = await check(url, "--sign-in", "yes", "--allow-http-loopback")
            assert status == 0, out + err
            assert "Passed: 1/1, 0 failed" in out
            assert len(fake_browser.links()) == 1
            assert kept.access_token not in out + err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sign-in", "yes", "--", "true"], "--sign-in is for a server given by its URL"),
        (
            ["--sign-in", "yes", "--header", "Authorization: Bearer abc", URL],
            "--sign-in gets a token for the Authorization header: give it, or that --header",
        ),
        (["--sign-in", "no", URL], "argument --sign-in: invalid choice: 'no'"),
    ],
)
def test_sign_in_with_a_token_or_a_command_is_bad_usage(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before anything is connected to or opened: exit 2, saying why."""
    with pytest.raises(SystemExit) as exit_:
        main(["check", "server", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "usage: mcp-elicit check server" in err
    assert message in err
