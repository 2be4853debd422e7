"""Saying in one line what went wrong with a client command."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from mcp_elicit.client.server_log import LoggedStdioServer


def describe_failure(
    error: BaseException, *, tool: str | None = None, server: object = None
) -> str:
    """``error`` in one line. When ``server`` is a stdio server that has stopped, the line
    says so and where its log is (its stderr is there, not on the terminal)."""
    stopped = stopped_server(server)
    if stopped is not None:
        where = f"{tool}: " if tool else ""
        notice = f"the server stopped; see its log: {stopped.log_path}"
        if isinstance(error, MCPError) and error.code == CONNECTION_CLOSED:
            return where + notice  # "Connection closed" says nothing more
        return f"{_describe(error, tool=tool)} ({notice})"
    return _describe(error, tool=tool)


def stopped_server(server: object) -> LoggedStdioServer | None:
    """``server``, if it is a stdio server that stopped before we closed it."""
    if isinstance(server, LoggedStdioServer) and server.stopped:
        return server
    return None


def _describe(error: BaseException, *, tool: str | None = None) -> str:
    if isinstance(error, MCPError):
        where = f"{tool}: " if tool else ""
        return f"{where}error {error.code}: {error.message}"
    if isinstance(error, FileNotFoundError):
        return f"cannot start the server: {error.filename or error}: no such file"
    if isinstance(error, OSError):
        return f"cannot reach the server: {error}"
    # Transport errors (httpx2's ConnectError...) say little without their name.
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if type(error).__module__.startswith("httpx") else text
