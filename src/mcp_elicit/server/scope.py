"""The request being served, as ``ask`` and ``secret`` see it: made once per request
(:func:`mcp_elicit.server.handling.handle_request`), read through a context variable (tasks a
tool starts inherit it).

One scope holds the SDK's request context (the client's revision and capabilities, the
session to push a question through, the identity), the peer read from it once, on 2026-07-28
the :class:`Round` (a request of an earlier revision has none: it is asked by push), for a
task-augmented call (2025-11-25) the task it runs as, and the server's
:class:`~mcp_elicit.server.runtime.Runtime`. What a URL-mode question needs of the runtime
comes from it once per request, bound to the user (:meth:`RequestScope.services`). There is no
registry of servers: whatever a request needs comes with the request.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext

from mcp_elicit import _sdk
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.revisions import Revision
from mcp_elicit.server.completions import CompletionClient
from mcp_elicit.server.peer import Peer, peer_of_request
from mcp_elicit.server.rounds import Round
from mcp_elicit.server.runtime import Runtime, Services
from mcp_elicit.server.tasks import TaskRun


@dataclass(slots=True)
class RequestScope:
    request: ServerRequestContext[Any, Any]
    peer: Peer
    runtime: Runtime | None
    round: Round | None = None
    task: TaskRun | None = None
    """The task this request runs as (a task-augmented ``tools/call``), else ``None``."""
    _services: Services | None = field(default=None, init=False, repr=False)

    def require_runtime(self, what: str) -> Runtime:
        if self.runtime is None:
            raise RuntimeError(f"{what} need mcp_elicit.server.Elicitation installed")
        return self.runtime

    def services(self, what: str) -> Services:
        """What URL mode needs of the runtime (the flows, the vault, completion signalling,
        where the pages are), bound to this request's user: read once per request. ``what``
        names the feature in the error when no ``Elicitation`` is installed; a request with no
        authenticated user is a ``CannotAsk``."""
        if self._services is None:
            self._services = self.require_runtime(what).services_for(self.request)
        return self._services

    @property
    def asks_by_push(self) -> bool:
        """A question goes through :meth:`send_elicitation` and the tool waits for its answer:
        on every revision before 2026-07-28, and inside a task on any (the call was answered
        with the task already, so there is no round to end: design §3)."""
        return self.peer.push_era or self.task is not None

    def require_round(self) -> Round:
        if self.round is None:
            raise RuntimeError(
                f"asking a {Revision.V2026_07_28} client needs mcp_elicit.server.Elicitation "
                "installed on the server: it turns the question into an InputRequiredResult"
            )
        return self.round

    def waiting_for_page(self, url: str) -> contextlib.AbstractContextManager[None]:
        """Around a wait for a URL-mode page the person agreed to open: a task says so in its
        ``statusMessage`` meanwhile (it is ``working``: nothing is asked of the client)."""
        if self.task is None:
            return contextlib.nullcontext()
        return self.task.waiting_for_page(url)

    def completion_client(self) -> CompletionClient:
        """Where a URL-mode completion notice goes: this request's session, or inside a task
        the task (its notice names the task, on its open ``tasks/result`` stream)."""
        return self.task if self.task is not None else self.request.session

    async def send_elicitation(self, params: Mapping[str, Any], *, timeout: float | None) -> Any:
        """Push ``elicitation/create`` (a form or a link) on this request's own channel and
        return the raw result, in the exact shape of the client's revision (see
        ``_sdk.send_raw_request`` for why).

        In a task the call was answered already: the question is stored in the task as an
        outstanding input request. On 2025-11-25 the client's ``tasks/result`` carries it on
        its own stream, naming the task (SEP-2260); on the 2026-07-28 extension ``tasks/get``
        shows it and ``tasks/update`` answers it (the rules are ``server.tasks``'). Nothing
        goes on the session's standalone stream."""
        if self.task is None:
            session = self.request.session
            return await _sdk.send_raw_request(session, ELICITATION_CREATE, params, timeout=timeout)
        return await self.task.ask(params, timeout=timeout)


_CURRENT: contextvars.ContextVar[RequestScope | None] = contextvars.ContextVar(
    "mcp_elicit_scope", default=None
)


@contextlib.contextmanager
def entered(scope: RequestScope) -> Iterator[RequestScope]:
    token = _CURRENT.set(scope)
    try:
        yield scope
    finally:
        _CURRENT.reset(token)


def current_scope(ctx: Any) -> RequestScope:
    """The scope of the request a tool's ``ctx`` serves.

    Without the middleware (a server with no ``Elicitation``) an SDK ``Context`` still gives
    a scope of its own request, with no runtime: pushing a question works, 2026-07-28 rounds
    and URL flows say what is missing."""
    found = _CURRENT.get()
    if found is not None:
        return found
    try:
        request = ctx.request_context
    except Exception:  # a Context built outside a request (MCPServer.call_tool in a test)
        request = None
    if isinstance(request, ServerRequestContext):
        return RequestScope(request, peer_of_request(request), None)
    raise RuntimeError(
        "no MCP request is being served here: call ask() and secret() inside a tool of a "
        "server with mcp_elicit.server.Elicitation installed"
    )


def task_status(text: str) -> None:
    """Say what the task this tool runs as is doing: its ``statusMessage``, which a client
    polling ``tasks/get`` shows (``"Uploading 3 of 10 files"``).

    Inside a task only; anywhere else (a plain call, outside a request) it does nothing, so a
    tool calls it without asking how it was called. On the 2026-07-28 tasks extension this
    takes the place of progress notifications, which tasks do not carry there (EXT §Task
    Status Notifications). At most 200 characters (longer text is cut), one line; written at
    most once a second (the last text given within the second is written when it is over).
    """
    scope = _CURRENT.get()
    if scope is not None and scope.task is not None:
        scope.task.status(text)
