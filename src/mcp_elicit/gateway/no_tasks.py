"""What the gateway does with tasks today: it carries none, on either side, and says so
(docs/gateway.md, "Tasks"; the relays and bridges to come are docs/tasks-design.md §6).

Rules:

1. **Not declared to the host.** The gateway's server declares no ``capabilities.tasks``
   (2025-11-25) and no ``extensions["io.modelcontextprotocol/tasks"]`` (2026-07-28), on any
   revision, and serves no ``tasks/*``: it would have to keep the task, and it does not.
2. **Not asked for upstream.** ``params.task`` of the host's ``tools/call`` is dropped
   (:func:`~.context.forwarded`): a host that sends one to a gateway that declared no tasks
   gets the call run plainly, as T25 §Task Support and Handling has a receiver ignore it.
   A 2026-07-28 request upstream never declares the extension (:mod:`.upstream` stamps the
   capabilities of each request itself): the upstream runs the call plainly.
3. **A task-only tool is refused, saying why.** An upstream that runs a tool only as a task
   refuses the plain call: 2025-11-25 with -32601 (T25, ``taskSupport: "required"``),
   2026-07-28 with -32021 naming the extension in ``requiredCapabilities``. Either reaches the
   host with its code and data, but the message is the gateway's
   (:func:`task_only_message`): the upstream's own asks the host for a task or a declaration
   the gateway would not carry, and would send it in circles.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import METHOD_NOT_FOUND

from mcp_elicit.protocol.codes import MISSING_REQUIRED_CLIENT_CAPABILITY, TASKS_EXTENSION

LIST_PAGES = 20
"""``tools/list`` pages read to find whether a refused tool is task-only: a server that pages
on and on is not followed, and its own refusal goes to the host unchanged."""

ListTools = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""``tools/list`` upstream with these params; the raw result."""


def task_only_message(tool: str) -> str:
    """What the host is told when the upstream runs ``tool`` only as a task."""
    return f"upstream runs {tool} only as a task, and mcp-elicit gateway does not carry tasks yet"


def without_tasks_extension(capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """``capabilities`` (a 2026-07-28 request's ``clientCapabilities``) without the tasks
    extension (rule 2)."""
    out = dict(capabilities)
    extensions = out.get("extensions")
    if isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions:
        kept = {key: value for key, value in extensions.items() if key != TASKS_EXTENSION}
        if kept:
            out["extensions"] = kept
        else:
            del out["extensions"]
    return out


async def refusal_of(
    error: MCPError, tool: str, *, rounds: bool, list_tools: ListTools
) -> MCPError:
    """Rule 3: the error the host gets for ``tool``, which the upstream refused with
    ``error`` (``rounds``: the upstream speaks 2026-07-28). The same error unless the refusal
    is for a task-only tool."""
    if rounds:
        if error.code == MISSING_REQUIRED_CLIENT_CAPABILITY and _names_tasks(error.data):
            return MCPError(error.code, task_only_message(tool), error.data)
        return error
    if error.code == METHOD_NOT_FOUND and await _listed_as_task_only(tool, list_tools):
        return MCPError(error.code, task_only_message(tool), error.data)
    return error


def _names_tasks(data: Any) -> bool:
    """-32021's ``data`` asks for the tasks extension (-32021 is also a missing mode)."""
    if not isinstance(data, Mapping):
        return False
    required = data.get("requiredCapabilities")
    extensions = required.get("extensions") if isinstance(required, Mapping) else None
    return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions


async def _listed_as_task_only(tool: str, list_tools: ListTools) -> bool:
    """2025-11-25's -32601 is also an unknown method; only ``tools/list`` tells whether the
    tool is ``taskSupport: "required"``. Read only once a call was refused, so a call that
    works costs nothing more."""
    params: dict[str, Any] = {}
    for _ in range(LIST_PAGES):
        try:
            listed = await list_tools(params)
        except MCPError:
            return False  # the upstream's own refusal stands
        for entry in listed.get("tools") or []:
            if isinstance(entry, Mapping) and entry.get("name") == tool:
                execution = entry.get("execution")
                return isinstance(execution, Mapping) and execution.get("taskSupport") == "required"
        cursor = listed.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return False
        params = {"cursor": cursor}
    return False
