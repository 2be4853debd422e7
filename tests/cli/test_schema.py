"""mcp-elicit schema check|validate|convert, as a user runs it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_elicit.cli import main
from tests.paths import VENV_BIN

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "age": {"type": "integer", "minimum": 0},
        "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}]},
    },
    "required": ["name"],
}


def write(tmp_path: Path, name: str, value: Any) -> str:
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return str(path)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        status = main(args)
    except SystemExit as exc:  # argparse's bad usage
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_check_valid_and_invalid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "s.json", SCHEMA)
    assert run(["schema", "check", path, "--revision", "2025-11-25"], capsys)[:2] == (
        0,
        "valid for 2025-11-25\n",
    )
    status, out, _ = run(["schema", "check", path, "--revision", "2025-06-18"], capsys)
    assert status == 1
    assert 'color: "oneOf" (titled options) is not in this revision' in out
    status, out, _ = run(["schema", "check", path, "-r", "2025-06-18", "--json"], capsys)
    report = json.loads(out)
    assert status == 1 and report["valid"] is False
    assert report["problems"] == [
        {
            "field": "color",
            "code": "not_in_revision",
            "message": '"oneOf" (titled options) is not in this revision '
            "(it arrived in 2025-11-25)",
        }
    ]


def test_check_reads_the_schema_inside_a_request(capsys: pytest.CaptureFixture[str]) -> None:
    vector = (
        Path(__file__).parent.parent
        / "data/spec/vectors/V024_R1125_Example-Structured-Data-Request-Request.json"
    )
    assert run(["schema", "check", str(vector), "-r", "2025-11-25"], capsys)[0] == 0


def test_check_shows_lint_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path, "s.json", {"type": "object", "properties": {"password": {"type": "string"}}}
    )
    status, out, _ = run(["schema", "check", path, "-r", "draft"], capsys)
    assert status == 0
    assert "1 note to show a person" in out and "[looks_secret]" in out


LINK_MESSAGE = "Sign in at https://login.example.com/start first, then tell us your name"
LINK_NOTE = {
    "field": None,
    "code": "url_in_text",
    "message": "the message contains a URL (https://login.example.com/start); a form should "
    "not send you to links: URLs belong in URL mode, where they are checked",
}


def request(message: str, *, whole: bool) -> dict[str, Any]:
    params = {"message": message, "requestedSchema": SCHEMA}
    if not whole:
        return params
    return {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params}


@pytest.mark.parametrize("whole", [True, False], ids=["request", "params"])
def test_check_flags_a_url_in_a_requests_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], whole: bool
) -> None:
    path = write(tmp_path, "request.json", request(LINK_MESSAGE, whole=whole))
    status, out, _ = run(["schema", "check", path, "-r", "2025-11-25"], capsys)
    assert status == 0  # a note to show a person, not a problem with the schema
    assert out.splitlines() == [
        "valid for 2025-11-25",
        "1 note to show a person:",
        f"  (message): {LINK_NOTE['message']}  [url_in_text]",
    ]
    status, out, _ = run(["schema", "check", path, "-r", "2025-11-25", "--json"], capsys)
    assert status == 0
    assert json.loads(out) == {
        "valid": True,
        "revision": "2025-11-25",
        "problems": [],
        "notes": [LINK_NOTE],
    }


def test_check_flags_the_message_like_the_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcp_elicit.forms import lint_schema

    path = write(tmp_path, "request.json", request(LINK_MESSAGE, whole=True))
    out = run(["schema", "check", path, "-r", "draft", "--json"], capsys)[1]
    expected = lint_schema(SCHEMA, message=LINK_MESSAGE)
    assert json.loads(out)["notes"] == [p.to_json() for p in expected]


def test_check_without_a_link_in_the_message_has_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "request.json", request("Tell us your name", whole=True))
    status, out, _ = run(["schema", "check", path, "-r", "2025-11-25"], capsys)
    assert (status, out) == (0, "valid for 2025-11-25\n")


def test_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = write(tmp_path, "s.json", SCHEMA)
    good = write(tmp_path, "good.json", {"name": "Ann", "age": 3})
    bad = write(tmp_path, "bad.json", {"name": "A", "age": "3", "zip": 1})
    assert run(["schema", "validate", schema, good], capsys)[:2] == (0, "valid answer\n")
    status, out, _ = run(["schema", "validate", schema, bad], capsys)
    assert status == 1
    assert out.splitlines() == [
        "invalid answer: 3 problems",
        "  name: must be at least 2 characters long (it has 1)  [too_short]",
        "  age: must be a whole number, not text  [type]",
        "  zip: 'zip' is not a field of this form; "
        "the fields are 'name', 'age', 'color'  [unknown_field]",
    ]
    status, out, _ = run(["schema", "validate", schema, bad, "--json"], capsys)
    assert status == 1
    assert [p["field"] for p in json.loads(out)["problems"]] == ["name", "age", "zip"]
    # The schema is checked against a revision when one is given.
    status, out, _ = run(["schema", "validate", schema, good, "-r", "2025-06-18"], capsys)
    assert status == 1 and "the schema itself is invalid" in out


def test_validate_reads_standard_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = write(tmp_path, "s.json", SCHEMA)
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"name": "Bo"}'))
    assert run(["schema", "validate", schema, "-"], capsys)[0] == 0
    assert run(["schema", "validate", "-", "-"], capsys)[0] == 2


def test_convert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "s.json", SCHEMA)
    status, out, _ = run(["schema", "convert", path, "--to", "2025-06-18"], capsys)
    assert status == 0
    assert json.loads(out)["properties"]["color"] == {
        "type": "string",
        "enum": ["r"],
        "enumNames": ["Red"],
    }
    multi = write(
        tmp_path,
        "m.json",
        {
            "type": "object",
            "properties": {"t": {"type": "array", "items": {"type": "string", "enum": ["a"]}}},
        },
    )
    status, out, err = run(["schema", "convert", multi, "--to", "2025-06-18"], capsys)
    assert status == 1 and out == ""
    assert "cannot convert to 2025-06-18: field 't': multi-select has no form" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["schema", "check", "{missing}", "-r", "draft"], "no such file"),
        (["schema", "check", "{notjson}", "-r", "draft"], "is not JSON"),
        (["schema", "check", "{schema}", "-r", "1999-01-01"], "unknown revision"),
        (["schema", "check", "{schema}"], "--revision"),
        (["schema", "convert", "{schema}"], "--to"),
        (["schema"], "ACTION"),
        (["schema", "validate", "{schema}", "{notjson}"], "answer: "),
    ],
)
def test_bad_usage_exits_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    paths = {
        "missing": str(tmp_path / "missing.json"),
        "notjson": write(tmp_path, "n.json", "{not json"),
        "schema": write(tmp_path, "s.json", SCHEMA),
    }
    status, _, err = run([a.format(**paths) for a in args], capsys)
    assert status == 2
    assert message in err
    assert "Traceback" not in err


def test_a_wrong_shape_is_a_finding_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "s.json", [1, 2, 3])
    status, out, _ = run(["schema", "check", path, "-r", "draft"], capsys)
    assert status == 1 and "requestedSchema must be an object, not a list" in out
    status, out, _ = run(["schema", "validate", write(tmp_path, "ok.json", SCHEMA), path], capsys)
    assert status == 1 and "the answer must be an object" in out


@pytest.mark.slow
def test_the_installed_command_runs(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", SCHEMA)
    script = VENV_BIN / "mcp-elicit"  # the console script in the venv
    done = subprocess.run(
        [str(script), "schema", "check", path, "-r", "draft", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["valid"] is True
    done = subprocess.run(
        [sys.executable, "-m", "mcp_elicit.cli", "schema", "check", "/no/such/file", "-r", "draft"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
