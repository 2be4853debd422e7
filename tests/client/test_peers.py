"""``mcp-elicit call`` against real peers over stdio: server-everything (npm), fastmcp, and the
official SDK's server in both eras."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.peers import server_everything_command

ROOT = Path(__file__).resolve().parents[2]
BOOKING = [sys.executable, str(ROOT / "examples" / "booking_server.py")]
FASTMCP = [sys.executable, str(ROOT / "tests" / "peer_servers" / "fastmcp_server.py")]


def call(
    tmp_path: Path,
    tool: str,
    server: list[str],
    answers: list[dict[str, Any]],
    *options: str,
) -> subprocess.CompletedProcess[str]:
    answers_file = tmp_path / "answers.json"
    answers_file.write_text(json.dumps(answers), encoding="utf-8")
    return subprocess.run(
        [
            *(sys.executable, "-m", "mcp_elicit", "call", tool),
            *("--answers", str(answers_file), *options, "--", *server),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        # The server's stderr goes to its log in the state directory: the test's own.
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
    )


# -- server-everything ---------------------------------------------------------------------


def everything(tmp_path: Path, tool: str, answers: list[dict[str, Any]], *options: str) -> Any:
    return call(tmp_path, tool, server_everything_command(), answers, *options)


def raw_result(stdout: str) -> dict[str, Any]:
    return dict(json.loads(stdout.split("Raw result: ", 1)[1].strip()))


@pytest.mark.node
@pytest.mark.slow
def test_everything_form_accepted_with_content(tmp_path: Path) -> None:
    content = {"name": "Ada Lovelace", "check": True, "email": "ada@example.com", "integer": 7}
    done = everything(
        tmp_path, "trigger-elicitation-request", [{"action": "accept", "content": content}]
    )
    assert done.returncode == 0, done.stderr
    assert "User provided the requested information" in done.stdout
    assert raw_result(done.stdout) == {"action": "accept", "content": content}


@pytest.mark.node
@pytest.mark.slow
def test_everything_form_accepted_with_defaults(tmp_path: Path) -> None:
    answer = {"action": "accept", "defaults": True, "content": {"name": "Ada"}}
    done = everything(tmp_path, "trigger-elicitation-request", [answer])
    assert done.returncode == 0, done.stderr
    sent = raw_result(done.stdout)["content"]
    assert sent["name"] == "Ada"
    assert sent["firstLine"] == "It was a dark and stormy night."
    assert sent["integer"] == 42 and sent["number"] == 3.14
    assert sent["untitledSingleSelectEnum"] == "Monica"
    assert sent["untitledMultipleSelectEnum"] == ["Guitar"]
    assert sent["titledSingleSelectEnum"] == "hero-1"


@pytest.mark.parametrize(
    ("action", "said"),
    [("decline", "User declined"), ("cancel", "User cancelled")],
)
@pytest.mark.node
@pytest.mark.slow
def test_everything_form_declined_and_cancelled(tmp_path: Path, action: str, said: str) -> None:
    done = everything(tmp_path, "trigger-elicitation-request", [{"action": action}])
    assert done.returncode == 0, done.stderr
    assert said in done.stdout
    assert raw_result(done.stdout) == {"action": action}


@pytest.mark.node
@pytest.mark.slow
def test_everything_invalid_answer_is_not_sent(tmp_path: Path) -> None:
    # server-everything takes anything; our client does not send what the schema forbids.
    bad = {"action": "accept", "content": {"name": "Ada", "integer": 1000}}
    done = everything(tmp_path, "trigger-elicitation-request", [bad])
    assert "integer" in done.stderr and "not sent" in done.stderr
    assert raw_result(done.stdout)["action"] == "cancel"


@pytest.mark.node
@pytest.mark.slow
def test_everything_url_request_path(tmp_path: Path) -> None:
    args = json.dumps({"url": "https://example.com/authorize", "message": "Authorize us"})
    done = everything(
        tmp_path, "trigger-url-elicitation", [{"action": "accept"}], "--args", args, "--json"
    )
    assert done.returncode == 0, done.stderr
    assert "User completed the URL elicitation flow" in done.stdout
    assert "consented to open https://example.com/authorize" in done.stderr
    assert json.loads(done.stdout)["isError"] is False


@pytest.mark.node
@pytest.mark.slow
def test_everything_url_error_path_consents_then_retries(tmp_path: Path) -> None:
    args = json.dumps({"url": "https://example.com/authorize", "errorPath": True})
    answers = [{"action": "accept"}, {"action": "accept"}]  # the -32042 link, then the retry's
    done = everything(tmp_path, "trigger-url-elicitation", answers, "--args", args)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("consented to open") == 2
    assert "consented to open https://modelcontextprotocol.io" in done.stderr
    assert "User completed the URL elicitation flow" in done.stdout


@pytest.mark.node
@pytest.mark.slow
def test_everything_url_error_path_declined_keeps_the_error(tmp_path: Path) -> None:
    args = json.dumps({"url": "https://example.com/authorize", "errorPath": True})
    done = everything(tmp_path, "trigger-url-elicitation", [{"action": "decline"}], "--args", args)
    assert done.returncode == 1
    assert "error -32042" in done.stderr
    assert "consented" not in done.stderr


@pytest.mark.node
@pytest.mark.slow
def test_everything_blocked_url_is_never_offered(tmp_path: Path) -> None:
    args = json.dumps({"url": "https://0x7f.1/admin", "message": "Open this"})
    done = everything(tmp_path, "trigger-url-elicitation", [{"action": "accept"}], "--args", args)
    assert "Blocked a link" in done.stderr
    assert "consented" not in done.stderr
    assert "User cancelled" in done.stdout


@pytest.mark.node
@pytest.mark.slow
def test_running_out_of_answers_cancels_and_says_so(tmp_path: Path) -> None:
    done = everything(tmp_path, "trigger-elicitation-request", [])
    assert "no answer left" in done.stderr
    assert raw_result(done.stdout) == {
        "action": "cancel",
        "_meta": {"mcp-elicit/outcome": "answers-exhausted"},
    }


# -- fastmcp ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "content", "said"),
    [
        ("order", {"item": "tea", "quantity": 2, "size": "large"}, "ordered 2 x large tea"),
        ("pick_colours", {"value": ["r", "g"]}, "picked r,g"),
        ("confirm", {"value": False}, "confirm: accept False"),
    ],
)
@pytest.mark.slow
def test_fastmcp_forms(tmp_path: Path, tool: str, content: dict[str, Any], said: str) -> None:
    # fastmcp 4.1's ctx.elicit needs the push era; on 2026-07-28 it fails the call.
    answers = [{"action": "accept", "content": content}]
    done = call(tmp_path, tool, FASTMCP, answers, "--protocol", "2025-11-25")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == said


@pytest.mark.slow
def test_fastmcp_decline(tmp_path: Path) -> None:
    done = call(tmp_path, "order", FASTMCP, [{"action": "decline"}], "--protocol", "2025-11-25")
    assert done.stdout.strip() == "no order: decline"


# -- the official SDK's server, both eras ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_sdk_server_form_in_each_era(tmp_path: Path, protocol: str) -> None:
    answers = [{"action": "accept", "defaults": True, "content": {"name": "Ada"}}]
    done = call(tmp_path, "book_table", BOOKING, answers, "--protocol", protocol)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Booked a table for 2 (inside) under Ada."


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("tool", "said"), [("link_account", "Link accept."), ("sync_files", "Files synced.")]
)
@pytest.mark.slow
def test_sdk_server_url_mode_in_each_era(
    tmp_path: Path, protocol: str, tool: str, said: str
) -> None:
    done = call(tmp_path, tool, BOOKING, [{"action": "accept"}], "--protocol", protocol)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == said
    assert "consented to open https://accounts.example.com/link" in done.stderr


@pytest.mark.parametrize("tool", ["link_account", "open_link", "sync_files"])
@pytest.mark.slow
def test_sdk_server_url_tools_on_2025_06_18_say_there_is_no_url_mode(
    tmp_path: Path, tool: str
) -> None:
    args = ("--args", json.dumps({"url": "https://example.com/"})) if tool == "open_link" else ()
    done = call(tmp_path, tool, BOOKING, [{"action": "accept"}], "--protocol", "2025-06-18", *args)
    assert done.returncode == 1  # a tool error, printed as the result
    assert "which protocol 2025-06-18 does not have" in done.stdout, done.stderr
    assert "consented" not in done.stderr  # nothing was asked
    assert f"Tool '{tool}' failed" not in done.stderr  # the SDK's log line: in the server's log
    log = (tmp_path / "state" / "mcp-elicit" / "servers" / "booking_server.log").read_text()
    assert f"Tool '{tool}' failed" in log
