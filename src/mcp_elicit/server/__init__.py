"""The server side, on the official SDK's ``MCPServer`` (or fastmcp's ``FastMCP``): ask on
every revision, and URL mode.

    elicitation = Elicitation()
    server = MCPServer("booking", **elicitation.server_options())

    @server.tool()
    async def book(ctx: Context) -> str:
        match await ask(ctx, Booking, "Where and when?"):
            case Accepted(booking): ...

    elicitation.run(server)

- :func:`ask`, :func:`confirm`, :func:`choose` — forms, validated, on every revision
- :func:`ask_text` — free text, with images and audio from an early-draft client
- :func:`secret`, :func:`ask_url`, :class:`UrlRequired` — URL mode, flows, the vault
- :class:`Elicitation` — the middleware, the sealed state, the hosted pages, for a server
"""

from mcp_elicit.server.answers import Accepted, Answer, Cancelled, Declined
from mcp_elicit.server.asking import ask, choose, confirm
from mcp_elicit.server.elicitation import Elicitation
from mcp_elicit.server.errors import (
    CannotAsk,
    CapabilityRequired,
    InvalidAnswer,
    LinkInText,
    ModeUnavailable,
    NotExpressible,
    SecretInForm,
)
from mcp_elicit.server.free_text import Reply, ask_text
from mcp_elicit.server.identity import AccessTokenIdentity, Identity, LocalIdentity
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.url_mode import (
    UrlRequired,
    ask_url,
    forget_secret,
    secret,
    secret_required,
    stored_secret,
)
from mcp_elicit.server.vault import Vault

__all__ = [
    "Accepted",
    "AccessTokenIdentity",
    "Answer",
    "Cancelled",
    "CannotAsk",
    "CapabilityRequired",
    "Declined",
    "DeploymentKey",
    "Elicitation",
    "Identity",
    "InvalidAnswer",
    "LinkInText",
    "LocalIdentity",
    "ModeUnavailable",
    "NotExpressible",
    "Reply",
    "SecretInForm",
    "UrlRequired",
    "Vault",
    "ask",
    "ask_text",
    "ask_url",
    "choose",
    "confirm",
    "forget_secret",
    "secret",
    "secret_required",
    "stored_secret",
]
