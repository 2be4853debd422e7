"""The OAuth mix-up attack (RFC 9207 §1) end to end, with a malicious provider among the ones
the server is registered with (issue 30).

Three real ``oidc-provider`` instances: Hotel accounts (the MCP authorization server), Example
Files (honest; this server is a public client there, so a code and its PKCE verifier are all
it takes to get alice's token), and Example Photos, which the server is registered with too
and which plays the attacker (``peers/oidc/provider.mjs``, ``mixUp``): its authorization
endpoint sends alice's browser on to Example Files with this server's client id there, the
``state`` and the PKCE challenge it received; its token endpoint records whatever code and
verifier reach it and redeems them at Example Files. Example Files accepts every callback this
server has or had (``world.py``), so only the server's own checks can stop the attack. Alice
is a real Chromium; the server runs as its own process (``examples/oauth_server.py``).

- ``rewrites``: the attacker sends Example Files' own callback here as the redirect URI, so
  the answer arrives at the right callback for Example Files, with a ``state`` made for
  Example Photos: refused, as the state names another provider.
- ``keeps``: it passes on the redirect URI it received (Example Photos' callback), so the
  answer arrives there with Example Files' ``iss``: refused by RFC 9207.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import anyio
import mcp_types as types
import pytest

from tests.browser_support import chromium
from tests.peer_servers.secret_server import Wire
from tests.server.oauth.world import MixUp, Person, client_for, handler_for, world

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.node, pytest.mark.slow]

TIMEOUT = 150.0
REFUSED = {
    "rewrites": (
        "The answer came from another service",
        "You were connecting Example Photos, but the answer came back from Example Files.",
        "its answer came back through another provider's callback",
    ),
    "keeps": (
        "The answer could not be trusted",
        "The answer did not show that it came from Example Photos",
        "its answer names another issuer (iss, RFC 9207)",
    ),
}


@pytest.mark.parametrize("mix_up", ["rewrites", "keeps"])
async def test_a_malicious_provider_cannot_get_the_honest_providers_code(
    tmp_path: Path, mix_up: MixUp
) -> None:
    title, page_says, tool_says = REFUSED[mix_up]
    with anyio.fail_after(TIMEOUT):
        async with world(tmp_path, mix_up=mix_up) as w, chromium() as browser:
            assert w.photos_as is not None
            w.start()
            token = await w.mcp_token(browser, "alice")
            alice = Person(w, await browser.new_context(), "alice")
            seen: list[tuple[str, str]] = []
            shown = anyio.Event()

            async def follow() -> None:
                async for url in alice.links:
                    page = await alice.go(url)
                    seen.append((page.url, await page.inner_text("main")))
                    shown.set()

            handler = handler_for(alice)
            async with (
                client_for(w, token, handler, "2025-11-25", Wire()) as client,
                anyio.create_task_group() as tasks,
            ):
                tasks.start_soon(follow)
                result = await client.call_tool("connect_photos", {})
                await shown.wait()  # the tool may hear before the page has been read
                tasks.cancel_scope.cancel()

            # The attack ran: alice went to Example Photos, was sent on to Example Files as
            # this server, signed in and allowed there, and Example Files answered with a code.
            assert any(p.startswith(f"{w.photos_as.issuer}/auth?") for p in alice.pages)
            answers = [p for p in alice.pages if p.startswith(f"{w.origin}/elicit/oauth/")]
            assert len(answers) == 1, alice.pages
            answer = parse_qs(urlsplit(answers[0]).query)
            code = answer["code"][0]
            assert answer["iss"] == [w.files_as.issuer]

            # The attacker's token endpoint received nothing: not the code, not the verifier.
            received = w.mix_up_received()
            assert all(r["code"] != code for r in received), f"the attacker got {received}"
            assert received == []
            # Nobody redeemed it at Example Files, and nothing is stored for alice.
            assert "POST /token " not in w.files_as.stderr()
            assert await w.vault_entries("alice", "example-files", "example-photos") == {
                "example-files": None,
                "example-photos": None,
            }
            assert w.files.received == []

            # Alice was told, in plain words, on this server's page.
            [(landed, text)] = seen
            assert landed == answers[0]
            assert title in text and page_says in text and "nothing was saved" in text

            # The tool got an error naming the provider and the rule.
            assert result.is_error
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            assert "Example Photos did not authorize this server" in block.text
            assert tool_says in block.text
