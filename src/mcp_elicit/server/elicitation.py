"""``Elicitation``: what a server sets up once to ask on every revision and to run URL flows.

The wiring, and only that: the configuration, the :class:`~mcp_elicit.server.runtime.Runtime`
every request receives through its scope, the hosted pages built from it, and the arguments
that plug it into a server (``MCPServer(..., **elicitation.server_options())``, fastmcp's
``fastmcp_options()``). Plugging in is :mod:`~mcp_elicit.server.frameworks`'s (into a server
already built too: ``Elicitation(server)``); serving the server and its pages (uvicorn, stdio's
loopback pages) is :mod:`~mcp_elicit.server.serving`'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack

import anyio
from mcp.server.extension import Extension
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit.flows import DEFAULT_MAX_OPEN_FLOWS, Flows
from mcp_elicit.server import frameworks, logs, serving
from mcp_elicit.server.completions import DEFAULT_MAX_HELD, DEFAULT_URL_RESUME_WAIT
from mcp_elicit.server.identity import Identity, LocalIdentity
from mcp_elicit.server.instances import TaskNameCheck
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.link_rules import is_loopback_host
from mcp_elicit.server.links import PAGES_PREFIX
from mcp_elicit.server.pages import page_hosts
from mcp_elicit.server.pages.hosts import check_transport
from mcp_elicit.server.pages.languages import pages_language
from mcp_elicit.server.runtime import DEFAULT_FLOW_TTL, Runtime, Settings
from mcp_elicit.server.scope import current_scope
from mcp_elicit.server.tasks import TaskSettings
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import Store

if TYPE_CHECKING:
    from mcp_elicit.server.oauth.downstream import OAuthProvider

DEFAULT_STATE_TTL = 900.0


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
    for one server is never given to another, even when they share the key and the store.
    Default: the server's name and the path of the program's main module, which differ
    between servers and stay the same across restarts (``runtime.default_server_id`` says
    why, and when to set it).
    ``max_open_flows``: how many open (pending or opened) URL flows one user may have on
    this server (default 20; ``None``: no limit); past that, ``secret()`` and
    ``secret_required()`` fail with a tool error naming the limit.

    ``tasks``: run a ``tools/call`` as a task while :meth:`running`, kept in memory, or in
    the store when it is one the instances share (Redis, PostgreSQL: any instance then serves
    ``tasks/*``; docs/deploy.md); on ``MCPServer`` only. On 2025-11-25, a call that carries
    ``task`` (``tasks/*`` served, the questions its tool asks delivered through
    ``tasks/result`` and naming it); on 2026-07-28,
    a call whose request declares the extension ``io.modelcontextprotocol/tasks`` (the
    questions shown by ``tasks/get`` and answered by ``tasks/update``). ``True`` lets every
    tool run either way; a :class:`~mcp_elicit.server.tasks.TaskSettings` sets each tool's
    ``taskSupport`` (``forbidden``, ``optional``, ``required``), shown in ``tools/list`` on
    2025-11-25 and enforced on both. ``mcp_elicit.server.tasks`` has the rules.

    ``providers``: third parties a tool may get the user's token at with
    ``mcp_elicit.server.oauth.authorize`` (downstream OAuth, the ``oauth`` extra; each
    one's callback is ``<public_url>/elicit/oauth/callback/<its name>``).

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
        tasks: bool | TaskSettings = False,
        providers: Sequence[OAuthProvider] = (),
        language: str | None = None,
    ) -> None:
        settings = Settings(url_draft, url_resume_wait, max_held_retries, TaskSettings.of(tasks))
        self._language = pages_language(language)  # a tag with no catalog: refused now
        identity = identity if identity is not None else LocalIdentity()
        self.runtime = Runtime(
            key=key,
            store=store,
            identity=identity,
            settings=settings,
            flow_ttl=flow_ttl,
            server_id=server_id,
            # Read when the id is first needed: a server built with server_options() is
            # named once install() or run() gives it to us.
            server_name=lambda: self._server.name if self._server is not None else None,
            max_open_flows=max_open_flows,
            providers=providers,
        )
        # What the hosted pages were allowed once built (pages_app, mount, run): None before.
        # From then on a public_url set later is held to the same https rule.
        self._insecure_http: bool | None = None
        if public_url:
            self.public_url = public_url
        self.request_state_security = frameworks.request_state_security(
            lambda: self.runtime.key, ttl=request_state_ttl, principal=identity.user_of_request
        )
        self._server: frameworks.Framework | None = None
        if server is not None:
            self.install(server)

    @property
    def key(self) -> DeploymentKey:
        """The deployment key: the one given, else ``DeploymentKey.load()`` on first use."""
        return self.runtime.key

    # -- plugging into a server ---------------------------------------------------------------

    def server_options(
        self, *, middleware: Sequence[Any] = (), extensions: Sequence[Extension] = ()
    ) -> dict[str, Any]:
        """The ``MCPServer(...)`` arguments that install elicitation: ``request_state_security``,
        ``middleware`` (ours, then yours) and, with ``url_draft``, ``extensions``."""
        options: dict[str, Any] = {
            "request_state_security": self.request_state_security,
            "middleware": [frameworks.ElicitationMiddleware(self.runtime), *middleware],
        }
        if self.runtime.settings.url_draft or extensions:
            draft = self.runtime.settings.url_draft
            ours = [frameworks.UrlDraftTrack(self.runtime.completions)] if draft else []
            options["extensions"] = [*ours, *extensions]
        return options

    def fastmcp_options(self, *, middleware: Sequence[Any] = ()) -> dict[str, Any]:
        """The ``FastMCP(...)`` arguments that install elicitation: ``request_state_security``
        and ``middleware`` (ours, then yours). The URL-mode draft is not offered there
        (docs/fastmcp.md)."""
        frameworks.refuse_on_fastmcp(self.runtime.settings)
        return {
            "request_state_security": self.request_state_security,
            "middleware": [self.fastmcp_middleware, *middleware],
        }

    @property
    def fastmcp_middleware(self) -> Any:
        """The fastmcp ``Middleware`` that carries elicitation (``fastmcp_options`` uses it)."""
        return frameworks.fastmcp_middleware(self.runtime)

    def install(self, server: Any) -> None:
        """Serve elicitation on ``server``. A server built with :meth:`server_options` (or
        :meth:`fastmcp_options`) only needs to be named; one built without them gets the
        middleware and the sealing now (``mcp_elicit._sdk`` says why that is private)."""
        if self._server is not None:
            raise RuntimeError("this Elicitation is installed on a server already")
        framework = frameworks.framework_of(server)
        framework.adopt(self.runtime, self.request_state_security)
        self._server = framework

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
    def public_url(self) -> str | None:
        return self.runtime.public_url

    @public_url.setter
    def public_url(self, value: str | None) -> None:
        if value is not None:
            value = value.rstrip("/")
            # Checked where the mistake is made, not on each page request (the Host allow-list).
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

    def user_of(self, ctx: Any) -> str:
        """The authenticated user of a tool call; flows and secrets are bound to it."""
        return self.runtime.user_of(current_scope(ctx).request)

    def flow_url(self, flow_id: str) -> str:
        return self.runtime.flow_url(flow_id)

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

    def mount(
        self, app: Starlette, *, loopback_port: int | None = None, allow_insecure_http: bool = False
    ) -> None:
        """Serve the hosted pages under ``/elicit`` of ``app`` (the Streamable HTTP app).
        ``loopback_port``: the port ``app`` listens on when it is bound to loopback (see
        :meth:`pages_app`, which says what ``allow_insecure_http`` allows). With tasks on, the
        extension's ``Mcp-Name`` header is checked on ``app`` too."""
        pages = self.pages_app(loopback_port=loopback_port, allow_insecure_http=allow_insecure_http)
        app.router.routes.insert(0, Mount(PAGES_PREFIX, app=pages))
        if self.runtime.tasks is not None:
            # The tasks extension's Mcp-Name is checked before the server reads the request
            # (instances.TaskNameCheck says why).
            app.add_middleware(TaskNameCheck)

    def _check_transport(self, allow_insecure_http: bool, bind_host: str | None = None) -> None:
        check_transport(
            public_url=self.public_url, bind_host=bind_host, allow_insecure_http=allow_insecure_http
        )
        self._insecure_http = allow_insecure_http

    def _pages(self, loopback_port: int | None) -> Starlette:
        name = self._server.name if self._server is not None else "This server"
        return serving.pages_app(self.runtime, name, loopback_port, language=self._language)

    # -- running -----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(
        self, *, serve_pages_on_loopback: bool = False, close_store: bool = True
    ) -> AsyncIterator[None]:
        """Background work while the server runs: the runtime's (``Runtime.running``) and, for
        a stdio server, the hosted pages on a loopback port. The store is closed at the end
        unless ``close_store`` is false (a test that runs the same server again).

        A ``public_url`` of plain ``http://`` off loopback is refused here too (links to it
        would be sent), unless the pages were built with ``allow_insecure_http``."""
        check_transport(public_url=self.public_url, allow_insecure_http=bool(self._insecure_http))
        async with anyio.create_task_group() as tasks, self.runtime.running(tasks):
            if serve_pages_on_loopback:
                await tasks.start(serving.serve_loopback_pages, self.runtime, self._pages)
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
        if close_store:
            await self.store.aclose()

    def run(
        self,
        server: Any = None,
        transport: Literal["stdio", "streamable-http"] = "stdio",
        **options: Unpack[RunOptions],
    ) -> None:
        """Run the server with everything elicitation needs (blocking). ``server`` may be left
        out when it was given to the constructor (``run("streamable-http")`` then works
        too). ``host`` (default 127.0.0.1) and ``port`` (8000): where Streamable HTTP listens.

        Off loopback the hosted pages need https: ``host`` other than loopback needs an
        ``https://`` ``public_url`` (the proxy that terminates TLS), and a ``public_url`` of
        ``http://`` must name a loopback host; ``allow_insecure_http=True`` (or
        ``MCP_ELICIT_ALLOW_INSECURE_HTTP=1``) lifts that, for development only.

        ``uvicorn_options``: ``uvicorn.Config`` settings for ``"streamable-http"``, over
        ``serving.DEFAULT_UVICORN_OPTIONS`` (keep-alive 75 s, docs/deployment.md says why):
        ``timeout_keep_alive``, ``limit_concurrency``, ``backlog``,
        ``h11_max_incomplete_event_size``, ``ssl_certfile``, ... (not ``host``, ``port``,
        ``app``, ``lifespan``, ``workers`` or ``reload``, which are run's).

        ``instance`` (default: ``MCP_ELICIT_INSTANCE``): this instance's tag when several run
        behind a load balancer; 2025-era session ids then carry it, so that the balancer can
        send each session's requests to the instance that holds it
        (:mod:`mcp_elicit.server.instances`, docs/deploy.md)."""
        anyio.run(lambda: self.run_async(server, transport, **options))

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
        if self._server is None:
            raise RuntimeError("run(server): no server was given")
        # A server whose author configured no logging writes one line per record, not the
        # SDK's Rich records wrapped at 80 columns (mcp_elicit.server.logs).
        logs.take_over_sdk_default()
        options = serving.uvicorn_options_for(transport, uvicorn_options)
        if transport == "stdio":
            self._check_transport(allow_insecure_http)
            async with self.running(serve_pages_on_loopback=True):
                await self._server.run_stdio()
            return
        serving.refuse_one_user_off_loopback(self.runtime.identity, host)
        self._check_transport(allow_insecure_http, bind_host=host)
        app = self._server.http_app()
        if self.public_url is None:
            self.public_url = serving.served_origin(host, port, options)
        loopback_port = port if is_loopback_host(host) else None
        self.mount(app, loopback_port=loopback_port, allow_insecure_http=allow_insecure_http)
        # The signal that stops uvicorn ends the process only after the cleanup of running().
        with serving.signals_after_cleanup():
            async with self.running():
                await serving.serve_http(
                    app, host=host, port=port, options=options, instance=instance
                )


class RunOptions(TypedDict, total=False):
    """:meth:`Elicitation.run`'s keyword arguments (:meth:`Elicitation.run_async`'s)."""

    host: str
    port: int
    allow_insecure_http: bool
    uvicorn_options: Mapping[str, Any] | None
    instance: str | None
