"""The request being served, as ``ask`` and ``secret`` see it: set by the middleware around
every request, read through a context variable (tasks a tool starts inherit it).

One scope holds the SDK's request context (the client's revision and capabilities, the
session to push a question through, the identity), the peer read from it, the server's
:class:`~mcp_elicit.server.runtime.Runtime`, on 2026-07-28 the :class:`Round`, and for a
task-augmented call (2025-11-25) the task it runs as. There is no registry of servers:
whatever a request needs comes with the request.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext

from mcp_elicit.revisions import Revision
from mcp_elicit.server.peer import Peer, peer_of_request
from mcp_elicit.server.rounds import Round
from mcp_elicit.server.runtime import DEFAULT_SETTINGS, Runtime, Settings
from mcp_elicit.server.tasks import TaskRun


@dataclass(slots=True)
class RequestScope:
    request: ServerRequestContext[Any, Any]
    peer: Peer
    runtime: Runtime | None
    round: Round | None = None
    task: TaskRun | None = None
    """The task this request runs as (a task-augmented ``tools/call``), else ``None``."""

    @property
    def settings(self) -> Settings:
        return self.runtime.settings if self.runtime is not None else DEFAULT_SETTINGS

    def require_runtime(self, what: str) -> Runtime:
        if self.runtime is None:
            raise RuntimeError(f"{what} need mcp_elicit.server.Elicitation installed")
        return self.runtime

    def require_round(self) -> Round:
        if self.round is None:
            raise RuntimeError(
                f"asking a {Revision.V2026_07_28} client needs mcp_elicit.server.Elicitation "
                "installed on the server: it turns the question into an InputRequiredResult"
            )
        return self.round

    def waiting_for_person(self) -> contextlib.AbstractContextManager[None]:
        """Around a wait for the person (a question out, a page open): a task shows
        ``input_required`` meanwhile."""
        return self.task.input_required() if self.task is not None else contextlib.nullcontext()


def scope_for(
    request: ServerRequestContext[Any, Any],
    runtime: Runtime | None,
    round_: Round | None,
    task: TaskRun | None = None,
) -> RequestScope:
    url_draft = runtime.settings.url_draft if runtime is not None else False
    peer = peer_of_request(request, url_draft=url_draft)
    return RequestScope(request, peer, runtime, round_, task)


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
        return scope_for(request, None, None)
    raise RuntimeError(
        "no MCP request is being served here: call ask() and secret() inside a tool of a "
        "server with mcp_elicit.server.Elicitation installed"
    )
