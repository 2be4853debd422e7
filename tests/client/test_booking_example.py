"""``examples/booking_server.py`` asks each way the negotiated revision allows: no URL mode on
2025-06-18, -32042 on 2025-11-25, an ``InputRequiredResult`` on 2026-07-28 (which retired
-32042). In-process, through our client; ``tests/client/test_peers.py`` runs it over stdio."""

from __future__ import annotations

import importlib.util
import sys
import uuid
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import anyio
import pytest

from mcp_elicit.client import ElicitationHandler, ElicitingClient, UrlPrompt
from tests.client_support import RecordingRenderer
from tests.paths import EXAMPLES

pytestmark = pytest.mark.anyio

LINK = "https://accounts.example.com/link?session=demo"


@pytest.fixture
async def example() -> AsyncIterator[ModuleType]:
    """A fresh copy of the example (its state is per process), with the task group its
    2025-11-25 ``sync_files`` completes elicitations from."""
    name = f"booking_example_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / "booking_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic looks the module up for its annotations
    try:
        spec.loader.exec_module(module)
        async with anyio.create_task_group() as tasks:
            module._background = tasks
            yield module
            tasks.cancel_scope.cancel()
    finally:
        del sys.modules[name]


async def call(
    example: ModuleType,
    protocol: str,
    tool: str,
    answers: list[dict[str, Any]],
    arguments: dict[str, Any] | None = None,
) -> tuple[Any, RecordingRenderer]:
    renderer = RecordingRenderer(answers)
    handler = ElicitationHandler(renderer, opener=lambda url: None)
    async with ElicitingClient(example.server, handler, protocol=protocol) as client:
        assert client.protocol_version == protocol
        result = await client.call_tool(tool, arguments or {})
    return result, renderer


def text(result: Any) -> str:
    return " ".join(getattr(item, "text", "") for item in result.content)


URL_TOOLS = [
    ("link_account", {}),
    ("open_link", {"url": "https://example.com/start"}),
    ("sync_files", {}),
]


@pytest.mark.parametrize(("tool", "arguments"), URL_TOOLS)
async def test_on_2025_06_18_the_url_tools_say_that_revision_has_no_url_mode(
    example: ModuleType, tool: str, arguments: dict[str, Any]
) -> None:
    result, renderer = await call(example, "2025-06-18", tool, [{"action": "accept"}], arguments)
    assert result.is_error
    assert "URL mode" in text(result) and "2025-06-18 does not have" in text(result)
    assert "2025-11-25 or later" in text(result)
    assert renderer.prompts == []  # nothing was asked


async def test_on_2025_06_18_the_form_still_works(example: ModuleType) -> None:
    answer = {"action": "accept", "content": {"name": "Ada", "guests": 3}}
    result, _ = await call(example, "2025-06-18", "book_table", [answer])
    assert not result.is_error
    assert text(result) == "Booked a table for 3 (inside) under Ada."


async def test_on_2026_07_28_sync_files_asks_with_an_input_required_result(
    example: ModuleType,
) -> None:
    result, renderer = await call(example, "2026-07-28", "sync_files", [{"action": "accept"}])
    assert not result.is_error and text(result) == "Files synced."
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt)
    assert (prompt.url, prompt.message) == (LINK, "Authorize access to your files.")
    assert prompt.revision == "2026-07-28"
    assert prompt.required_by is None  # asked inside the result, not by -32042


async def test_on_2026_07_28_sync_files_asks_again_each_call(example: ModuleType) -> None:
    # The answer rides on the retry of one call; the next call asks afresh.
    for _ in range(2):
        result, renderer = await call(example, "2026-07-28", "sync_files", [{"action": "accept"}])
        assert text(result) == "Files synced." and len(renderer.prompts) == 1


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_on_2026_07_28_sync_files_refused_is_a_tool_error(
    example: ModuleType, action: str
) -> None:
    result, _ = await call(example, "2026-07-28", "sync_files", [{"action": action}])
    assert result.is_error
    assert text(result).endswith(f"Files not synced: authorization {action}.")


async def test_on_2025_11_25_sync_files_still_uses_32042(example: ModuleType) -> None:
    result, renderer = await call(example, "2025-11-25", "sync_files", [{"action": "accept"}])
    assert not result.is_error and text(result) == "Files synced."
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.url == LINK
    assert prompt.required_by == "sync_files"  # the -32042 path: consent, then the retry


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_link_account_is_unchanged(example: ModuleType, protocol: str) -> None:
    result, renderer = await call(example, protocol, "link_account", [{"action": "accept"}])
    assert text(result) == "Link accept."
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.url == LINK
