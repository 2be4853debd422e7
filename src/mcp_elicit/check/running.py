"""Run checks over the revisions that have them, one after another, into a :class:`Report`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mcp_elicit.check.catalog import CHECKS, REVISIONS
from mcp_elicit.check.probe import Target
from mcp_elicit.check.report import Outcome, Report
from mcp_elicit.check.server_checks import ServerRun, run_check
from mcp_elicit.i18n import N_, _

# What ``select`` says of a check ID that does not exist, by side.
_NO_SUCH_CHECK = {
    "server": N_("no server check {check}; one of: {checks}"),
    "client": N_("no client check {check}; one of: {checks}"),
}


class UnknownCheck(ValueError):
    """A check ID or revision that does not exist; the message lists what does."""


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
) -> Report:
    """Run the server checks against ``target`` (an http(s) URL or a stdio server)."""
    pairs = select(ids, revisions)
    run = ServerRun(target, dict(headers or {}), dict(other_headers) if other_headers else None)
    report = Report(name or str(target))
    for check_id, revision in pairs:
        outcome = await run_check(run, check_id, revision)
        report.add([outcome])
        if progress is not None:
            progress(outcome)
    return report


async def check_client(
    command: Sequence[str],
    *,
    ids: Sequence[str] = (),
    progress: Callable[[Outcome], None] | None = None,
) -> Report:
    """Run the client checks: ``command`` is started once per check, with the scripted
    server's URL as its last argument."""
    from mcp_elicit.check.client_checks import run_client_check

    chosen = list(dict.fromkeys(check for check, _ in select(ids, side="client")))
    report = Report(" ".join(command))
    for check_id in chosen:
        outcome = await run_client_check(command, check_id)
        report.add([outcome])
        if progress is not None:
            progress(outcome)
    return report
