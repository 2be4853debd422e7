"""``mcp-elicit check server`` on the command line: the official suite's way of printing, JSON
for CI, and the exit status (0 nothing failed, 1 a check failed, 2 bad usage)."""

from __future__ import annotations

import json
import sys

import pytest

from mcp_elicit.check import REVISIONS
from mcp_elicit.check.running import DEFAULT_TIMEOUT
from mcp_elicit.cli import main
from mcp_elicit.cli.check_command import CHECK_REVISIONS, CHECK_TIMEOUT
from tests.check.conftest import BREAKER, OURS, ROOT
from tests.peer_servers.rule_breakers import SIGN_IN

SOME = "server-url-request-shape,server-validates-answer"


def test_the_parser_knows_every_revision() -> None:
    assert CHECK_REVISIONS == REVISIONS


def test_the_parser_has_the_runs_default_deadline() -> None:
    assert CHECK_TIMEOUT == DEFAULT_TIMEOUT


@pytest.mark.slow
def test_a_server_that_passes_exits_0(our_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", "server", "--scenario", SOME, "--protocol", "2025-11-25", our_server])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.splitlines()[0] == f"Checking {our_server}"
    assert "✓ server-url-request-shape [2025-11-25] passed:" in out
    assert out.rstrip().endswith("Passed: 2/2, 0 failed")


@pytest.mark.slow
def test_a_failed_check_exits_1_and_names_its_spec(capsys: pytest.CaptureFixture[str]) -> None:
    check = "server-result-type"
    command = [sys.executable, str(BREAKER), check, "--", sys.executable, str(OURS), "--stdio"]
    status = main(["check", "server", "--scenario", check, "--", *command])
    out = capsys.readouterr().out
    assert status == 1, out
    assert f"✗ {check} [2026-07-28] failed: tools/list: resultType None" in out
    assert "    spec: 2026-07-28 basic/index § Result types" in out
    assert out.rstrip().endswith("Passed: 0/1, 1 failed")


@pytest.mark.slow
def test_json_for_ci(our_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", "server", "--json", "--scenario", SOME, our_server])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert report["target"] == our_server
    assert (report["passed"], report["failed"]) == (6, 0)
    [first, *_] = report["checks"]
    assert first["id"] == "server-url-request-shape"
    assert first["status"] == "passed"
    assert first["spec"][0] == "2025-11-25 client/elicitation § URL Mode Elicitation Requests"


@pytest.mark.slow
def test_check_client_runs_the_command_with_the_url_last(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = [sys.executable, str(OURS.parent / "check_client.py")]
    status = main(["check", "client", "--scenario", "client-fills-defaults", "--", *client])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "✓ client-fills-defaults [2026-07-28] passed" in out


URL = "http://127.0.0.1:9/mcp"


def test_check_client_without_a_command_is_bad_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "client", "--scenario", "client-fills-defaults"])
    assert exit_.value.code == 2
    assert "no client: give its command after '--'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["check", "client", "--scenario", "server-no-32042", "--", "true"])
    assert "no client check 'server-no-32042'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scenario", "server-nope", URL], "no server check 'server-nope'; one of: server-"),
        (["--protocol", "2024-01-01", URL], "argument --protocol: invalid choice: '2024-01-01'"),
        ([], "no server: give an http(s):// URL, or '-- command args...' last"),
        (["--header", "X-A: b", "--", "true"], "--header and --other-header are for a server"),
        (["ftp://example.com/mcp"], "is not an http(s):// URL"),
        (["--header", "no colon", URL], "expected NAME:VALUE"),
        (["--timeout", "0", URL], "expected a number of seconds above 0, not '0'"),
        (["--timeout", "soon", URL], "expected a number of seconds above 0, not 'soon'"),
    ],
)
def test_bad_usage_exits_2_and_says_why(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "server", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "usage: mcp-elicit check server" in err
    assert message in err


@pytest.mark.slow
@pytest.mark.parametrize("header", [[], ["--header", "Authorization: Bearer expired"]])
def test_a_server_that_wants_sign_in_is_one_error_naming_the_fix(
    rule_breakers: str, header: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Not every check failing alike ("Server returned an error response"): one error that
    names the 401 and --header (issue 31), exit 2, and no check reported."""
    url = f"{rule_breakers}{SIGN_IN}/mcp"
    with pytest.raises(SystemExit) as ended:
        main(["check", "server", *header, url])
    assert ended.value.code == 2
    out, err = capsys.readouterr()
    said = "refused the credentials given" if header else "requires sign-in"
    assert f"{said} (HTTP 401)" in err
    assert "--header 'Authorization: Bearer <token>'" in err
    assert "passed" not in out and "failed" not in out


@pytest.mark.slow
def test_nothing_checked_is_exit_3_not_a_pass(
    our_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every check skipped (here: the one that needs a second user's credentials) is no pass
    in CI (issue 31): exit 3, and the summary says 0 of 0 ran."""
    status = main(["check", "server", "--scenario", "server-track-foreign-id", our_server])
    out = capsys.readouterr().out
    assert status == 3, out
    assert "Passed: 0/0, 0 failed, 1 skipped" in out


@pytest.mark.slow
def test_a_server_without_the_check_tools_is_told_how_to_add_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The quick start lists none of the check tools: nothing runs (exit 3), and the report
    says where the tools come from (issue 31, item 12)."""
    quick_start = str(ROOT / "examples" / "server_quickstart.py")
    argv = ["check", "server", "--scenario", "server-url-request-shape", "--protocol"]
    status = main([*argv, "2025-11-25", "--", sys.executable, quick_start])
    out = capsys.readouterr().out
    assert status == 3, out
    assert "skipped: no tool test_url_elicitation" in out
    assert "mcp_elicit.check.tools.add_check_tools" in out and "Checking your own server" in out
