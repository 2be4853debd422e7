"""The documentation's code and the examples run as written."""

from __future__ import annotations

import json
import os
import re
import runpy
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
# Programs run elsewhere: servers are started by client_quickstart.py and the client tests,
# the conformance client by the conformance suite (tests/client/test_conformance.py), and
# script_a_run.py below, with a state directory of its own; oauth_server.py by the downstream
# OAuth tests (tests/server/oauth), with two OpenID providers; check_client.py by the client
# checks (tests/check/test_client_checks.py), against their scripted server;
# langgraph_web_app.py by tests/integrations/test_langgraph_web_app.py, in Chromium;
# checked_server.py by the checks themselves (tests/check/test_check_tools.py).
RUN_ELSEWHERE = {
    "booking_server.py",
    "check_client.py",
    "checked_server.py",
    "conformance_client.py",
    "conformance_server.py",
    "fastmcp_server.py",
    "langgraph_web_app.py",
    "oauth_server.py",
    "script_a_run.py",
    "server_quickstart.py",
}
STANDALONE = [p for p in EXAMPLES if p.name not in RUN_ELSEWHERE]
QUICKSTART = ROOT / "examples" / "server_quickstart.py"
# Blocks fenced ```python run here; ```py is shown and not run: code for another environment
# (Strands Agents in docs/frameworks.md: it pins mcp<2.2 and is not installed in ours).
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


@pytest.mark.parametrize("page", DOCS, ids=[p.name for p in DOCS])
def test_python_blocks_in_docs_run(
    page: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = _BLOCK.findall(page.read_text(encoding="utf-8"))
    # In a folder of their own, as a reader's script runs in theirs: what an example writes
    # (an audit log, say) is not left in the checkout.
    monkeypatch.chdir(tmp_path)
    if page.name == "forms.md":
        assert len(blocks) >= 7
    # A real module, as a reader's script would be (dataclasses look their module up).
    module = types.ModuleType(f"docs_{page.stem}")
    sys.modules[module.__name__] = module
    try:
        for index, block in enumerate(blocks):
            code = compile(block, f"{page.name}[block {index}]", "exec")
            exec(code, module.__dict__)
    finally:
        del sys.modules[module.__name__]


@pytest.mark.slow
@pytest.mark.parametrize("example", STANDALONE, ids=[p.name for p in STANDALONE])
def test_examples_run(example: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_the_forms_example_prints_one_message_per_bad_field() -> None:
    output = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "forms_quickstart.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "name: must be at least 2 characters long (it has 1)" in output
    assert "birthday: must be a real calendar date" in output


def test_runpy_import_of_examples_has_no_side_effects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Examples guard their work behind __main__, so tools can import them; building a server
    # writes nothing either (the key file is made when the key is first used).
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MCP_ELICIT_KEY", raising=False)
    for example in EXAMPLES:
        runpy.run_path(str(example), run_name="not_main")
    assert list(tmp_path.iterdir()) == []


def test_the_readme_server_quick_start_is_examples_server_quickstart() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"## Quick start: a server that asks\n\n```python\n(.*?)```", readme, re.S)
    assert found is not None
    example = (ROOT / "examples" / "server_quickstart.py").read_text(encoding="utf-8")
    assert example.endswith(found.group(1)), "README and examples/server_quickstart.py differ"


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_the_server_quick_start_asks_and_confirms(protocol: str, tmp_path: Path) -> None:
    """Through ``mcp-elicit call`` with scripted answers, on every revision; the server's key
    file and store go to the test's own state directory."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    env.pop("MCP_ELICIT_KEY", None)

    def call(tool: str, answers: list[dict[str, object]]) -> subprocess.CompletedProcess[str]:
        file = tmp_path / f"{tool}.json"
        file.write_text(json.dumps(answers))
        command = [sys.executable, "-m", "mcp_elicit", "call", tool, "--answers", str(file)]
        command += ["--protocol", protocol, "--", sys.executable, str(QUICKSTART)]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)

    booked = call(
        "book", [{"action": "accept", "content": {"guest": "Ada", "arrival": "2026-12-01"}}]
    )
    assert booked.returncode == 0, booked.stderr
    assert "Booked 1 night(s) from 2026-12-01 for Ada." in booked.stdout
    declined = call("book", [{"action": "decline"}])
    assert "Nothing booked (Declined())." in declined.stdout, declined.stderr
    kept = call("cancel", [{"action": "decline"}])
    assert kept.returncode == 0 and "Kept." in kept.stdout, kept.stderr
    cancelled = call("cancel", [{"action": "accept", "content": {"confirm": True}}])
    assert cancelled.returncode == 0 and "Cancelled." in cancelled.stdout, cancelled.stderr
    assert (tmp_path / "mcp-elicit" / "key").stat().st_mode & 0o777 == 0o600


# -- docs/scripting.md: the recipe, run ----------------------------------------------------------

SCRIPT = ROOT / "examples" / "script_a_run.py"


def run_the_recipe(
    tmp_path: Path, *options: str, key: str = "key-for-the-recipe-test"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "WEATHER_API_KEY": key}
    env.pop("MCP_ELICIT_KEY", None)
    command = [sys.executable, str(SCRIPT), *options]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=180)


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_the_scripting_recipe_runs_every_tool_to_the_end(protocol: str, tmp_path: Path) -> None:
    done = run_the_recipe(tmp_path, "--protocol", protocol)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Booked 2 night(s) from 2026-12-01 for Ada.",
        "Cancelled.",
        f"Connected ({len('key-for-the-recipe-test')} characters).",
    ]
    assert done.stderr.count("consented to open http://127.0.0.1:") == 1
    assert "key-for-the-recipe-test" not in done.stderr


@pytest.mark.slow
def test_on_2026_a_page_finished_late_takes_the_second_accept(tmp_path: Path) -> None:
    """The recipe's timing note: each accept holds the retry url_resume_wait seconds; a page
    finished after the first hold comes as the same link again, answered by the second."""
    # Finished 1 s after the first hold (4 s) ends, with 3 s to spare in the second: getting
    # the page and posting it took over a second on a busy machine, past a 2 s second hold.
    server = tmp_path / "server.py"
    source = QUICKSTART.read_text(encoding="utf-8")
    server.write_text(source.replace("Elicitation()", "Elicitation(url_resume_wait=4)", 1))
    done = run_the_recipe(tmp_path, "--server", str(server), "--late", "5")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "Connected (23 characters).", done.stderr
    links = [line for line in done.stderr.splitlines() if "consented to open" in line]
    assert len(links) == 2 and links[0] == links[1]  # the same link, twice


def test_the_recipe_answers_files_are_valid() -> None:
    from mcp_elicit.client.scripted import parse_answers

    page = (ROOT / "docs" / "scripting.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", page, re.DOTALL)
    assert len(blocks) == 3
    parsed = [parse_answers(json.loads(block)) for block in blocks]
    assert parsed[1][0].content == {"confirm": True}  # confirm()'s field
    assert [a.action for a in parsed[2]] == ["accept", "accept"]  # the 2026 second accept


def test_the_makefile_names_only_test_files_that_exist() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    named = re.findall(r"tests/[\w/]+\.py", makefile)
    assert named, "make conformance and make screenshots name their test files"
    assert [path for path in named if not (ROOT / path).is_file()] == []


def test_every_nginx_block_in_the_docs_passes_the_host_with_its_port() -> None:
    """``$host`` drops the port, and the pages answer 400 to a Host they do not serve: behind
    nginx on a port other than 80 or 443 every page would fail (issue 31). The nginx the tests
    run (tests/nginx_support.py) passes ``$http_host`` too."""
    blocks = [
        block
        for page in DOCS
        for block in re.findall(r"```nginx\n(.*?)```", page.read_text(), re.S)
    ]
    assert blocks
    for block in blocks:
        for line in block.splitlines():
            if "proxy_set_header Host" in line:
                assert "$http_host" in line, line
