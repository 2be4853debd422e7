"""fastmcp's ``Client`` as a host: every check of the handler, through fastmcp's own seams.

fastmcp (4.x) takes an ``elicitation_handler(message, response_type, params, context)``, a
``message_handler`` and its ``call_tool`` / ``call_tool_mcp``; pydantic-ai's ``MCPToolset``
is built on this ``Client``. Two pieces, the second built on the first:

- :class:`FastMCPHandler` — an :class:`~mcp_elicit.client.ElicitationHandler` as fastmcp's
  ``elicitation_handler``: the request checked per revision, the policy, the person asked,
  the answer validated, the audit. Its :meth:`~FastMCPHandler.on_message` is the
  ``message_handler`` that tells it when a link's page is finished.
- :class:`ElicitingFastMCPClient` — ``fastmcp.Client`` with both set, a server it starts
  over stdio treated as local, "open this link first" (-32042, -32604) taken through consent
  and completion before the call is retried (never raised to the model), and tool-call
  timeouts that stop while the person answers.

What fastmcp does not let an adapter change (docs/frameworks.md says it to the host):

- fastmcp answers the server with -32603 whenever its ``elicitation_handler`` raises, and
  cannot send a handler's ``ErrorData`` at all (it is read as accepted content, which fails
  as "validation errors for ElicitResult"). A request the handler refuses (-32602 under
  :class:`~mcp_elicit.client.ElicitingClient`) therefore reaches the server as -32603,
  with the problems written out in its message.
- The SDK session under fastmcp declares both modes (form and URL) for any handler. A
  ``Policy(modes=...)`` still decides what is answered: a request in another mode is refused.
- fastmcp's client-wide ``timeout`` and the SDK's per-request timeouts run while a person
  answers. :class:`ElicitingFastMCPClient` keeps ``timeout`` for tool calls itself, paused
  while anyone answers; other requests then have none.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import mcp_types
from mcp.shared.exceptions import MCPError

from mcp_elicit._extras import needs_extra
from mcp_elicit.client.connection import unpooled_http_client
from mcp_elicit.client.handler import ElicitationHandler, asking_of
from mcp_elicit.client.required_links import call_after_links
from mcp_elicit.client.steps import ElicitationRefused

with needs_extra("fastmcp", "fastmcp"):
    from fastmcp import Client
    from fastmcp.client.elicitation import ElicitResult
    from fastmcp.client.transports import StdioTransport, StreamableHttpTransport, infer_transport
    from fastmcp.client.transports.base import ClientTransport
    from fastmcp.utilities.timeout import normalize_timeout_to_seconds

logger = logging.getLogger(__name__)

_Timeout = datetime.timedelta | float | int | None
"""A timeout as fastmcp takes it: seconds, a ``timedelta``, or ``None`` (0: none)."""


_Answer = ElicitResult[dict[str, Any]]
"""What the adapter returns: fastmcp's result type (built once: subscripting costs per call)."""


class FastMCPHandler:
    """``handler`` as fastmcp's ``elicitation_handler``; :meth:`on_message` as its
    ``message_handler`` (completion notices).

    ``Client(transport, elicitation_handler=FastMCPHandler(handler, local=True),
    message_handler=fh.on_message)``. ``local``: the server runs on this machine as this
    user (one the host started over stdio), so its ``http://127.0.0.1`` links (a stdio
    server's hosted pages) are offered (``Policy.loopback_for_local_servers``).
    :class:`ElicitingFastMCPClient` sets all of this from its transport."""

    def __init__(self, handler: ElicitationHandler, *, local: bool = False) -> None:
        self.handler = handler
        self.local = local

    async def __call__(
        self,
        message: str,
        response_type: type[Any] | None,
        params: mcp_types.ElicitRequestParams,
        context: Any,
    ) -> _Answer:
        """fastmcp's call. ``message`` and ``response_type`` (fastmcp's dataclass made from
        the schema) are not used: the handler reads the request whole, ``params``, checks
        its schema against the negotiated revision and builds its own form from it."""
        asking = asking_of(context.session, local=self.local)
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            result = await self.handler.handle(raw, asking)
        except ElicitationRefused as refused:
            # fastmcp sends -32603 with the text of whatever is raised; the text is all the
            # server gets, so it carries the problems (the -32602 `data` cannot travel).
            raise ElicitationRefused(
                {**refused.error, "message": _refusal_text(refused.error)}
            ) from None
        except Exception:
            # Never the exception's own text: it would reach the server.
            logger.exception("the elicitation handler failed")
            raise RuntimeError("The client failed to handle the elicitation") from None
        return _Answer.model_validate(result)

    async def on_message(self, message: Any) -> None:
        """fastmcp's ``message_handler``: a completion notice
        (``notifications/elicitation/complete``) ends the wait for that link's page."""
        if isinstance(message, mcp_types.ElicitCompleteNotification):
            self.handler.completions.complete(message.params.elicitation_id)


def _refusal_text(error: dict[str, Any]) -> str:
    """A refused request's message, its problems written out, as fastmcp sends it: -32603
    with this text, where :class:`~mcp_elicit.client.ElicitingClient` sends the ``error``
    itself (-32602, the problems in ``data``)."""
    problems = (error.get("data") or {}).get("problems") or []
    said = "; ".join(_problem_text(p) for p in problems)
    head = str(error.get("message", "Elicitation refused"))
    return f"{head} (invalid params){': ' + said if said else ''}"


def _problem_text(problem: dict[str, Any]) -> str:
    if problem.get("code") == "mode_undeclared":
        # fastmcp declared the mode (it declares both for any handler); the policy refused it.
        return "mode: this client's policy does not answer this mode (fastmcp declares both)"
    field = problem.get("field")
    return f"{field}: {problem.get('message')}" if field else str(problem.get("message"))


class ElicitingFastMCPClient(Client[Any]):
    """``fastmcp.Client`` that answers elicitations with ``handler``.

    ``transport`` is anything ``fastmcp.Client`` takes (a script path, a command's
    ``StdioTransport``, an ``http(s)://`` URL, a ``FastMCP`` server in-process, ...), and
    every other ``fastmcp.Client`` argument passes through. What this class adds:

    - ``local``: whether the server runs on this machine as this user; by default, true for
      a stdio transport (fastmcp started it) and false otherwise.
    - Tool calls (``call_tool``, ``call_tool_mcp``) go through "open this link first"
      (-32042, -32604) as :class:`~mcp_elicit.client.ElicitingClient` does: consent,
      completion, then the call again, at most ``max_url_retries`` times
      (:class:`~mcp_elicit.client.UrlElicitationLoop` past that). If the person declines,
      the server's error is raised.
    - ``timeout`` (here and per call) bounds tool calls by time nobody spent answering:
      ``MCPError`` with code -32001 (request timeout) when it runs out. It is not given to
      fastmcp, whose timeout would run while the person answers: other requests (listing
      tools, ...) have no timeout of their own.
    - Given an ``http(s)://`` URL as a string, the HTTP client has no read timeout (a tool
      call's response stream is quiet while the person answers; fastmcp's default gives up
      after 300 s) and no connection limit (pending questions cannot starve the answers).

    It sets ``elicitation_handler`` itself; ``message_handler`` is called after it reads
    completion notices."""

    def __init__(
        self,
        transport: Any,
        handler: ElicitationHandler,
        *,
        local: bool | None = None,
        timeout: _Timeout = None,
        max_url_retries: int = 3,
        message_handler: Callable[[Any], Awaitable[None]] | None = None,
        **client_options: Any,
    ) -> None:
        if "elicitation_handler" in client_options:
            raise TypeError("ElicitingFastMCPClient sets elicitation_handler itself (handler)")
        if isinstance(transport, str) and transport.startswith(("http://", "https://")):
            inferred = infer_transport(transport)
            if isinstance(inferred, StreamableHttpTransport):
                inferred.httpx_client_factory = _http_client
            transport = inferred
        resolved: ClientTransport = infer_transport(transport)
        is_local = isinstance(resolved, StdioTransport) if local is None else local
        self.elicitation = FastMCPHandler(handler, local=is_local)
        self.call_timeout = normalize_timeout_to_seconds(timeout)
        self.max_url_retries = max_url_retries
        self._their_message_handler = message_handler
        super().__init__(
            resolved,
            elicitation_handler=self.elicitation,
            message_handler=self._on_message,
            **client_options,
        )

    @property
    def handler(self) -> ElicitationHandler:
        """The handler that answers this client's elicitations."""
        return self.elicitation.handler

    @property
    def local(self) -> bool:
        """Whether the server is treated as running on this machine as this user."""
        return self.elicitation.local

    async def call_tool_mcp(
        self,
        name: str,
        arguments: dict[str, Any],
        progress_handler: Any = None,
        timeout: _Timeout = None,
        meta: dict[str, Any] | None = None,
    ) -> mcp_types.CallToolResult:
        """fastmcp's ``call_tool_mcp`` (and so ``call_tool``), with "open this link first"
        handled and ``timeout`` (default: the client's) paused while the person answers."""
        budget = normalize_timeout_to_seconds(timeout) or self.call_timeout
        call = super().call_tool_mcp

        async def once() -> mcp_types.CallToolResult:
            if budget is None:
                return await call(name, arguments, progress_handler, None, meta)
            with self.handler.attention.deadline(budget) as scope:
                return await call(name, arguments, progress_handler, None, meta)
            # Only reached when the deadline cancelled the call.
            assert scope.cancelled_caught
            raise MCPError(
                mcp_types.REQUEST_TIMEOUT,
                f"tools/call {name} timed out after {budget:g} s "
                "(time spent answering not counted)",
            )

        asking = asking_of(self.session, required_by=name, local=self.local)
        return await call_after_links(once, self.handler, asking, max_retries=self.max_url_retries)

    async def _on_message(self, message: Any) -> None:
        await self.elicitation.on_message(message)
        if self._their_message_handler is not None:
            await self._their_message_handler(message)


def _http_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
    **options: Any,
) -> httpx2.AsyncClient:
    """fastmcp's ``httpx_client_factory``: no read timeout, no pool limit (see
    :func:`~mcp_elicit.client.connection.unpooled_http_client`), redirects followed as
    fastmcp's own client does. ``timeout``: fastmcp passes its request timeout, which would
    run while the person answers; the request's own (pausable) timeout is the one that
    counts."""
    client = unpooled_http_client(headers=headers, auth=auth)
    client.follow_redirects = bool(options.get("follow_redirects", True))
    return client


__all__ = ["ElicitingFastMCPClient", "FastMCPHandler"]
