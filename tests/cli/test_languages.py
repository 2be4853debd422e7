"""The command line in the person's language: ``--lang``, else LC_ALL, LC_MESSAGES or LANG.

What a person reads (the human reports, usage errors, ``--help``) follows the language; what a
program reads (codes, field names, every ``--json`` output) never does. In-process, through
``mcp_elicit.cli.main``, but for one run of the real command under ``LANG=zh_CN.UTF-8``.

The pseudo-locale (``tests/i18n_support.py``) finds English that escaped the catalogs: every
word the CLI prints must be accented, or be data (file names, field names, URLs, codes, option
names and metavars).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_elicit import i18n
from mcp_elicit.check import CHECKS, Outcome, Report, Status
from mcp_elicit.cli import build_parser, check_command, main, schema_command
from mcp_elicit.cli._connect import help_text
from mcp_elicit.cli._running import describe_failure
from mcp_elicit.i18n import catalogs, text_width
from mcp_elicit.urls.idn import skeleton
from tests.i18n_support import escaped, pseudo_language
from tests.paths import SRC

CJK = re.compile(r"[\u4e00-\u9fff]")
LANGUAGES = "en, zh-Hans"
COMMANDS = ("demo", "connect", "call", "check", "gateway", "schema", "url")
JSON_SAYS = "Expecting property name enclosed in double quotes"

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2, "title": "Name"},
        "age": {"type": "integer", "minimum": 0, "maximum": 130},
        "email": {"type": "string", "format": "email"},
        "room": {"type": "string", "enum": ["std", "sea"]},
    },
    "required": ["name", "age"],
}
# A problem in every field, and a field the form does not have.
ANSWER = {"name": "A", "age": -3, "email": "ann@", "room": "penthouse", "pets": 2}
# Not valid in 2025-06-18 (titled options arrived in 2025-11-25), and a secret-looking field.
OLD_SCHEMA = {
    "type": "object",
    "properties": {
        "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}]},
        "apiKey": {"type": "string", "description": "Paste it from https://example.com/keys"},
    },
}
# JSON, as ``call --help`` (an answers file) and ``url check --help`` (its keys) show it.
ANSWERS_FILE_WORDS = ['"action"', '"accept"', '"content"', '"defaults"', "true", '"decline"']
ANSWERS_FILE_WORDS += ['"cancel"', "{verdict,", "reasons,", "display_host,", "registrable_domain}"]
# One line of a human report: "  field: message  [code]".
LINE = re.compile(r"^  (?P<field>\S+): (?P<message>.*)  \[(?P<code>[a-z_]+)\]$")


@pytest.fixture(autouse=True)
def _language_kept(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``main`` sets the process's language: put it back; and run as a C locale would, unless
    a test says otherwise."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    before = i18n.current_language()
    # The pseudo-locale is registered for this test only (it is not a language to offer).
    monkeypatch.setattr(catalogs, "_registered", dict(catalogs._registered))
    yield
    i18n.set_default_language(before)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    written = {}
    for name, value in (("schema", SCHEMA), ("answer", ANSWER), ("old", OLD_SCHEMA)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(value), encoding="utf-8")
        written[name] = str(path)
    return written


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors and --help
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def findings(out: str) -> list[tuple[str, str, str]]:
    """``(field, code, message)`` of each finding line of a human report."""
    found = []
    for line in out.splitlines():
        if (match := LINE.match(line)) is not None:
            found.append((match["field"], match["code"], match["message"]))
    return found


def validate(capsys: pytest.CaptureFixture[str], files: dict[str, str], *more: str) -> str:
    status, out, err = run(capsys, "schema", "validate", files["schema"], files["answer"], *more)
    assert status == 1, err
    return out


# -- schema validate: the same findings, in the person's words --------------------------------


def test_validate_in_chinese_has_the_english_codes_and_fields(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    english = validate(capsys, files, "--lang", "en")
    chinese = validate(capsys, files, "--lang", "zh-Hans")
    in_english, in_chinese = findings(english), findings(chinese)
    assert len(in_english) >= 4
    assert [(f, c) for f, c, _ in in_chinese] == [(f, c) for f, c, _ in in_english]
    assert {"too_short", "too_small", "unknown_field"} <= {c for _, c, _ in in_english}
    for field, code, message in in_chinese:
        assert CJK.search(message), f"{field} [{code}] is not in Chinese: {message}"
    assert not CJK.search(english)
    # The CLI's own words: the headline, with the count.
    assert english.splitlines()[0] == f"invalid answer: {len(in_english)} problems"
    assert CJK.search(chinese.splitlines()[0]) and str(len(in_english)) in chinese.splitlines()[0]


def test_the_environment_chooses_the_language_without_lang(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    chinese = validate(capsys, files, "--lang", "zh-Hans")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert validate(capsys, files) == chinese
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert validate(capsys, files) == validate(capsys, files, "--lang", "en")


def test_lc_all_wins_over_lc_messages_and_lang(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    english = validate(capsys, files, "--lang", "en")
    chinese = validate(capsys, files, "--lang", "zh-Hans")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    assert validate(capsys, files) == english
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    assert validate(capsys, files) == chinese
    monkeypatch.delenv("LC_ALL")
    monkeypatch.setenv("LC_MESSAGES", "zh_CN.UTF-8")
    assert validate(capsys, files) == chinese


@pytest.mark.parametrize("spelling", [["--lang", "{tag}"], ["--lang={tag}"]], ids=["space", "="])
def test_lang_wins_over_the_environment(
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    spelling: list[str],
) -> None:
    def lang(tag: str) -> list[str]:
        return [word.format(tag=tag) for word in spelling]

    english = validate(capsys, files, "--lang", "en")
    chinese = validate(capsys, files, "--lang", "zh-Hans")
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    assert validate(capsys, files, *lang("en")) == english
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    assert validate(capsys, files, *lang("zh-Hans")) == chinese
    # Anywhere on the line, and as the tags a person may write: zh-CN and zh are zh-Hans.
    assert validate(capsys, files, "--lang", "zh-CN") == chinese
    status, out, _ = run(
        capsys, "--lang", "zh", "schema", "validate", files["schema"], files["answer"]
    )
    assert (status, out) == (1, chinese)


@pytest.mark.parametrize("environment", ["C.UTF-8", "zh_CN.UTF-8"])
def test_an_unknown_lang_is_a_usage_error_naming_the_languages(
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    environment: str,
) -> None:
    monkeypatch.setenv("LANG", environment)
    for argv in (
        ["schema", "validate", files["schema"], files["answer"], "--lang", "fr"],
        ["--lang=fr", "url", "check", "https://example.com/"],
    ):
        status, out, err = run(capsys, *argv)
        assert (status, out) == (2, "")
        last = err.splitlines()[-1]
        assert "--lang" in last and "'fr'" in last and LANGUAGES in last
        assert bool(CJK.search(last)) == environment.startswith("zh")


# -- what programs read is the same in every language ---------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["schema", "validate", "{schema}", "{answer}", "--json"],
        ["schema", "check", "{old}", "-r", "2025-06-18", "--json"],
        ["schema", "check", "{schema}", "-r", "2025-11-25", "--json"],
        ["url", "check", "--json", "https://例子.com/"],
        ["url", "check", "--json", "http://10.0.0.1/login?next=https://evil.example/"],
    ],
    ids=" ".join,
)
def test_json_output_is_the_same_in_every_language(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], argv: list[str]
) -> None:
    argv = [word.format(**files) for word in argv]
    english = run(capsys, *argv, "--lang", "en")
    chinese = run(capsys, *argv, "--lang", "zh-Hans")
    assert chinese == english
    json.loads(english[1])
    assert not CJK.search(english[1].replace("例子", ""))


def test_a_check_reports_json_is_the_same_in_every_language() -> None:
    report = sample_report()
    with i18n.language("zh-Hans"):
        chinese = report.json_text()
        summary = report.summary()
    assert chinese == report.json_text()
    assert CJK.search(summary) and "1/2" in summary
    assert report.summary() == "Passed: 1/2, 1 failed, 1 skipped, 1 not applicable"


# -- help and usage errors -----------------------------------------------------------------


def commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every command under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from commands(sub)


def words(parser: argparse.ArgumentParser) -> set[str]:
    """What a command's help shows as it is, in every language: its name, its usage line as
    given, its options, metavars and choices."""
    # ``call --answers``'s help shows the answers file's JSON.
    shown = {parser.prog, *i18n.available_languages(), *ANSWERS_FILE_WORDS}
    shown.update(schema_command.REVISION_NAMES, check_command.CHECK_REVISIONS)
    if parser.usage is not None:  # a usage line as written: syntax, not words
        shown.update((parser.usage % {"prog": parser.prog}).split())
    for action in parser._actions:
        shown.update(action.option_strings)
        for value in (action.metavar, action.dest.upper(), *(action.choices or ())):
            if isinstance(value, str):
                shown.add(value)
    return shown


@pytest.mark.parametrize("argv", [["--help"], ["schema", "validate", "--help"], ["url", "--help"]])
def test_help_in_chinese(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, english, _ = run(capsys, "--lang", "en", *argv)
    assert status == 0 and english.startswith("usage: mcp-elicit") and "options:" in english
    status, chinese, _ = run(capsys, "--lang", "zh-Hans", *argv)
    assert status == 0 and chinese.startswith("用法：mcp-elicit")
    assert "选项：" in chinese and "显示此帮助信息并退出" in chinese
    # The same options, in the same order.
    options = re.compile(r"^  (-[-\w]+)", re.MULTILINE)
    assert options.findall(chinese) == options.findall(english)


def test_chinese_help_is_wrapped_to_the_terminal_by_its_width_on_screen(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    for argv in (["--help"], ["call", "--help"], ["gateway", "--help"], ["check", "server", "-h"]):
        status, out, _ = run(capsys, "--lang", "zh-Hans", *argv)
        assert status == 0
        wide = [line for line in out.splitlines() if text_width(line) > 80]
        assert wide == [], argv


def test_the_help_of_every_command_is_in_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    with pseudo_language():
        parser = build_parser()
        for command in commands(parser):
            shown = command.format_help()
            assert escaped(shown, words(command)) == [], command.prog
            assert shown.startswith("⟦")  # "usage: "
            assert "⟦Ṗóšíţíóñáĺ áŕĝúṁéñţš⟧" in shown or "⟦óṗţíóñš⟧" in shown


@pytest.mark.parametrize(
    ("argv", "data"),
    [
        (["schema", "validate", "s.json"], ["ANSWER_FILE"]),
        (["schema", "check", "s.json", "-r", "1999"], ["--revision/-r", "'1999'"]),
        (["demo", "--protocol", "1999"], ["'1999'", "'auto'", "'2025-06-18'", "'2025-11-25'"]),
        (["connect", "--timeout", "soon", "http://a.example/"], ["float", "'soon'"]),
        (["connect", "http://a.example/", "--modes", "all"], ["'all'"]),
        (["call", "t", "http://a.example/", "--header", "A B: c"], ["'A B'"]),
        (["gateway", "--hold-limit", "0", "http://a.example/"], []),
        (["url", "check", "https://a.example/", "extra"], ["extra"]),
        (["call", "t", "--args", "[1]", "http://a.example/"], []),
        # The json module's own words, as the file's place in the error.
        (["call", "t", "--args", "{", "http://a.example/"], [JSON_SAYS]),
        (["check", "client"], []),
        (["check", "server", "--scenario", "nope", "http://a.example/"], ["'nope'"]),
        (["bogus"], ["COMMAND", "'bogus'", *(f"'{name}'" for name in COMMANDS)]),
    ],
    ids=lambda value: " ".join(value) if value and value[0][0].islower() else "",
)
def test_a_usage_error_is_in_the_catalog(
    capsys: pytest.CaptureFixture[str], argv: list[str], data: list[str]
) -> None:
    with pseudo_language():
        status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    usage, _, said = err.rstrip("\n").rpartition("\n")
    assert usage.startswith("⟦")
    named = re.match(r"⟦(mcp-elicit[\w -]*):", said)
    assert named is not None, said
    prog = named[1]
    options = [word for word in argv if word.startswith("-")]
    allowed = [prog, *data, *options, *scenario_ids(argv), *schema_command.REVISION_NAMES]
    assert escaped(said, allowed) == [], said


def scenario_ids(argv: list[str]) -> list[str]:
    """A check's ``--scenario`` error lists the IDs there are: data."""
    return [check.id for check in CHECKS.values()] if "--scenario" in argv else []


def test_a_missing_file_is_said_in_the_language(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = str(tmp_path / "none.json")
    status, _, err = run(capsys, "schema", "validate", missing, missing, "--lang", "zh-Hans")
    assert status == 2 and "错误" in err and missing in err
    with pseudo_language():
        status, _, err = run(capsys, "schema", "check", missing, "-r", "draft")
    said = err.splitlines()[-1]
    assert escaped(said, ["mcp-elicit schema check", missing]) == [], said


# -- the human reports, under the pseudo-locale ---------------------------------------------


def test_schema_reports_are_in_the_catalog(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    with pseudo_language():
        validated = run(capsys, "schema", "validate", files["schema"], files["answer"])[1]
        checked = run(capsys, "schema", "check", files["old"], "-r", "2025-06-18")[1]
        valid = run(capsys, "schema", "check", files["schema"], "-r", "2025-11-25")[1]
    found = findings(validated) + findings(checked)
    assert len(found) >= 6
    data = [*SCHEMA["properties"], *OLD_SCHEMA["properties"], "pets", "penthouse", "ann@"]
    data += ["std", "sea", "'api key'"]  # the choices; what a field's name looks like
    data += [code for _, code, _ in found] + [
        "2025-06-18",
        "2025-11-25",
        "https://example.com/keys",
    ]
    for shown in (validated, checked, valid):
        assert escaped(shown, data) == [], shown


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/",
        "https://例子.com/",
        "http://10.0.0.1/login",
        "javascript:alert(1)",
        "https://user:pw@xn--80ak6aa92e.com/",
    ],
)
def test_url_check_reports_are_in_the_catalog(capsys: pytest.CaptureFixture[str], url: str) -> None:
    from mcp_elicit.urls import check_url

    verdict = check_url(url)
    with pseudo_language():
        status, out, err = run(capsys, "url", "check", url)
    assert status in (0, 1), err
    data = [url, *(reason.code for reason in verdict.reasons), "https"]  # the schemes allowed
    host = verdict.display_host
    if host is not None:
        # What it reads as, and its characters' Unicode names.
        data += [host.unicode, host.ascii, skeleton(host.unicode)]
        unusual = [char for char in host.unicode if ord(char) > 127]
        data += [f"U+{ord(char):04X}" for char in unusual] + [unicodedata.name(c) for c in unusual]
        data += [f"'{char}'" for char in skeleton(host.unicode)]
    if verdict.registrable_domain:
        data.append(verdict.registrable_domain)
    # The severities are codes too ([warn], [block]); the URL's parts are data.
    data += ["[warn]", "[block]", "[info]", *re.split(r"[^A-Za-z0-9]+", url)]
    assert escaped(out, data) == [], out


def sample_report() -> Report:
    ids = list(CHECKS)
    report = Report("http://127.0.0.1:9/mcp")
    seen = "the server sent what the spec asks"
    report.add(
        [
            Outcome(ids[0], "2025-11-25", Status.PASSED, seen),
            Outcome(ids[1], "2025-11-25", Status.FAILED, seen),
            Outcome(ids[2], "2025-06-18", Status.SKIPPED, seen),
            Outcome(ids[3], "2026-07-28", Status.NOT_APPLICABLE, seen),
        ]
    )
    return report


def test_a_check_report_is_in_the_catalog_but_for_what_was_seen() -> None:
    report = sample_report()
    with pseudo_language():
        shown = report.text()
    data = [report.target, *(o.check for o in report.outcomes), *(o.seen for o in report.outcomes)]
    data += [o.revision for o in report.outcomes]
    data += [str(ref) for outcome in report.outcomes for ref in CHECKS[outcome.check].spec]
    assert escaped(shown, data) == [], shown
    with i18n.language("zh-Hans"):
        chinese = report.text()
    assert "规范：" in chinese and "正在检查" in chinese
    assert "通过" in chinese and "失败" in chinese and "跳过" in chinese


def test_the_connect_prompts_words_are_in_the_catalog() -> None:
    with pseudo_language():
        shown = help_text()
        stopped = describe_failure(FileNotFoundError(2, "No such file", "nope"), tool="book")
        unreachable = describe_failure(ConnectionRefusedError(111, "Connection refused"))
    assert escaped(shown, ["tools", "call TOOL [JSON]", "help", "quit", "Ctrl-D"]) == [], shown
    assert escaped(stopped, ["nope"]) == [], stopped
    assert escaped(unreachable, ["Errno", "Connection refused"]) == [], unreachable
    with i18n.language("zh-Hans"):
        assert help_text().startswith("命令：")


def test_the_tour_is_in_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "demo", "--tour", "--lang", "zh-Hans")
    assert status == 0
    assert out.startswith("mcp-elicit —— 表单核心导览\n")
    assert "2. 按每个修订版检查它：" in out and "问题：[]" in out


# -- the real command ---------------------------------------------------------------------


@pytest.mark.slow
def test_the_command_follows_lang_of_the_environment(files: dict[str, str]) -> None:
    def command(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
        base = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}
        return subprocess.run(
            [sys.executable, "-m", "mcp_elicit.cli", *argv],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env={**base, "PYTHONPATH": str(SRC), "PYTHONIOENCODING": "utf-8", **env},
            timeout=60,
            check=False,
        )

    argv = ["schema", "validate", files["schema"], files["answer"]]
    chinese = command({"LANG": "zh_CN.UTF-8"}, *argv)
    english = command({"LANG": "zh_CN.UTF-8"}, *argv, "--lang", "en")
    assert chinese.returncode == english.returncode == 1
    assert CJK.search(chinese.stdout) and not CJK.search(english.stdout)
    in_chinese, in_english = findings(chinese.stdout), findings(english.stdout)
    assert [f[:2] for f in in_chinese] == [f[:2] for f in in_english]
    as_json: Any = [
        command({"LANG": lang}, *argv, "--json").stdout for lang in ("zh_CN.UTF-8", "C")
    ]
    assert as_json[0] == as_json[1]


def test_a_lang_after_the_double_dash_is_the_servers() -> None:
    from mcp_elicit.cli import parse
    from mcp_elicit.cli._parsing import language_asked

    argv = ["connect", "--lang", "zh-Hans", "--", "server", "--lang", "fr"]
    assert language_asked(argv) == "zh-Hans"
    assert language_asked(["call", "t", "--", "server", "--lang=fr"]) is None
    args = parse(argv)
    assert args.lang == "zh-Hans" and args.server_command == ["server", "--lang", "fr"]
