"""DNS resolution, the only I/O in :mod:`mcp_elicit.urls`, done only when asked for.

A public-looking name can resolve to 127.0.0.1 or 10.0.0.5 (``localtest.me`` does, and anyone
can publish such a record), so the address checks can be run on what the name resolves to.
This says where the name points *now*; DNS can answer differently when the person clicks.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from mcp_elicit.i18n import _
from mcp_elicit.urls.addresses import IPAddress

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Resolution:
    addresses: tuple[IPAddress, ...]
    error: str | None
    """Why nothing was resolved, in the language in effect (or the resolver's own words);
    ``None`` when ``addresses`` is the answer."""


def resolve(ascii_host: str, port: int, timeout: float) -> Resolution:
    """Resolve a name with ``socket.getaddrinfo``, giving up after ``timeout`` seconds."""
    name = ascii_host.removesuffix(".")
    if name == "invalid" or name.endswith(".invalid"):
        # RFC 6761 §6.4: resolvers must answer "no such name" for .invalid without asking DNS.
        return Resolution((), _("names under .invalid never exist (RFC 6761)"))

    box: list[Resolution] = []

    def work() -> None:
        box.append(_getaddrinfo(ascii_host, port))

    # getaddrinfo has no timeout of its own. A daemon thread that we stop waiting for is the
    # simplest way to bound it synchronously; if it hangs, it ends with the resolver's own
    # timeout and does not keep the interpreter alive.
    thread = threading.Thread(target=work, name="mcp-elicit-resolve", daemon=True)
    thread.start()
    thread.join(timeout)
    if not box:
        return Resolution(
            (), _("no answer from DNS within {seconds} seconds").format(seconds=f"{timeout:g}")
        )
    if not box[0].addresses and box[0].error is None:
        # Worded here, not in the worker thread, which does not see the language in effect.
        return Resolution((), _("DNS returned no IP addresses"))
    return box[0]


def _getaddrinfo(host: str, port: int) -> Resolution:
    """Runs in a worker thread: its own errors are the resolver's words; an empty answer is
    left for :func:`resolve` to word."""
    try:
        # Looked up on the module at call time, so tests can monkeypatch socket.getaddrinfo.
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return Resolution((), exc.strerror or str(exc))
    except (OSError, UnicodeError, ValueError) as exc:
        return Resolution((), str(exc) or type(exc).__name__)
    found: dict[IPAddress, None] = {}
    for info in infos:
        sockaddr = info[4]
        text = str(sockaddr[0]).partition("%")[0]  # drop an IPv6 scope ("fe80::1%eth0")
        try:
            found.setdefault(ipaddress.ip_address(text), None)
        except ValueError:
            continue
    return Resolution(tuple(found), None)


async def in_thread(function: Callable[[], _T]) -> _T:
    """Run a blocking call (a check that resolves) off the event loop. It lives here so that
    this module stays the only one in mcp_elicit.urls that touches I/O machinery.

    asyncio is imported here, not at the top: it is a third of the layer's import time, and
    ``mcp-elicit url check`` (called in loops by scripts) never needs it."""
    import asyncio

    return await asyncio.to_thread(function)
