"""tests/warm_python.py runs what the tests start as a fresh interpreter would: the same
output, status, signals and end, or the real interpreter where it cannot."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import warm_python
from tests.ports import free_port

pytestmark = pytest.mark.slow  # processes of their own

PROBE = """\
import json, os, sys
umask = os.umask(0)
print(json.dumps({
    "argv": sys.argv, "name": __name__, "cwd": os.getcwd(), "path0": sys.path[0],
    "env": os.environ.get("PROBE"), "umask": umask, "stdin": sys.stdin.read(),
    "encoding": sys.stdout.encoding, "pythonpath": os.environ.get("PYTHONPATH", "") in sys.path,
}))
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def warm() -> Iterator[warm_python.Warm]:
    started = warm_python.Warm.start()
    yield started
    started.stop()


def env_of(warm: warm_python.Warm, **more: str) -> dict[str, str]:
    return {**os.environ, **more}


def test_a_script_runs_as_under_the_real_interpreter(
    warm: warm_python.Warm, tmp_path: Path
) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    (tmp_path / "mod").mkdir()
    env = env_of(warm, PROBE="é-value", PYTHONPATH=str(tmp_path / "mod"))
    seen = []
    for python in (warm.launcher, warm.real):
        done = subprocess.run(
            [python, str(script), "3", "x"],
            input="to stdin ✓",
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path / "mod",
            check=False,
        )
        assert done.returncode == 3, done.stderr
        seen.append(json.loads(done.stdout))
    warm_run, real_run = seen
    assert warm_run == real_run
    assert warm_run["stdin"] == "to stdin ✓" and warm_run["name"] == "__main__"


def test_a_module_runs_with_minus_m(warm: warm_python.Warm, tmp_path: Path) -> None:
    (tmp_path / "probe_mod.py").write_text(PROBE)
    done = subprocess.run(
        [warm.launcher, "-m", "probe_mod", "0"],
        capture_output=True,
        text=True,
        env=env_of(warm),
        cwd=tmp_path,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen["argv"][0].endswith("probe_mod.py") and seen["path0"] == str(tmp_path)


def test_an_uncaught_error_prints_its_traceback_and_exits_1(
    warm: warm_python.Warm, tmp_path: Path
) -> None:
    script = tmp_path / "fails.py"
    script.write_text("raise ValueError('wrong here')\n")
    done = subprocess.run(
        [warm.launcher, str(script)], capture_output=True, text=True, env=env_of(warm)
    )
    assert done.returncode == 1
    assert "ValueError: wrong here" in done.stderr and "Traceback" in done.stderr


def test_what_it_cannot_hand_over_runs_in_the_real_interpreter(warm: warm_python.Warm) -> None:
    code = "import sys; print(sys.executable)"
    for env in (env_of(warm), env_of(warm, PYTHONWARNINGS="error")):
        done = subprocess.run(
            [warm.launcher, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        assert done.stdout.strip() == warm.real


def start(warm: warm_python.Warm, path: Path, code: str, *args: str) -> subprocess.Popen[str]:
    """``code`` as a script run through the launcher with ``args``, its stdin and stdout
    pipes."""
    path.write_text(code)
    return subprocess.Popen(
        [warm.launcher, str(path), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env_of(warm),
    )


def start_sleeper(warm: warm_python.Warm, tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    process = start(
        warm,
        tmp_path / "sleeper.py",
        "import os, sys, time\n"
        "print(os.getpid(), flush=True)\n"
        "sys.stdin.read()\n"  # ends when its stdin does
        "print('stdin ended', flush=True)\n"
        "time.sleep(60)\n",
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def gone(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_launcher_reaches_the_script_and_its_death_is_mirrored(
    warm: warm_python.Warm, tmp_path: Path, number: signal.Signals
) -> None:
    process, pid = start_sleeper(warm, tmp_path)
    process.send_signal(number)
    assert process.wait(timeout=10) == -number
    assert gone(pid)


def test_killing_the_launcher_kills_the_script(warm: warm_python.Warm, tmp_path: Path) -> None:
    process, pid = start_sleeper(warm, tmp_path)
    process.kill()
    process.wait(timeout=10)
    assert gone(pid), "the script outlived its launcher's SIGKILL"


def test_the_scripts_stdin_ends_when_the_launchers_writer_closes(
    warm: warm_python.Warm, tmp_path: Path
) -> None:
    process, _pid = start_sleeper(warm, tmp_path)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    assert process.stdout.readline() == "stdin ended\n"
    process.terminate()
    process.wait(timeout=10)


def test_a_reader_sees_the_end_of_stdout_when_the_script_closes_it(
    warm: warm_python.Warm, tmp_path: Path
) -> None:
    """The launcher lets go of its copies of the streams: their end is the script's."""
    code = "import os, time\nprint('bye', flush=True)\nos.close(1)\ntime.sleep(60)\n"
    process = start(warm, tmp_path / "closes.py", code)
    assert process.stdout is not None
    assert process.stdout.read() == "bye\n"  # the end, while the script still runs
    assert process.poll() is None
    process.terminate()
    process.wait(timeout=10)


def test_killing_the_launcher_kills_what_the_script_started(
    warm: warm_python.Warm, tmp_path: Path
) -> None:
    """As the SDK kills a stdio server's process group."""
    process = start(
        warm,
        tmp_path / "parent.py",
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n",
    )
    assert process.stdout is not None
    child = int(process.stdout.readline())
    process.kill()
    process.wait(timeout=10)
    assert gone(child)


def test_kill_returns_once_the_script_is_gone_and_its_port_free(
    warm: warm_python.Warm, tmp_path: Path
) -> None:
    """A crash test restarts a server on the same port right after SIGKILL. The port is one
    of tests.ports' (below the ephemeral range): a port the kernel picked could be taken,
    once freed, by another test's outgoing connection before the bind below (CI saw it)."""
    port = free_port()
    process = start(
        warm,
        tmp_path / "listens.py",
        "import socket, sys, time\n"
        "s = socket.socket()\n"
        "s.bind(('127.0.0.1', int(sys.argv[1])))\n"
        "s.listen()\n"
        "print('listening', flush=True)\n"
        "time.sleep(60)\n",
        str(port),
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "listening"
    warm_python.kill(process)
    assert process.returncode == -signal.SIGKILL
    again = socket.socket()
    again.bind(("127.0.0.1", port))  # no EADDRINUSE: the listener died with its launcher
    again.close()
