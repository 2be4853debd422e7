"""``mcp-elicit check server``: every check passes against our own server, on every revision
that has it, over Streamable HTTP and stdio; each check fails against a server broken for its
rule (tests/peer_servers/breaker.py, two broken servers for the checks that need several
sessions or users, and tests/peer_servers/rule_breakers.py's servers on the SDK alone)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_elicit.check import CHECKS, Report, Status, check_server, select, server_checks
from tests.check.conftest import (
    BROADCAST_SERVER,
    SECRET_SERVER,
    broken_stdio,
    our_stdio,
    serving,
)
from tests.peer_servers.breaker import BREAKS
from tests.peer_servers.secret_server import free_port

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TWO_USERS = ("server-track-foreign-id",)
# The checks shown failing against a server of rule_breakers.py (written on the SDK alone, as
# a peer would be), rather than through the relay: the server's name, and what is said.
ON_THE_SDK = {
    "server-form-schema-flat": ("nested-form", "property 'address' is an object"),
    "server-form-no-url": (
        "form-link",
        "the message holds a URL: 'https://docs.example.com/why-we-ask'",
    ),
    "server-form-no-secrets": ("form-password", "property 'password' asks for a secret"),
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
        if check == "server-complete-notice-origin-only":
            assert status is Status.NOT_APPLICABLE  # one session per process
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


def test_the_relay_breaks_every_check_that_one_session_over_stdio_can_show() -> None:
    only_over_http = {"server-complete-notice-origin-only", *TWO_USERS}
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
    assert {(o.check, o.revision) for o in failed} == {
        (check, r) for r in CHECKS[check].revisions
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
