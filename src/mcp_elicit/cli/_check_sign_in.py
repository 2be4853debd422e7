"""``mcp-elicit check server --sign-in``: the token the checks send, got as ``call --sign-in``
gets one.

The checks speak raw HTTP with fixed headers (every check its own client, some on purpose
breaking the rules), so they cannot run the OAuth flow themselves. Instead the sign-in runs
first, once, through an :class:`~mcp_elicit.client.ElicitingClient` with the same
:class:`~mcp_elicit.client.sign_in.SignIn` settings as ``call`` (the same consent screen,
opener and :class:`~mcp_elicit.client.token_file.TokenFile`): a token kept from before is
used, or refreshed, without a browser. The access token is then read from that storage and
becomes the checks' ``Authorization`` header. It is never printed or logged.
"""

from __future__ import annotations

import argparse
import sys

import anyio

from mcp_elicit.cli._host import say
from mcp_elicit.cli._io import UsageError
from mcp_elicit.cli._running import describe_failure, screen
from mcp_elicit.client import ElicitationHandler, ElicitingClient, Policy
from mcp_elicit.client.handler import open_in_browser
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.sign_in import SignIn, SignInRefused, SignInRequired
from mcp_elicit.i18n import _
from mcp_elicit.urls import UrlPolicy


def signed_in_headers(
    args: argparse.Namespace, url: str, headers: dict[str, str]
) -> dict[str, str]:
    """``headers`` plus ``Authorization: Bearer <token>`` for ``url`` after signing in as
    ``--sign-in`` says; a sign-in refused or failed is a :class:`UsageError` (exit 2, and no
    check runs)."""
    if any(name.lower() == "authorization" for name in headers):
        raise UsageError(
            _("--sign-in gets a token for the Authorization header: give it, or that --header")
        )
    token = anyio.run(_token, args, url)
    if token is None:
        # The server let the client in without a token: the checks run as they would.
        say(_("{url} did not ask to sign in: checking without a token").format(url=url))
        return headers
    return {**headers, "Authorization": f"Bearer {token}"}


async def _token(args: argparse.Namespace, url: str) -> str | None:
    asking = args.sign_in == "ask"
    renderer: Renderer | None = None
    if asking and sys.stdin.isatty():
        from mcp_elicit.client.terminal import TerminalRenderer

        renderer = TerminalRenderer(output=screen())
    policy = Policy(url_policy=UrlPolicy(allow_http_loopback=args.allow_http_loopback))
    handler = ElicitationHandler(renderer, policy=policy, opener=open_in_browser)
    # As `call` (cli._running.connection_options): consent ahead still says where the
    # browser goes, and a link with warnings is still asked about, or refused.
    settings = SignIn() if asking else SignIn(ask=False, announce=say, opener=open_in_browser)
    try:
        async with ElicitingClient(url, handler, sign_in=settings):
            pass  # connecting is enough: the first request is answered 401, then signed in
    except (SignInRefused, SignInRequired) as refused:
        raise UsageError(str(refused)) from None
    except Exception as error:  # one line, exit 2, never a traceback
        raise UsageError(
            _("cannot sign in to {url}: {why}").format(url=url, why=describe_failure(error))
        ) from None
    tokens = await settings.storage_for(url).get_tokens()
    return tokens.access_token if tokens is not None else None
