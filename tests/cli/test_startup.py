"""What a command imports: only what it needs. Every run builds every command's parser, so the
modules that build them import nothing heavy; the client and the SDK, the forms core and the
URL checks are imported by the command that uses them, when it runs.

Not timed (``bench/bench_cli_startup.py`` times it): what is pinned here is which modules are
loaded, in a fresh interpreter for each command line, since this test process has imported
everything already.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import SRC

CLI = SRC / "mcp_elicit" / "cli"

# The modules every run imports: the parser's. What they may import at their top level.
PARSER_MODULES = [
    "__init__.py",
    "_host.py",
    "_io.py",
    "_parsing.py",
    "call_command.py",
    "connect_command.py",
    "demo_command.py",
    "schema_command.py",
    "url_command.py",
]
LIGHT = {
    "__future__",
    "argparse",
    "collections.abc",
    "os",
    "sys",
    "typing",
    "mcp_elicit",
    "mcp_elicit.cli",  # from mcp_elicit.cli import call_command, ...
    # The revisions' names and the protocol choices: one enum, nothing imported.
    "mcp_elicit.revisions",
    # The parsers' help is in the person's language: the catalogs (Babel's locale data only;
    # a catalog is read when a language other than English is asked for).
    "mcp_elicit.i18n",
    "mcp_elicit.i18n.choosing",
    *(f"mcp_elicit.cli.{name.removesuffix('.py')}" for name in PARSER_MODULES),
}

# The heavy imports, by layer: the SDK and what serves or speaks HTTP, pydantic.
CLIENT_SIDE = [
    "mcp",
    "mcp_types",
    "mcp_elicit.client",
    "mcp_elicit.server",
    "mcp_elicit.demo",
    "anyio",
    "httpx2",
    "starlette",
    "uvicorn",
    "prompt_toolkit",
]
ALL_LAYERS = [
    *CLIENT_SIDE,
    "pydantic",
    "mcp_elicit.forms",
    "mcp_elicit.urls",
    "mcp_elicit.protocol",
]

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}

# Runs ``main(argv)`` in a fresh interpreter, then prints the modules of WATCHED it loaded.
PROBE = """
import json, sys
from mcp_elicit.cli import main
watched, argv = json.loads(sys.argv[1])
try:
    main(argv)
except SystemExit:
    pass
sys.stdout.flush()
print(json.dumps([name for name in watched if name in sys.modules]), file=sys.stderr)
"""


def top_level_imports(path: Path) -> set[str]:
    """The modules ``path`` imports as it is imported: not in a function, nor under
    ``if TYPE_CHECKING:``."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("name", PARSER_MODULES)
def test_the_parsers_modules_import_nothing_heavy(name: str) -> None:
    assert top_level_imports(CLI / name) <= LIGHT


def test_the_parsers_choices_are_the_librarys() -> None:
    from mcp_elicit import revisions
    from mcp_elicit.cli import _host, check_command, gateway_command, schema_command
    from mcp_elicit.client import connection

    assert _host.PROTOCOL_CHOICES is connection.PROTOCOL_CHOICES is revisions.PROTOCOL_CHOICES
    assert schema_command.REVISION_NAMES is revisions.REVISION_NAMES
    assert gateway_command.UPSTREAM_CHOICES is revisions.UPSTREAM_CHOICES
    assert set(check_command.CHECK_REVISIONS) == {
        revisions.EARLY_DRAFT_VERSION,
        *revisions.Revision,
    }


def loaded(argv: list[str], watched: list[str]) -> list[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([watched, argv])],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    assert last.startswith("["), done.stderr
    found: list[str] = json.loads(last)
    return found


@pytest.fixture
def schema_file(tmp_path: Path) -> str:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    (tmp_path / "answer.json").write_text('{"name": "Ada"}')
    return str(path)


URL_CHECK = [*CLIENT_SIDE, "pydantic", "mcp_elicit.forms", "mcp_elicit.protocol"]
CASES = [
    (["--version"], ALL_LAYERS),
    (["--help"], ALL_LAYERS),
    (["schema", "--help"], ALL_LAYERS),
    (["url", "check", "https://example.com/"], URL_CHECK),
    (["url", "check", "--json", "--resolve", "http://[::1]/"], URL_CHECK),
    (["schema", "check", "{schema}", "--revision", "2025-11-25"], CLIENT_SIDE),
    (["schema", "validate", "{schema}", "{answer}"], CLIENT_SIDE),
    (["schema", "convert", "{schema}", "--to", "2025-06-18"], CLIENT_SIDE),
    (["demo", "--tour"], [name for name in CLIENT_SIDE if name != "mcp_elicit.demo"]),
    # A usage error is found before anything is imported to run the command.
    (["call", "--json"], ALL_LAYERS),
    (["connect", "--bogus"], ALL_LAYERS),
]


@pytest.mark.slow
@pytest.mark.parametrize(("argv", "not_loaded"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_command_imports_only_what_it_needs(
    schema_file: str, argv: list[str], not_loaded: list[str]
) -> None:
    answer = str(Path(schema_file).with_name("answer.json"))
    argv = [word.format(schema=schema_file, answer=answer) for word in argv]
    assert loaded(argv, not_loaded) == []


@pytest.mark.slow
def test_the_probe_sees_an_import() -> None:
    # The control: a command that gets as far as making its handler has imported the client
    # (the --audit file cannot be opened, so nothing is started).
    argv = ["connect", "--audit", "/nonexistent/dir/a.log", "http://127.0.0.1:9/mcp"]
    assert loaded(argv, ["mcp", "mcp_elicit.client"]) == ["mcp", "mcp_elicit.client"]
