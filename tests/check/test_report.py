"""What ``mcp-elicit check`` prints of a peer's words is cleaned as our renderers clean a
server's words: no escape sequence (a window title, a cleared screen, a hyperlink, a moved
cursor) and no bidi control reaches the terminal, in the lines, the JSON or the matrix, and
the report still says what failed."""

from __future__ import annotations

import json

import pytest

from mcp_elicit.check import Outcome, Report, Status
from mcp_elicit.cli import main
from tests.check.support import unsafe
from tests.peer_servers.rule_breakers import HOSTILE, HOSTILE_WORDS


def test_an_outcome_cleans_what_the_peer_said() -> None:
    outcome = Outcome("server-url-request-shape", "2025-11-25", Status.FAILED, HOSTILE)
    report = Report("a server", [outcome])
    for text in (outcome.line(), report.text(), report.json_text()):
        assert unsafe(text) == [], text
    assert "\\u{001b}]0;pwned" in outcome.seen  # written out, whole
    assert "\\u{202e}txt.exe" in outcome.seen
    said = Outcome("server-url-request-shape", "2025-11-25", Status.FAILED, "one\n✓ forged")
    assert said.line().count("\n") == 0, "a peer cannot add a line to the report"


@pytest.mark.slow
@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_the_check_command_prints_no_control_from_a_hostile_server(
    rule_breakers: str, json_output: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Escape sequences and bidi controls in the server's error messages, tool names and
    descriptions, questions and links (tests/peer_servers/rule_breakers.py ``hostile``)."""
    scenarios = "server-url-request-shape,server-validates-answer,server-url-required-error"
    printed = []
    for name in ("hostile-list", "hostile"):
        argv = ["check", "server", "--protocol", "2025-11-25", "--scenario", scenarios]
        status = main([*argv, *(["--json"] if json_output else []), f"{rule_breakers}{name}/mcp"])
        out = capsys.readouterr().out
        assert status == 1, out
        assert unsafe(out) == [], out
        printed.append(out)
    listing, rest = printed
    if json_output:
        [first, *_] = json.loads(listing)["checks"]
        assert first["status"] == "failed"
        assert first["seen"].startswith(f"could not list tools: MCPError: {HOSTILE_WORDS} ")
        assert json.loads(rest)["failed"] == 3
    else:
        failed = "✗ server-url-request-shape [2025-11-25] failed: could not list tools: MCPError:"
        assert f"{failed} {HOSTILE_WORDS} \\u{{001b}}]0;pwned" in listing
        assert "✗ server-url-required-error [2025-11-25] failed: error -32042 without" in rest
