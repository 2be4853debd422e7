"""A stdio server's stderr goes to a log file, not the person's terminal.

The SDK's ``stdio_client`` copies the server's stderr onto ours by default, so a server's log
lines land in the middle of a question. :class:`LoggedStdioServer` runs the server with its
stderr appended to ``$XDG_STATE_HOME/mcp-elicit/servers/NAME.log`` (default
``~/.local/state/mcp-elicit/servers/``; the file 0600, the folders 0700), one file per server
(:func:`log_name`), and notices when the server stops on its own, so the host can say where
to look.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

import anyio

from mcp_elicit.client._private import private_directory
from mcp_elicit.i18n import _

if TYPE_CHECKING:
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.message import SessionMessage

_Streams = Any  # mcp.client._transport.TransportStreams: (read stream, write stream)


class ServerLogError(RuntimeError):
    """The server's log file cannot be opened; the message names it and says why."""


def client_state_directory() -> Path:
    """``$XDG_STATE_HOME/mcp-elicit``, or ``~/.local/state/mcp-elicit``: where the host keeps
    servers' logs, link files and sign-in tokens."""
    state = os.environ.get("XDG_STATE_HOME", "")
    # The XDG spec says a relative path here is invalid and must be ignored (as the server's
    # key file does: mcp_elicit.server.keys.state_directory, a layer this one cannot import).
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "mcp-elicit"


def server_log_path(command: Sequence[str]) -> Path:
    """Where the stderr of the server started with ``command`` goes."""
    return client_state_directory() / "servers" / f"{log_name(command)}.log"


# Programs that run the server rather than being it: the log is named after what they run.
_RUNNERS = re.compile(
    r"(python[\d.]*|pypy[\d.]*|node(js)?|bun|deno|ruby|perl|php|java|sh|bash|zsh|env|"
    r"npx|pnpx|bunx|uvx|uv|pipx|poetry|pdm|hatch|npm|pnpm|yarn)(\.exe)?",
    re.IGNORECASE,
)
_RUNNER_WORDS = {"run", "exec", "x", "tool", "dlx", "start"}
_GENERIC = {"index", "main", "server", "__main__", "cli", "app", "run", "start"}
_BUILD_FOLDERS = {"dist", "build", "lib", "src", "bin", "out", "..", "node_modules"}
_SUFFIXES = re.compile(r"\.(py|pyz|js|mjs|cjs|ts|mts|rb|pl|php|sh|exe|jar)$", re.IGNORECASE)


def log_name(command: Sequence[str]) -> str:
    """A file name for the server's log: its program's name, or for a program run by an
    interpreter or launcher, what it runs: ``python examples/booking_server.py`` →
    ``booking_server``, ``python -m pkg.server`` → ``pkg.server``, ``npx -y
    @scope/server-everything`` → ``server-everything``, ``node pkg/dist/index.js`` →
    ``pkg.index``, ``./my-server`` → ``my-server``."""
    name = ""
    runner = ""
    for at, word in enumerate(command):
        base = re.split(r"[\\/]", word.rstrip("/\\"))[-1]
        if runner and word == "-m" and at + 1 < len(command):
            name = command[at + 1]
            break
        if runner and word == "-c":
            name = runner  # code on the command line: named after its interpreter
            break
        if word.startswith("-") or re.match(r"\w+=", word) or (runner and word in _RUNNER_WORDS):
            continue
        if _RUNNERS.fullmatch(base) and at + 1 < len(command):
            runner = runner or _SUFFIXES.sub("", base)
            continue
        name = _SUFFIXES.sub("", base)
        if name.lower() in _GENERIC:  # dist/index.js: say whose index
            folders = re.split(r"[\\/]", word)[:-1]
            named = [f for f in folders if f and f.lower() not in _BUILD_FOLDERS and f != "."]
            name = f"{named[-1]}.{name}" if named else name
        break
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name or runner).strip("._-")[:80]
    return name or "server"


def open_log(path: Path) -> TextIO:
    """``path`` opened for appending, owner-only (0600, its folder 0700), never through a
    symbolic link."""
    try:
        private_directory(path.parent)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o600)
    except OSError as error:
        raise ServerLogError(
            _("cannot open the server's log {path}: {reason}").format(
                path=path, reason=error.strerror or error
            )
        ) from None
    if hasattr(os, "fchmod"):
        os.fchmod(fd, 0o600)  # an older file keeps no wider mode
    return os.fdopen(fd, "a", encoding="utf-8", errors="replace")


class LoggedStdioServer:
    """A server started over stdio, its stderr appended to ``log_path``: an SDK transport, to
    give :class:`~mcp_elicit.client.ElicitingClient` (or ``mcp.Client``) as its server.

    ``stopped`` is true once the server's output has ended before the client closed the
    connection: it exited, or crashed (at start, or in a call). Each ``async with`` starts
    the server afresh, with a dated line in the log to mark where its session begins.

    One instance may serve several sessions at once, each entered and exited in a task of its
    own (the gateway's upstream sessions do): each exit closes the server its own task
    started, never the one entered last, which may belong to another task and end while it
    is still in use.
    """

    def __init__(self, params: StdioServerParameters, log_path: Path) -> None:
        self.params = params
        self.log_path = log_path
        self.stopped = False
        # By the task that entered: sessions in different tasks need not end in the order
        # they began, and the SDK's transport must be exited in the task that entered it.
        self._open: dict[int, list[tuple[AbstractAsyncContextManager[Any], TextIO, _Watched]]] = {}

    @property
    def command(self) -> list[str]:
        return [self.params.command, *self.params.args]

    async def __aenter__(self) -> _Streams:
        log = open_log(self.log_path)
        try:
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            log.write(f"--- {stamp} mcp-elicit started the server ---\n")
            log.flush()  # before the server's own lines, which bypass this buffer
            # Here, not at the top: the SDK's transport loads its whole client, and the rest of
            # this module (the state directory the handler's link files use) must not.
            from mcp.client.stdio import stdio_client

            transport = stdio_client(self.params, errlog=log)
            read_stream, write_stream = await transport.__aenter__()
        except BaseException:
            log.close()
            raise
        self.stopped = False
        watched = _Watched(read_stream, self._ended)
        self._open.setdefault(anyio.get_current_task().id, []).append((transport, log, watched))
        return watched, write_stream

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        task = anyio.get_current_task().id
        mine = self._open.get(task)
        if not mine:
            raise RuntimeError("LoggedStdioServer exited in a task that did not enter it")
        transport, log, watched = mine.pop()
        if not mine:
            del self._open[task]
        watched.closing = True  # the end of its output from here on is ours
        try:
            return await transport.__aexit__(exc_type, exc, tb)
        finally:
            log.close()

    def _ended(self) -> None:
        self.stopped = True


class _Watched:
    """The transport's read stream, noticing the end of the server's output."""

    def __init__(self, inner: Any, on_end: Any) -> None:
        self._inner = inner
        self._on_end = on_end
        self.closing = False

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except anyio.EndOfStream:
            if not self.closing:
                self._on_end()
            raise
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Watched:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)  # e.g. the SDK's ``last_context``


def logged(params: StdioServerParameters) -> LoggedStdioServer:
    """The server ``params`` starts, its stderr in its own log (:func:`server_log_path`)."""
    return LoggedStdioServer(params, server_log_path([params.command, *params.args]))
