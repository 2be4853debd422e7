"""``mcp-elicit`` as a process: when its output is cut short (``... | head``), and when ``call``
has nobody to ask. Each test starts the command (and for ``call``, a server) as processes."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.support import environment
from tests.paths import EXAMPLES

pytestmark = pytest.mark.slow

NO_PERSON = (
    "mcp-elicit: no terminal and no --answers file: any question the server asks will be "
    "cancelled (no-person)"
)


def write(tmp_path: Path, name: str, value: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


# -- output cut short ------------------------------------------------------------------------

# Each field has a problem in 2025-06-18 (titled options arrived in 2025-11-25): the JSON
# report is far longer than a pipe holds.
BIG_SCHEMA = {
    "type": "object",
    "properties": {
        f"field_{n}": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}
        for n in range(2000)
    },
}
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        ["call", "--help"],
        ["url", "check", "--json", "https://example.com/"],
        ["url", "check", "https://example.com/"],
        ["schema", "check", "{schema}", "-r", "draft", "--json"],
        ["schema", "check", "{big}", "-r", "2025-06-18"],
        ["schema", "validate", "{schema}", "{answer}", "--json"],
        ["schema", "convert", "{big}", "--to", "2025-06-18"],
        ["demo", "--tour"],
    ],
    ids=" ".join,
)
# Buffered, the write fails when the output is flushed; unbuffered, at the first write.
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_closed_output_ends_the_command_quietly(
    tmp_path: Path, argv: list[str], unbuffered: bool
) -> None:
    paths = {
        "schema": write(tmp_path, "schema.json", SCHEMA),
        "big": write(tmp_path, "big.json", BIG_SCHEMA),
        "answer": write(tmp_path, "answer.json", {"name": "Ada"}),
    }
    argv = [word.format(**paths) for word in argv]
    reading, writing = os.pipe()
    os.close(reading)  # the reader is gone before the command writes a word
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mcp_elicit", *argv],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            env=environment(tmp_path, unbuffered=unbuffered),
            timeout=60,
            check=False,
        )
    finally:
        os.close(writing)
    assert done.stderr == ""  # no traceback, no "Exception ignored ... BrokenPipeError"
    assert done.returncode == 141  # 128 + SIGPIPE, as a shell reports a command it ended


def test_schema_check_json_into_head(tmp_path: Path) -> None:
    # The case as written: the reader takes a little, then goes.
    big = write(tmp_path, "big.json", BIG_SCHEMA)
    done = subprocess.run(
        [
            "bash",
            "-o",
            "pipefail",
            "-c",
            '"$@" | head -c 10',
            "mcp-elicit",
            sys.executable,
            "-m",
            "mcp_elicit",
            "schema",
            "check",
            big,
            "--revision",
            "2025-06-18",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=environment(tmp_path),
        timeout=60,
        check=False,
    )
    assert done.stdout == '{\n  "valid'
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
    assert done.stderr == ""
    assert done.returncode == 141


# -- call with nobody to ask -------------------------------------------------------------------


def call_booking(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    server = [sys.executable, str(EXAMPLES / "booking_server.py")]
    return subprocess.run(
        [sys.executable, "-m", "mcp_elicit", "call", "book_table", *options, "--", *server],
        stdin=subprocess.DEVNULL,  # not a terminal
        capture_output=True,
        text=True,
        env=environment(tmp_path),
        timeout=60,
        check=False,
    )


def test_call_with_no_terminal_and_no_answers_says_so_up_front(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    done = call_booking(tmp_path, "--audit", str(audit))
    assert done.returncode == 0, done.stderr
    # The server asked; the question was cancelled, and the server was told so.
    assert done.stdout == "No booking (cancel).\n"
    lines = done.stderr.splitlines()
    assert lines[0] == NO_PERSON  # before anything else: the server's log, the call
    assert lines.count(NO_PERSON) == 1
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert "no-person" in json.dumps(records)


def test_call_with_answers_says_nothing_of_the_kind(tmp_path: Path) -> None:
    answers = write(tmp_path, "answers.json", [{"action": "accept", "content": {"name": "Ada"}}])
    done = call_booking(tmp_path, "--answers", answers)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Booked a table for 2 (inside) under Ada.\n"
    assert "no terminal" not in done.stderr


# -- the early content-array draft: free text with a file, from an answers file ---------------


def test_call_speaks_the_early_draft_and_attaches_a_file(tmp_path: Path) -> None:
    # examples/free_text.py's tool asks with ask_text; spoken to as 2025-03-26 it sends the
    # message only, and the answers file's picture reaches it as bytes.
    picture = tmp_path / "dot.png"
    picture.write_bytes(PNG)
    audit = tmp_path / "audit.jsonl"
    answers = write(
        tmp_path,
        "answers.json",
        [{"action": "accept", "content": {"response": "A grey dot"}, "attach": [str(picture)]}],
    )
    server = [sys.executable, str(EXAMPLES / "free_text.py"), "--stdio"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_elicit",
            "call",
            "caption",
            "--protocol",
            "2025-03-26",
            "--answers",
            answers,
            "--audit",
            str(audit),
            "--",
            *server,
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=environment(tmp_path),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Caption: 'A grey dot'; pictures: {len(PNG)} bytes of image/png\n"
    # The audit log names the file, never its bytes.
    record = json.loads(audit.read_text().splitlines()[-1])
    assert record["attachments"] == [
        {"name": "dot.png", "mimeType": "image/png", "bytes": len(PNG)}
    ]
    assert base64.b64encode(PNG).decode() not in audit.read_text()


PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg=="
)
