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

Off loopback the pages need https (:func:`check_transport`): a secret typed into a page served
over plain http crosses the network readable by anyone on the path, and so do the page's CSRF
cookie and token. Loopback http never leaves the machine, so it stays allowed: it is how a
stdio server serves its pages. Development on a LAN may opt in to plain http
(``allow_insecure_http=True``, or :data:`INSECURE_HTTP_VARIABLE` set to ``1``).

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

from mcp_elicit.i18n import N_, _
from mcp_elicit.server.link_rules import (
    INSECURE_HTTP_VARIABLE,
    insecure_http_allowed,
    is_loopback_host,
)

logger = logging.getLogger(__name__)

AllowedHosts = Collection[str] | Callable[[], Collection[str]]
"""``Host`` values to accept (lower case), or a function returning them on each request (for
a ``public_url`` that is set after the app is built)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_REFUSED = N_(
    "Bad request: this server does not answer to that host name. Open the link exactly as "
    "the app gave it."
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


def check_transport(
    *,
    public_url: str | None,
    bind_host: str | None = None,
    allow_insecure_http: bool = False,
) -> None:
    """Refuse (``ValueError``, naming the setting) pages that would be reached over plain http
    from another machine: a ``public_url`` of ``http://`` on a host that is not loopback, or
    a server bound to a host that is not loopback (``bind_host``) with no ``public_url``
    (the address people open, behind the proxy that terminates TLS)."""
    if insecure_http_allowed(allow_insecure_http):
        return
    fix = (
        f"or, for development only, pass allow_insecure_http=True (or set "
        f"{INSECURE_HTTP_VARIABLE}=1)"
    )
    if bind_host is not None and not is_loopback_host(bind_host) and public_url is None:
        raise ValueError(
            f"serving on host {bind_host!r} (not loopback) needs public_url, the https:// "
            f"address people open the hosted pages at (a TLS-terminating proxy in front of "
            f"this server): without it the pages, and the secrets typed into them, would "
            f"travel over plain http. Set public_url='https://...', {fix}"
        )
    if public_url is None:
        return
    parts = urlsplit(public_url)
    if parts.scheme.lower() == "http" and not is_loopback_host(parts.hostname or ""):
        raise ValueError(
            f"public_url {public_url!r} serves the hosted pages over plain http to other "
            f"machines: a secret typed there would cross the network readable by anyone on "
            f"the path. Use an https:// public_url (TLS at a proxy in front of this "
            f"server), {fix}"
        )


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
        await PlainTextResponse(_(_REFUSED) + "\n", status_code=400)(scope, receive, send)
