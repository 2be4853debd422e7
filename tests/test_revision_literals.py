"""One revision vocabulary: no module but ``mcp_elicit.revisions`` spells a protocol version in
its code. Comments and docstrings may name revisions; a string the code uses (a constant, a
message, a key) takes its version from :class:`mcp_elicit.revisions.Revision` (or
``EARLY_DRAFT_VERSION``), so a revision is added, renamed or retired in one place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcp_elicit.revisions import KNOWN_VERSIONS

PACKAGE = Path(__file__).parent.parent / "src" / "mcp_elicit"
OWNER = PACKAGE / "revisions.py"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != OWNER)


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (of a module, class or function,
    or the string under an assignment, as attribute docstrings are written)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                found.add(id(statement.value))
    return found


def version_literals(path: Path) -> list[str]:
    """``line: text`` for each string in ``path``'s code that holds a known version."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skipped
            and any(version in node.value for version in KNOWN_VERSIONS)
        ):
            found.append(f"{node.lineno}: {node.value[:60]!r}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_module_spells_a_protocol_version(path: Path) -> None:
    assert version_literals(path) == [], (
        f"{path.relative_to(PACKAGE)} spells a protocol version; name it through "
        "mcp_elicit.revisions (Revision, EARLY_DRAFT_VERSION, ...)"
    )


def test_the_scanner_finds_a_version_in_code_but_not_in_a_docstring(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        '"""On 2025-11-25 this is fine."""\n'
        "X = 1\n"
        '"""2026-07-28: so is this."""\n'
        "def f():\n"
        '    """And 2025-06-18 here."""\n'
        '    return "needs 2025-06-18 or later"  # 2025-11-25 in a comment\n'
        'MODE = {"2026-07-28": 1}\n',
        encoding="utf-8",
    )
    assert version_literals(module) == [
        "6: 'needs 2025-06-18 or later'",
        "7: '2026-07-28'",
    ]
