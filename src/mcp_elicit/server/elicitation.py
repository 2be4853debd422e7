"""``Elicitation``: what a server sets up once to ask on every revision and to run URL flows.

The one place that knows the server frameworks, uvicorn and Starlette. It makes the
:class:`~mcp_elicit.server.runtime.Runtime` (flows, vault, identity, settings, completion
signalling) that every request receives through its scope, and plugs into the server through
the SDK's public constructor arguments::

    elicitation = Elicitation(key=..., store=...)
    server = MCPServer("booking", **elicitation.server_options())
    ...
    elicitation.run(server)                     # or "streamable-http"; serves the pages too

or fastmcp's (``FastMCP("booking", **elicitation.fastmcp_options())``). What it adds:

- the middleware that turns a pending 2026-07-28 question into an ``InputRequiredResult``,
  and ``UrlRequired`` into each revision's error or result;
- ``requestState`` sealed under the deployment key rather than the SDK's per-process key, so a
  question asked before a restart (or by another instance) is answered after it;
- the flows, the vault and the hosted pages behind ``secret()`` (on the store, SQLite by
  default), and the identity that binds a flow to its user;
- with ``url_draft=True``, the URL-mode draft's ``elicitation/track``;
- with ``tasks=True``, task-augmented ``tools/call`` on 2025-11-25 (``tasks``).

``Elicitation(server)`` still installs on a server already built; the SDK takes the sealing
and new methods at construction only, so that path goes through ``mcp_elicit._sdk``.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import socket
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol

import anyio
import anyio.abc
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.request_state import AESGCMRequestStateCodec, RequestStateSecurity
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit import _sdk
from mcp_elicit.flows import DEFAULT_MAX_OPEN_FLOWS, Flows
from mcp_elicit.protocol.codes import ELICITATION_TRACK
from mcp_elicit.protocol.models import TrackParams
from mcp_elicit.revisions import Revision
from mcp_elicit.server.completions import (
    COMPLETION_TASK,
    DEFAULT_MAX_HELD,
    DEFAULT_URL_RESUME_WAIT,
)
from mcp_elicit.server.identity import Identity, LocalIdentity
from mcp_elicit.server.instances import SessionTag
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.links import PAGES_PREFIX
from mcp_elicit.server.middleware import ElicitationMiddleware
from mcp_elicit.server.pages import hosted_pages, page_hosts
from mcp_elicit.server.pages.hosts import check_transport, is_loopback_host
from mcp_elicit.server.pages.languages import pages_language
from mcp_elicit.server.runtime import DEFAULT_FLOW_TTL, Runtime, Settings, default_store_url
from mcp_elicit.server.scope import current_scope
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import Store

if TYPE_CHECKING:
    from mcp_elicit.server.oauth.downstream import OAuthProvider

logger = logging.getLogger(__name__)

DEFAULT_STATE_TTL = 900.0
KEY_VARIABLE = "MCP_ELICIT_KEY"
URL_DRAFT_EXTENSION = "io.github.mcp-elicit/url-mode-draft"

__all__ = [
    "COMPLETION_TASK",
    "DEFAULT_FLOW_TTL",
    "DEFAULT_STATE_TTL",
    "DEFAULT_UVICORN_OPTIONS",
    "Elicitation",
    "default_store_url",
]


class Elicitation:
    """Elicitation for one server. ``server``: install on this server, already built (an
    ``MCPServer`` or a fastmcp ``FastMCP``); or leave it out, build the server with
    :meth:`server_options` / :meth:`fastmcp_options`, and pass it to :meth:`run`.

    ``key``: the deployment key (default ``DeploymentKey.load()``: ``MCP_ELICIT_KEY`` or a key
    file). ``store``: a store or its URL (default: SQLite in the user's state directory).
    ``identity``: who the user is (default :class:`LocalIdentity`, single-user).
    ``public_url``: the origin the hosted pages are reached at (set by ``run`` when omitted).
    ``request_state_ttl``: how long a 2026-07-28 question waits for its answer (seconds).
    ``flow_ttl``: how long a URL flow stays open. ``url_draft``: also speak the URL-mode
    draft (SEP-1036) to 2025-06-18 clients that declare URL mode. ``url_resume_wait``:
    on 2026-07-28, how long the retry that follows "I opened the link" is held while the
    person is still on the page (seconds, default 20) before the link is asked for again.
    ``max_held_retries``: how many such retries are held at once (default 1000); past that
    one gets the link again at once.

    ``server_id``: who this server is, for the flows and secrets bound to it: a secret typed
    for one server is never given to another, and a flow one server started is not answered
    on another's pages, even when they share the key and the store (as two servers run by
    one OS user do, on the defaults). Default: the server's name and the path of the
    program's main module (``runtime.default_server_id`` says why), which differ between
    servers and stay the same across restarts. Set it when several instances of one server
    run the program from different paths, or to keep stored secrets through a rename.
    ``max_open_flows``: how many open (pending or opened) URL flows one user may have on
    this server (default 20; ``None``: no limit); past that, ``secret()`` and
    ``secret_required()`` fail with a tool error naming the limit.

    ``tasks``: on 2025-11-25, run a ``tools/call`` that carries ``task`` as a task (the
    ``tasks`` capability is declared, ``tasks/get``, ``tasks/result``, ``tasks/list`` and
    ``tasks/cancel`` are served; the questions its tool asks name the task). In memory, while
    :meth:`running`; on ``MCPServer`` only. ``mcp_elicit.server.tasks`` has the rules.

    ``providers``: third parties a tool may get the user's token at with
    ``mcp_elicit.server.oauth.authorize`` (downstream OAuth, the ``oauth`` extra; their
    callback is ``<public_url>/elicit/oauth/callback``).

    ``language``: the hosted pages' language (``"zh-Hans"``) for a browser that asks for
    none they have, or for English; ``None``: the process's (``mcp_elicit.i18n``). A browser
    that asks for another language with a catalog gets that (``pages/languages.py``).
    """

    def __init__(
        self,
        server: Any = None,
        *,
        key: DeploymentKey | None = None,
        store: Store | str | None = None,
        identity: Identity | None = None,
        public_url: str | None = None,
        request_state_ttl: float = DEFAULT_STATE_TTL,
        flow_ttl: float = DEFAULT_FLOW_TTL,
        url_draft: bool = False,
        url_resume_wait: float = DEFAULT_URL_RESUME_WAIT,
        max_held_retries: int = DEFAULT_MAX_HELD,
        server_id: str | None = None,
        max_open_flows: int | None = DEFAULT_MAX_OPEN_FLOWS,
        tasks: bool = False,
        providers: Sequence[OAuthProvider] = (),
        language: str | None = None,
    ) -> None:
        if url_resume_wait < 0:
            raise ValueError(f"url_resume_wait must be 0 or more seconds, not {url_resume_wait}")
        self._language = pages_language(language)  # a tag with no catalog: refused now
        if max_held_retries < 0:
            raise ValueError(f"max_held_retries must be 0 or more, not {max_held_retries}")
        # The key file is read (or made) when the key is first needed, not here: importing a
        # server module must not write to the person's state directory. A key in the
        # environment costs no I/O, so a bad one is still refused at once.
        if key is None and KEY_VARIABLE in os.environ:
            key = DeploymentKey.load(env=KEY_VARIABLE)
        self._key = key
        self.runtime = Runtime(
            key=lambda: self.key,
            store=store,
            identity=identity if identity is not None else LocalIdentity(),
            settings=Settings(
                url_draft=url_draft,
                url_resume_wait=url_resume_wait,
                max_held_retries=max_held_retries,
                tasks=tasks,
            ),
            flow_ttl=flow_ttl,
            server_id=server_id,
            # Read when the id is first needed: a server built with server_options() is
            # named once install() or run() gives it to us.
            server_name=lambda: (
                getattr(self._server.server, "name", None) if self._server is not None else None
            ),
            max_open_flows=max_open_flows,
        )
        names = [p.name for p in providers]
        if len(set(names)) != len(names):
            raise ValueError(f"two OAuth providers share a name: {sorted(names)}")
        self.runtime.providers = {p.name: p for p in providers}
        # What the hosted pages were allowed once built (pages_app, mount, run): None before.
        # From then on a public_url set later is held to the same https rule.
        self._insecure_http: bool | None = None
        if public_url:
            self.public_url = public_url
        self.request_state_security = RequestStateSecurity(
            codec=_LazyCodec(lambda: self.key.derive_all("request-state")),
            ttl=request_state_ttl,
            bind_principal=self.bind_principal,
        )
        self._server: _Served | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        if server is not None:
            self.install(server)

    @property
    def key(self) -> DeploymentKey:
        """The deployment key: the one given, else ``DeploymentKey.load()`` on first use."""
        if self._key is None:
            self._key = DeploymentKey.load(env=KEY_VARIABLE)
        return self._key

    # -- plugging into a server ---------------------------------------------------------------

    def server_options(
        self,
        *,
        middleware: Sequence[Any] = (),
        extensions: Sequence[Extension] = (),
    ) -> dict[str, Any]:
        """The ``MCPServer(...)`` arguments that install elicitation: ``request_state_security``,
        ``middleware`` (ours, then yours) and, with ``url_draft``, ``extensions``."""
        options: dict[str, Any] = {
            "request_state_security": self.request_state_security,
            "middleware": [ElicitationMiddleware(self.runtime), *middleware],
        }
        if self.settings.url_draft or extensions:
            ours = [_UrlDraftTrack(self)] if self.settings.url_draft else []
            options["extensions"] = [*ours, *extensions]
        return options

    def fastmcp_options(self, *, middleware: Sequence[Any] = ()) -> dict[str, Any]:
        """The ``FastMCP(...)`` arguments that install elicitation: ``request_state_security``
        and ``middleware`` (ours, then yours). The URL-mode draft is not offered there
        (docs/fastmcp.md)."""
        _refuse_on_fastmcp(self.settings)
        return {
            "request_state_security": self.request_state_security,
            "middleware": [self.fastmcp_middleware, *middleware],
        }

    @property
    def fastmcp_middleware(self) -> Any:
        """The fastmcp ``Middleware`` that carries elicitation (``fastmcp_options`` uses it)."""
        try:
            from mcp_elicit.server.fastmcp import FastMCPElicitation
        except ModuleNotFoundError as missing:
            if (missing.name or "").split(".")[0] != "fastmcp":
                raise
            raise ModuleNotFoundError(
                "fastmcp is not installed: pip install 'mcp-elicit[fastmcp]'", name="fastmcp"
            ) from None
        return FastMCPElicitation(self.runtime)

    def install(self, server: Any) -> None:
        """Serve elicitation on ``server``. A server built with :meth:`server_options` (or
        :meth:`fastmcp_options`) only needs to be named; one built without them gets the
        middleware and the sealing now (``mcp_elicit._sdk`` says why that is private)."""
        if self._server is not None:
            raise RuntimeError("this Elicitation is installed on a server already")
        served = _served(server)
        if not isinstance(served, _SdkServer):
            _refuse_on_fastmcp(self.settings, url_draft=False)
        served.adopt(self.runtime, self.request_state_security)
        self._server = served

    @property
    def installed(self) -> bool:
        """Whether a server was given (to the constructor, :meth:`install` or :meth:`run`)."""
        return self._server is not None

    @property
    def server(self) -> Any:
        if self._server is None:
            raise RuntimeError("no server yet: Elicitation(server), install(server) or run(server)")
        return self._server.server

    # -- what the runtime holds, for the author ----------------------------------------------

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def identity(self) -> Identity:
        return self.runtime.identity

    @property
    def public_url(self) -> str | None:
        return self.runtime.public_url

    @public_url.setter
    def public_url(self, value: str | None) -> None:
        if value is not None:
            value = value.rstrip("/")
            # Checked here, where the mistake is made, rather than on every page request
            # (the pages' Host allow-list is read from it).
            page_hosts(public_url=value, loopback_port=None)
            if self._insecure_http is not None:
                check_transport(public_url=value, allow_insecure_http=self._insecure_http)
        self.runtime.public_url = value

    @property
    def store(self) -> Store:
        return self.runtime.store

    @property
    def flows(self) -> Flows:
        return self.runtime.flows

    @property
    def vault(self) -> Vault:
        return self.runtime.vault

    def user_of(self, ctx: Context[Any, Any] | Any) -> str:
        """The authenticated user of a tool call; flows and secrets are bound to it."""
        return self.runtime.user_of(current_scope(ctx).request)

    def flow_url(self, flow_id: str) -> str:
        return self.runtime.flow_url(flow_id)

    def bind_principal(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """The user a ``requestState`` is bound to (the identity's, when it has one)."""
        return self.runtime.identity.user_of_request(ctx)

    def notify_when_complete(
        self, session: Any, flow_id: str, elicitation_id: str | None = None
    ) -> bool:
        """2025-11-25: tell the client (``session``) when the flow behind a -32042 completes.
        ``False`` when no notice will be sent (not running, or the watcher is full)."""
        return self.runtime.completions.after_required(
            Revision.V2025_11_25,
            flow_id,
            session=session,
            elicitation_id=elicitation_id or flow_id,
        )

    # -- the hosted pages --------------------------------------------------------------------

    def pages_app(
        self, *, loopback_port: int | None = None, allow_insecure_http: bool = False
    ) -> Starlette:
        """The hosted pages, answering only requests whose ``Host`` names this server:
        ``public_url``'s host (read on each request, so it may be set after this call) and,
        with ``loopback_port``, ``127.0.0.1``, ``localhost`` and ``[::1]`` on that port.
        Any other ``Host`` gets 400: see ``pages/hosts.py`` for why.

        A ``public_url`` already set must be https unless its host is loopback (``ValueError``
        otherwise, now or when it is set later); ``allow_insecure_http`` allows plain http,
        for development only."""
        self._check_transport(allow_insecure_http)
        return self._pages(loopback_port)

    def _check_transport(self, allow_insecure_http: bool, bind_host: str | None = None) -> None:
        check_transport(
            public_url=self.public_url,
            bind_host=bind_host,
            allow_insecure_http=allow_insecure_http,
        )
        self._insecure_http = allow_insecure_http

    def _pages(self, loopback_port: int | None) -> Starlette:
        pages_key = self.key.derive_all("csrf")  # newest first: a rotation opens the old
        server_name = self._server.name if self._server is not None else "This server"
        connector = None
        if self.runtime.providers:
            # Only a server with providers needs the oauth extra.
            from mcp_elicit.server.oauth.connect import Connector

            connector = Connector(
                providers=self.runtime.providers,
                flows=self.flows,
                vault=self.vault,
                identity=self.identity,
                key=pages_key,
                server_name=server_name,
            )
        return hosted_pages(
            flows=self.flows,
            vault=self.vault,
            identity=self.identity,
            csrf_key=pages_key,
            server_name=server_name,
            allowed_hosts=lambda: page_hosts(
                public_url=self.public_url, loopback_port=loopback_port
            ),
            connect=connector.connect if connector is not None else None,
            extra_routes=connector.routes() if connector is not None else (),
            language=self._language,
        )

    def mount(
        self,
        app: Starlette,
        *,
        loopback_port: int | None = None,
        allow_insecure_http: bool = False,
    ) -> None:
        """Serve the hosted pages under ``/elicit`` of ``app`` (the Streamable HTTP app).
        ``loopback_port``: the port ``app`` listens on when it is bound to loopback (see
        :meth:`pages_app`, which says what ``allow_insecure_http`` allows)."""
        pages = self.pages_app(loopback_port=loopback_port, allow_insecure_http=allow_insecure_http)
        app.router.routes.insert(0, Mount(PAGES_PREFIX, app=pages))

    # -- running -----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(
        self, *, serve_pages_on_loopback: bool = False, close_store: bool = True
    ) -> AsyncIterator[None]:
        """Background work while the server runs: the flow sweeper, the feed of flows other
        instances finished (Redis, PostgreSQL), completion notices (one
        watcher task, started on the first -32042), and (for a stdio server) the hosted
        pages on a loopback port. The store is closed at the end unless ``close_store`` is
        false (a test that runs the same server again).

        A ``public_url`` of plain ``http://`` off loopback is refused here too (links to it
        would be sent), unless the pages were built with ``allow_insecure_http``."""
        check_transport(public_url=self.public_url, allow_insecure_http=bool(self._insecure_http))
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self.flows.run_sweeper)
            # Other instances' finished flows, at once (an engine with a feed; else nothing).
            tasks.start_soon(self.flows.run_feed)
            async with (
                self.runtime.completions.running(tasks),
                self._tasks_running(tasks),
            ):
                if serve_pages_on_loopback:
                    await tasks.start(self._serve_loopback)
                try:
                    yield
                finally:
                    tasks.cancel_scope.cancel()
        if close_store:
            await self.store.aclose()

    def _tasks_running(
        self, group: anyio.abc.TaskGroup
    ) -> contextlib.AbstractAsyncContextManager[None]:
        tasks = self.runtime.tasks
        return tasks.running(group) if tasks is not None else contextlib.nullcontext()

    def run(
        self,
        server: Any = None,
        transport: Literal["stdio", "streamable-http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        allow_insecure_http: bool = False,
        uvicorn_options: Mapping[str, Any] | None = None,
        instance: str | None = None,
    ) -> None:
        """Run the server with everything elicitation needs (blocking). ``server`` may be left
        out when it was given to the constructor (``run("streamable-http")`` then works
        too).

        Off loopback the hosted pages need https: ``host`` other than loopback needs an
        ``https://`` ``public_url`` (the proxy that terminates TLS), and a ``public_url`` of
        ``http://`` must name a loopback host; ``allow_insecure_http=True`` (or
        ``MCP_ELICIT_ALLOW_INSECURE_HTTP=1``) lifts that, for development only.

        ``uvicorn_options``: ``uvicorn.Config`` settings for ``"streamable-http"``, over
        :data:`DEFAULT_UVICORN_OPTIONS` (keep-alive 75 s, docs/deployment.md says why):
        ``timeout_keep_alive``, ``limit_concurrency``, ``backlog``,
        ``h11_max_incomplete_event_size``, ``ssl_certfile``, ... (not ``host``, ``port``,
        ``app``, ``lifespan``, ``workers`` or ``reload``, which are run's).

        ``instance`` (default: ``MCP_ELICIT_INSTANCE``): this instance's tag when several run
        behind a load balancer; 2025-era session ids then carry it, so that the balancer can
        send each session's requests to the instance that holds it
        (:mod:`mcp_elicit.server.instances`, docs/deploy.md)."""
        anyio.run(
            lambda: self.run_async(
                server,
                transport,
                host=host,
                port=port,
                allow_insecure_http=allow_insecure_http,
                uvicorn_options=uvicorn_options,
                instance=instance,
            )
        )

    async def run_async(
        self,
        server: Any = None,
        transport: Literal["stdio", "streamable-http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        allow_insecure_http: bool = False,
        uvicorn_options: Mapping[str, Any] | None = None,
        instance: str | None = None,
    ) -> None:
        """:meth:`run`, in a running event loop."""
        if isinstance(server, str):  # run("streamable-http") on the installed server
            server, transport = None, server
        if server is not None and (self._server is None or self._server.server is not server):
            self.install(server)
        served = self._server
        if served is None:
            raise RuntimeError("run(server): no server was given")
        if transport == "stdio":
            if uvicorn_options:
                raise ValueError(
                    "uvicorn_options are for run(..., 'streamable-http'); a stdio server's "
                    "pages on 127.0.0.1 serve one person and take none"
                )
            self._check_transport(allow_insecure_http)
            async with self.running(serve_pages_on_loopback=True):
                await served.run_stdio()
            return
        options = uvicorn_config_options(uvicorn_options)
        if isinstance(self.identity, LocalIdentity) and not is_loopback_host(host):
            raise ValueError(
                f"LocalIdentity is single-user: serving it on {host!r} would make every "
                "caller and every browser the same user. Bind to 127.0.0.1, or pass an "
                "identity that tells users apart (AccessTokenIdentity)"
            )
        self._check_transport(allow_insecure_http, bind_host=host)
        app = served.http_app()
        if self.public_url is None:
            scheme = "https" if options.get("ssl_certfile") else "http"
            self.public_url = f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"
        loopback_port = port if is_loopback_host(host) else None
        self.mount(app, loopback_port=loopback_port, allow_insecure_http=allow_insecure_http)
        tag = instance or os.environ.get("MCP_ELICIT_INSTANCE") or None
        served_app: Any = SessionTag(app, tag) if tag else app
        config = uvicorn.Config(served_app, host=host, port=port, **options)
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
        ours = self.public_url is None
        if ours:
            self.public_url = f"http://127.0.0.1:{port}"
        # Not pages_app(): whoever started this checked public_url (run_async does).
        app = Starlette(routes=[Mount(PAGES_PREFIX, app=self._pages(port))])
        config = uvicorn.Config(
            app, log_config=None, log_level="warning", access_log=False, lifespan="off"
        )
        web = uvicorn.Server(config)
        task_status.started()
        try:
            await web.serve(sockets=[sock])
        finally:
            # Cancelled (the usual end), uvicorn skips its shutdown: stop its listeners here,
            # or the event loop keeps watching the closed socket's descriptor, and the next
            # socket to get that number (the next session's pages) is never served.
            for listener in getattr(web, "servers", ()):
                listener.close()
            sock.close()
            if ours:
                # The port dies with this run; the next run (a test's next session) serves the
                # pages on a port of its own and must send links there.
                self.public_url = None


# -- the server frameworks -----------------------------------------------------------------------


class _Served(Protocol):
    """A server framework, as the wiring drives it (httpx's transports are the model)."""

    server: Any

    @property
    def name(self) -> str: ...

    def adopt(self, runtime: Runtime, security: RequestStateSecurity) -> None: ...

    async def run_stdio(self) -> None: ...

    def http_app(self) -> Starlette: ...


class _SdkServer:
    def __init__(self, server: MCPServer[Any]) -> None:
        self.server = server

    @property
    def name(self) -> str:
        return self.server.name or "This server"

    def adopt(self, runtime: Runtime, security: RequestStateSecurity) -> None:
        ours = [m for m in self.server.middleware if isinstance(m, ElicitationMiddleware)]
        if any(m.runtime is runtime for m in ours):
            return  # built with server_options()
        if ours:
            raise RuntimeError("Elicitation is already installed on this server")
        self.server.middleware.append(ElicitationMiddleware(runtime))
        _sdk.replace_request_state_security(self.server, security)
        if runtime.settings.url_draft:
            track = runtime.completions.track
            _sdk.add_request_handler(self.server, ELICITATION_TRACK, TrackParams, track)

    async def run_stdio(self) -> None:
        await self.server.run_stdio_async()

    def http_app(self) -> Starlette:
        return self.server.streamable_http_app()


def _refuse_on_fastmcp(settings: Settings, *, url_draft: bool = True) -> None:
    if url_draft and settings.url_draft:
        raise ValueError(
            "the URL-mode draft (url_draft=True) is not offered on fastmcp servers "
            "(docs/fastmcp.md)"
        )
    if settings.tasks:
        raise ValueError("tasks (tasks=True) are offered on MCPServer only, not on fastmcp")


def _served(server: Any) -> _Served:
    if isinstance(server, MCPServer):
        return _SdkServer(server)
    if type(server).__module__.split(".")[0] == "fastmcp":
        from mcp_elicit.server.fastmcp import FastMCPServer

        return FastMCPServer(server)
    raise TypeError(
        f"Elicitation serves an MCPServer (mcp.server.mcpserver) or a fastmcp FastMCP, "
        f"not {type(server).__name__}"
    )


class _UrlDraftTrack(Extension):
    """``elicitation/track`` for the URL-mode draft, served through the SDK's public
    extension seam; advertised under ``capabilities.extensions`` by that name."""

    identifier = URL_DRAFT_EXTENSION

    def __init__(self, elicitation: Elicitation) -> None:
        self._completions = elicitation.runtime.completions

    def methods(self) -> Sequence[MethodBinding]:
        return [MethodBinding(ELICITATION_TRACK, TrackParams, self._completions.track)]


class _LazyCodec:
    """The SDK's AES-GCM codec for ``requestState``, made with the key when the first state is
    sealed or opened (a ``RequestStateCodec``, the SDK's public seam for the crypto)."""

    def __init__(self, key: Callable[[], list[bytes]]) -> None:
        self._key = key
        self._codec: AESGCMRequestStateCodec | None = None

    def _made(self) -> AESGCMRequestStateCodec:
        if self._codec is None:
            self._codec = AESGCMRequestStateCodec(self._key())  # newest first
        return self._codec

    def seal(self, payload: bytes) -> str:
        return self._made().seal(payload)

    def unseal(self, token: str) -> bytes:
        return self._made().unseal(token)


# -- uvicorn -------------------------------------------------------------------------------------

DEFAULT_UVICORN_OPTIONS: Mapping[str, Any] = MappingProxyType(
    {
        # uvicorn's own default is 5 s, the same as the idle pool of httpx (and so of the SDK's
        # client): a client may reuse a connection just as the server closes it, and the call
        # fails with a reset. The side that closes an idle connection must be the client, so
        # the server waits longer than common clients' and proxies' pools (httpx 5 s; nginx's
        # upstream keepalive_timeout and cloud load balancers 60 s): docs/deployment.md.
        "timeout_keep_alive": 75,
        "log_level": "warning",
    }
)
"""What :meth:`Elicitation.run` gives ``uvicorn.Config`` unless ``uvicorn_options`` says
otherwise."""

_SET_BY_RUN = frozenset(
    {
        "app",
        "host",
        "port",
        "uds",
        "fd",
        "lifespan",
        "factory",
        "workers",
        "reload",
        "reload_dirs",
        "reload_delay",
        "reload_includes",
        "reload_excludes",
    }
)


def uvicorn_config_options(given: Mapping[str, Any] | None) -> dict[str, Any]:
    """``given`` over :data:`DEFAULT_UVICORN_OPTIONS`, checked against ``uvicorn.Config``:
    a misspelt or an unusable option is a ``ValueError`` naming it, not a silent default."""
    options = dict(DEFAULT_UVICORN_OPTIONS)
    known = inspect.signature(uvicorn.Config).parameters
    for name, value in (given or {}).items():
        if name in _SET_BY_RUN:
            raise ValueError(
                f"uvicorn_options: {name!r} is not an option here: run() sets it (host and "
                f"port are run's own arguments; workers and reload need uvicorn's command "
                f"line, and the Streamable HTTP app needs its lifespan)"
            )
        if name not in known:
            raise ValueError(
                f"uvicorn_options: uvicorn.Config has no option {name!r} (uvicorn "
                f"{uvicorn.__version__})"
            )
        options[name] = value
    return options
