"""The layers of DESIGN: imports go downward only; forms, protocol and urls do no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "src" / "mcp_elicit"

# What each layer may import directly (from the design's layer table); the closure is allowed.
DIRECT: dict[str, set[str]] = {
    "cli": {"client", "server", "gateway", "check", "demo", "forms", "urls", "protocol"},
    "demo": {"client", "server", "forms", "urls", "protocol", "flows", "stores"},
    "gateway": {"client", "server"},
    "check": {"client", "server", "protocol"},
    "client": {"protocol", "forms", "urls"},
    "server": {"protocol", "forms", "flows"},
    "flows": {"stores"},
    "protocol": set(),
    "forms": set(),
    "urls": set(),
    "stores": set(),
}
SANS_IO = {"forms", "protocol", "urls"}
IO_MODULES = {
    "socket",
    "asyncio",
    "subprocess",
    "ssl",
    "select",
    "selectors",
    "sqlite3",
    "http",
    "urllib.request",
    "httpx",
    "requests",
    "anyio",
    "multiprocessing",
    "shutil",
}
# The one sanctioned exception: urls resolves a host only when asked to (resolve=True).
IO_ALLOWED = {"urls/resolve.py": {"socket", "asyncio", "concurrent.futures"}}


def closure(layer: str) -> set[str]:
    seen: set[str] = set()
    todo = [layer]
    while todo:
        for below in DIRECT[todo.pop()]:
            if below not in seen:
                seen.add(below)
                todo.append(below)
    return seen


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_imports_go_downward_only(path: Path) -> None:
    layer = path.relative_to(PACKAGE).parts[0]
    allowed = closure(layer) | {layer}
    for name in imports(path):
        parts = name.split(".")
        if parts[0] == "mcp_elicit" and len(parts) > 1:
            assert parts[1] in allowed, f"{layer} must not import {name}"


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if p.relative_to(PACKAGE).parts[0] in SANS_IO],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_sans_io_layers_do_no_io(path: Path) -> None:
    relative = str(path.relative_to(PACKAGE))
    allowed = IO_ALLOWED.get(relative, set())
    for name in imports(path):
        for banned in IO_MODULES - allowed:
            assert name != banned and not name.startswith(banned + "."), (
                f"{relative} imports {name}"
            )
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]
    assert "open" not in calls and "input" not in calls, f"{relative} does I/O"


def test_every_layer_exists() -> None:
    for layer in DIRECT:
        assert (PACKAGE / layer / "__init__.py").exists(), layer
