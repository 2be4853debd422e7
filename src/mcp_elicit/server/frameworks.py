"""Plugging elicitation into a server framework: the SDK's ``MCPServer`` and fastmcp's
``FastMCP``, each through its own public seams.

- Around every request, a middleware runs
  :func:`~mcp_elicit.server.handling.handle_request` and puts its outcome in the framework's
  shape: :class:`ElicitationMiddleware`, an SDK ``ServerMiddleware`` (inside the SDK's
  ``RequestStateBoundary``, which seals the ``requestState`` we return and unseals the one the
  client echoes before we see it), and :func:`fastmcp_middleware`, a fastmcp ``Middleware``
  (``on_call_tool``: fastmcp ends a 2026-07-28 call with ``InputRequiredToolResult``).
- How ``Elicitation`` installs on a server and runs it: a :class:`Framework`
  (:class:`SdkServer`, :class:`FastMCPServer`), chosen by :func:`framework_of`.
- ``requestState`` sealed under the deployment key (:func:`request_state_security`), a
  constructor argument of both frameworks.
- The URL-mode draft's ``elicitation/track`` (:class:`UrlDraftTrack`, an SDK ``Extension``)
  and, with ``tasks=True``, 2025-11-25 tasks: ``MCPServer`` only.

What fastmcp's public API cannot carry is refused in one place, :func:`refuse_on_fastmcp`
(docs/fastmcp.md). fastmcp is an optional extra (``mcp-elicit[fastmcp]``): nothing here
imports it before a fastmcp middleware is made, so importing ``mcp_elicit.server`` never does.
One private name is read for it (through ``mcp_elicit._sdk``): the SDK request context fastmcp
wraps, for the client's revision and capabilities and for the identity.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.server.request_state import AESGCMRequestStateCodec, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp_elicit import _sdk
from mcp_elicit._extras import needs_extra
from mcp_elicit.protocol.codes import ELICITATION_TRACK, INVALID_REQUEST
from mcp_elicit.protocol.models import TrackParams
from mcp_elicit.server.completions import Completions
from mcp_elicit.server.handling import Finished, InputRequested, ToolFailed, handle_request
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.runtime import Runtime, Settings
from mcp_elicit.server.tasks import (
    EXTENSION_METHODS,
    EXTENSION_VERSION,
    REMOVED_METHODS,
    TASK_METHODS,
    TASKS_VERSION,
    TaskRun,
    Tasks,
)
from mcp_elicit.server.url_mode import UrlRequired

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from fastmcp.server.middleware import Middleware
    from starlette.applications import Starlette

URL_DRAFT_EXTENSION = "io.github.mcp-elicit/url-mode-draft"


class Framework(Protocol):
    """A server framework, as the wiring drives it (httpx's transports are the model)."""

    server: Any

    @property
    def name(self) -> str: ...

    def adopt(self, runtime: Runtime, security: RequestStateSecurity) -> None:
        """Serve elicitation on a server built without our constructor arguments (a server
        built with them only needs to be named)."""
        ...

    async def run_stdio(self) -> None: ...

    def http_app(self) -> Starlette: ...


def framework_of(server: Any) -> Framework:
    if isinstance(server, MCPServer):
        return SdkServer(server)
    if type(server).__module__.split(".")[0] == "fastmcp":
        return FastMCPServer(server)
    raise TypeError(
        f"Elicitation serves an MCPServer (mcp.server.mcpserver) or a fastmcp FastMCP, "
        f"not {type(server).__name__}"
    )


def refuse_on_fastmcp(settings: Settings) -> None:
    """What fastmcp cannot carry: the URL-mode draft needs a new request method, which
    fastmcp has no public way to add, and tasks are ``MCPServer``'s (docs/fastmcp.md)."""
    if settings.url_draft:
        raise ValueError(
            "the URL-mode draft (url_draft=True) is not offered on fastmcp servers "
            "(docs/fastmcp.md)"
        )
    if settings.tasks is not None:
        raise ValueError("tasks (tasks=True) are offered on MCPServer only, not on fastmcp")


def request_state_security(
    key: Callable[[], DeploymentKey],
    *,
    ttl: float,
    principal: Callable[[ServerRequestContext[Any, Any]], str | None],
) -> RequestStateSecurity:
    """``requestState`` sealed under the deployment key rather than the SDK's per-process key,
    so that a question asked before a restart (or by another instance) is answered after it;
    bound to the user (``principal``). The key is read when the first state is sealed."""
    return RequestStateSecurity(
        codec=_LazyCodec(lambda: key().derive_all("request-state")),
        ttl=ttl,
        bind_principal=principal,
    )


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


# -- the SDK's MCPServer -------------------------------------------------------------------------


class SdkServer:
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
        # The SDK takes these at construction only (mcp_elicit._sdk says why).
        _sdk.replace_request_state_security(self.server, security)
        if runtime.settings.url_draft:
            track = runtime.completions.track
            _sdk.add_request_handler(self.server, ELICITATION_TRACK, TrackParams, track)

    async def run_stdio(self) -> None:
        await self.server.run_stdio_async()

    def http_app(self) -> Starlette:
        return self.server.streamable_http_app()


class ElicitationMiddleware:
    """:func:`~mcp_elicit.server.handling.handle_request` as a ``ServerMiddleware`` of an
    ``MCPServer``.

    A short-circuited result is ours to shape for the wire (the SDK serializes only what the
    handler returns): on 2026-07-28 every result carries ``resultType``."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.request_id is None:  # a notification: nothing is asked through it
            return await call_next(ctx)
        tasks = self.runtime.tasks
        if tasks is not None:
            return await self._with_tasks(tasks, ctx, call_next)
        return await self._handled(ctx, call_next)

    async def _with_tasks(
        self, tasks: Tasks, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Tasks on (``Elicitation(tasks=...)``): declared in a 2025-11-25 ``initialize``,
        each tool's ``taskSupport`` shown in its ``tools/list`` and enforced on its
        ``tools/call``, ``tasks/*`` served, and a ``tools/call`` with ``task`` answered with
        the task while the call runs as it (rules in ``tasks``)."""
        if ctx.method == "initialize":
            return Tasks.declare(await self._handled(ctx, call_next))
        if ctx.protocol_version == EXTENSION_VERSION:
            return await self._with_extension(tasks, ctx, call_next)
        if ctx.protocol_version != TASKS_VERSION or ctx.session.client_params is None:
            # Another revision, or before the handshake: no tasks here.
            return await self._handled(ctx, call_next)
        if ctx.method == "tools/list":
            return tasks.offer(await self._handled(ctx, call_next))
        if ctx.method in TASK_METHODS:
            return await tasks.handle(ctx, ctx.method, ctx.params)
        requested = tasks.requested(ctx)
        if requested is None:
            return await self._handled(ctx, call_next)
        task = await tasks.create(ctx, requested)
        tasks.start(task, lambda: self._handled(ctx, call_next, task=task))
        return await tasks.created(task)

    async def _with_extension(
        self, tasks: Tasks, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """2026-07-28 with tasks on: the extension declared in ``server/discover``, ``tasks/*``
        served, and a ``tools/call`` whose request declares the extension answered with its
        task while the call runs as it (rules 9 to 12 in ``tasks``). A request that does not
        declare it is served as if tasks were off (a ``required`` tool: -32021)."""
        if ctx.method == "server/discover":
            return Tasks.declare_extension(await self._handled(ctx, call_next))
        if ctx.method in EXTENSION_METHODS | REMOVED_METHODS:
            return await tasks.handle_extension(ctx, ctx.method, ctx.params)
        if not tasks.requested_extension(ctx):
            return await self._handled(ctx, call_next)
        task = await tasks.create(ctx, {}, revision=EXTENSION_VERSION)
        tasks.start(task, lambda: self._handled(ctx, call_next, task=task))
        return await tasks.created(task)

    async def _handled(
        self,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
        *,
        task: TaskRun | None = None,
    ) -> HandlerResult:
        outcome = await handle_request(self.runtime, ctx, lambda: call_next(ctx), task=task)
        match outcome:
            case Finished(result):
                return result  # type: ignore[no-any-return]
            case InputRequested(result):
                return result
            case ToolFailed(text):
                if ctx.method != "tools/call":
                    raise MCPError(INVALID_REQUEST, text)
                failed: dict[str, Any] = {
                    "content": [{"type": "text", "text": text}],
                    "isError": True,
                }
                if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    failed["resultType"] = "complete"
                return failed


class UrlDraftTrack(Extension):
    """``elicitation/track`` for the URL-mode draft, served through the SDK's public
    extension seam; advertised under ``capabilities.extensions`` by that name."""

    identifier = URL_DRAFT_EXTENSION

    def __init__(self, completions: Completions) -> None:
        self._completions = completions

    def methods(self) -> Sequence[MethodBinding]:
        return [MethodBinding(ELICITATION_TRACK, TrackParams, self._completions.track)]


# -- fastmcp's FastMCP ---------------------------------------------------------------------------


class FastMCPServer:
    def __init__(self, server: FastMCP[Any]) -> None:
        self.server = server

    @property
    def name(self) -> str:
        return self.server.name or "This server"

    def adopt(self, runtime: Runtime, security: RequestStateSecurity) -> None:
        refuse_on_fastmcp(runtime.settings)
        ours = [m for m in self.server.middleware if isinstance(m, fastmcp_middleware_type())]
        if any(m.runtime is runtime for m in ours):
            return  # built with fastmcp_options()
        if ours:
            raise RuntimeError("Elicitation is already installed on this server")
        # First, so a question leaves before other middleware sees the tool's result.
        self.server.middleware.insert(0, fastmcp_middleware(runtime))
        # fastmcp takes this at construction only (mcp_elicit._sdk says why).
        _sdk.replace_request_state_security(_sdk.lowlevel_server_of(self.server), security)

    async def run_stdio(self) -> None:
        await self.server.run_stdio_async(show_banner=False)

    def http_app(self) -> Starlette:
        return self.server.http_app(path="/mcp")


def fastmcp_middleware(runtime: Runtime) -> Middleware:
    """The fastmcp ``Middleware`` that carries elicitation for the tools of a ``FastMCP``
    server (first in ``middleware``: a question must leave before other middleware reads the
    tool's result)."""
    made: Middleware = fastmcp_middleware_type()(runtime)
    return made


@functools.cache
def fastmcp_middleware_type() -> type[Any]:
    """The class of :func:`fastmcp_middleware`, made on first use: its base is fastmcp's, and
    fastmcp (an optional extra) is imported only then."""
    with needs_extra("fastmcp", "fastmcp"):
        from fastmcp.exceptions import ToolError
        from fastmcp.server.middleware import CallNext as ToolCallNext
        from fastmcp.server.middleware import Middleware, MiddlewareContext
        from fastmcp.tools.base import InputRequiredToolResult, ToolResult

    class FastMCPElicitation(Middleware):
        def __init__(self, runtime: Runtime) -> None:
            self.runtime = runtime

        async def on_call_tool(
            self,
            context: MiddlewareContext[types.CallToolRequestParams],
            call_next: ToolCallNext[types.CallToolRequestParams, ToolResult],
        ) -> ToolResult:
            fastmcp_context = context.fastmcp_context
            request_context = fastmcp_context.request_context if fastmcp_context else None
            if request_context is None:  # not an MCP request (a direct call in-process)
                return await call_next(context)
            request = _sdk.sdk_context_of(request_context)

            async def run() -> ToolResult:
                # fastmcp turns what a tool raises into its own ToolError (the text masked
                # when mask_error_details is on). Ours are meant for the client: a link to
                # send is taken back out, and our tool errors keep their words.
                try:
                    return await call_next(context)
                except ToolError as error:
                    cause = error.__cause__
                    if isinstance(cause, UrlRequired):
                        raise cause from None
                    if isinstance(cause, SdkToolError):
                        raise ToolError(str(cause)) from cause
                    raise

            match await handle_request(self.runtime, request, run):
                case Finished(result):
                    return result  # type: ignore[no-any-return]
                case InputRequested(result):
                    required = types.InputRequiredResult.model_validate(result)
                    return InputRequiredToolResult(required)
                case ToolFailed(text):
                    raise ToolError(text)

    return FastMCPElicitation
