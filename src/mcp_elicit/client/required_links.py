"""A call refused until a link is opened (-32042; the URL-mode draft's -32604), then retried.

The server answers a call with "open this link first" instead of a result. The person goes
through consent, the link opens, the host waits for completion (the server's notification,
the draft's ``elicitation/track``, or the person's word), and the call is made again. One
owner for every host that makes calls through the SDK's session:
:class:`~mcp_elicit.client.ElicitingClient` and the framework adapters
(:mod:`mcp_elicit.integrations`) both call :func:`call_after_links`.

Bounds, because the server drives this loop: the same links asked again after the person
completed them, or more than ``max_retries`` sets of links in one call, end it with
:class:`UrlElicitationLoop`. If the person declines or cancels, the server's own error is
raised, unchanged, to the caller.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from mcp.shared.exceptions import MCPError

from mcp_elicit.client.link_requests import Tracker
from mcp_elicit.client.steps import Asking
from mcp_elicit.protocol import ElicitationRequest, parse_url_required_error
from mcp_elicit.revisions import Revision

if TYPE_CHECKING:
    from mcp_elicit.client.handler import ElicitationHandler

ResultT = TypeVar("ResultT")


class UrlElicitationLoop(RuntimeError):
    """The server asked again for URL elicitations the person had already completed."""


async def call_after_links(
    call: Callable[[], Awaitable[ResultT]],
    handler: ElicitationHandler,
    asking: Asking,
    *,
    max_retries: int,
    tracker: Tracker | None = None,
    check: Callable[[list[ElicitationRequest]], None] | None = None,
) -> ResultT:
    """``call()``'s result, taking the person through every "open this link first" error it
    raises on the way (``handler.obtain``), and retrying it after each.

    ``asking`` says who asks, with ``required_by`` the tool's name; ``tracker`` waits for a
    URL-mode draft link's completion (``elicitation/track``), when the host can send it;
    ``check`` sees each error's links before the person sees any, and raises to end the
    call there (a gateway's limits on what one server may ask).
    Raises the server's ``MCPError`` when the person does not complete the links, and
    :class:`UrlElicitationLoop` when the server keeps asking."""
    seen: set[frozenset[str]] = set()
    while True:
        try:
            return await call()
        except MCPError as error:
            requests = parse_url_required_error(
                error.error.model_dump(by_alias=True, mode="json", exclude_none=True)
            )
            if requests is None:
                raise
            if check is not None:
                check(requests)
            key = frozenset(r.elicitation_id or r.url or "" for r in requests)
            if key in seen or len(seen) >= max_retries:
                raise UrlElicitationLoop(
                    f"{asking.server} asked again for the same URL elicitation "
                    f"({', '.join(sorted(key))}) after it was completed; not retrying "
                    f"{asking.required_by}"
                ) from error
            seen.add(key)
            who, track = asking, None
            if _draft(requests):
                who, track = replace(asking, revision=Revision.URL_DRAFT), tracker
            if not await handler.obtain(requests, who, tracker=track):
                raise


def _draft(requests: list[ElicitationRequest]) -> bool:
    return any(r.revision_hint == Revision.URL_DRAFT.value for r in requests)
