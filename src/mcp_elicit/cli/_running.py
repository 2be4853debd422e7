"""Running a client for a command, and saying what went wrong in one line."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from mcp.shared.exceptions import MCPError

from mcp_elicit.client import ElicitingClient

T = TypeVar("T")


async def run_client(client: ElicitingClient, body: Callable[[ElicitingClient], Awaitable[T]]) -> T:
    """Connect, run ``body``, disconnect; an error that anyio wrapped in a group is unwrapped,
    so the caller sees the one that happened."""
    try:
        async with client as connected:
            return await body(connected)
    except BaseExceptionGroup as group:
        raise _first(group) from None


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            return _first(error)
        return error
    return group


def describe_failure(error: BaseException, *, tool: str | None = None) -> str:
    if isinstance(error, MCPError):
        where = f"{tool}: " if tool else ""
        return f"{where}error {error.code}: {error.message}"
    if isinstance(error, FileNotFoundError):
        return f"cannot start the server: {error.filename or error}: no such file"
    if isinstance(error, OSError):
        return f"cannot reach the server: {error}"
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if type(error).__module__.startswith("httpx") else text
