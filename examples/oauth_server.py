"""Hotel MCP with "connect your files": a server for many people. MCP requests need an access
token from the MCP authorization server, browsers sign in there too, and a tool reads the
user's files at Example Files with the user's own token there (downstream OAuth). See
docs/identity.md and docs/oauth.md; tests/server/oauth runs it against two real providers.

    python examples/oauth_server.py CONFIG.json

CONFIG: ``port``, ``store`` (a store URL), ``mcp_issuer`` (the MCP authorization server, also
where browsers sign in), ``pages_client_id``/``pages_client_secret`` (this server's client
there, for browser sign-in), ``files_issuer``, ``files_client_id``/``files_client_secret``
(this server's client at Example Files; ``null`` secret: a public client), ``files_url`` (its
API), ``files_audience`` (the resource indicator of its tokens), ``flow_ttl`` (seconds),
``url_draft`` (also speak the URL-mode draft: -32604 and ``elicitation/track``); optionally
``photos_issuer``, ``photos_client_id``/``photos_client_secret``: a second provider,
"Example Photos" (the mix-up test makes it a malicious one). The deployment key comes from
``MCP_ELICIT_KEY``. Logs at DEBUG on stderr: the tests search them for tokens.

Each provider's redirect URI is ``<origin>/elicit/oauth/callback/<its name>``.

Tools:
- ``list_files`` — ``authorize()`` (asks when needed, blocks until the person is done), then
  the files; ``declined`` / ``cancelled (reason)`` otherwise.
- ``list_files_later`` — never blocks: ``stored_authorization()``, else
  ``authorization_required()`` (-32042 on 2025-11-25, -32604 on the URL-mode draft).
- ``disconnect`` — ``forget_authorization()`` (revokes at Example Files).
- ``connect_photos`` — ``authorize()`` at Example Photos, when it is configured.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import httpx2
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.server import Accepted, Cancelled, Declined, Elicitation
from mcp_elicit.server.oauth import (
    OAuthProvider,
    OidcIdentity,
    ProviderToken,
    authorization_required,
    authorize,
    forget_authorization,
    protected_resource,
    stored_authorization,
)

SERVER_NAME = "hotel"
SERVER_ID = "hotel-files-e2e"
PROVIDER = "example-files"
PHOTOS = "example-photos"


def build(config: dict[str, Any]) -> tuple[MCPServer, Elicitation]:
    origin = f"http://127.0.0.1:{config['port']}"
    photos = (
        [
            OAuthProvider(
                PHOTOS,
                config["photos_client_id"],
                config.get("photos_client_secret"),
                issuer=config["photos_issuer"],
                title="Example Photos",
                scopes=("photos:read",),
            )
        ]
        if config.get("photos_issuer")
        else []
    )
    elicitation = Elicitation(
        store=config["store"],
        identity=OidcIdentity(
            config["mcp_issuer"], config["pages_client_id"], config["pages_client_secret"]
        ),
        providers=[
            OAuthProvider(
                PROVIDER,
                config["files_client_id"],
                config.get("files_client_secret"),
                issuer=config["files_issuer"],
                title="Example Files",
                scopes=("files:read", "offline_access"),
                resource=config["files_audience"],
            ),
            *photos,
        ],
        public_url=origin,
        server_id=SERVER_ID,  # fixed, so that a test can open the vault with the key
        flow_ttl=float(config.get("flow_ttl", 600)),
        # How long a 2026-07-28 retry after "I opened the link" waits for the page to finish
        # before the link is asked for again (the default is 20 s).
        url_resume_wait=float(config.get("url_resume_wait", 20.0)),
        url_draft=bool(config.get("url_draft", False)),
    )
    server = MCPServer(
        SERVER_NAME,
        **elicitation.server_options(),
        **protected_resource(config["mcp_issuer"], f"{origin}/mcp"),
    )
    files_url = config["files_url"]

    async def read_files(token: ProviderToken) -> str:
        async with httpx2.AsyncClient(timeout=10) as http:
            response = await http.get(files_url, headers=token.authorization())
        if response.status_code != 200:
            return f"Example Files answered {response.status_code}"
        found = response.json()
        return f"files of {found['owner']}: {', '.join(found['files'])}"

    @server.tool()
    async def list_files(ctx: Context) -> str:
        """Your files at Example Files (connects your account the first time)."""
        match await authorize(ctx, PROVIDER, message="Connect Example Files to list your files."):
            case Accepted(token):
                return await read_files(token)
            case Declined():
                return "not connected: declined"
            case Cancelled(reason):
                return f"not connected: cancelled ({reason})"
        raise AssertionError("unreachable")

    @server.tool()
    async def list_files_later(ctx: Context) -> str:
        """The same, without blocking: open the link, then call again."""
        token = await stored_authorization(ctx, PROVIDER)
        if token is None:
            raise await authorization_required(
                ctx, PROVIDER, message="Connect Example Files to list your files."
            )
        return await read_files(token)

    @server.tool()
    async def disconnect(ctx: Context) -> str:
        """Forget your Example Files connection (revoked there)."""
        return "forgotten" if await forget_authorization(ctx, PROVIDER) else "nothing to forget"

    async def connect_photos(ctx: Context) -> str:
        """Connect your Example Photos account."""
        match await authorize(ctx, PHOTOS, message="Connect Example Photos."):
            case Accepted(token):
                return f"connected to Example Photos ({len(token.scopes)} scopes)"
            case Declined():
                return "not connected: declined"
            case Cancelled(reason):
                return f"not connected: cancelled ({reason})"
        raise AssertionError("unreachable")

    if photos:
        server.tool()(connect_photos)

    return server, elicitation


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    server, elicitation = build(config)
    elicitation.run(server, "streamable-http", port=int(config["port"]))


if __name__ == "__main__":
    main()
