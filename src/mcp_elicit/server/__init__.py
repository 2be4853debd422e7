"""The server side, on the official SDK's ``MCPServer`` (or fastmcp's ``FastMCP``): ask a person
from inside a tool on every revision, and send them to a page for what must not pass through
the client (URL mode).

Start here
----------

The entry point is :class:`Elicitation`, set up once per server; inside a tool, the helpers
take the tool's ``ctx``::

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
- :func:`task_status` — what a task is doing, shown to a client that polls it
- :class:`Elicitation` — the middleware, the sealed state, the hosted pages, for a server
- :mod:`mcp_elicit.server.oauth` — OAuth and OpenID Connect (the ``oauth`` extra)

A request's way through: the framework's middleware (``frameworks``) hands it to ``handling``,
which makes its scope once (``scope``: the peer, the round, the runtime's services) and runs
the tool; ``ask`` (``asking``) or ``secret`` (``url_mode``) pushes a question on the 2025
revisions, or raises one that ``handling`` turns into an ``InputRequiredResult`` on
2026-07-28 (``rounds`` has the rules); a link's flow finishes on the hosted pages (``pages``),
and ``completions`` tells the client the revision's way.

Floors
------

Imports go down only: a module imports modules of its own floor or of the floors below it,
never one above (``tests/test_layers.py`` reads this table and checks every module, in the
sub-packages too; a new module gets a place here). Top first:

    elicitation                     the wiring: Elicitation, set up once per server
    serving, frameworks             serving it (uvicorn, a stdio server's loopback pages); plugging
                                    it into MCPServer and fastmcp
    oauth                           OAuth and OpenID Connect, the oauth extra: tokens on the MCP
                                    side, browser sign-in, downstream OAuth and its connect page
    handling, pages                 where requests arrive: each MCP request (its outcome in the
                                    client's revision), and the person's browser (the hosted pages)
    asking, free_text, url_mode     what a tool calls: ask, confirm, choose; ask_text; secret,
                                    ask_url, UrlRequired
    scope                           the request being served, made once per request
    runtime, completions            the server's parts, made once; how a client learns that a link's
                                    flow is done
    questions, wording              a question in each revision's shape; what it may say
    rounds, tasks                   the state machines: 2026-07-28 rounds, 2025-11-25 tasks
    answers, errors, identity, keys, vault, links, instances, peer, link_rules, logs
                                    the words and the parts everything above uses (logs: how
                                    a server's records are written)
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
    UnsafeLink,
)
from mcp_elicit.server.free_text import Reply, ask_text
from mcp_elicit.server.identity import AccessTokenIdentity, Identity, LocalIdentity
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.scope import task_status
from mcp_elicit.server.tasks import TaskSettings
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
    "TaskSettings",
    "UnsafeLink",
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
    "task_status",
]
