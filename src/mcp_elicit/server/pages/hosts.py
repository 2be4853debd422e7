"""The pages answer only requests addressed to this server by name: the ``Host`` header must
be one of an allow-list, or the request is refused with 400 before any page code runs.

Why: DNS rebinding. A page on ``evil.example`` can make its own name resolve to 127.0.0.1
and then fetch ``http://evil.example:PORT/elicit/...``: the browser treats the answer as
``evil.example``'s, so the page's script may read it, and its ``Origin`` matches the
``Host`` it sent, so the same-origin check (``csrf.py``) passes too. The one thing it cannot
change is that ``Host`` says ``evil.example``. The SDK checks ``Host`` on ``/mcp`` only; these
pages need their own check.

The allow-list: ``127.0.0.1``, ``localhost`` and ``[::1]`` on the port the pages listen on
when they are on loopback, and the host (and port) of ``public_url`` when one is set.

Starlette's ``TrustedHostMiddleware`` is not used: it drops the port before comparing (any
port passes) and cuts ``[::1]:8000`` at its first colon. The port matters here because the
same-origin check builds this server's origin from ``Host``: pinning ``Host`` to exactly the
addresses the pages are reached at pins that origin too.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Collection
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger(__name__)

AllowedHosts = Collection[str] | Callable[[], Collection[str]]
"""``Host`` values to accept (lower case), or a function returning them on each request (for
a ``public_url`` that is set after the app is built)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_REFUSED = (
    "Bad request: this server does not answer to that host name. Open the link exactly as "
    "the app gave it.\n"
)


def _host_values(name: str, port: int, default_port: int) -> set[str]:
    # A browser leaves the port out of Host when it is the scheme's default; a proxy may
    # spell it out. Both mean the same address.
    values = {f"{name}:{port}"}
    if port == default_port:
        values.add(name)
    return values


@functools.lru_cache(maxsize=16)
def page_hosts(*, public_url: str | None, loopback_port: int | None) -> frozenset[str]:
    """The ``Host`` values the pages accept (see the module docstring). Cached: it is asked
    on every request, with the same two values almost always."""
    hosts: set[str] = set()
    if loopback_port is not None:
        for name in _LOOPBACK_NAMES:
            hosts |= _host_values(name, loopback_port, _DEFAULT_PORTS["http"])
    if public_url is not None:
        hosts |= _hosts_of_url(public_url)
    return frozenset(hosts)


def _hosts_of_url(url: str) -> set[str]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"public_url must be an http:// or https:// origin, not {url!r}")
    name = parts.hostname  # lower case, brackets of an IPv6 literal removed
    if ":" in name:
        name = f"[{name}]"
    default_port = _DEFAULT_PORTS[scheme]
    return _host_values(name, parts.port or default_port, default_port)


class HostCheck:
    """Refuse (400, plain text) a request whose ``Host`` is not allowed. Put it inside
    ``SecurityHeaders`` so that the refusal carries the same headers as every page."""

    def __init__(self, app: ASGIApp, allowed: AllowedHosts) -> None:
        self.app = app
        self._allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # the pages have no websocket routes; lifespan passes
            await self.app(scope, receive, send)
            return
        allowed = self._allowed() if callable(self._allowed) else self._allowed
        host = Headers(scope=scope).get("host")
        if host is not None and host.lower() in allowed:
            await self.app(scope, receive, send)
            return
        if not allowed:
            logger.warning(
                "hosted pages: refused a request: no Host is allowed yet (set "
                "Elicitation.public_url, or serve the pages with Elicitation.run)"
            )
        else:
            # %r and a cut: the header is the sender's, keep it on one short line.
            logger.warning(
                "hosted pages: refused a request for Host %r (allowed: %s)",
                None if host is None else host[:100],
                ", ".join(sorted(allowed)),
            )
        await PlainTextResponse(_REFUSED, status_code=400)(scope, receive, send)
