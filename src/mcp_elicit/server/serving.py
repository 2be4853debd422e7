"""Serving a server and its hosted pages: the one module that knows uvicorn.

- The pages app (:func:`pages_app`), made from the runtime's parts: the flows, the vault, who
  the user is, and downstream OAuth's connect pages when there are providers.
- Streamable HTTP (:func:`serve_http`): the server's app, with the pages mounted in it, on the
  host and port given; ``uvicorn_options`` checked against ``uvicorn.Config`` first
  (:func:`uvicorn_options_for`), and each 2025-era session id tagged with this instance when
  several run behind a load balancer (:class:`~mcp_elicit.server.instances.SessionTag`).
- stdio (:func:`serve_loopback_pages`): the protocol goes over stdin and stdout, so the pages
  are served apart, on a port of 127.0.0.1, for the one person the server serves.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import anyio
import anyio.abc
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit.server import logs
from mcp_elicit.server.identity import Identity, LocalIdentity
from mcp_elicit.server.instances import SessionTag
from mcp_elicit.server.link_rules import is_loopback_host
from mcp_elicit.server.links import PAGES_PREFIX
from mcp_elicit.server.pages import hosted_pages, page_hosts
from mcp_elicit.server.runtime import Runtime

INSTANCE_VARIABLE = "MCP_ELICIT_INSTANCE"
PAGES_PORT_VARIABLE = "MCP_ELICIT_PAGES_PORT"

DEFAULT_UVICORN_OPTIONS: Mapping[str, Any] = MappingProxyType(
    {
        # uvicorn's own default is 5 s, the same as the idle pool of httpx (and so of the SDK's
        # client): a client may reuse a connection just as the server closes it, and the call
        # fails with a reset. The side that closes an idle connection must be the client, so
        # the server waits longer than common clients' and proxies' pools (httpx 5 s; nginx's
        # upstream keepalive_timeout and cloud load balancers 60 s): docs/deployment.md.
        "timeout_keep_alive": 75,
        "log_level": "warning",
    }
)
"""What ``Elicitation.run`` gives ``uvicorn.Config`` unless ``uvicorn_options`` says
otherwise; ``log_level`` only when the application has not configured logging, and
``log_config=None`` always (:func:`mcp_elicit.server.logs.uvicorn_logging`)."""

_SET_BY_RUN = frozenset(
    {
        "app",
        "host",
        "port",
        "uds",
        "fd",
        "lifespan",
        "factory",
        "workers",
        "reload",
        "reload_dirs",
        "reload_delay",
        "reload_includes",
        "reload_excludes",
    }
)


def pages_app(
    runtime: Runtime, server_name: str, loopback_port: int | None, *, language: str | None
) -> Starlette:
    """The hosted pages of ``runtime``'s flows (``pages.hosted_pages`` has the rest), for the
    ``Host`` of ``public_url`` (read on each request: it may be set later) and, with
    ``loopback_port``, for loopback on that port."""
    pages_key = runtime.key.derive_all("csrf")  # newest first: a rotation opens the old
    connector = None
    if runtime.providers:
        # Only a server with providers needs the oauth extra.
        from mcp_elicit.server.oauth.connect import Connector

        connector = Connector(
            providers=runtime.providers,
            flows=runtime.flows,
            vault=runtime.vault,
            identity=runtime.identity,
            key=pages_key,
            server_name=server_name,
        )
    return hosted_pages(
        flows=runtime.flows,
        vault=runtime.vault,
        identity=runtime.identity,
        csrf_key=pages_key,
        server_name=server_name,
        allowed_hosts=lambda: page_hosts(
            public_url=runtime.public_url, loopback_port=loopback_port
        ),
        connect=connector.connect if connector is not None else None,
        finished=connector.finished if connector is not None else None,
        extra_routes=connector.routes() if connector is not None else (),
        language=language,
    )


def uvicorn_options_for(transport: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """``given`` over :data:`DEFAULT_UVICORN_OPTIONS`, checked against ``uvicorn.Config``:
    a misspelt or an unusable option is a ``ValueError`` naming it, not a silent default.
    Over stdio there is no uvicorn to take them (the pages' own takes none)."""
    if transport == "stdio":
        if given:
            raise ValueError(
                "uvicorn_options are for run(..., 'streamable-http'); a stdio server's "
                "pages on 127.0.0.1 serve one person and take none"
            )
        return {}
    # uvicorn's records go through the application's logging, at its levels when it has
    # configured any (mcp_elicit.server.logs): given options still override.
    options = {
        **DEFAULT_UVICORN_OPTIONS,
        **logs.uvicorn_logging(DEFAULT_UVICORN_OPTIONS["log_level"]),
    }
    known = inspect.signature(uvicorn.Config).parameters
    for name, value in (given or {}).items():
        if name in _SET_BY_RUN:
            raise ValueError(
                f"uvicorn_options: {name!r} is not an option here: run() sets it (host and "
                f"port are run's own arguments; workers and reload need uvicorn's command "
                f"line, and the Streamable HTTP app needs its lifespan)"
            )
        if name not in known:
            raise ValueError(
                f"uvicorn_options: uvicorn.Config has no option {name!r} (uvicorn "
                f"{uvicorn.__version__})"
            )
        options[name] = value
    return options


def refuse_one_user_off_loopback(identity: Identity, host: str) -> None:
    if isinstance(identity, LocalIdentity) and not is_loopback_host(host):
        raise ValueError(
            f"LocalIdentity is single-user: serving it on {host!r} would make every "
            "caller and every browser the same user. Bind to 127.0.0.1, or pass an "
            "identity that tells users apart (AccessTokenIdentity)"
        )


def served_origin(host: str, port: int, options: Mapping[str, Any]) -> str:
    """The origin uvicorn serves ``host:port`` at: https when it terminates TLS itself."""
    scheme = "https" if options.get("ssl_certfile") else "http"
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


async def serve_http(
    app: Starlette, *, host: str, port: int, options: Mapping[str, Any], instance: str | None
) -> None:
    """Serve ``app`` on ``host:port`` until cancelled. ``instance`` (default:
    ``MCP_ELICIT_INSTANCE``): this instance's tag, put in 2025-era session ids so that a load
    balancer sends each session's requests to the instance that holds it (docs/deploy.md)."""
    tag = instance or os.environ.get(INSTANCE_VARIABLE) or None
    served: Any = SessionTag(app, tag) if tag else app
    config = uvicorn.Config(served, host=host, port=port, **options)
    await uvicorn.Server(config).serve()


@contextlib.contextmanager
def signals_after_cleanup() -> Iterator[None]:
    """SIGINT and SIGTERM held until the block has ended, then raised again as they came.

    Why: uvicorn, once a signal has stopped it, raises that signal again as soon as it has
    served, under the handlers it found. Under Python's default for SIGTERM that ends the
    process at once, before ``Elicitation.running`` has cleaned up: the tasks this instance
    runs would not be failed ("The server stopped") and would wait out their lease on a
    shared store, and the store would not be closed. Around the serving and the cleanup, the
    handlers uvicorn finds only note the signal; it is raised again, under the handlers there
    were before, once the cleanup is over (the cleanup is bounded: a few seconds)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only: nothing to hold
        return
    caught: list[int] = []

    def note(sig: int, frame: object) -> None:
        caught.append(sig)

    before = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    for came in dict.fromkeys(caught):  # once each, in the order they came
        signal.raise_signal(came)


async def serve_loopback_pages(
    runtime: Runtime,
    pages: Callable[[int], Starlette],
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """The hosted pages (``pages(port)``) on 127.0.0.1, for a stdio server, until cancelled.
    Nothing is written to stdout (it carries the protocol) and nothing is reachable from
    other machines. With no ``public_url`` yet, links go to this port while it is served."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(os.environ.get(PAGES_PORT_VARIABLE, "0"))))
    port = sock.getsockname()[1]
    ours = runtime.public_url is None
    if ours:
        runtime.public_url = f"http://127.0.0.1:{port}"
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=pages(port))])
    config = uvicorn.Config(app, access_log=False, lifespan="off", **logs.uvicorn_logging())
    web = uvicorn.Server(config)
    task_status.started()
    try:
        await web.serve(sockets=[sock])
    finally:
        # Cancelled (the usual end), uvicorn skips its shutdown: stop its listeners here,
        # or the event loop keeps watching the closed socket's descriptor, and the next
        # socket to get that number (the next session's pages) is never served.
        for listener in getattr(web, "servers", ()):
            listener.close()
        sock.close()
        if ours:
            # The port dies with this run; the next run (a test's next session) serves the
            # pages on a port of its own and must send links there.
            runtime.public_url = None
