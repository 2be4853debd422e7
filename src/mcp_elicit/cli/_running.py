"""Saying in one line what went wrong with a client command."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError


def describe_failure(error: BaseException, *, tool: str | None = None) -> str:
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
