"""``mcp-elicit check server``: every check passes against our own server, on every revision
that has it, over Streamable HTTP and stdio; each check fails against a server broken for its
rule (tests/peer_servers/breaker.py, two broken servers for the checks that need several
sessions or users, and tests/peer_servers/rule_breakers.py's servers on the SDK alone)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_elicit.check import CHECKS, Report, Status, check_server, select, server_checks
from mcp_elicit.check.catalog import CORE_TASK_CHECKS
from mcp_elicit.revisions import Revision
from tests.check.conftest import (
    BROADCAST_SERVER,
    SECRET_SERVER,
    broken_stdio,
    our_stdio,
    serving,
)
from tests.peer_servers.breaker import BREAKS, VARIANTS
from tests.peer_servers.secret_server import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TWO_USERS = ("server-track-foreign-id",)
# The checks that need Streamable HTTP: two sessions, or streams to tell apart.
ONLY_OVER_HTTP = ("server-complete-notice-origin-only", "server-requests-associated")
# The checks shown failing against a server of rule_breakers.py (written on the SDK alone, as
# a peer would be), rather than through the relay: the server's name, and what is said.
ON_THE_SDK = {
    "server-form-schema-flat": ("nested-form", "property 'address' is an object"),
    "server-form-no-url": (
        "form-link",
        "the message holds a URL: 'https://docs.example.com/why-we-ask'",
    ),
    "server-form-no-secrets": ("form-password", "property 'password' asks for a secret"),
    "server-requests-associated": (
        "standalone-question",
        "came on the standalone GET stream",
    ),
    "server-url-https": (
        "http-link",
        "plain http on a public host (HTTPS outside development): "
        "'http://check.example.com/connect'",
    ),
}
ALICE = {"Authorization": "Bearer user-alice"}
BOB = {"Authorization": "Bearer user-bob"}


def statuses(report: Report) -> dict[tuple[str, str], Status]:
    return {(o.check, o.revision): o.status for o in report.outcomes}


def explain(report: Report) -> str:
    return "\n" + report.text()


async def test_every_check_passes_against_our_server_over_http(our_server: str) -> None:
    report = await check_server(our_server)
    found = statuses(report)
    assert set(found) == set(select()), "every check ran on every revision that has it"
    for (check, revision), status in found.items():
        expected = Status.SKIPPED if check in TWO_USERS else Status.PASSED
        assert status is expected, f"{check} [{revision}]" + explain(report)
    assert report.exit_status == 0


async def test_every_check_passes_against_our_server_over_stdio() -> None:
    report = await check_server(our_stdio())
    for (check, revision), status in statuses(report).items():
        if check in ONLY_OVER_HTTP:
            assert status is Status.NOT_APPLICABLE, explain(report)  # one session, one stream
        elif check in TWO_USERS:
            assert status is Status.SKIPPED
        else:
            assert status is Status.PASSED, f"{check} [{revision}]" + explain(report)


@pytest.mark.parametrize("check", BREAKS)
async def test_each_check_fails_against_a_server_broken_for_it(check: str) -> None:
    report = await check_server(broken_stdio(check), ids=[check])
    found = statuses(report)
    assert set(found) == {(check, r) for r in CHECKS[check].revisions}
    assert set(found.values()) == {Status.FAILED}, explain(report)
    assert report.exit_status == 1


async def test_the_track_check_fails_when_progress_does_not_increase() -> None:
    """CHECKLIST #60: "The progress value MUST increase with each notification". The relay
    sends each progress notification of elicitation/track twice; the track itself ends well."""
    check, variant = "server-track", "server-track-progress-again"
    assert VARIANTS[variant][0] == check
    report = await check_server(broken_stdio(variant), ids=[check])
    [outcome] = report.outcomes
    assert outcome.status is Status.FAILED, explain(report)
    assert "progress did not increase" in outcome.seen, explain(report)


async def test_the_core_task_checks_do_not_apply_to_a_server_without_tasks(
    rule_breakers: str,
) -> None:
    """A server on the SDK alone declares no capabilities.tasks: 2025-11-25's task checks are
    "not applicable" there (not skipped for want of their tools, not failed)."""
    report = await check_server(f"{rule_breakers}nested-form/mcp", ids=sorted(CORE_TASK_CHECKS))
    assert {(o.check, o.revision) for o in report.outcomes} == {
        (check, Revision.V2025_11_25) for check in CORE_TASK_CHECKS
    }
    for outcome in report.outcomes:
        assert outcome.status is Status.NOT_APPLICABLE, explain(report)
        assert outcome.seen == "the server declares no capabilities.tasks in initialize"


async def test_the_core_task_checks_do_not_apply_without_task_augmented_calls() -> None:
    """Our server with capabilities.tasks stripped of requests.tools.call (the relay): no call
    may be made a task there, so the checks do not apply, though the tools are listed."""
    variant = "server-task-no-tool-calls"
    report = await check_server(broken_stdio(variant), ids=sorted(CORE_TASK_CHECKS))
    assert len(report.outcomes) == len(CORE_TASK_CHECKS)
    for outcome in report.outcomes:
        assert outcome.status is Status.NOT_APPLICABLE, explain(report)
        assert "declares no capabilities.tasks.requests.tools.call" in outcome.seen


def test_the_relay_breaks_every_check_that_one_session_over_stdio_can_show() -> None:
    only_over_http = {*ONLY_OVER_HTTP, *TWO_USERS}
    every = {check.id for check in CHECKS.values() if check.side == "server"}
    assert set(BREAKS) == every - only_over_http - set(ON_THE_SDK)


@pytest.mark.parametrize("check", ON_THE_SDK)
async def test_each_check_fails_against_a_server_on_the_sdk_broken_for_it(
    rule_breakers: str, check: str
) -> None:
    """Every check runs: the server breaks this one rule, and keeps every other the checks
    see (it passed them all before the check existed)."""
    server, said = ON_THE_SDK[check]
    report = await check_server(f"{rule_breakers}{server}/mcp")
    failed = [o for o in report.outcomes if o.status is Status.FAILED]
    # The SDK has no URL-mode draft (elicitation/track: -32601): its checks there do not apply.
    assert {(o.check, o.revision) for o in failed} == {
        (check, r) for r in CHECKS[check].revisions if r != Revision.URL_DRAFT
    }, explain(report)
    assert all(said in outcome.seen for outcome in failed), explain(report)


async def test_a_late_interaction_without_a_notice_is_no_failure_of_the_retry(
    rule_breakers: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy machine, shortened: the notice is not there in time (here: never sent), and the
    interaction finishes a while after that. A -32042 then means "not yet": the check calls
    again later, and the call succeeds."""
    monkeypatch.setattr(server_checks, "NOTICE_WAIT", 0.2)
    check = "server-url-required-retry"
    report = await check_server(f"{rule_breakers}late-link/mcp", ids=[check])
    [outcome] = report.outcomes
    assert outcome.status is Status.PASSED, explain(report)
    assert "-32042, no notice came (optional), then the call again returned" in outcome.seen


async def test_a_notice_sent_to_every_session_fails_origin_only(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, str(BROADCAST_SERVER), "--http", str(port)]
    with serving(command, port, tmp_path / "broadcast") as url:
        report = await check_server(url, ids=["server-complete-notice-origin-only"])
    [outcome] = report.outcomes
    assert outcome.status is Status.FAILED, explain(report)
    assert "another session got" in outcome.seen


async def test_the_track_checks_with_two_users(tmp_path: Path) -> None:
    """Our server with users from tokens: another user's id is refused. The same server
    with one local user for every request (tokens ignored): it is not."""
    ids = ["server-track-unknown-id", "server-track-foreign-id"]
    for auth, expected in ((True, Status.PASSED), (False, Status.FAILED)):
        port = free_port()
        command = [
            sys.executable,
            str(SECRET_SERVER),
            "--store",
            "memory://",
            "--http",
            str(port),
            "--url-draft",
            *(["--auth"] if auth else []),
        ]
        with serving(command, port, tmp_path / f"auth-{auth}") as url:
            report = await check_server(url, ids=ids, headers=ALICE, other_headers=BOB)
        found = statuses(report)
        assert found["server-track-unknown-id", "url-draft"] is Status.PASSED, explain(report)
        assert found["server-track-foreign-id", "url-draft"] is expected, explain(report)


async def test_the_task_id_check_with_two_users(tmp_path: Path) -> None:
    """Our server with users from tokens: another user's task is not found. The same server
    with one local user for every request (tokens ignored): it is."""
    check = "server-task-unknown-id"
    for auth, expected in ((True, Status.PASSED), (False, Status.FAILED)):
        port = free_port()
        command = [
            sys.executable,
            str(SECRET_SERVER),
            "--store",
            "memory://",
            "--http",
            str(port),
            "--tasks",
            *(["--auth"] if auth else []),
        ]
        with serving(command, port, tmp_path / f"auth-{auth}") as url:
            report = await check_server(url, ids=[check], headers=ALICE, other_headers=BOB)
        [outcome] = report.outcomes
        assert outcome.status is expected, explain(report)
        if auth:
            assert "another user's: -32602" in outcome.seen, explain(report)
        else:
            assert "another user's task" in outcome.seen, explain(report)
