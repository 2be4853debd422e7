"""The gateway's face to the downstream client: an SDK ``Server`` that forwards.

What the upstream serves (tools, prompts, resources, completions) is served here by
forwarding, raw: results go back as they came, errors with their data. The requests that may
ask go through :mod:`.calls`. The SDK's server runs the downstream side: the handshake or
``server/discover`` for whichever revision the client speaks, and, when the gateway holds
push-era calls for 2026-07-28 clients, the ``RequestStateBoundary`` that seals the gateway's
``requestState`` (its records: :mod:`.state`), bound to the method, the tool and its
arguments, the user, and the hold limit. When the upstream itself speaks 2026-07-28, its
``requestState`` is passed through untouched and not sealed again.

The caps and limits (:mod:`.limits`) are one :class:`~.limits.Limits`, shared by the held
calls, the upstream sessions and the bridge. Streamable HTTP may require a bearer token
(:mod:`.tokens`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.caching import CACHEABLE_METHODS, CacheableMethod, CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp_elicit.client.connection import DEFAULT_INPUT_TIME_LIMIT
from mcp_elicit.client.handler import ElicitationHandler
from mcp_elicit.gateway.asking_here import AskingHere
from mcp_elicit.gateway.bridge import Bridge, Safeguards
from mcp_elicit.gateway.calls import Calls
from mcp_elicit.gateway.context import client_of, downstream_peer, forwarded, owner_of
from mcp_elicit.gateway.held import DEFAULT_HOLD_LIMIT, HeldCalls
from mcp_elicit.gateway.instances import HeldCallRouter, Instance
from mcp_elicit.gateway.limits import Limits
from mcp_elicit.gateway.links import Links
from mcp_elicit.gateway.push_to_rounds import LINK_WAIT
from mcp_elicit.gateway.tokens import BearerTokens
from mcp_elicit.gateway.upstream import Upstream
from mcp_elicit.protocol.codes import ELICITATION_TRACK
from mcp_elicit.protocol.models import TrackParams
from mcp_elicit.protocol.mrtr import ASKING_METHODS

Handler = Callable[[ServerRequestContext[Any, Any], Any], Awaitable[dict[str, Any]]]

# The methods forwarded as they are, by the capability that serves them, with their params.
_PLAIN: dict[str, tuple[tuple[str, type[Any]], ...]] = {
    "tools": (("tools/list", types.PaginatedRequestParams),),
    "prompts": (("prompts/list", types.PaginatedRequestParams),),
    "resources": (
        ("resources/list", types.PaginatedRequestParams),
        ("resources/templates/list", types.PaginatedRequestParams),
    ),
    "completions": (("completion/complete", types.CompleteRequestParams),),
}
_ASKING: dict[str, tuple[str, type[Any]]] = {
    "tools": ("tools/call", types.CallToolRequestParams),
    "prompts": ("prompts/get", types.GetPromptRequestParams),
    "resources": ("resources/read", types.ReadResourceRequestParams),
}


class Gateway:
    """A gateway in front of one upstream server (see docs/gateway.md)::

        async with Gateway("https://tools.example.com/mcp") as gateway:
            await gateway.serve_stdio()        # or: gateway.http_app(), served by uvicorn

    ``upstream``: an :class:`~mcp_elicit.gateway.Upstream`, or what it takes (a URL,
    ``StdioServerParameters``, an in-process server). ``safeguards``: what is checked and
    recorded on the way (:class:`~mcp_elicit.gateway.Safeguards`, every check on by
    default). ``upstream_protocol`` pins the upstream's revision (``"auto"``: the newest both
    speak). ``url_draft``: take a 2025-06-18 client that declares ``elicitation.url`` to speak
    the URL-mode draft (SEP-1036), and serve its ``elicitation/track``. ``hold_limit``: how
    long a held call waits for a 2026-07-28 client to come back. ``input_time_limit``: how
    long one call may keep asking a push-era client through a 2026-07-28 upstream.
    ``limits``: the caps on held calls and upstream sessions (in all and per client), when
    idle upstream sessions are closed, and the size and count of questions
    (:class:`~mcp_elicit.gateway.Limits`; it replaces a given ``Upstream``'s own).
    ``ask``: the gateway asks the person itself, through this handler (its renderer, policy,
    audit), whatever a client cannot be asked: elicitation is declared upstream even for a
    client that declared none, or no URL mode (:mod:`~mcp_elicit.gateway.asking_here`).
    ``ask_always``: every question goes to ``ask``'s person, none to the clients.
    ``instance``: this gateway is one of several behind a load balancer
    (:class:`~mcp_elicit.gateway.Instance`: where the others reach it, the key all share): a
    2026-07-28 retry is passed on to the instance holding its call (:mod:`.instances`).
    """

    def __init__(
        self,
        upstream: Upstream | Any,
        *,
        name: str | None = None,
        safeguards: Safeguards | None = None,
        upstream_protocol: str = "auto",
        headers: Mapping[str, str] | None = None,
        hold_limit: float = DEFAULT_HOLD_LIMIT,
        input_time_limit: float = DEFAULT_INPUT_TIME_LIMIT,
        link_wait: float = LINK_WAIT,
        url_draft: bool = False,
        limits: Limits | None = None,
        ask: ElicitationHandler | None = None,
        ask_always: bool = False,
        instance: Instance | None = None,
    ) -> None:
        if ask_always and ask is None:
            raise ValueError("ask_always needs a handler to ask with (ask=)")
        self.limits = limits or Limits()
        if isinstance(upstream, Upstream):
            if upstream_protocol != "auto" or headers:
                raise ValueError("give upstream_protocol and headers to the Upstream itself")
            self.upstream = upstream
            self.upstream.limits = self.limits
        else:
            self.upstream = Upstream(
                upstream, protocol=upstream_protocol, headers=headers, limits=self.limits
            )
        self.name = name
        self.bridge = Bridge(safeguards or Safeguards(), self.limits)
        self.held = HeldCalls(hold_limit, self.limits)
        self.links = Links()
        self.input_time_limit = input_time_limit
        self.link_wait = link_wait
        self.url_draft = url_draft
        self.ask = ask
        self.ask_always = ask_always
        self.instance = instance
        self._router: HeldCallRouter | None = None
        self._server: Server[Any] | None = None
        self._stack: AsyncExitStack | None = None

    async def __aenter__(self) -> Gateway:
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(self.upstream)
            tasks = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tasks.cancel_scope.cancel)
            self.upstream.on_complete = self._completed
            here = None
            if self.ask is not None:
                info = self.upstream.server_info
                here = AskingHere(
                    self.ask,
                    self.ask_always,
                    server=info.name if info else "server",
                    local=not isinstance(self.upstream.target, str),
                )
            calls = Calls.build(
                self.upstream,
                self.bridge,
                self.held,
                self.links,
                tasks,
                input_time_limit=self.input_time_limit,
                link_wait=self.link_wait,
                url_draft=self.url_draft,
                here=here,
            )
            self._server = self._build(calls)
            self._stack = stack.pop_all()
        return self

    async def _completed(self, elicitation_id: str) -> None:
        """The upstream said ``elicitation_id`` is complete: for the client the link went to,
        and for the gateway's own person when they are waiting on it (a required link)."""
        await self.links.complete(elicitation_id)
        if self.ask is not None:
            self.ask.completions.complete(elicitation_id)

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        router, self._router = self._router, None
        try:
            if stack is not None:
                await stack.__aexit__(*exc_info)
        finally:
            if router is not None:
                await router.aclose()

    @property
    def server(self) -> Server[Any]:
        """The SDK server that faces the downstream client (serve it with any SDK transport,
        or connect ``mcp.Client`` to it in-process)."""
        if self._server is None:
            raise RuntimeError("Gateway must be used within 'async with'")
        return self._server

    async def serve_stdio(self) -> None:
        """Serve one downstream client on this process's stdin and stdout."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    def http_app(self, *, tokens: BearerTokens | None = None, **options: Any) -> Any:
        """The Streamable HTTP ASGI app (the SDK's; ``options`` as ``streamable_http_app``
        takes them: ``host=`` for the allowed Host headers, ``stateless_http=``, ...).
        ``tokens``: serve only requests that send one of them as a bearer token
        (:class:`~mcp_elicit.gateway.tokens.BearerTokens`; 401 otherwise)."""
        app: Any = self.server.streamable_http_app(**options)
        if self.instance is not None:  # checked after the token: a stranger is never passed on
            if self._router is None:
                self._router = HeldCallRouter(app, self.instance)
            else:
                self._router.app = app
            app = self._router
        return app if tokens is None else tokens.guard(app)

    def _build(self, calls: Calls) -> Server[Any]:
        info = self.upstream.server_info
        name = self.name or f"{info.name if info else 'upstream'} (via mcp-elicit gateway)"
        server: Server[Any] = Server(
            name,
            version=info.version if info else "",
            instructions=self._instructions(),
            # 2026-07-28 list results carry freshness hints. A 2026-07-28 upstream's own pass
            # through (what a result sets wins); for a push-era one, the gateway cannot
            # promise more than "stale at once, this user's only".
            cache_hints={cast(CacheableMethod, m): CacheHint() for m in CACHEABLE_METHODS},
        )
        capabilities = self.upstream.capabilities
        offered = capabilities.model_dump(exclude_none=True) if capabilities is not None else {}
        for capability, methods in _PLAIN.items():
            if capability in offered:
                for method, params_type in methods:
                    server.add_request_handler(method, params_type, self._plain(method, calls))
        for capability, (method, params_type) in _ASKING.items():
            if capability in offered:
                server.add_request_handler(method, params_type, _asking(calls, method))
        if self.url_draft:
            server.add_request_handler(ELICITATION_TRACK, TrackParams, self._track)
        if not self.upstream.rounds:
            # The gateway's own requestState (held calls): sealed, bound, as long as a hold;
            # under the key all instances share, routed to the one minting it, when several.
            ttl = self.held.limit + 60.0
            security = (
                RequestStateSecurity.ephemeral(ttl=ttl)
                if self.instance is None
                else RequestStateSecurity(codec=self.instance.codec(), ttl=ttl)
            )
            server.middleware.append(RequestStateBoundary(security, default_audience=name))
        return server

    def _instructions(self) -> str | None:
        main = self.upstream.main.client
        result = getattr(main, "initialize_result", None)
        found = getattr(result, "instructions", None)
        return found if isinstance(found, str) else None

    def _plain(self, method: str, calls: Calls) -> Handler:
        async def forward(ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
            modes = calls.modes_for(downstream_peer(ctx, url_draft=self.url_draft))
            result = await self.upstream.request(
                method, forwarded(ctx.params), modes, owner=client_of(ctx)
            )
            return completed(result, ctx.protocol_version)

        return forward

    async def _track(
        self, ctx: ServerRequestContext[Any, Any], params: TrackParams
    ) -> dict[str, Any]:
        """The URL-mode draft's ``elicitation/track``, answered from what the gateway knows
        of the link (the upstream's completion notice, or its rounds)."""

        async def progress(step: int) -> None:
            await ctx.session.report_progress(step, None, "Waiting for the page to be finished")

        await self.links.track(params.elicitation_id, owner_of(ctx), progress)
        return {"status": "complete"}


def completed(result: dict[str, Any], version: str) -> dict[str, Any]:
    """A push-era server's final result as a 2026-07-28 client reads it (``resultType``
    required); the SDK's server drops a later revision's fields for an earlier client."""
    if version in MODERN_PROTOCOL_VERSIONS and "resultType" not in result:
        return {**result, "resultType": "complete"}
    return result


def _asking(calls: Calls, method: str) -> Handler:
    assert method in ASKING_METHODS

    async def call(ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
        return completed(await calls.call(ctx, method), ctx.protocol_version)

    return call
