"""Every private name of the official SDK (and of fastmcp) that mcp-elicit uses, in one place.

We build on the SDK's public seams: ``mcp.Client``'s arguments, ``MCPServer(...,
request_state_security=, middleware=, extensions=)``, ``ServerMiddleware``, extensions with
``methods()``, fastmcp's ``Middleware``. Where the SDK has no public seam for what
elicitation needs, the private use is here, each with the reason, and
``tests/test_sdk_surface.py`` pins exactly these names and signatures: an SDK upgrade that
moves one fails that test with a message naming it, instead of misbehaving somewhere else.

Server side:

- :func:`send_raw_request` — ``ServerSession._request_outbound``. ``elicitation/create`` must
  go out in the exact shape of the client's revision; the public ``elicit_form`` always adds
  ``mode: "form"`` (undefined on 2025-06-18) and ``send_request`` validates the client's
  answer strictly before we can read it liberally (an early-draft result, a bad answer we
  must report field by field).
- :func:`connection_of` — the same ``ServerSession._connection``: the session a request belongs
  to (``ctx.session`` is made per request), which the gateway binds a URL-mode draft link to
  when no user is signed in.
- :func:`replace_request_state_security` and :func:`add_request_handler` — only for
  ``Elicitation(server)`` on a server that was built without ``server_options()``: the SDK
  takes ``request_state_security=`` and ``extensions=`` at construction only.
- :func:`sdk_context_of` — fastmcp's request context wraps the SDK's; the identity of a
  request (and the sealed state's principal) is read from the SDK's.
- :func:`lowlevel_server_of` — the SDK ``Client`` connects in-process to an SDK ``Server``;
  a fastmcp server keeps its own in ``_mcp_server`` (``mcp_elicit.testing`` uses it).

Client side (:class:`ElicitingSdkClient`): the SDK client is extended at four points with no
public hook — capabilities that declare exactly the handler's modes (the SDK declares form
and URL for any callback), proposing 2025-06-18 in ``initialize`` (the SDK always proposes
its newest), reading ``elicitation/create`` liberally before the SDK's strict validation,
and a dispatcher whose request timeouts pause while a person answers.

- :func:`hear_session_messages` — ``ClientSession._message_handler``: a session built by
  someone else (Google ADK's ``McpToolset`` builds its own and takes no message handler) is
  given ours in front of its own, so completion notices reach the handler.
- :func:`send_stamped_request` — ``ClientSession._stamp``: the gateway relays results as
  they came (unknown fields, ``_meta``, an ``InputRequiredResult`` whole), so it sends
  through the dispatcher, which returns the raw result; the public ``send_request`` would
  parse it into a model first. The stamp (the version header; on 2026-07-28 the ``_meta``
  with client info and capabilities) is the session's, applied as ``send_request`` does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import Any, Protocol

import mcp_types as types
from mcp import Client
from mcp.client.session import ClientSession
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.session import ServerSession
from mcp.shared.dispatcher import CallOptions

# -- server ----------------------------------------------------------------------------------


async def send_raw_request(
    session: ServerSession, method: str, params: Mapping[str, Any], *, timeout: float | None
) -> Any:
    """Send ``method`` on the request's own channel (the tool call's stream) and return the
    client's raw result."""
    options: CallOptions | None = None if timeout is None else {"timeout": timeout}
    return await session._request_outbound.send_raw_request(method, dict(params), options)


def connection_of(session: ServerSession) -> object:
    """The connection (the MCP session) ``session``'s request came on."""
    connection: object = session._connection
    return connection


def replace_request_state_security(server: Any, security: RequestStateSecurity) -> None:
    """Seal ``requestState`` with ``security`` on a server already built (an ``MCPServer``, or
    the SDK ``Server`` under a fastmcp one): the boundary the SDK put in the chain is replaced
    in place (it must stay outside our middleware)."""
    chain = server.middleware
    for index, layer in enumerate(chain):
        if isinstance(layer, RequestStateBoundary):
            chain[index] = RequestStateBoundary(security, default_audience=server.name)
            return
    raise RuntimeError(
        "this MCPServer has no RequestStateBoundary: requestState would not be sealed"
    )


def add_request_handler(
    server: MCPServer[Any],
    method: str,
    params_type: type[Any],
    handler: Callable[[ServerRequestContext[Any, Any], Any], Awaitable[Any]],
) -> None:
    """Serve a request method on a server already built (extensions are fixed at
    construction)."""
    server._lowlevel_server.add_request_handler(method, params_type, handler)


def sdk_context_of(fastmcp_request_context: Any) -> ServerRequestContext[Any, Any]:
    """The SDK's request context inside fastmcp's ``FastMCPRequestContext``."""
    found = fastmcp_request_context._srctx
    if not isinstance(found, ServerRequestContext):
        raise TypeError("fastmcp's request context no longer wraps the SDK's")
    return found


def lowlevel_server_of(server: Any) -> Any:
    """The SDK ``Server`` under a fastmcp ``FastMCP`` (or under an ``MCPServer``)."""
    if isinstance(server, MCPServer):
        return server._lowlevel_server
    return server._mcp_server


# -- client ----------------------------------------------------------------------------------


def hear_session_messages(
    session: ClientSession, on_message: Callable[[Any], Awaitable[None]]
) -> None:
    """``on_message`` gets every message ``session`` hears, then the handler it had (the
    SDK's default when its builder gave none)."""
    theirs = session._message_handler

    async def both(message: Any) -> None:
        await on_message(message)
        await theirs(message)

    session._message_handler = both


async def send_stamped_request(
    session: ClientSession,
    method: str,
    params: Mapping[str, Any] | None,
    *,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """Send ``method`` as ``send_request`` would (stamped for the negotiated version) and
    return the server's raw result; ``headers`` are added to the stamp's (over HTTP: the
    extension's ``Mcp-Name`` on ``tasks/*``, which the SDK sets only for its own methods)."""
    data: dict[str, Any] = {"method": method}
    if params is not None:
        data["params"] = dict(params)
    options: CallOptions = {}
    session._stamp(data, options)
    if headers:
        options.setdefault("headers", {}).update(headers)
    return await session._dispatcher.send_raw_request(method, data.get("params"), options)


class ClientHooks(Protocol):
    """What :class:`ElicitingSdkClient` asks of its owner at the four points it extends."""

    def capabilities(self, version: str, declared: types.ClientCapabilities) -> Any:
        """The capabilities to declare, given the SDK's (for ``version``)."""
        ...

    @property
    def proposed_version(self) -> str | None:
        """The handshake version to propose instead of the SDK's newest, or ``None``."""
        ...

    async def on_elicitation(self, session: ClientSession, params: Any) -> dict[str, Any]:
        """Answer an ``elicitation/create``'s raw params (raise ``MCPError`` to refuse)."""
        ...

    async def send(
        self,
        send: Callable[[str, Mapping[str, Any] | None, dict[str, Any]], Awaitable[Any]],
        method: str,
        params: Mapping[str, Any] | None,
        options: dict[str, Any],
        version: str | None,
    ) -> Any:
        """Send one request through ``send`` (the SDK's dispatcher), with our timeouts."""
        ...


class ElicitingSdkClient(Client):
    """``mcp.Client`` with every argument it takes, whose session is extended by ``hooks``.

    The session is the one ``Client`` builds (so sampling, roots, logging, extensions and any
    later argument keep working), re-classed as :class:`_HookedSession` (no state of its own)
    with its dispatcher wrapped."""

    hooks: ClientHooks

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        if type(session) is not ClientSession:
            raise TypeError(
                f"mcp.Client built a {type(session).__name__}, not a ClientSession: "
                "see mcp_elicit._sdk"
            )
        session.__class__ = _HookedSession
        assert isinstance(session, _HookedSession)
        session.hooks = self.hooks
        session._dispatcher = _Dispatcher(session._dispatcher, session)
        return session

    @property
    def dispatcher(self) -> Any:
        """The session's dispatcher, for requests the SDK has no method for."""
        return self.session._dispatcher


class _HookedSession(ClientSession):
    hooks: ClientHooks

    def _build_capabilities(self, version: str) -> types.ClientCapabilities:
        declared = super()._build_capabilities(version)
        return declared.model_copy(
            update={"elicitation": self.hooks.capabilities(version, declared)}
        )

    async def initialize(self) -> types.InitializeResult:
        proposed = self.hooks.proposed_version
        if proposed is None:
            return await super().initialize()
        result = await self.send_request(
            types.InitializeRequest(
                params=types.InitializeRequestParams(
                    protocol_version=proposed,
                    capabilities=self._build_capabilities(proposed),
                    client_info=self._client_info,
                ),
            ),
            types.InitializeResult,
        )
        self.adopt(result)
        await self.send_notification(types.InitializedNotification())
        return result

    async def _on_request(
        self, dctx: Any, method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        if method != "elicitation/create":
            return await super()._on_request(dctx, method, params)
        return await self.hooks.on_elicitation(self, params)


class _Dispatcher:
    """The SDK's dispatcher, every request passing through the hooks' ``send``."""

    def __init__(self, inner: Any, session: _HookedSession) -> None:
        self._inner = inner
        self._session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Mapping[str, Any] | None = None
    ) -> Any:
        return await self._session.hooks.send(
            self._inner.send_raw_request,
            method,
            params,
            dict(opts or {}),
            self._session.protocol_version,
        )


__all__ = [
    "ClientHooks",
    "ElicitingSdkClient",
    "add_request_handler",
    "connection_of",
    "hear_session_messages",
    "lowlevel_server_of",
    "replace_request_state_security",
    "sdk_context_of",
    "send_raw_request",
    "send_stamped_request",
]
