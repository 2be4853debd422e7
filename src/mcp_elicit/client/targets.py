"""What to connect to: an ``http(s)://`` URL, or a command that runs a server over stdio."""

from __future__ import annotations

import os
from collections.abc import Sequence
from urllib.parse import urlsplit

from mcp.client.stdio import StdioServerParameters


class TargetError(ValueError):
    """A target that names no server we can reach; the message says which rule it broke."""


def server_for(url: str | None, command: Sequence[str] = ()) -> str | StdioServerParameters:
    """The ``server`` argument for :class:`ElicitingClient`: exactly one of ``url`` and
    ``command`` (the words after ``--``)."""
    if url is not None and command:
        raise TargetError("give either a URL or '-- command args...', not both")
    if command:
        # The server runs as the person's own program would: with their environment.
        return StdioServerParameters(
            command=command[0], args=list(command[1:]), env=dict(os.environ)
        )
    if url is None:
        raise TargetError("no server: give an http(s):// URL, or '-- command args...' last")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise TargetError(
            f"{url!r} is not an http(s):// URL; to start a server, put '-- command' last"
        )
    return url


def describe(server: str | StdioServerParameters) -> str:
    if isinstance(server, str):
        return server
    return " ".join([server.command, *server.args])
