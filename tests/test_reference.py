"""docs/reference.md keeps up with the client's code.

Every name ``mcp_elicit.client`` exports (and the few a host imports from elsewhere) is there
with an import that works; every class it documents has a section listing each constructor
argument and each public method; each signature line names the arguments in the code's order,
with the code's defaults; every exception ``ElicitingClient``'s module defines is in the table
of what ``call_tool`` raises. Adding an argument without documenting it fails here.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

import mcp_elicit.client
from mcp_elicit.client import Renderer, connection, required_links
from mcp_elicit.client.scripted import parse_answers
from mcp_elicit.client.terminal import TerminalRenderer
from mcp_elicit.client.web import WebRenderer
from mcp_elicit.integrations.fastmcp import ElicitingFastMCPClient, FastMCPHandler
from mcp_elicit.integrations.pydantic_ai import ElicitingMCPToolset
from mcp_elicit.protocol import FORM_AND_URL, FORM_ONLY, NO_MODES, ElicitationModes
from mcp_elicit.urls import UrlPolicy

REFERENCE = Path(__file__).parent.parent / "docs" / "reference.md"
TEXT = REFERENCE.read_text(encoding="utf-8")

# Name -> (the module a reader imports it from, the object).
EXPECTED: dict[str, tuple[str, Any]] = {
    **{
        name: ("mcp_elicit.client", getattr(mcp_elicit.client, name))
        for name in mcp_elicit.client.__all__
    },
    "TerminalRenderer": ("mcp_elicit.client.terminal", TerminalRenderer),
    "WebRenderer": ("mcp_elicit.client.web", WebRenderer),
    "parse_answers": ("mcp_elicit.client.scripted", parse_answers),
    "UrlPolicy": ("mcp_elicit.urls", UrlPolicy),
    "ElicitationModes": ("mcp_elicit.protocol", ElicitationModes),
    "FORM_AND_URL": ("mcp_elicit.protocol", FORM_AND_URL),
    "FORM_ONLY": ("mcp_elicit.protocol", FORM_ONLY),
    "NO_MODES": ("mcp_elicit.protocol", NO_MODES),
    "MCPError": ("mcp.shared.exceptions", MCPError),
    # The agent frameworks' adapters (docs/frameworks.md), each in its own module.
    "ElicitingFastMCPClient": ("mcp_elicit.integrations.fastmcp", ElicitingFastMCPClient),
    "FastMCPHandler": ("mcp_elicit.integrations.fastmcp", FastMCPHandler),
    "ElicitingMCPToolset": ("mcp_elicit.integrations.pydantic_ai", ElicitingMCPToolset),
}
CLASSES = {name: obj for name, (_, obj) in EXPECTED.items() if inspect.isclass(obj)}
# Documented as types elsewhere (Decision is a union; the SDK documents MCPError).
NO_SECTION = {"Decision", "MCPError"}

_IMPORT = re.compile(r"`from ([\w.]+) import ([^`]+)`")
_HEADING = re.compile(r"^(#{2,6}) (.*)$", re.MULTILINE)
_SIGNATURE = re.compile(r"```text\n(\w+)\((.*?)\)\n```", re.DOTALL)


def imports() -> dict[str, set[str]]:
    """Each name the reference imports, with the modules it imports it from."""
    found: dict[str, set[str]] = {}
    for module, names in _IMPORT.findall(TEXT):
        for name in names.split(","):
            found.setdefault(name.strip(), set()).add(module)
    return found


def section(name: str, *, title: str | None = None) -> str:
    """From the heading that starts with `` `name` `` (or with ``title``) to the next heading
    at the same level or above."""
    start = title if title is not None else f"`{name}`"
    headings = list(_HEADING.finditer(TEXT))
    for index, heading in enumerate(headings):
        if heading.group(2).startswith(start):
            level = len(heading.group(1))
            end = next(
                (h.start() for h in headings[index + 1 :] if len(h.group(1)) <= level), len(TEXT)
            )
            return TEXT[heading.start() : end]
    return ""


def arguments(cls: type) -> list[inspect.Parameter]:
    """The constructor's named arguments (``**client_options`` and the like left out)."""
    try:
        parameters = inspect.signature(cls).parameters.values()
    except ValueError:  # an exception class with the built-in constructor
        return []
    skipped = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p for p in parameters if p.name != "self" and p.kind not in skipped]


def public_methods(cls: type) -> list[str]:
    """Methods and properties the class itself defines, without a leading underscore."""
    return [
        name
        for name, value in vars(cls).items()
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    ]


def test_every_name_is_there_with_an_import_that_works() -> None:
    found = imports()
    missing = sorted(name for name in EXPECTED if EXPECTED[name][0] not in found.get(name, set()))
    assert not missing, f"docs/reference.md has no `from MODULE import NAME` for {missing}"
    for name, modules in found.items():
        for module in modules:
            assert hasattr(importlib.import_module(module), name), f"from {module} import {name}"
        if name in EXPECTED:
            for module in modules:
                assert getattr(importlib.import_module(module), name) is EXPECTED[name][1]


@pytest.mark.parametrize("name", sorted(set(CLASSES) - NO_SECTION))
def test_each_class_has_a_section_with_every_argument_and_method(name: str) -> None:
    cls = CLASSES[name]
    text = section(name)
    assert text, f"docs/reference.md has no heading for `{name}`"
    undocumented = [p.name for p in arguments(cls) if f"`{p.name}`" not in text]
    assert not undocumented, f"{name}: arguments missing from its section: {undocumented}"
    # A renderer's four methods are the Renderer protocol's, described once there.
    protocol = set(public_methods(Renderer)) if "[`Renderer`]" in text else set()
    methods = [m for m in public_methods(cls) if m not in protocol]
    unnamed = [m for m in methods if not re.search(rf"`[^`\n]*\b{m}\b[^`\n]*`", text)]
    assert not unnamed, f"{name}: methods missing from its section: {unnamed}"


def test_the_signature_lines_match_the_code() -> None:
    checked = set()
    for name, inside in _SIGNATURE.findall(TEXT):
        cls = CLASSES[name]
        written = [_argument(part) for part in _top_level(inside) if part.strip() != "*"]
        actual = [
            ("**" if p.kind is inspect.Parameter.VAR_KEYWORD else "") + p.name
            for p in inspect.signature(cls).parameters.values()
        ]
        assert [argument for argument, _ in written] == actual, name
        for (argument, default), parameter in zip(
            written, inspect.signature(cls).parameters.values(), strict=True
        ):
            _check_default(name, argument, default, parameter.default)
        checked.add(name)
    # The classes a host builds itself all have one.
    assert checked >= {
        "AuditLog",
        "ElicitationHandler",
        "ElicitationModes",
        "ElicitingClient",
        "ElicitingFastMCPClient",
        "ElicitingMCPToolset",
        "FastMCPHandler",
        "Policy",
        "RateLimit",
        "ScriptedRenderer",
        "TerminalRenderer",
        "UrlPolicy",
        "WebRenderer",
    }


def test_every_exception_of_the_connection_module_is_in_the_table() -> None:
    raised = section("", title="What `call_tool` and connecting raise")
    assert raised, "docs/reference.md has no section on what call_tool raises"
    # call_tool's own exceptions, and those of the "open this link first" path it calls.
    defined = [
        value.__name__
        for module in (connection, required_links)
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == module.__name__
        and not value.__name__.startswith("_")  # caught inside: never reaches the caller
    ]
    assert "UrlElicitationLoop" in defined, "the test must find the modules' exceptions"
    for name in [*defined, "MCPError", "TimeoutError"]:
        assert f"| `{name}` |" in raised, f"{name} is not in the table of what call_tool raises"


def _top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, current, quote = [], 0, "", ""
    for char in text.replace("\n", " "):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    return [*parts, current] if current.strip() else parts


def _argument(part: str) -> tuple[str, str | None]:
    name, _, default = part.strip().partition("=")
    return name.strip(), default.strip() or None


def _check_default(cls: str, argument: str, written: str | None, actual: Any) -> None:
    where = f"{cls}({argument}=...)"
    if actual is inspect.Parameter.empty:
        assert written is None, f"{where}: the code has no default"
        return
    assert written is not None, f"{where}: the code's default ({actual!r}) is not written"
    if written.startswith("<") and written.endswith(">"):
        return  # described, like <stderr>: the table says what it is
    try:
        literal = ast.literal_eval(written)
    except (ValueError, SyntaxError):
        if callable(actual) and hasattr(actual, "__name__"):
            assert written.endswith(actual.__name__), f"{where}: {written} is not {actual!r}"
        return  # a name (FORM_AND_URL, RateLimit(), ...): the table says what it is
    assert literal == actual, f"{where}: written {written}, the code has {actual!r}"
