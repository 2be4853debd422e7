"""Where a tool's question or link leaves the server: around every request, the scope is set
up, the tool runs, and a pending question or a raised ``UrlRequired`` becomes what the
client's revision expects.

:func:`handle_request` is that core, whatever the server framework: the adapters in
:mod:`mcp_elicit.server.frameworks` (an SDK ``ServerMiddleware`` for ``MCPServer``, a
fastmcp ``Middleware`` for ``FastMCP``) call it around each request and put the
:class:`Handled` it returns in their framework's shape. Raised: ``MCPError`` for the protocol
errors (-32042, -32604, -32021).

The scope is made once per request: the peer is read once, and only a request of the round
era (2026-07-28) gets a :class:`~mcp_elicit.server.rounds.Round`; an earlier revision's
question is pushed, and has no round to resume.

Questions are asked the same way from a prompt (``prompts/get``) and a resource read
(``resources/read``) as from a tool. Only a tool's errors have a result to go in
(``isError``); the SDK turns any other exception from a prompt or a resource into a bare
"Error rendering prompt" (code 0) or "Error creating resource" without our text. So there
:func:`handle_request` finds our error behind the SDK's and raises it as an ``MCPError`` with
its own text: -32603 for the author's mistakes (:class:`LinkInText`, :class:`SecretInForm`),
-32600 for a question this client cannot answer or answered wrongly.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from mcp_elicit.protocol import rules_for, url_request_params, url_required_error
from mcp_elicit.protocol.codes import ELICITATION_CREATE, INVALID_REQUEST
from mcp_elicit.protocol.mrtr import ASKING_METHODS
from mcp_elicit.revisions import Revision
from mcp_elicit.server import rounds
from mcp_elicit.server.answers import Declined
from mcp_elicit.server.errors import CannotAsk, InvalidAnswer, LinkInText, SecretInForm
from mcp_elicit.server.peer import Peer, peer_of_request
from mcp_elicit.server.runtime import Runtime
from mcp_elicit.server.scope import RequestScope, entered
from mcp_elicit.server.tasks import TaskRun
from mcp_elicit.server.url_mode import UrlRequired, consent_of, no_url_mode
from mcp_elicit.stores import FlowStatus


@dataclass(frozen=True, slots=True)
class Finished:
    """The request ran to its end: its own result."""

    result: Any


@dataclass(frozen=True, slots=True)
class InputRequested:
    """2026-07-28: the request ends asking for input (an ``InputRequiredResult``)."""

    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolFailed:
    """The tool cannot go on, for a reason the person should read (``isError: true``)."""

    text: str


Handled = Finished | InputRequested | ToolFailed


async def handle_request(
    runtime: Runtime,
    request: ServerRequestContext[Any, Any],
    run: Callable[[], Awaitable[Any]],
    *,
    task: TaskRun | None = None,
) -> Handled:
    """Run one request (``run``) in its scope, as ``task`` when it runs as one; see the module
    docstring."""
    peer = peer_of_request(request, url_draft=runtime.settings.url_draft)
    # A task's questions are kept in the task, on 2026-07-28 too: no round to end.
    round_ = _round_of(request, peer) if task is None else None
    if round_ is not None and round_.responses:
        await _resume_after_link(runtime, round_)
    scope = RequestScope(request, peer, runtime, round_, task)
    with entered(scope):
        try:
            return await _run(runtime, scope, run)
        except rounds.AskPending as pending:
            return InputRequested(pending.result())
        except UrlRequired as required:
            return _url_required(runtime, scope, required)
        except BaseExceptionGroup as group:
            pending_in = rounds.find_pending(group)
            if pending_in is None:
                raise
            return InputRequested(pending_in.result())
        except Exception as failed:
            ours = _our_error(failed) if request.method != "tools/call" else None
            if ours is None:
                raise
            code = (
                INTERNAL_ERROR if isinstance(ours, LinkInText | SecretInForm) else INVALID_REQUEST
            )
            raise MCPError(code, str(ours)) from failed


MAX_LINKS_IN_TASK = 3
"""Inside a task, how many times a tool's ``UrlRequired`` becomes a link question and a run of
the body again; past it the task ends with the -32042 the call would have answered (as a
client's ``max_url_retries`` would give up)."""


async def _run(runtime: Runtime, scope: RequestScope, run: Callable[[], Awaitable[Any]]) -> Handled:
    """``run``, and inside a task (either revision) a ``UrlRequired`` it raises asked as an in-task
    link question, then the body run again in the same task, as the client's retry after
    -32042 would have (design ``docs/tasks-design.md`` §3 "URL mode inside a task", A12): the
    call was answered with its task already, so only the task can carry the link."""
    links = 0
    while True:
        try:
            return Finished(await run())
        except UrlRequired as required:
            if scope.task is None or links == MAX_LINKS_IN_TASK:
                raise
            links += 1
            ended = await _link_in_task(runtime, scope, required)
            if ended is not None:
                return ended


async def _link_in_task(
    runtime: Runtime, scope: RequestScope, required: UrlRequired
) -> Handled | None:
    """Ask for ``required``'s link inside the task and wait for its flow; ``None`` to run the
    body again, else how the call ends (the person declined, the page was not completed)."""
    revision = scope.peer.revision
    if revision is None or not scope.peer.modes.url:
        refusal = no_url_mode(scope.peer)
        if isinstance(refusal, MCPError):
            raise refusal
        return ToolFailed(str(refusal))
    params = url_request_params(
        required.prompt,
        required.url,
        # 2026-07-28 has none (an extension task waits for the flow itself, no notice)
        elicitation_id=required.elicitation_id if rules_for(revision).has_elicitation_id else None,
        revision=revision,
    )
    try:
        raw = await scope.send_elicitation(params, timeout=None)
    except MCPError as exc:
        return ToolFailed(f"The client refused the link this tool needs: {exc.error.message}")
    refused = consent_of(raw, revision)
    if refused is not None:
        what = "declined" if isinstance(refused, Declined) else "did not open"
        return ToolFailed(f"The person {what} the link this tool needs: {required.prompt}")
    flow = await runtime.flows.get(required.flow_id) if required.flow_id is not None else None
    if flow is None:
        return None  # nothing to wait for: the body checks its own precondition again
    with scope.waiting_for_page(required.url):
        finished = await runtime.completions.after_link(
            revision,
            flow,
            session=scope.completion_client(),
            elicitation_id=required.elicitation_id,
            request_id=None,
            timeout=None,
        )
    if finished.status is not FlowStatus.COMPLETED:
        return ToolFailed(
            f"The page this tool needs was {finished.status.value}, not completed: "
            f"{required.prompt}"
        )
    return None


_OURS = (CannotAsk, InvalidAnswer, LinkInText, SecretInForm)


def _our_error(failed: BaseException) -> BaseException | None:
    """Our error (raised by ``ask`` and the like) behind what the SDK made of it, else
    ``None``. The SDK wraps a prompt's exception in ``ValueError``\\ s (``raise ... from``)
    and a resource's in a ``ResourceError``, itself turned into an ``MCPError`` while it is
    handled; an ``MCPError`` of ours (``CapabilityRequired``: -32021) passes as it is."""
    found: BaseException | None = failed
    if isinstance(found, MCPError):
        found = found.__context__ if isinstance(found.__context__, ResourceError) else None
    while isinstance(found, ValueError | ResourceError):
        if isinstance(found, _OURS):
            return found
        found = found.__cause__
    return found if isinstance(found, _OURS) and not isinstance(found, MCPError) else None


def _round_of(request: ServerRequestContext[Any, Any], peer: Peer) -> rounds.Round | None:
    """The round of a request that may ask, when its client's revision asks in rounds
    (2026-07-28): from its ``inputResponses`` and (unsealed) ``requestState``."""
    if request.method not in ASKING_METHODS or peer.rules is None or peer.rules.push_requests:
        return None
    params = request.params or {}
    return rounds.Round.from_request(params.get("inputResponses"), params.get("requestState"))


async def _resume_after_link(runtime: Runtime, round_: rounds.Round) -> None:
    response = round_.link_response()
    if response is not None and consent_of(response, Revision.V2026_07_28) is None:
        await runtime.completions.resume_linked(round_)


def _url_required(runtime: Runtime, scope: RequestScope, required: UrlRequired) -> Handled:
    """``UrlRequired`` in the client's revision: -32042 (2025-11-25), -32604 (the URL-mode
    draft), an input request (2026-07-28, which retired the error), or the reason the client
    cannot be sent to a link at all."""
    peer = scope.peer
    revision = peer.revision
    if revision is None or not peer.modes.url:
        refusal = no_url_mode(peer)
        if isinstance(refusal, MCPError):
            raise refusal
        return ToolFailed(str(refusal))
    if scope.task is not None and not rules_for(revision).push_requests:
        # An extension task asked for the link MAX_LINKS_IN_TASK times already; 2026-07-28 has
        # no -32042 to end it with, so the result says it.
        return ToolFailed(
            f"The link this tool needs was opened {MAX_LINKS_IN_TASK} times and it still needs "
            f"it: {required.prompt}"
        )
    if not rules_for(revision).push_requests:
        # The link becomes an input request, and the retry after it runs the tool again,
        # which checks its own precondition.
        round_ = scope.require_round()
        answered = round_.link_response()
        refused = consent_of(answered, revision) if answered is not None else None
        if refused is not None:
            # Declined or cancelled, and still needed: the call ends (rounds says why).
            what = "declined" if isinstance(refused, Declined) else "did not open"
            return ToolFailed(f"The person {what} the link this tool needs: {required.prompt}")
        params = {"mode": "url", "message": required.prompt, "url": required.url}
        request = {"method": ELICITATION_CREATE, "params": params}
        key = round_.next_key(rounds.LINK_KEY)
        pending = round_.ask(key, request, rounds.Asked(None, time.time(), flow=required.flow_id))
        return InputRequested(pending.result())
    error = url_required_error(
        [
            {
                "mode": "url",
                "message": required.prompt,
                "url": required.url,
                "elicitationId": required.elicitation_id,
            }
        ],
        revision=revision,
        message=required.message,
    )
    if required.flow_id is not None:
        # The notice carries the elicitationId this error carries, which an author may have
        # chosen apart from the flow id.
        runtime.completions.after_required(
            revision,
            required.flow_id,
            session=scope.request.session,
            elicitation_id=required.elicitation_id,
        )
    raise MCPError(error["code"], error["message"], error["data"])
