"""The layers of DESIGN: imports go downward only; forms, protocol and urls do no I/O; no two
modules import each other, directly or around a loop (``TYPE_CHECKING`` and function-level
imports included); inside a package that declares floors (``mcp_elicit.server`` does, atop its
``__init__``), no module imports one on a floor above its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "src" / "mcp_elicit"

# What each layer may import directly: the table atop ``mcp_elicit/__init__.py`` (the one
# source; the design's layer table, with the layers it leaves out); the closure is allowed.
_LAYER_ROW = re.compile(
    r"    (?P<layer>_?[a-z][a-z0-9_]*): (?P<below>-|[a-z_][a-z0-9_]*(?:, [a-z_][a-z0-9_]*)*)"
)


def layers_in(docstring: str) -> dict[str, set[str]]:
    """The ``Layers`` table of the package's docstring: each layer, the layers it may import."""
    lines = docstring.splitlines()
    start = lines.index("Layers") + 2
    table: dict[str, set[str]] = {}
    for line in lines[start:]:
        row = _LAYER_ROW.fullmatch(line)
        if row is not None:
            below = row["below"]
            table[row["layer"]] = set() if below == "-" else set(below.split(", "))
        elif table and line and not line.startswith("        "):
            break  # past the table
    return table


DIRECT: dict[str, set[str]] = layers_in(
    ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))) or ""
)
SANS_IO = {"forms", "protocol", "urls"}
# Sans-IO modules inside layers that do I/O elsewhere: a task's state machine (its lifecycle,
# beside it, has the store and the clocks).
SANS_IO_MODULES = {"tasks/state.py"}
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


TOP_LEVEL_LAYERS = ("_sdk.py", "_extras.py", "revisions.py")
MODULES = sorted(
    p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE or p.name in TOP_LEVEL_LAYERS
)


def layer_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_imports_go_downward_only(path: Path) -> None:
    layer = layer_of(path)
    allowed = closure(layer) | {layer}
    for name in imports(path):
        parts = name.split(".")
        if parts[0] == "mcp_elicit" and len(parts) > 1:
            assert parts[1] in allowed, f"{layer} must not import {name}"


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in MODULES
        if p.relative_to(PACKAGE).parts[0] in SANS_IO
        or str(p.relative_to(PACKAGE)) in SANS_IO_MODULES
    ],
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


def test_the_layer_table_is_read_and_closed() -> None:
    # The table was found, and every layer a row names below it has a row of its own.
    assert {"cli", "server", "client", "protocol", "_sdk"} <= set(DIRECT)
    assert set().union(*DIRECT.values()) <= set(DIRECT)
    doc = (
        "P.\n\nLayers\n------\n\nTop:\n\n    a: b, c\n        words\n    b: -\n    c: b\n\nMore.\n"
    )
    assert layers_in(doc) == {"a": {"b", "c"}, "b": set(), "c": {"b"}}


def test_every_module_belongs_to_a_layer() -> None:
    found = {layer_of(p) for p in MODULES}
    assert found <= set(DIRECT), found - set(DIRECT)


def test_every_layer_exists() -> None:
    for layer in DIRECT:
        assert (PACKAGE / layer / "__init__.py").exists() or (PACKAGE / f"{layer}.py").exists()


# -- import cycles -------------------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


ALL_MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def import_edges(name: str, path: Path) -> set[str]:
    """The modules of ours that ``name`` imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a.b import c` imports the module a.b.c when there is one, else a.b.
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in ALL_MODULES else base)
    return {f for f in found if f in ALL_MODULES and f != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_around_a_loop() -> None:
    graph = {name: import_edges(name, path) for name, path in ALL_MODULES.items()}
    assert cycles(graph) == []


def test_the_cycle_check_sees_a_loop() -> None:
    # The control: a loop through a TYPE_CHECKING-only import is found like any other.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# -- floors inside a package --------------------------------------------------------------------

# A package declares its floors in its ``__init__`` docstring, under a ``Floors`` heading: one
# row per floor, top first, naming its modules and sub-packages (``a, b``) before two spaces
# and a description (continued on lines indented further). That table is the one source: the
# reader finds it where the package starts, and this test reads it.
_FLOOR_ROW = re.compile(r"    (?P<names>[a-z_][a-z0-9_]*(?:, [a-z_][a-z0-9_]*)*)(?:\s{2,}\S.*)?")


def declared_floors(package: Path) -> list[list[str]] | None:
    """The floors ``package`` declares, top first; ``None`` when it declares none."""
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    return floors_in(ast.get_docstring(tree) or "")


def floors_in(docstring: str) -> list[list[str]] | None:
    """The floors table of a package's docstring (see above), or ``None``."""
    lines = docstring.splitlines()
    heading = [i for i, line in enumerate(lines[:-1]) if line == "Floors" and lines[i + 1]]
    if not heading or set(lines[heading[0] + 1]) != {"-"}:
        return None
    floors: list[list[str]] = []
    for line in lines[heading[0] + 2 :]:
        row = _FLOOR_ROW.fullmatch(line)
        if row is not None:
            floors.append(row["names"].split(", "))
        elif floors and line and not line.startswith("     "):
            break  # past the table: prose, or the next heading
    return floors


def parts_of(package: Path) -> set[str]:
    """What sits on a package's floors: its modules and its sub-packages."""
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.name for p in package.iterdir() if (p / "__init__.py").exists()}


def upward_imports(floors: list[list[str]], imported: dict[str, set[str]]) -> list[str]:
    """Each import of a part from a part on a lower floor (``imported``: part → the parts of the
    same package it imports; ``""`` is the package's ``__init__``, above every floor)."""
    height = {name: len(floors) - i for i, row in enumerate(floors) for name in row}
    height[""] = len(floors) + 1
    return sorted(
        f"{part} imports {other or 'the package itself'}, above its floor"
        for part, others in imported.items()
        for other in others
        if height[other] > height[part]
    )


def imports_between_parts(package: Path) -> dict[str, set[str]]:
    """For each part of ``package``, the other parts its modules import (wherever the import
    statement is)."""
    name = module_name(package / "__init__.py")
    imported: dict[str, set[str]] = {}
    for module, path in ALL_MODULES.items():
        if not module.startswith(name + ".") or path == package / "__init__.py":
            continue
        part = module[len(name) + 1 :].split(".")[0]
        for target in import_edges(module, path):
            if target == name:
                imported.setdefault(part, set()).add("")
            elif target.startswith(name + "."):
                other = target[len(name) + 1 :].split(".")[0]
                if other != part:
                    imported.setdefault(part, set()).add(other)
    return imported


FLOORED = sorted(p.parent for p in PACKAGE.rglob("__init__.py") if declared_floors(p.parent))


def test_the_server_declares_its_floors() -> None:
    assert PACKAGE / "server" in FLOORED


@pytest.mark.parametrize("package", FLOORED, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_part_of_a_floored_package_is_on_one_floor(package: Path) -> None:
    floors = declared_floors(package)
    assert floors is not None
    named = [name for row in floors for name in row]
    assert sorted(named) == sorted(set(named)), "a part on two floors"
    assert set(named) == parts_of(package)


@pytest.mark.parametrize("package", FLOORED, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_one_on_a_floor_above_its_own(package: Path) -> None:
    floors = declared_floors(package)
    assert floors is not None
    assert upward_imports(floors, imports_between_parts(package)) == []


def test_the_floor_check_sees_an_import_from_above() -> None:
    # The controls: a table read from a docstring, and an upward import (and one of the
    # package's own __init__) found in it; imports along a floor and downward pass.
    doc = "P.\n\nFloors\n------\n\nTop first:\n\n    top  the top\n    a, b  two,\n"
    doc += "          more words\n    c\n                the bottom\n\nAfter the table.\n"
    floors = floors_in(doc)
    assert floors == [["top"], ["a", "b"], ["c"]]
    imported = {"top": {"a", "c"}, "a": {"b", "c"}, "c": {"a"}, "b": {""}}
    assert upward_imports(floors, imported) == [
        "b imports the package itself, above its floor",
        "c imports a, above its floor",
    ]
    assert floors_in("P.\n\nNo table here.\n") is None


# -- who knows the web framework ----------------------------------------------------------------

# The server's request-time code (asking, rounds, completions, handling) must not depend on how
# it is served: only the serving module runs uvicorn, and Starlette is for the pages (the
# wiring mounts them; downstream OAuth's connect page and callback are pages too) and the
# browser side of an identity (as a type, and OidcIdentity's sign-in routes).
WEB_FRAMEWORK_ALLOWED = {
    "uvicorn": {"server/serving.py"},
    "starlette": {
        "server/elicitation.py",
        "server/serving.py",
        "server/identity.py",
        "server/oauth/signin.py",
        "server/oauth/connect.py",
    },
}


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if layer_of(p) == "server" and "pages" not in p.parts],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_only_the_wiring_knows_how_the_server_is_served(path: Path) -> None:
    relative = str(path.relative_to(PACKAGE))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    runtime_imports = set()
    for node in tree.body:  # module level, outside `if TYPE_CHECKING:`
        if isinstance(node, ast.Import):
            runtime_imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            runtime_imports.add(node.module)
    for framework, allowed in WEB_FRAMEWORK_ALLOWED.items():
        if relative not in allowed:
            assert not any(
                n == framework or n.startswith(framework + ".") for n in runtime_imports
            ), f"{relative} imports {framework}"


# -- the sans-IO leaves load no SDK session code ------------------------------------------------


@pytest.mark.slow  # a fresh interpreter: this one has loaded everything already
def test_the_sans_io_leaves_load_no_sdk_client_or_server() -> None:
    """``forms``, ``protocol`` and ``urls`` (and the revisions under them) are usable without the
    SDK's sessions and transports: importing them loads no ``mcp.client`` or ``mcp.server``
    module, nor a web framework or server."""
    import json
    import subprocess
    import sys

    probe = (
        "import json, sys\n"
        "import mcp_elicit.forms, mcp_elicit.protocol, mcp_elicit.urls, mcp_elicit.revisions\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = json.loads(done.stdout)
    heavy = ("mcp.client", "mcp.server", "starlette", "uvicorn", "httpx2", "anyio")
    assert [m for m in loaded if m.startswith(heavy) or m == "mcp"] == []


@pytest.mark.slow  # a fresh interpreter
def test_importing_the_server_loads_no_optional_extra() -> None:
    """fastmcp and the ``oauth`` extra (authlib, joserfc) are optional: ``mcp_elicit.server``
    imports them only when a fastmcp server or an OAuth module is used."""
    import json
    import subprocess
    import sys

    probe = "import json, sys\nimport mcp_elicit.server\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    extras = ("fastmcp", "authlib", "joserfc", "mcp_elicit.server.oauth")
    assert [m for m in json.loads(done.stdout) if m.startswith(extras)] == []
