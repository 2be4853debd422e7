"""An official-SDK server that asks for a secret through URL mode, for the URL-mode and restart
tests. It runs as a real process, with the hosted pages, on a real store.

    .venv/bin/python tests/peer_servers/secret_server.py --store sqlite:////tmp/s.db           # stdio
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
- ``whoami`` returns the user the request is bound to.

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
import sys
from pathlib import Path

import anyio
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import SecretStr

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run as a script: make `tests.identities` importable
    sys.path.insert(0, str(REPO))

from tests.identities import HeaderIdentity  # noqa: E402

from mcp_elicit.server import (  # noqa: E402
    Accepted,
    Cancelled,
    Declined,
    Elicitation,
    Identity,
    LocalIdentity,
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
    *, store: str, url_draft: bool, auth_port: int | None, user: str
) -> tuple[MCPServer, Elicitation]:
    identity: Identity
    if auth_port is not None:
        server = MCPServer(
            SERVER_NAME,
            token_verifier=AnyNameTokens(),
            auth=AuthSettings(
                issuer_url=ISSUER,
                resource_server_url=f"http://127.0.0.1:{auth_port}/mcp",
                validate_token_resource=False,
            ),
        )
        identity = HeaderIdentity()
    else:
        server = MCPServer(SERVER_NAME)
        identity = LocalIdentity(user)
    elicitation = Elicitation(server, store=store, identity=identity, url_draft=url_draft)

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--store", required=True, help="store URL, e.g. sqlite:////tmp/x.db")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    parser.add_argument(
        "--auth", action="store_true", help="TEST bearer tokens and X-Test-User browsers"
    )
    parser.add_argument("--url-draft", action="store_true", help="speak the URL-mode draft")
    parser.add_argument("--user", default="local", help="the LocalIdentity user")
    args = parser.parse_args()
    if args.auth and args.http is None:
        parser.error("--auth needs --http")
    server, elicitation = build(
        store=args.store,
        url_draft=args.url_draft,
        auth_port=args.http if args.auth else None,
        user=args.user,
    )
    configure_logging(os.environ.get("SECRET_SERVER_LOG", "WARNING"))
    if args.http is None:
        anyio.run(elicitation.run_async, "stdio")
    else:
        anyio.run(lambda: elicitation.run_async("streamable-http", port=args.http))


if __name__ == "__main__":
    main()
