"""``mcp-elicit check client``: every check passes against our own client (examples/check_client.py)
on every revision that has it, and fails against a client broken for its rule
(tests/peer_servers/broken_client.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_elicit.check import CHECKS, Report, Status, check_client
from tests.peer_servers.broken_client import BREAKS

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
OUR_CLIENT = [sys.executable, str(ROOT / "examples" / "check_client.py")]
BROKEN_CLIENT = [sys.executable, str(ROOT / "tests" / "peer_servers" / "broken_client.py")]
CLIENT_CHECKS = [check.id for check in CHECKS.values() if check.side == "client"]


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
        expected = Status.PASSED if has_rule and not both else Status.NOT_APPLICABLE
        assert outcome.status is expected, outcome.check + explain(report)
    assert report.exit_status == 0


async def test_a_good_client_of_our_own_making_passes_too() -> None:
    """The broken client with nothing broken: the failures below are its breaks alone."""
    report = await check_client([*BROKEN_CLIENT, "none", "--protocol", "2025-11-25"])
    assert report.count(Status.FAILED) == 0, explain(report)


@pytest.mark.parametrize("check", [b for b in BREAKS if b != "none"])
async def test_each_check_fails_against_a_client_broken_for_it(check: str) -> None:
    # A revision that has the check's rule (2025-11-25 has all but two).
    protocol = {"client-answers-message-only": "2025-03-26", "client-result-type": "auto"}.get(
        check, "2025-11-25"
    )
    report = await check_client([*BROKEN_CLIENT, check, "--protocol", protocol], ids=[check])
    [outcome] = report.outcomes
    assert outcome.status is Status.FAILED, explain(report)
    assert report.exit_status == 1


def test_every_client_check_has_a_broken_client() -> None:
    assert set(BREAKS) - {"none"} == set(CLIENT_CHECKS)
