"""``Elicitation``: what a server installs once to ask on every revision and to run URL flows.

It adds to an ``MCPServer``:

- the middleware that turns a pending 2026-07-28 question into an ``InputRequiredResult``, and
  ``UrlRequired`` into each revision's error or result;
- ``requestState`` sealed under the deployment key rather than the SDK's per-process key, so a
  question asked before a restart (or by another instance) is answered after it;
- the flows, the vault and the hosted pages behind ``secret()`` (on the store, SQLite by
  default), and the identity that binds a flow to its user;
- with ``url_draft=True``, the URL-mode draft's ``elicitation/track``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.abc
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.session import ServerSession
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit.flows import Flows
from mcp_elicit.server.completions import CompletionWatcher
from mcp_elicit.server.errors import CannotAsk
from mcp_elicit.server.identity import Identity, LocalIdentity
from mcp_elicit.server.installed import DEFAULT_URL_RESUME_WAIT, Settings, register
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.middleware import ElicitationMiddleware
from mcp_elicit.server.pages import PAGES_PREFIX, flow_path, hosted_pages, page_hosts
from mcp_elicit.server.tracking import track_handler
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import Store, open_store

logger = logging.getLogger(__name__)

DEFAULT_STATE_TTL = 900.0
DEFAULT_FLOW_TTL = 600.0
COMPLETION_TASK = "mcp-elicit completion notices"


class Elicitation:
    """Install elicitation on ``server``::

        server = MCPServer("booking")
        elicitation = Elicitation(server)
        ...
        elicitation.run("stdio")   # or "streamable-http"; serves the hosted pages too

    ``key``: the deployment key (default ``DeploymentKey.load()``: ``MCP_ELICIT_KEY`` or a key
    file). ``store``: a store or its URL (default: SQLite in the user's state directory).
    ``identity``: who the user is (default :class:`LocalIdentity`, single-user).
    ``public_url``: the origin the hosted pages are reached at (set by ``run`` when omitted).
    ``request_state_ttl``: how long a 2026-07-28 question waits for its answer (seconds).
    ``flow_ttl``: how long a URL flow stays open. ``url_draft``: also speak the URL-mode
    draft (SEP-1036) to 2025-06-18 clients that declare URL mode. ``url_resume_wait``:
    on 2026-07-28, how long the retry that follows "I opened the link" is held while the
    person is still on the page (seconds, default 20) before the link is asked for again.
    """

    def __init__(
        self,
        server: MCPServer[Any],
        *,
        key: DeploymentKey | None = None,
        store: Store | str | None = None,
        identity: Identity | None = None,
        public_url: str | None = None,
        request_state_ttl: float = DEFAULT_STATE_TTL,
        flow_ttl: float = DEFAULT_FLOW_TTL,
        url_draft: bool = False,
        url_resume_wait: float = DEFAULT_URL_RESUME_WAIT,
    ) -> None:
        self.server = server
        self.key = key if key is not None else DeploymentKey.load()
        self.identity: Identity = identity if identity is not None else LocalIdentity()
        self.public_url = public_url.rstrip("/") if public_url else None
        if self.public_url is not None:
            # Checked here, where the mistake is made, rather than on every page request
            # (the pages' Host allow-list is read from it).
            page_hosts(public_url=self.public_url, loopback_port=None)
        if url_resume_wait < 0:
            raise ValueError(f"url_resume_wait must be 0 or more seconds, not {url_resume_wait}")
        self.settings = Settings(url_draft=url_draft, url_resume_wait=url_resume_wait)
        self._store_spec = store
        self._store: Store | None = store if not isinstance(store, str | None) else None
        self._flows: Flows | None = None
        self._vault: Vault | None = None
        self._flow_ttl = flow_ttl
        self._tasks: anyio.abc.TaskGroup | None = None
        self._completions: CompletionWatcher | None = None
        register(server, self)
        self._seal_state_with_deployment_key(request_state_ttl)
        server.middleware.append(ElicitationMiddleware(self))
        if url_draft:
            server._lowlevel_server.add_request_handler(*track_handler(self))

    # -- parts, made on first use (a server that only asks never opens a store) -----------

    @property
    def store(self) -> Store:
        if self._store is None:
            spec = self._store_spec
            self._store = open_store(spec if isinstance(spec, str) else default_store_url())
        return self._store

    @property
    def flows(self) -> Flows:
        if self._flows is None:
            self._flows = Flows(self.store, default_ttl=self._flow_ttl)
        return self._flows

    @property
    def vault(self) -> Vault:
        if self._vault is None:
            self._vault = Vault(self.store, self.key.derive("vault"))
        return self._vault

    def user_of(self, ctx: Context[Any, Any]) -> str:
        """The authenticated user of a tool call; flows and secrets are bound to it."""
        user = self.identity.user_of_request(ctx.request_context)
        if not user:
            raise CannotAsk(
                "no authenticated user: a secret or a flow is bound to the user who asked "
                "for it, and this request carries no identity"
            )
        return user

    def flow_url(self, flow_id: str) -> str:
        if self.public_url is None:
            raise RuntimeError(
                "the hosted pages are not being served: run the server with "
                "Elicitation.run(...), or mount pages_app() and pass public_url"
            )
        return self.public_url + flow_path(flow_id)

    # -- the hosted pages --------------------------------------------------------------------

    def pages_app(self, *, loopback_port: int | None = None) -> Starlette:
        """The hosted pages, answering only requests whose ``Host`` names this server:
        ``public_url``'s host (read on each request, so it may be set after this call) and,
        with ``loopback_port``, ``127.0.0.1``, ``localhost`` and ``[::1]`` on that port.
        Any other ``Host`` gets 400: see ``pages/hosts.py`` for why."""
        return hosted_pages(
            flows=self.flows,
            vault=self.vault,
            identity=self.identity,
            csrf_key=self.key.derive("csrf"),
            server_name=self.server.name or "This server",
            allowed_hosts=lambda: page_hosts(
                public_url=self.public_url, loopback_port=loopback_port
            ),
        )

    def mount(self, app: Starlette, *, loopback_port: int | None = None) -> None:
        """Serve the hosted pages under ``/elicit`` of ``app`` (the Streamable HTTP app).
        ``loopback_port``: the port ``app`` listens on when it is bound to loopback (see
        :meth:`pages_app`)."""
        app.router.routes.insert(
            0, Mount(PAGES_PREFIX, app=self.pages_app(loopback_port=loopback_port))
        )

    # -- running -----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self, *, serve_pages_on_loopback: bool = False) -> AsyncIterator[None]:
        """Background work while the server runs: the flow sweeper, completion notices (one
        watcher task, started on the first -32042), and (for a stdio server) the hosted
        pages on a loopback port."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            tasks.start_soon(self.flows.run_sweeper)
            if serve_pages_on_loopback:
                await tasks.start(self._serve_loopback)
            try:
                yield
            finally:
                self._tasks = None
                # Its sessions belonged to this run; a later run starts a watcher of its own.
                self._completions = None
                tasks.cancel_scope.cancel()
        await self.store.aclose()

    def run(
        self,
        transport: Literal["stdio", "streamable-http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
    ) -> None:
        """Run the server with everything elicitation needs (blocking)."""
        anyio.run(lambda: self.run_async(transport, host=host, port=port))

    async def run_async(
        self,
        transport: Literal["stdio", "streamable-http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
    ) -> None:
        if transport == "stdio":
            async with self.running(serve_pages_on_loopback=True):
                await self.server.run_stdio_async()
            return
        if isinstance(self.identity, LocalIdentity) and not _is_loopback(host):
            raise ValueError(
                f"LocalIdentity is single-user: serving it on {host!r} would make every "
                "caller and every browser the same user. Bind to 127.0.0.1, or pass an "
                "identity that tells users apart (AccessTokenIdentity)"
            )
        app = self.server.streamable_http_app()
        if self.public_url is None:
            self.public_url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
        self.mount(app, loopback_port=port if _is_loopback(host) else None)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        async with self.running():
            await uvicorn.Server(config).serve()

    async def _serve_loopback(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """The hosted pages on 127.0.0.1, for a stdio server. Nothing is written to stdout
        (it carries the protocol) and nothing is reachable from other machines."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", int(os.environ.get("MCP_ELICIT_PAGES_PORT", "0"))))
        port = sock.getsockname()[1]
        if self.public_url is None:
            self.public_url = f"http://127.0.0.1:{port}"
        app = Starlette(routes=[Mount(PAGES_PREFIX, app=self.pages_app(loopback_port=port))])
        config = uvicorn.Config(
            app, log_config=None, log_level="warning", access_log=False, lifespan="off"
        )
        server = uvicorn.Server(config)
        task_status.started()
        try:
            await server.serve(sockets=[sock])
        finally:
            sock.close()

    def notify_when_complete(
        self, session: ServerSession, flow_id: str, elicitation_id: str | None = None
    ) -> bool:
        """2025-11-25: tell the client when the flow behind a -32042 completes, so it can
        retry; ``elicitation_id`` is the one the error carried (default: the flow id).

        One shared watcher (:mod:`mcp_elicit.server.completions`) serves every such flow,
        started in :meth:`running`'s task group on first use. Nothing is sent for a flow
        that is declined or expires (see that module for why). ``False`` when no notice
        will be sent: not running, or already watching as many flows as it may (logged)."""
        if self._tasks is None:
            logger.warning(
                "flow %s: no completion notice will be sent (Elicitation is not running)",
                flow_id,
            )
            return False
        if self._completions is None:
            self._completions = CompletionWatcher(self.flows)
            self._tasks.start_soon(self._completions.run, name=COMPLETION_TASK)
        return self._completions.watch(flow_id, session, elicitation_id or flow_id)

    # -- requestState --------------------------------------------------------------------------

    def _seal_state_with_deployment_key(self, ttl: float) -> None:
        """SDK: ``MCPServer`` seals ``requestState`` under a key made at start-up, so every
        pending 2026-07-28 question is lost on restart. Replace its boundary with one under
        the deployment key, in the same place in the chain (outside our middleware)."""
        security = RequestStateSecurity(
            keys=[self.key.derive("request-state")],
            ttl=ttl,
            bind_principal=self.bind_principal,
        )
        chain = self.server.middleware
        for index, layer in enumerate(chain):
            if isinstance(layer, RequestStateBoundary):
                chain[index] = RequestStateBoundary(security, default_audience=self.server.name)
                return
        raise RuntimeError(
            "this MCPServer has no RequestStateBoundary: requestState would not be sealed"
        )

    def bind_principal(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """The user a ``requestState`` is bound to (the identity's, when it has one)."""
        return self.identity.user_of_request(ctx)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def default_store_url() -> str:
    """``sqlite:///`` in the user's state directory (``$XDG_STATE_HOME/mcp-elicit``)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return f"sqlite:///{Path(base) / 'mcp-elicit' / 'flows.db'}"
