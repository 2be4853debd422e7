"""The command line as written: positionals and options in any order, each command's own usage
on an error, readable choices. In-process, through ``mcp_elicit.cli.main`` and ``parse``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from anyio.from_thread import start_blocking_portal

from mcp_elicit.cli import main, parse
from tests.client_support import booking_server

URL = "http://127.0.0.1:8000/mcp"
TOP_LEVEL_USAGE = "usage: mcp-elicit [-h]"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors and --help
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


# -- any order -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        # The README's synopsis: the target last, after the options.
        ["call", "book", "--answers", "a.json", "--protocol", "2025-11-25", URL],
        ["call", "book", URL, "--answers", "a.json", "--protocol", "2025-11-25"],
        ["call", "book", "--answers", "a.json", URL, "--protocol", "2025-11-25"],
        ["call", "--protocol", "2025-11-25", "book", "--answers", "a.json", URL],
        ["call", "--answers", "a.json", "--protocol", "2025-11-25", "book", URL],
    ],
)
def test_call_takes_its_target_before_between_or_after_the_options(argv: list[str]) -> None:
    args = parse(argv)
    assert (args.tool, args.target, args.server_command) == ("book", URL, [])
    assert (args.answers, args.protocol) == ("a.json", "2025-11-25")


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "book", "--json", URL],
        ["call", "--json", "book", URL],
        ["call", "book", URL, "--json"],
    ],
)
def test_call_takes_json_and_a_url_in_any_order(argv: list[str]) -> None:
    args = parse(argv)
    assert (args.tool, args.target, args.json, args.server_command) == ("book", URL, True, [])


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "book", "--json", "--", "python", "server.py", "--port", "1"],
        ["call", "--json", "book", "--", "python", "server.py", "--port", "1"],
    ],
)
def test_call_takes_a_server_command_last(argv: list[str]) -> None:
    args = parse(argv)
    assert (args.tool, args.target, args.json) == ("book", None, True)
    assert args.server_command == ["python", "server.py", "--port", "1"]


@pytest.mark.parametrize(
    "argv",
    [
        ["connect", URL, "--protocol", "2025-11-25", "--ui", "web"],
        ["connect", "--protocol", "2025-11-25", "--ui", "web", URL],
        ["connect", "--protocol", "2025-11-25", URL, "--ui", "web"],
    ],
)
def test_connect_takes_its_target_before_between_or_after_the_options(argv: list[str]) -> None:
    args = parse(argv)
    assert (args.target, args.protocol, args.ui, args.server_command) == (
        URL,
        "2025-11-25",
        "web",
        [],
    )


def test_connect_takes_a_server_command_last() -> None:
    args = parse(["connect", "--protocol", "2026-07-28", "--", "node", "s.js", "--protocol"])
    assert (args.target, args.protocol) == (None, "2026-07-28")
    assert args.server_command == ["node", "s.js", "--protocol"]


@pytest.fixture
def http_server() -> Iterator[str]:
    """tests.client_support's booking server over Streamable HTTP, in a thread of its own
    (``main`` runs its own event loop)."""
    app = booking_server().streamable_http_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, access_log=False)
    web = uvicorn.Server(config)

    async def serve() -> None:
        await web.serve()

    with start_blocking_portal() as portal:
        done = portal.start_task_soon(serve)
        while not web.started:
            time.sleep(0.01)
            assert not done.done(), done.exception()
        (socket,) = web.servers[0].sockets
        try:
            yield f"http://127.0.0.1:{socket.getsockname()[1]}/mcp"
        finally:
            web.should_exit = True
            done.result(timeout=10)


def test_call_with_the_url_last_calls_the_tool(
    http_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept", "content": {"name": "Ada"}}]))
    argv = ["call", "book", "--answers", str(answers), "--protocol", "2025-11-25", http_server]
    status, out, err = run(capsys, *argv)
    assert (status, out) == (0, "booked Ada x2\n"), err
    assert "server log" not in err  # a server over HTTP has no log of ours


# -- each command's own usage -----------------------------------------------------------------

# Every command, each with a bad option and a missing argument (and a few more): the error is
# the command's own, under its own usage line, never the top-level one.
USAGE_ERRORS = [
    (["demo", "--bogus"], "mcp-elicit demo", "unrecognized arguments: --bogus"),
    (["demo", "--store"], "mcp-elicit demo", "argument --store: expected one argument"),
    (["demo", "--protocol", "1999"], "mcp-elicit demo", "invalid choice: '1999'"),
    (["connect", "--bogus", URL], "mcp-elicit connect", "unrecognized arguments: --bogus"),
    (["connect", URL, "--timeout"], "mcp-elicit connect", "--timeout: expected one argument"),
    (["connect", URL, "extra"], "mcp-elicit connect", "unrecognized arguments: extra"),
    (["connect", "--ui", "tv", URL], "mcp-elicit connect", "invalid choice: 'tv'"),
    (["call", "book", "--bogus", URL], "mcp-elicit call", "unrecognized arguments: --bogus"),
    (["call", "book", URL, "http://b/"], "mcp-elicit call", "unrecognized arguments"),
    (["call", "--json"], "mcp-elicit call", "required: TOOL"),
    (["call", "book", URL, "--args"], "mcp-elicit call", "--args: expected one argument"),
    (["call", "book", "--protocol", "1999"], "mcp-elicit call", "invalid choice: '1999'"),
    (
        ["schema", "check", "s.json", "-r", "draft", "--bogus"],
        "mcp-elicit schema check",
        "unrecognized arguments: --bogus",
    ),
    (["schema", "check", "-r", "draft"], "mcp-elicit schema check", "required: FILE"),
    (["schema", "check", "s.json"], "mcp-elicit schema check", "required: --revision"),
    (["schema", "check", "s.json", "-r", "1999"], "mcp-elicit schema check", "unknown revision"),
    (
        ["schema", "validate", "--bogus", "s.json", "a.json"],
        "mcp-elicit schema validate",
        "unrecognized arguments: --bogus",
    ),
    (["schema", "validate", "s.json"], "mcp-elicit schema validate", "required: ANSWER_FILE"),
    (
        ["schema", "validate", "s.json", "a.json", "--lang", "fr"],
        "mcp-elicit schema validate",
        "argument --lang: no catalog for language 'fr'; the languages are en, zh-Hans",
    ),
    (
        ["schema", "convert", "s.json", "--bogus", "--to", "draft"],
        "mcp-elicit schema convert",
        "unrecognized arguments: --bogus",
    ),
    (["schema", "convert", "s.json"], "mcp-elicit schema convert", "required: --to"),
    (["schema", "convert", "f.json", "--to", "2025-06-18", "g"], "mcp-elicit schema convert", "g"),
    (["schema"], "mcp-elicit schema", "required: ACTION"),
    (
        ["url", "check", "--bogus", "https://a.example/"],
        "mcp-elicit url check",
        "unrecognized arguments: --bogus",
    ),
    (["url", "check"], "mcp-elicit url check", "required: URL"),
    (["check", "server", "--bogus", URL], "mcp-elicit check server", "unrecognized arguments"),
    (["check", "server", "--protocol", "1999", URL], "mcp-elicit check server", "'1999'"),
    (["check", "client", "--bogus", "--", "true"], "mcp-elicit check client", "unrecognized"),
    (["url", "check", "https://a.example/", "x"], "mcp-elicit url check", "unrecognized"),
    (["url"], "mcp-elicit url", "required: SUBCOMMAND"),
    (["gateway", "--bogus", URL], "mcp-elicit gateway", "unrecognized arguments: --bogus"),
    (["gateway", "--hold-limit", "0", URL], "mcp-elicit gateway", "more than 0 seconds"),
    (
        ["gateway", "--header", "A: b", "--", "true"],
        "mcp-elicit gateway",
        "headers are for an upstream given by its http(s):// URL",
    ),
    (
        ["gateway", "--upstream-protocol", "1999", URL],
        "mcp-elicit gateway",
        "invalid choice: '1999'",
    ),
    (["gateway", "--max-held-calls", "0", URL], "mcp-elicit gateway", "must be at least 1"),
    (["gateway", "--token-file", "t", URL], "mcp-elicit gateway", "--token-file is for --http"),
    (
        ["gateway", "--http", "1", "--token-file", "/nonexistent/t", URL],
        "mcp-elicit gateway",
        "--token-file: cannot read /nonexistent/t",
    ),
]


@pytest.mark.parametrize(("argv", "usage", "said"), USAGE_ERRORS, ids=" ".join)
def test_a_parsing_error_shows_the_commands_own_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], usage: str, said: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith(f"usage: {usage} "), err
    assert TOP_LEVEL_USAGE not in err
    assert err.splitlines()[-1].startswith(f"{usage}: error: ")
    assert said in err.splitlines()[-1]


def test_every_command_has_a_usage_error_above() -> None:
    # A command added later gets its line in USAGE_ERRORS, or this fails.
    from mcp_elicit.cli import build_parser

    def commands(parser: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found |= commands(sub, (*prefix, name))
        return found or {prefix}

    tested = {tuple(usage.split()[1:]) for _, usage, _ in USAGE_ERRORS}
    assert commands(build_parser()) <= tested


def test_a_top_level_error_shows_the_top_level_usage(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--bogus")
    assert status == 2 and out == ""
    assert err.startswith(TOP_LEVEL_USAGE)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["call", "book"], "call: error: no server: give an http(s):// URL"),
        (["call", "book", URL, "--", "python", "s.py"], "call: error: give either a URL"),
        (["call", "book", "ftp://x/"], "call: error: 'ftp://x/' is not an http(s):// URL"),
        (["call", "book", "--args", "[1]", URL], "call: error: --args: must be a JSON object"),
        (["call", "book", "--answers", "/nonexistent/a.json", URL], "call: error: --answers:"),
        (["connect"], "connect: error: no server"),
        (["connect", "--audit", "/nonexistent/dir/a.log", URL], "connect: error: --audit:"),
    ],
)
def test_an_error_found_after_parsing_shows_the_commands_own_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    # These are found when the command runs (UsageError), before anything is started.
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    command = argv[0]
    assert err.startswith(f"usage: mcp-elicit {command} "), err
    assert TOP_LEVEL_USAGE not in err
    assert f"mcp-elicit {said}" in err


# -- --modes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["call", "connect"])
def test_help_shows_the_modes_readably(capsys: pytest.CaptureFixture[str], command: str) -> None:
    status, out, _ = run(capsys, command, "--help")
    assert status == 0
    assert "form,form" not in out and "url,url" not in out
    assert "--modes MODES" in out
    help_text = " ".join(out[out.index("--modes MODES") :].split())
    assert "form, url, or both as form,url (the default)" in help_text


def test_demo_help_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "demo", "--help")
    assert status == 0 and out.startswith("usage: mcp-elicit demo")
    assert "form,form" not in out


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("form,url", "form,url"),
        ("url,form", "form,url"),
        ("form+url", "form,url"),
        ("form", "form"),
        ("url", "url"),
    ],
)
def test_modes_accept_each_spelling(given: str, meant: str) -> None:
    assert parse(["call", "t", URL, "--modes", given]).modes == meant


@pytest.mark.parametrize("given", ["", "forms", "form,url,sampling", "none"])
def test_unknown_modes_are_a_usage_error(capsys: pytest.CaptureFixture[str], given: str) -> None:
    status, _, err = run(capsys, "call", "t", URL, "--modes", given)
    assert status == 2
    assert err.startswith("usage: mcp-elicit call")
    assert "argument --modes: choose form, url, or both as form,url" in err


def test_modes_reach_the_handler() -> None:
    from mcp_elicit.cli._running import handler_of

    handler: Any = handler_of(parse(["connect", URL, "--modes", "url"]), None)
    assert (handler.modes.form, handler.modes.url) == (False, True)


def test_a_server_that_cannot_be_reached_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text("[]")
    status = main(["call", "book", "--answers", str(answers), "http://127.0.0.1:1/mcp"])
    assert status == 1
    assert "cannot reach the server at http://127.0.0.1:1/mcp" in capsys.readouterr().err


# -- --header and --sign-in ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("Authorization", "expected NAME:VALUE"),
        (":Bearer x", "expected NAME:VALUE"),
        ("Bad Name: x", "'Bad Name' is not an HTTP header name"),
        ("X-Token:@/nonexistent/token", "X-Token: cannot read /nonexistent/token"),
    ],
)
def test_a_bad_header_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    status, _, err = run(capsys, "call", "t", "http://127.0.0.1:1/mcp", "--header", given)
    assert status == 2
    assert f"argument --header: {said}" in err


def test_a_header_value_can_come_from_a_file(tmp_path: Path) -> None:
    from mcp_elicit.cli._host import _header

    secret = tmp_path / "token"
    secret.write_text("Bearer from-a-file\n")
    assert _header(f"Authorization: @{secret}") == ("Authorization", "Bearer from-a-file")
    assert _header("X-A:  b c ") == ("X-A", "b c")


def test_header_and_sign_in_are_for_a_url(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "call", "t", "--sign-in", "no", "--", sys.executable, "-c", "")
    assert status == 2
    assert "--header and --sign-in are for a server given by its URL" in err
