"""No test module imports another: what tests share lives in a support module
(``tests/*_support.py``, a folder's ``support.py`` or ``*_support.py``) or, for fixtures, in a
``conftest.py``.

Importing a test module runs it a second time under another name (its module-level setup, its
fixtures defined twice), makes one test file's helpers break another's tests when they change,
and hides what is shared. The scan reads every Python file under ``tests/`` with ``ast``:
``import tests.x.test_y``, ``from tests.x.test_y import ...``, ``from tests.x import test_y``,
their relative forms (``from .test_y import ...``, ``from . import test_y``, ``from ..x.test_y
import ...``) and ``importlib.import_module("tests.x.test_y")`` are all refused, at any depth
of the file (inside a function too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import ROOT, TESTS


def is_test_module(name: str) -> bool:
    """pytest's default ``python_files``: ``test_*.py`` and ``*_test.py``."""
    return name.startswith("test_") or name.endswith("_test")


def package_of(path: Path) -> list[str]:
    """The dotted package ``path`` is in, as parts (``tests/server/x.py`` -> tests, server)."""
    return list(path.relative_to(ROOT).parent.parts)


def resolve(node: ast.ImportFrom, path: Path) -> list[str]:
    """The absolute module parts of a ``from ... import`` (relative ones resolved)."""
    module = node.module.split(".") if node.module else []
    if node.level == 0:
        return module
    package = package_of(path)
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    return [*base, *module]


def offending(source: str, path: Path) -> list[str]:
    """``line: module`` for each import of a test module under ``tests`` in ``source``."""
    found: list[str] = []

    def check(parts: list[str], line: int) -> bool:
        if parts[:1] == ["tests"] and any(is_test_module(part) for part in parts[1:]):
            found.append(f"{line}: {'.'.join(parts)}")
            return True
        return False

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name.split("."), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            module = resolve(node, path)
            if not check(module, node.lineno):
                for alias in node.names:  # `from tests.server import test_url_mode`
                    check([*module, alias.name], node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            check(node.args[0].value.split("."), node.lineno)
    return found


SOURCES = sorted(p for p in TESTS.rglob("*.py") if "node_modules" not in p.parts)


def test_no_test_module_imports_another() -> None:
    assert len(SOURCES) > 100  # the scan sees the suite, not an empty folder
    found = {
        str(path.relative_to(ROOT)): hits
        for path in SOURCES
        if (hits := offending(path.read_text(encoding="utf-8"), path))
    }
    assert found == {}, (
        "tests import other test modules; move what they share to a support module or a "
        f"conftest.py: {found}"
    )


HERE = TESTS / "server" / "test_example.py"  # where the snippets below pretend to live


@pytest.mark.parametrize(
    ("line", "module"),
    [
        ("from tests.server.test_instances import shared_store", "tests.server.test_instances"),
        ("import tests.server.test_url_mode", "tests.server.test_url_mode"),
        ("import tests.test_layers as layers", "tests.test_layers"),
        ("from tests.server import test_url_mode", "tests.server.test_url_mode"),
        ("from .test_url_mode import RawHttp", "tests.server.test_url_mode"),
        ("from . import test_url_mode", "tests.server.test_url_mode"),
        ("from .oauth.test_downstream_draft import X", "tests.server.oauth.test_downstream_draft"),
        ("from ..client.test_opening import redirect_target", "tests.client.test_opening"),
        ("from tests.server.old_test import helper", "tests.server.old_test"),
        ("def f():\n    from tests.demo.test_demo import Demo", "tests.demo.test_demo"),
        ("importlib.import_module('tests.cli.test_as_a_process')", "tests.cli.test_as_a_process"),
    ],
)
def test_the_scan_catches_an_offending_import(line: str, module: str) -> None:
    [hit] = offending(line, HERE)
    assert hit.split(": ", 1)[1] == module


@pytest.mark.parametrize(
    "line",
    [
        "from tests.server.wire_support import RawHttp",
        "from tests.client_support import redirect_target",
        "from .conftest import ENGINES",
        "from . import wire_support",
        "from tests import markers",
        "import tests.paths",
        "from mcp_elicit.testing import connect",  # not under tests/
        "import pytest",
    ],
)
def test_the_scan_lets_support_modules_through(line: str) -> None:
    assert offending(line, HERE) == []
