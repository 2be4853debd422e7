"""Run checks over the revisions that have them, one after another, into a :class:`Report`,
within an overall deadline.

A server under test decides how long each of its answers takes (a probe waits up to 30 s for
one), so a run of every check against a server that never answers would take hours. The
deadline (``timeout``, ``--timeout``: :data:`DEFAULT_TIMEOUT`) ends the run wherever it is: the
check that was running fails, saying so, and the checks after it are not run.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence

import anyio
import httpx2

from mcp_elicit.check import core_task_checks  # noqa: F401  (registers its bodies)
from mcp_elicit.check.catalog import CHECKS, REVISIONS
from mcp_elicit.check.probe import Target
from mcp_elicit.check.report import Outcome, Report, Status
from mcp_elicit.check.server_checks import ServerRun, run_check, without_body
from mcp_elicit.i18n import N_, _
from mcp_elicit.revisions import Revision

# The bodies of 2025-11-25's core task checks are in a module of their own (imported above):
# importing it registers them with server_checks, which cannot import it (it imports
# server_checks).
assert not without_body(), f"server checks without a body: {sorted(without_body())}"

DEFAULT_TIMEOUT = 300.0
"""Seconds a whole run may take. Every check against our own server takes about 10 s over
HTTP and about a minute over stdio (a process per probe); five minutes leaves room for a slow
server and a busy machine, and bounds a server that never answers."""

# What ``select`` says of a check ID that does not exist, by side.
_NO_SUCH_CHECK = {
    "server": N_("no server check {check}; one of: {checks}"),
    "client": N_("no client check {check}; one of: {checks}"),
}


class UnknownCheck(ValueError):
    """A check ID or revision that does not exist; the message lists what does."""


class ServerRefused(Exception):
    """The server refused to talk at all (HTTP 401 or 403 to an ``initialize``): no check
    could run, so none is reported. ``status``, whether ``headers`` were given, and the
    ``WWW-Authenticate`` challenge say why."""

    def __init__(self, status: int, *, with_headers: bool, challenge: str | None) -> None:
        self.status, self.with_headers, self.challenge = status, with_headers, challenge
        given = "with the headers given" if with_headers else "with no credentials"
        super().__init__(
            f"the server answered HTTP {status} to an initialize {given}: it wants "
            "an access token (--header 'Authorization: Bearer <token>')"
        )


async def _refused(target: str, headers: Mapping[str, str]) -> ServerRefused | None:
    """One ``initialize`` before the checks: a server that refuses every request would
    otherwise fail every check with the same opaque error."""
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": Revision.V2025_11_25.value,  # initialize: before 2026-07-28
            "capabilities": {},
            "clientInfo": {"name": "mcp-elicit check", "version": "0"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(headers=dict(headers), timeout=30.0) as http:
        try:
            response = await http.post(target, json=hello, headers=accept)
            session = response.headers.get("mcp-session-id")
            if session:  # leave nothing behind on the server
                await http.delete(target, headers={"mcp-session-id": session})
        except httpx2.HTTPError:
            return None  # unreachable, or worse: the checks say what they see
    if response.status_code in (401, 403):
        return ServerRefused(
            response.status_code,
            with_headers=bool(headers),
            challenge=response.headers.get("www-authenticate"),
        )
    return None


def select(
    ids: Sequence[str] = (), revisions: Sequence[str] = (), *, side: str = "server"
) -> list[tuple[str, str]]:
    """``(check, revision)`` pairs to run: every check of ``side`` (or those named) on every
    revision that has it (or those named)."""
    for revision in revisions:
        if revision not in REVISIONS:
            raise UnknownCheck(
                _("no revision {revision}; one of: {revisions}").format(
                    revision=repr(revision), revisions=", ".join(REVISIONS)
                )
            )
    known = [check.id for check in CHECKS.values() if check.side == side]
    for check_id in ids:
        if check_id not in known:
            raise UnknownCheck(
                _(_NO_SUCH_CHECK[side]).format(check=repr(check_id), checks=", ".join(known))
                if side in _NO_SUCH_CHECK
                else f"no {side} check {check_id!r}"
            )
    chosen = list(ids) or known
    return [
        (check_id, revision)
        for check_id in chosen
        for revision in REVISIONS
        if revision in CHECKS[check_id].revisions and (not revisions or revision in revisions)
    ]


async def check_server(
    target: Target,
    *,
    ids: Sequence[str] = (),
    revisions: Sequence[str] = (),
    headers: Mapping[str, str] | None = None,
    other_headers: Mapping[str, str] | None = None,
    name: str | None = None,
    progress: Callable[[Outcome], None] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> Report:
    """Run the server checks against ``target`` (an http(s) URL or a stdio server), all within
    ``timeout`` seconds (``None``: no deadline). :class:`ServerRefused` when the server
    answers HTTP 401 or 403 to an ``initialize`` (wrong or missing ``headers``)."""
    pairs = select(ids, revisions)
    started = anyio.current_time()
    if isinstance(target, str):
        # Within the run's deadline: a server that never answers is the checks' to report.
        with anyio.move_on_after(timeout if timeout is not None else math.inf):
            refused = await _refused(target, headers or {})
            if refused is not None:
                raise refused
    run = ServerRun(target, dict(headers or {}), dict(other_headers) if other_headers else None)
    report = Report(name or str(target))

    def start(check_id: str, revision: str) -> Awaitable[Outcome]:
        return run_check(run, check_id, revision)

    await _run_all(report, pairs, start, progress, timeout, started=started)
    return report


async def _run_all(
    report: Report,
    pairs: Sequence[tuple[str, str]],
    start: Callable[[str, str], Awaitable[Outcome]],
    progress: Callable[[Outcome], None] | None,
    timeout: float | None,
    *,
    started: float | None = None,
) -> None:
    """Each ``(check, revision)`` in turn, until ``timeout`` seconds after ``started`` (now
    when not given)."""
    begun = anyio.current_time() if started is None else started
    deadline = float("inf") if timeout is None else begun + timeout
    for done, (check_id, revision) in enumerate(pairs):
        with anyio.CancelScope(deadline=deadline) as scope:
            outcome = await start(check_id, revision)
        ended = scope.cancelled_caught
        if ended:
            not_run = len(pairs) - done - 1
            seen = (
                f"the run's deadline was reached ({timeout:g} s, --timeout) while this check "
                f"was running; the run ended there ({not_run} check(s) not run)"
            )
            outcome = Outcome(check_id, revision, Status.FAILED, seen)
        report.add([outcome])
        if progress is not None:
            progress(outcome)
        if ended:
            return


async def check_client(
    command: Sequence[str],
    *,
    ids: Sequence[str] = (),
    progress: Callable[[Outcome], None] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> Report:
    """Run the client checks: ``command`` is started once per check, with the scripted
    server's URL as its last argument; all within ``timeout`` seconds (``None``: no
    deadline)."""
    from mcp_elicit.check.client_checks import run_client_check

    chosen = list(dict.fromkeys(check for check, _ in select(ids, side="client")))
    report = Report(" ".join(command))

    def start(check_id: str, revision: str) -> Awaitable[Outcome]:
        return run_client_check(command, check_id)

    # A client check's revision is the one its client chose: known once it ran.
    await _run_all(report, [(check, "-") for check in chosen], start, progress, timeout)
    return report
