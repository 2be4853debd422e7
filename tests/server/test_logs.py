"""Server logs respect the application's logging; a server our command line starts writes
one line per record (plain, never wrapped), or one JSON object per line
(``MCP_ELICIT_LOG_FORMAT=json``)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer

from mcp_elicit.server import Elicitation, logs
from mcp_elicit.server.serving import uvicorn_options_for

UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def clean_root(monkeypatch: pytest.MonkeyPatch) -> logging.Logger:
    """The root logger as a fresh process has it (pytest's capture handlers, added as the
    test's body starts, set aside), and uvicorn's loggers as they are; all put back
    afterwards."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", logging.WARNING)
    for name in UVICORN_LOGGERS:
        found = logging.getLogger(name)
        monkeypatch.setattr(found, "handlers", list(found.handlers))
        monkeypatch.setattr(found, "level", found.level)
        monkeypatch.setattr(found, "propagate", found.propagate)
    return root


def uvicorn_state() -> list[tuple[str, int, list[logging.Handler], bool]]:
    return [
        (name, (found := logging.getLogger(name)).level, list(found.handlers), found.propagate)
        for name in UVICORN_LOGGERS
    ]


def test_an_app_that_configured_logging_keeps_exactly_its_handlers_and_levels(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = clean_root(monkeypatch)
    mine = logging.StreamHandler(sys.stderr)
    mine.setFormatter(logging.Formatter("APP %(levelname)s %(name)s: %(message)s"))
    root.addHandler(mine)
    root.setLevel(logging.DEBUG)
    uvicorn_before = uvicorn_state()

    elicitation = Elicitation(store=f"sqlite:///{tmp_path / 'flows.db'}")
    server = MCPServer("app", **elicitation.server_options())  # the SDK's configure_logging
    elicitation.install(server)
    options = uvicorn_options_for("streamable-http", None)
    uvicorn.Config(server.streamable_http_app(), **options)  # uvicorn configures logging here
    assert logs.configure() is False  # our command line's set-up steps aside too

    assert root.handlers == [mine]
    assert mine.formatter is not None and mine.formatter._fmt == (
        "APP %(levelname)s %(name)s: %(message)s"
    )
    assert root.level == logging.DEBUG
    assert uvicorn_state() == uvicorn_before, "uvicorn's loggers were changed"
    assert options["log_config"] is None and options["log_level"] is None


def test_without_the_apps_logging_uvicorn_keeps_our_quiet_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean_root(monkeypatch)
    options = uvicorn_options_for("streamable-http", None)
    assert options["log_level"] == "warning" and options["log_config"] is None
    given = uvicorn_options_for("streamable-http", {"log_level": "info"})
    assert given["log_level"] == "info"


# The demo server's entry point (python -m mcp_elicit.demo.hotel_server, as `mcp-elicit demo`
# starts it), with its serving replaced by one long record and one of two lines.
ENTRY = """
import logging, sys
from mcp_elicit.demo import hotel_server
from mcp_elicit.server import Elicitation

def run(self, *args, **kwargs):
    said = logging.getLogger("mcp_elicit.demo")
    said.warning("a long record: " + "word " * 40 + "end")
    said.warning("first line\\nsecond line")
    try:
        raise ValueError("boom")
    except ValueError:
        said.exception("it failed")

Elicitation.run = run
sys.argv = ["hotel_server", "--store", sys.argv[1], "--key-file", sys.argv[2]]
hotel_server.main()
"""


def run_entry(tmp_path: Path, **env: str) -> list[str]:
    environment = {k: v for k, v in os.environ.items() if k != logs.LOG_FORMAT_VARIABLE}
    command = [sys.executable, "-c", ENTRY, f"sqlite:///{tmp_path / 'd.db'}", str(tmp_path / "k")]
    done = subprocess.run(
        command, env={**environment, **env, "COLUMNS": "80"}, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return [line for line in done.stderr.decode().splitlines() if "mcp_elicit.demo" in line]


@pytest.mark.slow
def test_a_server_our_command_line_starts_writes_one_unwrapped_line_per_record(
    tmp_path: Path,
) -> None:
    long, two_lines, failed = run_entry(tmp_path)
    assert len(long) > 200 and long.endswith("word end"), long
    time, level, logger, message = long.split(" ", 3)
    assert time.endswith("Z") and "T" in time
    assert (level, logger) == ("WARNING", "mcp_elicit.demo")
    assert message.startswith("a long record: word word")
    assert two_lines.endswith(" first line\\nsecond line")
    assert "it failed\\nTraceback (most recent call last):\\n" in failed
    assert failed.endswith("ValueError: boom")


@pytest.mark.slow
def test_json_records_are_one_object_per_line(tmp_path: Path) -> None:
    lines = run_entry(tmp_path, **{logs.LOG_FORMAT_VARIABLE: "json"})
    long, two_lines, failed = (json.loads(line) for line in lines)
    assert set(long) == {"time", "level", "logger", "message"}
    assert (long["level"], long["logger"]) == ("WARNING", "mcp_elicit.demo")
    assert long["message"].endswith("word end")
    assert two_lines["message"] == "first line\nsecond line"
    assert failed["message"] == "it failed"
    assert failed["exception"].endswith("ValueError: boom")


def test_an_unknown_log_format_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(logs.LOG_FORMAT_VARIABLE, "xml")
    with pytest.raises(ValueError, match="MCP_ELICIT_LOG_FORMAT 'xml': one of text, json, rich"):
        logs.log_format()


def test_run_replaces_only_the_sdks_default_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    root = clean_root(monkeypatch)
    MCPServer("quick start")  # nothing configured: the SDK puts its Rich handler on the root
    (sdk,) = root.handlers
    assert logs.sdk_default_handler() is sdk and not logs.application_configured()
    assert logs.take_over_sdk_default() is True
    (ours,) = root.handlers
    assert ours is not sdk and isinstance(ours.formatter, logs.LineFormatter)
    assert root.level == logging.INFO  # the SDK's level stays
    assert logs.take_over_sdk_default() is False and root.handlers == [ours]  # once
    assert uvicorn_options_for("streamable-http", None)["log_level"] == "warning"


def test_run_keeps_the_sdks_handler_when_asked_and_an_apps_handlers_always(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = clean_root(monkeypatch)
    MCPServer("quick start")
    (sdk,) = root.handlers
    monkeypatch.setenv(logs.LOG_FORMAT_VARIABLE, "rich")
    assert logs.take_over_sdk_default() is False and root.handlers == [sdk]
    monkeypatch.delenv(logs.LOG_FORMAT_VARIABLE)
    mine = logging.StreamHandler(sys.stderr)
    root.addHandler(mine)  # the application's own, next to the SDK's
    assert logs.take_over_sdk_default() is False and root.handlers == [sdk, mine]
    assert logs.application_configured()


# The quick start as a newcomer writes it (no logging configured), its serving replaced by
# one long record.
QUICK_START = """
import logging, sys
from mcp.server.mcpserver import MCPServer
from mcp_elicit.server import Elicitation, serving

async def serve_http(app, **kwargs):
    logging.getLogger("mcp_elicit.app").warning("a long record: " + "word " * 40 + "end")

serving.serve_http = serve_http
elicitation = Elicitation(store="sqlite:///" + sys.argv[1])
server = MCPServer("quick start", **elicitation.server_options())
elicitation.run(server, "streamable-http", port=int(sys.argv[2]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("chosen", ["", "rich"])
def test_a_quick_start_servers_records_are_one_line_each(tmp_path: Path, chosen: str) -> None:
    environment = {k: v for k, v in os.environ.items() if k != logs.LOG_FORMAT_VARIABLE}
    if chosen:
        environment[logs.LOG_FORMAT_VARIABLE] = chosen
    command = [sys.executable, "-c", QUICK_START, str(tmp_path / "d.db"), "0"]
    done = subprocess.run(
        command, env={**environment, "COLUMNS": "80"}, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    lines = [line for line in done.stderr.decode().splitlines() if line.strip()]
    if chosen == "rich":  # the SDK's Rich records, wrapped at 80 columns, as asked
        assert all(len(line) <= 80 for line in lines) and len(lines) > 1, lines
    else:  # one line per record, each in our format (the store in use is said at INFO too)
        assert all(re.match(r"\d{4}-\d\d-\d\dT[\d:.]+Z [A-Z]+ \S+ ", line) for line in lines)
        (line,) = [line for line in lines if " mcp_elicit.app " in line]
        assert " WARNING mcp_elicit.app a long record: word" in line and line.endswith("end")
