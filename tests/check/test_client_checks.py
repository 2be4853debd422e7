"""``mcp-elicit check client``: every check passes against our own client (examples/check_client.py)
on every revision that has it, and fails against a client broken for its rule
(tests/peer_servers/broken_client.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_elicit.check import CHECKS, Report, Status, check_client
from mcp_elicit.check.task_script import TASK_CHECKS
from tests.peer_servers.broken_client import BREAKS

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
OUR_CLIENT = [sys.executable, str(ROOT / "examples" / "check_client.py")]
BROKEN_CLIENT = [sys.executable, str(ROOT / "tests" / "peer_servers" / "broken_client.py")]
CLIENT_CHECKS = [check.id for check in CHECKS.values() if check.side == "client"]
UNSOLICITED = "client-task-unsolicited"


def explain(report: Report) -> str:
    return "\n" + report.text()


@pytest.mark.parametrize(
    ("protocol", "modes"),
    [
        ("2026-07-28", "form,url"),
        ("2025-11-25", "form,url"),
        ("2025-11-25", "form"),
        ("2025-06-18", "form"),
        ("2025-03-26", "form"),
    ],
)
async def test_our_client_passes_every_check_its_revision_has(protocol: str, modes: str) -> None:
    report = await check_client([*OUR_CLIENT, "--protocol", protocol, "--modes", modes])
    for outcome in report.outcomes:
        assert outcome.revision == protocol, explain(report)
        has_rule = protocol in CHECKS[outcome.check].revisions
        both = modes == "form,url" and outcome.check == "client-refuses-undeclared-mode"
        # Our client declares the tasks extension on every call: no task is unsolicited.
        declared = outcome.check == UNSOLICITED
        expected = (
            Status.PASSED if has_rule and not both and not declared else Status.NOT_APPLICABLE
        )
        assert outcome.status is expected, outcome.check + explain(report)
    assert report.exit_status == 0


@pytest.mark.parametrize("modes", ["form,url", "form"])
async def test_without_the_tasks_extension_our_client_refuses_a_task_it_did_not_ask_for(
    modes: str,
) -> None:
    """``--no-tasks``: no call declares the extension, so the other task checks have nothing
    to judge, and the task sent anyway is not followed."""
    command = [*OUR_CLIENT, "--protocol", "2026-07-28", "--modes", modes, "--no-tasks"]
    report = await check_client(command, ids=sorted(TASK_CHECKS))
    for outcome in report.outcomes:
        expected = Status.PASSED if outcome.check == UNSOLICITED else Status.NOT_APPLICABLE
        assert outcome.status is expected, outcome.check + explain(report)


async def test_our_client_declaring_form_only_refuses_a_link_inside_a_task() -> None:
    """The task's link is then in a mode the client did not declare."""
    command = [*OUR_CLIENT, "--protocol", "2026-07-28", "--modes", "form"]
    report = await check_client(command, ids=["client-task-input-checks"])
    [outcome] = report.outcomes
    assert outcome.status is Status.PASSED, explain(report)
    # The link (q-2, shown once the form was answered) was reached, and refused.
    assert "q-2: " in outcome.seen or "cancelled" in outcome.seen, explain(report)


async def test_a_good_client_of_our_own_making_passes_too() -> None:
    """The broken client with nothing broken: the failures below are its breaks alone."""
    report = await check_client([*BROKEN_CLIENT, "none", "--protocol", "2025-11-25"])
    assert report.count(Status.FAILED) == 0, explain(report)
    tasks = await check_client([*BROKEN_CLIENT, "none"], ids=sorted(TASK_CHECKS))
    assert tasks.count(Status.FAILED) == 0, explain(tasks)
    assert tasks.count(Status.PASSED) == len(TASK_CHECKS) - 1, explain(tasks)


@pytest.mark.parametrize("check", [b for b in BREAKS if b != "none"])
async def test_each_check_fails_against_a_client_broken_for_it(check: str) -> None:
    # A revision that has the check's rule (2025-11-25 has all but the early draft's one and
    # those of 2026-07-28, which "auto" picks).
    newest = {"client-result-type", *TASK_CHECKS}
    protocol = (
        "2025-03-26"
        if check == "client-answers-message-only"
        else "auto"
        if check in newest
        else "2025-11-25"
    )
    report = await check_client([*BROKEN_CLIENT, check, "--protocol", protocol], ids=[check])
    [outcome] = report.outcomes
    assert outcome.status is Status.FAILED, explain(report)
    assert report.exit_status == 1


def test_every_client_check_has_a_broken_client() -> None:
    assert set(BREAKS) - {"none"} == set(CLIENT_CHECKS)
