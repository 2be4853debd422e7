"""The gateway's connections to the upstream server.

The upstream is reached the way :class:`~mcp_elicit.client.ElicitingClient` reaches any
server (an ``http(s)://`` URL, ``StdioServerParameters``, or an in-process server), through
the official SDK client extended by ``mcp_elicit._sdk``: capabilities declare exactly the
modes asked for, and ``elicitation/create`` arrives raw, to be read here in the session's
revision.

**Which connection carries what.**

- The *main* connection carries the lists, completions, and on 2026-07-28 every call: a
  2026-07-28 request declares the client's capabilities in its own ``_meta``, so the
  gateway stamps there, request by request, exactly what the downstream client declared
  (:meth:`Upstream.request`).
- On a push-era upstream (2025-06-18, 2025-11-25) a question arrives as a request of the
  server's, on the session, with nothing that says which call it is for: stdio has no such
  link, and the SDK's Streamable HTTP client drops the stream a request came on. So each
  call that may be asked runs on a session of its own, *leased* for the call
  (:meth:`Upstream.lease`): whatever that session is asked belongs to that call. A session
  also declares its capabilities once, at ``initialize``, so leases are pooled by the modes
  the downstream client declared. A lease that ended cleanly goes back to the pool; one cut
  short (a held call that expired) is closed, since the server may still be mid-call on it.

**How many.** Push-era sessions (each a process, for a stdio upstream) are capped
(:class:`~.limits.Limits`): in all, counted from the moment one is asked for until it has
ended, pooled ones included; and per client, the ones it has leased now. A lease past a cap
is refused (:class:`~.limits.OverLimit`) before anything is spawned; in all, an idle pooled
session is closed first to make room if there is one. A pooled session unused for
``idle_session_close`` seconds is closed.

Completion notices (``notifications/elicitation/complete``) name their elicitation, not their
call, and may come after the call has ended; :attr:`Upstream.on_complete` receives them, from
whichever session they arrive on.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientSession, IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp_elicit import _sdk
from mcp_elicit.client.connection import unpooled_http_client
from mcp_elicit.gateway.limits import Limits, cap_reached
from mcp_elicit.gateway.no_tasks import without_tasks_extension
from mcp_elicit.protocol import (
    NO_MODES,
    ElicitationModes,
    ElicitationRequest,
    capabilities_for,
    invalid_params_error,
    parse_elicitation_complete,
    parse_elicitation_params,
)
from mcp_elicit.protocol.codes import META_CLIENT_CAPABILITIES
from mcp_elicit.revisions import UPSTREAM_CHOICES, Revision, sdk_client_mode

logger = logging.getLogger(__name__)

QuestionHandler = Callable[[ElicitationRequest], Awaitable[dict[str, Any]]]
"""What answers a question pushed on a leased session (read in the session's revision): the
raw result out (raise ``MCPError`` to answer with an error)."""

_DECLARED: contextvars.ContextVar[ElicitationModes | None] = contextvars.ContextVar(
    "mcp_elicit_gateway_declared", default=None
)

IDLE_PER_MODES = 16
"""Idle push-era sessions kept per set of modes: enough that calls in a steady stream reuse
sessions, few enough that a burst does not leave hundreds open."""


@asynccontextmanager
async def _declaring(modes: ElicitationModes) -> AsyncIterator[None]:
    """2026-07-28: requests sent upstream inside this block declare ``modes`` (the downstream
    client's) in their ``_meta``."""
    token = _DECLARED.set(modes)
    try:
        yield
    finally:
        _DECLARED.reset(token)


@dataclass(eq=False)
class Connection:
    """One session with the upstream server."""

    client: _sdk.ElicitingSdkClient
    modes: ElicitationModes
    asked: QuestionHandler | None = None  # set while a call holds the lease
    closed: anyio.Event = field(default_factory=anyio.Event)  # set to end the session
    ended: anyio.Event = field(default_factory=anyio.Event)  # set once it has ended
    spoiled: bool = False  # cut short mid-call: not to be reused
    idle_since: float | None = None  # when it went back to the pool (None: leased, or main)

    @property
    def version(self) -> str:
        return self.client.protocol_version

    @property
    def rounds(self) -> bool:
        """The upstream speaks 2026-07-28 (multi round-trip) on this session."""
        return self.version in MODERN_PROTOCOL_VERSIONS

    async def request(self, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Send ``method`` and return the raw result, unchanged (``MCPError`` for an error
        response, with its ``data``)."""
        result = await _sdk.send_stamped_request(self.client.session, method, params)
        if not isinstance(result, dict):
            raise MCPError(types.INTERNAL_ERROR, f"the upstream answered {method} with no object")
        return result


class Upstream:
    """The upstream server: the main connection, and push-era sessions leased per call.

    ``protocol`` as :class:`~mcp_elicit.client.ElicitingClient` takes it: ``"auto"`` lets the
    SDK negotiate (2026-07-28 where the server speaks it); a revision pins it.
    """

    def __init__(
        self,
        target: Any,
        *,
        protocol: str = "auto",
        headers: Mapping[str, str] | None = None,
        client_info: types.Implementation | None = None,
        idle_per_modes: int = IDLE_PER_MODES,
        limits: Limits | None = None,
    ) -> None:
        if protocol not in UPSTREAM_CHOICES:
            choices = ", ".join(UPSTREAM_CHOICES)
            raise ValueError(f"the upstream protocol must be one of {choices}, not {protocol!r}")
        if headers and not isinstance(target, str):
            raise ValueError("headers are for an upstream given by its http(s):// URL")
        self.target = target
        self.protocol = protocol
        self.headers = dict(headers or {})
        self.client_info = client_info or types.Implementation(
            name="mcp-elicit-gateway", version="1"
        )
        self.idle_per_modes = idle_per_modes
        self.limits = limits or Limits()
        self.on_complete: Callable[[str], Awaitable[None]] | None = None
        self._idle: dict[ElicitationModes, list[Connection]] = {}
        self._main: Connection | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._stack: AsyncExitStack | None = None
        self._http: Any = None
        self.opened = 0  # sessions opened in all (the main one included)
        self.sessions = 0  # push-era sessions asked for and not yet ended (main excluded)
        self._leased: dict[object, int] = {}  # by client: the sessions it holds now

    async def __aenter__(self) -> Upstream:
        async with AsyncExitStack() as stack:
            if isinstance(self.target, str):
                self._http = await stack.enter_async_context(
                    unpooled_http_client(headers=self.headers)
                )
            self._tasks = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(self._tasks.cancel_scope.cancel)
            self._main = await self._open(NO_MODES)
            self._stack = stack.pop_all()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.__aexit__(*exc_info)

    # -- what the upstream is -------------------------------------------------------------

    @property
    def main(self) -> Connection:
        if self._main is None:
            raise RuntimeError("Upstream must be used within 'async with'")
        return self._main

    @property
    def version(self) -> str:
        """The protocol version the upstream negotiated."""
        return self.main.version

    @property
    def rounds(self) -> bool:
        """The upstream asks with ``InputRequiredResult`` (2026-07-28), not by push."""
        return self.main.rounds

    @property
    def server_info(self) -> types.Implementation | None:
        return self.main.client.server_info

    @property
    def capabilities(self) -> types.ServerCapabilities | None:
        return self.main.client.server_capabilities

    # -- sessions -------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        modes: ElicitationModes,
        *,
        owner: object = None,
    ) -> dict[str, Any]:
        """``method`` on behalf of a client that declared ``modes``: what a server lists may
        depend on it (a tool offered only to clients with elicitation). 2026-07-28: on the
        main connection, declared in the request; push era: on a session declaring them,
        leased by ``owner``."""
        if self.rounds:
            async with _declaring(modes):
                return await self.main.request(method, params)
        async with self.lease(modes, _nobody_asks, owner=owner) as connection:
            return await connection.request(method, params)

    @asynccontextmanager
    async def lease(
        self, modes: ElicitationModes, asked: QuestionHandler, *, owner: object = None
    ) -> AsyncIterator[Connection]:
        """A push-era session of its own for one call of ``owner``'s, declaring ``modes``;
        what it is asked goes to ``asked``. Mark it ``spoiled`` to have it closed instead of
        reused. ``OverLimit`` past a cap (the module's rules)."""
        limits = self.limits
        if self._leased.get(owner, 0) >= limits.upstream_sessions_per_client:
            raise cap_reached(
                "upstream_sessions_per_client",
                limits.upstream_sessions_per_client,
                "upstream sessions",
                "--max-upstream-sessions-per-client",
            )
        self._leased[owner] = self._leased.get(owner, 0) + 1  # before any wait: races see it
        try:
            connection = await self._take(modes)
            connection.asked = asked
            connection.idle_since = None
            try:
                yield connection
            except MCPError:
                raise  # the call ended with an error response: the session is fine
            except BaseException:
                connection.spoiled = True  # cut short (cancelled, or the session failed)
                raise
            finally:
                connection.asked = None
                idle = self._idle.setdefault(modes, [])
                if connection.spoiled or len(idle) >= self.idle_per_modes:
                    connection.closed.set()
                elif not connection.ended.is_set():
                    connection.idle_since = time.monotonic()
                    idle.append(connection)
        finally:
            left = self._leased.pop(owner, 0) - 1
            if left > 0:
                self._leased[owner] = left

    async def _take(self, modes: ElicitationModes) -> Connection:
        """A pooled session declaring ``modes``, else a new one within the cap in all (an
        idle session of other modes closed to make room)."""
        idle = self._idle.setdefault(modes, [])
        while idle:
            candidate = idle.pop()
            if not (candidate.ended.is_set() or candidate.closed.is_set()):
                return candidate
        while self.sessions >= self.limits.upstream_sessions:
            spare = self._oldest_idle()
            if spare is None:
                raise cap_reached(
                    "upstream_sessions",
                    self.limits.upstream_sessions,
                    "upstream sessions",
                    "--max-upstream-sessions",
                )
            spare.closed.set()
            await spare.ended.wait()  # its place is free once it has ended
        return await self._open(modes, pooled=True)

    def _oldest_idle(self) -> Connection | None:
        """The pooled session unused the longest, taken out of the pool."""
        oldest: tuple[float, list[Connection], Connection] | None = None
        for pool in self._idle.values():
            for connection in pool:
                since = connection.idle_since
                if since is not None and (oldest is None or since < oldest[0]):
                    oldest = (since, pool, connection)
        if oldest is None:
            return None
        oldest[1].remove(oldest[2])
        return oldest[2]

    async def _open(self, modes: ElicitationModes, *, pooled: bool = False) -> Connection:
        assert self._tasks is not None
        if pooled:
            self.sessions += 1  # counted before the spawn, so that no race passes the cap
        connection: Connection = await self._tasks.start(self._run, modes, pooled)
        return connection

    async def _run(
        self,
        modes: ElicitationModes,
        pooled: bool,
        *,
        task_status: anyio.abc.TaskStatus[Connection],
    ) -> None:
        """One session, from connect to close, in a task of its own (the SDK client's task
        groups must end in the task that began them). A ``pooled`` one is counted against
        the cap until it has ended, and closed once idle too long."""
        try:
            await self._session(modes, pooled, task_status)
        finally:
            if pooled:
                self.sessions -= 1

    async def _session(
        self, modes: ElicitationModes, pooled: bool, task_status: anyio.abc.TaskStatus[Connection]
    ) -> None:
        target = self.target
        if isinstance(target, str):
            target = streamable_http_client(target, http_client=self._http)
        protocol = self.protocol
        client = _sdk.ElicitingSdkClient(
            target,
            mode=sdk_client_mode(protocol),
            elicitation_callback=_never_called,
            message_handler=self._on_message,
            client_info=self.client_info,
            cache=None,
        )
        connection = Connection(client, modes)
        if pooled:  # idle until leased: one its caller gave up on before it started is reclaimed
            connection.idle_since = time.monotonic()
        client.hooks = _Hooks(connection, protocol)
        try:
            async with client:
                if protocol != "auto" and client.protocol_version != protocol:
                    raise MCPError(
                        types.INTERNAL_ERROR,
                        f"asked the upstream for protocol {protocol}, it chose "
                        f"{client.protocol_version}",
                    )
                self.opened += 1
                task_status.started(connection)
                if pooled:
                    await self._until_closed_or_idle(connection)
                else:
                    await connection.closed.wait()
        finally:
            connection.ended.set()

    async def _until_closed_or_idle(self, connection: Connection) -> None:
        """Return once ``connection`` is closed, or has sat in the pool for
        ``idle_session_close`` seconds (then it is taken out and closed)."""
        close_after = self.limits.idle_session_close
        while not connection.closed.is_set():
            since = connection.idle_since
            wait = close_after if since is None else since + close_after - time.monotonic()
            if wait <= 0:
                for pool in self._idle.values():
                    if connection in pool:
                        pool.remove(connection)
                connection.closed.set()
                return
            with anyio.move_on_after(wait):
                await connection.closed.wait()

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            found = parse_elicitation_complete(
                message.params.model_dump(by_alias=True, mode="json")
            )
            if found is not None and self.on_complete is not None:
                await self.on_complete(found)
        elif isinstance(message, Exception):
            logger.warning("the upstream connection reported: %s", message)
        await anyio.lowlevel.checkpoint()


def error_json(error: MCPError) -> dict[str, Any]:
    """The JSON-RPC error an upstream request ended with, as JSON (with its ``data``)."""
    return error.error.model_dump(by_alias=True, mode="json", exclude_none=True)


async def _nobody_asks(request: ElicitationRequest) -> dict[str, Any]:
    raise MCPError(types.INVALID_REQUEST, "This request cannot be asked anything")


async def _never_called(context: Any, params: Any) -> Any:  # pragma: no cover - see _Hooks
    raise AssertionError("elicitation/create is answered by the gateway's hooks")


class _Hooks:
    """Where a gateway session extends the SDK client (``mcp_elicit._sdk`` says why)."""

    def __init__(self, connection: Connection, protocol: str) -> None:
        self._connection = connection
        self._protocol = protocol

    @property
    def proposed_version(self) -> str | None:
        return self._protocol if self._protocol == Revision.V2025_06_18 else None

    def capabilities(
        self, version: str, declared: types.ClientCapabilities
    ) -> types.ElicitationCapability | None:
        return _elicitation_capability(self._connection.modes, version)

    async def on_elicitation(self, session: ClientSession, params: Any) -> dict[str, Any]:
        asked = self._connection.asked
        if asked is None:
            # Only a leased session serves a call; a question on the main one (or after the
            # call ended) has nobody to go to.
            raise MCPError(
                types.INVALID_REQUEST,
                "No call through this gateway session is waiting for an answer",
            )
        request = parse_elicitation_params(params, revision=self._connection.version)
        if isinstance(request, list):  # not a question: -32602, with every problem
            error = invalid_params_error(request)
            raise MCPError(error["code"], error["message"], error.get("data"))
        return await asked(request)

    async def send(
        self,
        send: Callable[[str, Mapping[str, Any] | None, dict[str, Any]], Awaitable[Any]],
        method: str,
        params: Mapping[str, Any] | None,
        options: dict[str, Any],
        version: str | None,
    ) -> Any:
        modes = _DECLARED.get()
        if modes is not None and version in MODERN_PROTOCOL_VERSIONS and params is not None:
            meta = dict(params.get("_meta") or {})
            # Never the tasks extension, whoever declared it: the gateway carries no tasks,
            # so the upstream must run the call plainly (no_tasks rule 2).
            capabilities = without_tasks_extension(meta.get(META_CLIENT_CAPABILITIES) or {})
            capabilities.pop("elicitation", None)
            capabilities.update(capabilities_for(modes, version))
            meta[META_CLIENT_CAPABILITIES] = capabilities
            params = {**params, "_meta": meta}
        return await send(method, params, options)


@functools.cache
def _elicitation_capability(
    modes: ElicitationModes, version: str
) -> types.ElicitationCapability | None:
    try:
        declared = capabilities_for(modes, version).get("elicitation")
    except ValueError:  # a version with no elicitation rules: declare what 2025-06-18 would
        declared = {} if modes.form else None
    if declared is None:
        return None
    return types.ElicitationCapability.model_validate(declared)


__all__ = ["Connection", "QuestionHandler", "Upstream", "error_json"]
