"""The private surface of the official SDK (and of fastmcp) that ``mcp_elicit._sdk`` relies on,
pinned name by name: an SDK upgrade that moves one fails here, saying which, instead of
misbehaving somewhere else. And no other module of ours touches a private SDK name."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastmcp import FastMCP
from fastmcp.server.dependencies import FastMCPRequestContext
from mcp import Client
from mcp.client.session import ClientSession
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary
from mcp.server.session import ServerSession

from tests.paths import SRC

PACKAGE = SRC / "mcp_elicit"
SDK_MODULE = PACKAGE / "_sdk.py"


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


def assigned_in_init(cls: type, attribute: str) -> bool:
    """``self.<attribute> = ...`` in ``cls.__init__``: an instance attribute we read."""
    source = inspect.getsource(cls.__init__)
    return f"self.{attribute} =" in source or f"self.{attribute}:" in source


def fastmcp_fields() -> set[str]:
    return set(getattr(FastMCPRequestContext, "__dataclass_fields__", {}))


# (what we rely on, how to check it): the message names the SDK name that moved.
PINNED: list[tuple[str, Callable[[], bool]]] = [
    (
        "mcp.server.session.ServerSession._request_outbound (send_raw_request)",
        lambda: assigned_in_init(ServerSession, "_request_outbound"),
    ),
    (
        "mcp.server.session.ServerSession._connection (connection_of)",
        lambda: assigned_in_init(ServerSession, "_connection"),
    ),
    (
        "mcp.server.mcpserver.MCPServer._lowlevel_server",
        lambda: isinstance(MCPServer("pin")._lowlevel_server, Server),
    ),
    (
        "mcp.server.lowlevel.Server.add_request_handler(method, params_type, handler)",
        lambda: (
            parameters(Server.add_request_handler) == ["self", "method", "params_type", "handler"]
        ),
    ),
    (
        "MCPServer puts one RequestStateBoundary in its middleware (outside user middleware)",
        lambda: (
            [
                type(m)
                for m in MCPServer("pin", middleware=[object()]).middleware  # type: ignore[list-item]
            ][-2:]
            == [RequestStateBoundary, object]
        ),
    ),
    (
        "mcp.Client._build_session(exit_stack) returns an un-entered ClientSession",
        lambda: parameters(Client._build_session) == ["self", "exit_stack"],
    ),
    (
        "mcp.client.session.ClientSession._build_capabilities(version)",
        lambda: parameters(ClientSession._build_capabilities) == ["self", "version"],
    ),
    (
        "mcp.client.session.ClientSession._on_request(dctx, method, params)",
        lambda: parameters(ClientSession._on_request) == ["self", "dctx", "method", "params"],
    ),
    (
        "mcp.client.session.ClientSession._dispatcher (send_raw_request)",
        lambda: assigned_in_init(ClientSession, "_dispatcher"),
    ),
    (
        "mcp.client.session.ClientSession._stamp(data, opts) (send_stamped_request)",
        lambda: assigned_in_init(ClientSession, "_stamp"),
    ),
    (
        "mcp.client.session.ClientSession._message_handler (hear_session_messages)",
        lambda: assigned_in_init(ClientSession, "_message_handler"),
    ),
    (
        "mcp.client.session.ClientSession._client_info",
        lambda: assigned_in_init(ClientSession, "_client_info"),
    ),
    (
        "mcp.client.session.ClientSession has no __slots__ (its class is swapped for a subclass)",
        lambda: "__slots__" not in ClientSession.__dict__,
    ),
    (
        "fastmcp.FastMCP._mcp_server (an SDK Server)",
        lambda: isinstance(FastMCP("pin")._mcp_server, Server),
    ),
    (
        "fastmcp.server.dependencies.FastMCPRequestContext._srctx",
        lambda: "_srctx" in fastmcp_fields(),
    ),
]


@pytest.mark.parametrize(("name", "check"), PINNED, ids=[name for name, _ in PINNED])
def test_the_private_sdk_surface_we_rely_on_is_still_there(
    name: str, check: Callable[[], bool]
) -> None:
    assert check(), (
        f"the SDK changed {name}: mcp_elicit._sdk relies on it (read its docstring, then adapt "
        "that one module)"
    )


SDK_CLASSES = {"Client", "ClientSession", "ServerSession", "MCPServer", "Server", "FastMCP"}


def private_sdk_names() -> set[str]:
    """Every underscore name defined on the SDK and fastmcp classes we build on."""
    names: set[str] = set()
    for cls in (ServerSession, MCPServer, Server, Client, ClientSession, FastMCP):
        for klass in cls.__mro__:
            if klass.__module__.split(".")[0] in ("mcp", "fastmcp"):
                names.update(n for n in vars(klass) if n.startswith("_") and not n.startswith("__"))
        for attribute in ("__init__", "__post_init__"):
            method = cls.__dict__.get(attribute)
            if method is None:
                continue
            try:
                source = inspect.getsource(method)
            except OSError:  # made by @dataclass: its fields are in vars() already
                continue
            names.update(
                node.attr
                for node in ast.walk(ast.parse(inspect.cleandoc("\n" + source)))
                if isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            )
    names.update(f for f in fastmcp_fields() if f.startswith("_"))
    return names


def test_no_module_but_sdk_touches_a_private_sdk_name() -> None:
    private = private_sdk_names()
    assert {
        "_request_outbound",
        "_connection",
        "_lowlevel_server",
        "_build_session",
        "_mcp_server",
    } <= private
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == SDK_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # On anything but our own `self`: a private name of an SDK object.
            if (
                isinstance(node, ast.Attribute)
                and node.attr in private
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: .{node.attr}")
    assert found == [], "private SDK names belong in mcp_elicit/_sdk.py"


def test_no_class_of_ours_but_sdk_subclasses_the_sdk_to_override_a_private_method() -> None:
    private = private_sdk_names()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == SDK_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            bases = (
                {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if isinstance(node, ast.ClassDef)
                else set()
            )
            if isinstance(node, ast.ClassDef) and bases & SDK_CLASSES:
                overridden = {
                    item.name
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                }
                for name in sorted(overridden & private):
                    found.append(f"{path.relative_to(PACKAGE)}: {node.name}.{name}")
    assert found == []


def test_sdk_module_is_where_the_surface_is_said() -> None:
    text = Path(SDK_MODULE).read_text(encoding="utf-8")
    for name in (
        "_request_outbound",
        "_connection",
        "_lowlevel_server",
        "_build_session",
        "_srctx",
    ):
        assert name in text


def test_no_server_request_goes_on_the_sessions_standalone_stream() -> None:
    """SEP-2260: a server request is sent only on the stream of the client request it belongs
    to. The helper that pushed a task's question on the session's standalone stream is gone, and
    nothing in src/ sends through the connection's own channel."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "send_raw_session_request" in line or "connection.outbound" in line
    ]
    assert found == []
