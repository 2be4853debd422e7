"""What to connect to: an ``http(s)://`` URL, or a command that runs a server over stdio."""

from __future__ import annotations

import os
from collections.abc import Sequence
from urllib.parse import urlsplit

from mcp.client.stdio import StdioServerParameters

from mcp_elicit.client.server_log import LoggedStdioServer, logged
from mcp_elicit.i18n import _


class TargetError(ValueError):
    """A target that names no server we can reach; the message says which rule it broke."""


def server_for(
    url: str | None, command: Sequence[str] = (), *, log_stderr: bool = False
) -> str | StdioServerParameters | LoggedStdioServer:
    """The ``server`` argument for :class:`ElicitingClient`: exactly one of ``url`` and
    ``command`` (the words after ``--``).

    With ``log_stderr``, a command's server writes its stderr to its log file in the state
    directory (a :class:`LoggedStdioServer`) instead of onto this process's stderr: what a
    host with a person at the terminal wants.
    """
    if url is not None and command:
        raise TargetError(_("give either a URL or '-- command args...', not both"))
    if command:
        # The server runs as the person's own program would: with their environment.
        params = StdioServerParameters(
            command=command[0], args=list(command[1:]), env=dict(os.environ)
        )
        return logged(params) if log_stderr else params
    if url is None:
        raise TargetError(_("no server: give an http(s):// URL, or '-- command args...' last"))
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise TargetError(
            _("{url} is not an http(s):// URL; to start a server, put '-- command' last").format(
                url=repr(url)
            )
        )
    return url


def describe(server: str | StdioServerParameters | LoggedStdioServer) -> str:
    if isinstance(server, str):
        return server
    if isinstance(server, LoggedStdioServer):
        server = server.params
    return " ".join([server.command, *server.args])
