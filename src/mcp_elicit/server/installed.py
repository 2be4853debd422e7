"""Which servers have ``Elicitation`` installed, and with what settings.

Kept apart from ``elicitation`` so that the ask helpers can read the settings without
importing the hosted pages, the vault and the flows.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer

if TYPE_CHECKING:
    from mcp_elicit.server.elicitation import Elicitation


DEFAULT_URL_RESUME_WAIT = 20.0


@dataclass(frozen=True, slots=True)
class Settings:
    url_draft: bool = False
    # 2026-07-28: how long a retry after "I opened the link" is held while the person is
    # still on the page, before the link is asked for again (see url_mode).
    url_resume_wait: float = DEFAULT_URL_RESUME_WAIT


_DEFAULT = Settings()
_INSTALLED: weakref.WeakKeyDictionary[MCPServer[Any], Elicitation] = weakref.WeakKeyDictionary()


def register(server: MCPServer[Any], elicitation: Elicitation) -> None:
    if server in _INSTALLED:
        raise RuntimeError("Elicitation is already installed on this server")
    _INSTALLED[server] = elicitation


def installed_on(ctx: Context[Any, Any]) -> Elicitation | None:
    try:
        server = ctx.mcp_server
    except Exception:  # a Context built outside a server (MCPServer.call_tool in a test)
        return None
    return _INSTALLED.get(server)


def settings_of(ctx: Context[Any, Any]) -> Settings:
    found = installed_on(ctx)
    return found.settings if found is not None else _DEFAULT
