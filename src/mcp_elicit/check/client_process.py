"""The client under test as a process: started in a session of its own, its output kept
(the last :data:`TAIL_BYTES` of it, whatever it writes), and the whole session ended when
it is done, when it outlives its time, or when the run is stopped.

Why a session (``start_new_session``): a client is often a wrapper (``npx``, a shell script,
``uv run``) whose real work is a child. Ending only the process we started would leave that
child running after a timeout, holding the output pipes open, and the next check would meet
it. Every process of the session is ended together: SIGTERM, then SIGKILL after
:data:`GRACE` seconds for whatever is left.

Why a tail: a client decides how much it writes; a crash's traceback is at the end, and
that is what the report shows (cleaned, as all peer text is, by :class:`~mcp_elicit.check.
report.Outcome`).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import anyio
import anyio.abc

TAIL_BYTES = 8 * 1024
"""How much of the client's output (stdout and stderr, as they came) is kept: the end."""
GRACE = 3.0
"""Seconds between SIGTERM and SIGKILL when the client's processes are ended."""
DRAIN = 2.0
"""Seconds to read what is still in the pipes once the processes are ended."""


class Tail:
    """The last ``size`` bytes written, however many were."""

    def __init__(self, size: int = TAIL_BYTES) -> None:
        self.size = size
        self.seen = 0
        self._kept = bytearray()

    def add(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        self._kept += chunk
        del self._kept[: -self.size]

    def text(self) -> str:
        """What was kept, decoded (a character cut in two at the start becomes U+FFFD)."""
        return self._kept.decode("utf-8", errors="replace")

    @property
    def cut(self) -> bool:
        return self.seen > len(self._kept)


@dataclass(frozen=True)
class ClientRun:
    returncode: int | None
    """The client's exit status; ``None`` when it did not finish in time and was ended."""
    output: str
    """The end of what it wrote on stdout and stderr, interleaved as it came (raw: the
    report cleans it)."""
    stderr: str
    """The end of its stderr alone (where its last words are)."""
    cut: bool
    """Whether more was written than ``output`` holds."""

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


async def run_client(
    argv: Sequence[str], *, env: Mapping[str, str], timeout: float, tail: int = TAIL_BYTES
) -> ClientRun:
    """Run ``argv`` until it exits or ``timeout`` seconds pass; in every case (a cancelled
    run too) end every process of its session before returning."""
    output, errors = Tail(tail), Tail(tail)
    process = await anyio.open_process(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        start_new_session=True,
    )
    returncode: int | None = None
    drained = [anyio.Event(), anyio.Event()]
    try:
        async with anyio.create_task_group() as readers:
            assert process.stdout is not None and process.stderr is not None
            readers.start_soon(_read, process.stdout, (output,), drained[0])
            readers.start_soon(_read, process.stderr, (output, errors), drained[1])
            try:
                with anyio.move_on_after(timeout):
                    returncode = await process.wait()
            finally:
                with anyio.CancelScope(shield=True):
                    await end_session(process)
                    # The pipes close once every process holding them is gone; one that
                    # left the session (its own setsid) may keep them: not waited for.
                    with anyio.move_on_after(DRAIN):
                        for done in drained:
                            await done.wait()
                    readers.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await process.aclose()
    return ClientRun(returncode, output.text(), errors.text(), output.cut)


async def _read(
    stream: anyio.abc.ByteReceiveStream, into: Sequence[Tail], done: anyio.Event
) -> None:
    try:
        async for chunk in stream:
            for tail in into:
                tail.add(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        done.set()


async def end_session(process: anyio.abc.Process) -> None:
    """SIGTERM to every process of ``process``'s session (it leads it); SIGKILL to those
    left after :data:`GRACE` seconds. The leader is waited for (reaped), the others for
    at most :data:`GRACE` seconds more."""
    group = process.pid
    _signal(group, signal.SIGTERM)
    with anyio.move_on_after(GRACE):
        await process.wait()
        while _signal(group, 0):  # the others: not our children, so polled
            await anyio.sleep(0.05)
    _signal(group, signal.SIGKILL)
    await process.wait()
    # SIGKILL is sent, not yet acted on: wait (briefly) until the processes are gone, so that
    # the next check starts on a quiet machine. An orphan's zombie waits for its reaper.
    with anyio.move_on_after(GRACE):
        while _signal(group, 0):
            await anyio.sleep(0.02)


def _signal(group: int, sig: int) -> bool:
    """Send ``sig`` to the process group; whether any process was there to get it."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member became another user's (setuid): nothing we can end
        return False
    return True
