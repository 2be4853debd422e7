"""A warm Python for the processes the tests start: every server, relay and command a test
runs as ``sys.executable script ...`` or ``sys.executable -m module ...`` is forked from a
process that has already imported the SDK, instead of importing it again.

Why: a fresh Python that imports the SDK spends over a second of CPU on it here (its pydantic
models are built at import), and the suite starts well over a thousand such processes: that,
not the tests' own work, was most of the suite's CPU on two cores. Forked, a start costs a few
milliseconds, and the code under test is the same code: the script runs as ``__main__`` with
its own argv, environment, working folder, umask and standard streams, and exits, or dies of a
signal, as a fresh interpreter would.

How, in three processes:

- **The launcher** (``launch``; the file ``sys.executable`` names in the tests) is a tiny
  Python (``-I -S``: no site, nothing but the standard library). It sends its argv, its
  environment, its folder and umask, and its standard streams' descriptors (SCM_RIGHTS) to
  the warm process, forwards every signal it is sent to the script's process, and exits with
  the script's status (dying of the same signal if the script did). Anything it cannot hand
  over faithfully (``-c``, interpreter flags, ``PYTHON*`` settings the warm process does not
  share, a locale that is not UTF-8) it runs with the real interpreter instead (``execv``).
- **The warm process** (``serve``) imports the third-party libraries the servers use, never
  ``mcp_elicit`` (whose import reads settings a launch may change), and forks a keeper for
  each launch.
- **The keeper** forks the script's process, tells the launcher its pid, and waits for
  whichever ends first: the script (its status goes to the launcher) or the launcher (killed,
  even with SIGKILL: the script is killed too, as a child whose stdin closed would end).

Started once per pytest process by tests/conftest.py; with ``MCP_ELICIT_COLD_PYTHON=1`` the
tests start real interpreters, as before.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import signal
import socket
import struct
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the launcher imports nothing it does not use: it starts for every launch
    import subprocess

COLD_VARIABLE = "MCP_ELICIT_COLD_PYTHON"  # "1": real interpreters, as before
REAL_PYTHON = sys.executable  # read before tests/conftest.py points it at a launcher
PRELOADED = (
    "anyio",
    "httpx",
    "pydantic",
    "starlette.applications",
    "uvicorn",
    "sse_starlette",
    "mcp",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.server.stdio",
    "mcp.server.streamable_http",
    "mcp.server.mcpserver",
)
# Settings a launch may carry different from the warm process's: applied in the script's
# process. Any other PYTHON* difference means a real interpreter.
APPLIED = {"PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"}
FORWARDED = (
    signal.SIGTERM,
    signal.SIGINT,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGWINCH,
)
_HEADER = struct.Struct("!I")


# -- the launcher ------------------------------------------------------------------------


def _utf8_locale(env: dict[str, str]) -> bool:
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name)
        if value:
            return value in ("C", "POSIX") or value.replace("-", "").lower().endswith("utf8")
    return True


def _warm_enough(argv: list[str], env: dict[str, str], warm: dict[str, str]) -> bool:
    """Whether the warm process runs ``argv`` exactly as the real interpreter would."""
    if not argv or (argv[0].startswith("-") and (argv[0] != "-m" or len(argv) < 2)):
        return False
    names = {n for n in (*env, *warm) if n.startswith("PYTHON") and n not in APPLIED}
    return all(env.get(n) == warm.get(n) for n in names) and _utf8_locale(env)


def _send(connection: socket.socket, value: object, fds: Sequence[int] = ()) -> None:
    data = json.dumps(value).encode()
    message = _HEADER.pack(len(data)) + data
    ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
    connection.sendmsg([message], ancillary)


def _receive(connection: socket.socket, with_fds: int = 0) -> tuple[object, list[int]]:
    """One message, and the descriptors sent with it; never a byte of the next one (the
    keeper may send the pid and the end in quick succession)."""
    fds: list[int] = []
    space = socket.CMSG_SPACE(with_fds * array.array("i").itemsize) if with_fds else 0

    def exactly(size: int) -> bytes:
        nonlocal space
        buffer = b""
        while len(buffer) < size:
            data, ancillary, _flags, _address = connection.recvmsg(size - len(buffer), space)
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    got = array.array("i")
                    got.frombytes(payload[: len(payload) - len(payload) % got.itemsize])
                    fds.extend(got)
            if not data:
                raise EOFError("the other side closed the connection")
            buffer += data
            space = 0
        return buffer

    (size,) = _HEADER.unpack(exactly(_HEADER.size))
    return json.loads(exactly(size)), fds


def launch(real_python: str, path: str, argv: list[str]) -> None:
    """Run ``python argv...`` in the warm process listening at ``path``, or with
    ``real_python`` if it cannot."""
    # Signals wait until the script's pid is known, then go to it (or, when the real
    # interpreter runs instead, to that: the mask and what is pending survive execv).
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    env = dict(os.environ)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        _send(connection, {"ask": "settings"})
        warm, _ = _receive(connection)
        assert isinstance(warm, dict)
        if not _warm_enough(argv, env, warm):
            raise OSError("not the warm process's kind of launch")
    except OSError:
        connection.close()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        os.execv(real_python, [real_python, *argv])
    umask = os.umask(0o022)
    os.umask(umask)
    request = {"argv": argv, "env": env, "cwd": os.getcwd(), "umask": umask, "me": sys.argv[0]}
    _send(connection, request, [0, 1, 2])
    (pid, _) = _receive(connection)
    assert isinstance(pid, int)
    # Where kill() finds the script behind this launcher (a SIGKILL cannot be forwarded).
    record = os.path.join(os.path.dirname(path), "scripts", str(os.getpid()))
    with open(record, "w") as file:
        file.write(str(pid))

    def forward(number: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, number)

    for number in FORWARDED:
        signal.signal(number, forward)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
    # Our copies of the streams go, so a reader sees their end when the script's end.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        (status, _) = _receive(connection)
    except (EOFError, OSError):  # the keeper was killed: so was the script
        status = {"signal": signal.SIGKILL}
    with contextlib.suppress(OSError):
        os.unlink(record)
    assert isinstance(status, dict)
    if "signal" in status:
        number = int(status["signal"])
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(int(status.get("code", 1)))


def kill(process: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    """SIGKILL, as a crash: when this returns, ``process`` is dead and, when it is a warm
    launch, so is the script behind it, its sockets closed (a new server can take its port).
    A SIGKILL cannot be forwarded: the launcher's keeper kills the script a moment after the
    launcher dies, which a test restarting on the same port would race."""
    import signal as signals
    import time

    launcher = str(process.args[0]) if isinstance(process.args, list | tuple) else ""
    record = os.path.join(os.path.dirname(launcher), "scripts", str(process.pid))
    try:
        with open(record) as file:
            script = int(file.read())
    except (OSError, ValueError):
        script = None
    if script is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(script, signals.SIGKILL)
    if process.poll() is None:
        process.send_signal(signals.SIGKILL)
    process.wait(30)
    deadline = time.monotonic() + 30
    while script is not None and time.monotonic() < deadline:
        try:
            os.kill(script, 0)  # a zombie still answers: its keeper reaps it at once
        except ProcessLookupError:
            break
        time.sleep(0.01)


def write_launcher(folder: str, real_python: str, path: str) -> str:
    """An executable file that behaves as ``real_python`` for the tests' launches, with the
    warm process at ``path`` (named in the file: a stdio client may start a server with
    hardly any environment, as the SDK's does)."""
    here = os.path.dirname(os.path.abspath(__file__))
    launcher = os.path.join(folder, "python")
    with open(launcher, "w") as file:
        file.write(
            f"#!{real_python} -IS\n"
            "import signal, sys\n"
            f"signal.pthread_sigmask(signal.SIG_BLOCK, {[int(n) for n in FORWARDED]})\n"
            f"sys.path.insert(0, {here!r})\n"
            "from warm_python import launch\n"
            f"launch({real_python!r}, {path!r}, sys.argv[1:])\n"
        )
    os.chmod(launcher, 0o755)
    return launcher


# -- the warm process ---------------------------------------------------------------------


def _reopen_streams(env: dict[str, str]) -> None:
    """The standard streams as a fresh interpreter opens them in a UTF-8 locale."""
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout.reconfigure(line_buffering=os.isatty(1), write_through=unbuffered)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr.reconfigure(line_buffering=True, write_through=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


def _run_script(request: dict[str, object], base_path: list[str], fds: list[int]) -> None:
    """In the script's process: become the launch, run it, exit as Python would. Never returns."""
    code = 0
    try:
        # A group of its own, as the SDK starts a server (start_new_session): what it starts
        # in turn is killed with it when its launcher is killed.
        os.setsid()
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        for number in FORWARDED:
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        env = request["env"]
        argv = request["argv"]
        assert isinstance(env, dict) and isinstance(argv, list)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(str(request["cwd"]))
        os.umask(int(request["umask"]))  # type: ignore[call-overload]
        if "TZ" in env:
            import time

            time.tzset()
        # What it starts as Python starts warm too, as the tests' own launches do.
        sys.executable = str(request["me"])
        sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
        sys.pycache_prefix = env.get("PYTHONPYCACHEPREFIX") or None
        extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        _reopen_streams(env)
        import runpy

        if argv[0] == "-m":
            sys.argv = ["-m", *argv[2:]]
            sys.path[:] = [os.getcwd(), *extra, *base_path]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            script = os.path.abspath(argv[0])
            sys.argv = list(argv)
            sys.path[:] = [os.path.dirname(script), *extra, *base_path]
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exit:
        if exit.code is None:
            code = 0
        elif isinstance(exit.code, int):
            code = exit.code
        else:
            print(exit.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        _finish()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    _finish()
    os._exit(code & 0xFF)


def _finish() -> None:
    """What the interpreter does on its way out: threads, atexit, flushed streams."""
    import atexit
    import threading

    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()


def _keep(
    connection: socket.socket, request: dict[str, object], fds: list[int], base_path: list[str]
) -> None:
    """The keeper: fork the script, report its pid and then its end. Never returns."""
    pid = os.fork()
    if pid == 0:
        connection.close()
        _run_script(request, base_path, fds)
    for fd in fds:
        os.close(fd)
    try:
        _send(connection, pid)
    except OSError:  # the launcher is gone already
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os._exit(0)
    watch = os.pidfd_open(pid)
    import select

    while True:
        ready, _, _ = select.select([connection, watch], [], [])
        if watch in ready:
            _, status = os.waitpid(pid, 0)
            if os.WIFSIGNALED(status):
                end: dict[str, int] = {"signal": os.WTERMSIG(status)}
            else:
                end = {"code": os.WEXITSTATUS(status)}
            with contextlib.suppress(OSError):  # its launcher may be gone (killed) by now
                _send(connection, end)
            os._exit(0)
        if connection in ready and not _still_there(connection):
            try:  # the launcher is gone: so is what it ran
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:  # not yet a group of its own
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os._exit(0)


def _still_there(connection: socket.socket) -> bool:
    try:
        return bool(connection.recv(1))
    except OSError:  # reset: it died with our last message unread
        return False


def serve(path: str) -> None:
    """The warm process: preload, then fork a keeper for each launch until killed."""
    import importlib

    for name in PRELOADED:
        importlib.import_module(name)
    base_path = sys.path[1:]  # without this file's folder
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(256)
    settings = {n: v for n, v in os.environ.items() if n.startswith("PYTHON")}
    print("ready", flush=True)
    while True:
        connection, _ = listener.accept()
        try:
            while True:  # reap the keepers that have ended
                ended, _ = os.waitpid(-1, os.WNOHANG)
                if not ended:
                    break
        except ChildProcessError:
            pass
        try:
            request, fds = _receive(connection, with_fds=3)
            assert isinstance(request, dict)
            if request.get("ask") == "settings":
                _send(connection, settings)
                request, fds = _receive(connection, with_fds=3)
                assert isinstance(request, dict)
        except (EOFError, OSError):
            connection.close()
            continue
        if os.fork() == 0:
            listener.close()
            _keep(connection, request, fds, base_path)
        connection.close()
        for fd in fds:
            os.close(fd)


class Warm:
    """A warm process, and the launcher that reaches it (``launcher``, with ``env`` set)."""

    def __init__(self, folder: str, process: subprocess.Popen[bytes], real: str) -> None:
        self.folder, self.process, self.real = folder, process, real
        self.socket = os.path.join(folder, "socket")
        self.launcher = os.path.join(folder, "python")

    @classmethod
    def start(cls) -> Warm:
        """Start a warm process for the interpreter running this."""
        import subprocess
        import tempfile

        folder = tempfile.mkdtemp(prefix="warm-python-")  # short: a socket path has 107 bytes
        path = os.path.join(folder, "socket")
        os.mkdir(os.path.join(folder, "scripts"))
        real = REAL_PYTHON
        process = subprocess.Popen(
            [real, os.path.abspath(__file__), path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        assert process.stdout is not None
        if process.stdout.readline() != b"ready\n":
            raise RuntimeError(f"the warm Python did not start (exit status {process.wait()})")
        write_launcher(folder, real, path)
        return cls(folder, process, real)

    def stop(self) -> None:
        import shutil

        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


if __name__ == "__main__":
    serve(sys.argv[1])
