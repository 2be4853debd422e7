"""A LangChain agent with no LLM behind it, and the server of a blocked link: for the tests of
:mod:`mcp_elicit.integrations.langchain` (and its benchmark's shape).

- :func:`require_langchain` — at a test module's top: LangChain, LangGraph and the SQLite saver
  must be installed (the dev group); missing, the module fails in CI and is skipped elsewhere.
- :class:`CallsOnce` — a ``BaseChatModel`` that calls one tool, then says what it returned
  (``langchain_core``'s fake chat models have no ``bind_tools``, which ``create_agent`` calls).
- :func:`run_agent` — ``create_agent`` on that model, invoked once (a question, or a resume).
- :func:`rule_breakers` — ``tests/peer_servers/rule_breakers.py`` as a process over Streamable
  HTTP; ``http-link/mcp`` asks to open ``http://check.example.com/connect`` (plain http on a
  public host: blocked).
"""

from __future__ import annotations

import importlib
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests import markers
from tests.paths import PEER_SERVERS
from tests.peers import missing
from tests.ports import free_port

NEEDED = ("langchain.agents", "langchain.mcp", "langgraph", "langgraph.checkpoint.sqlite.aio")


def require_langchain() -> None:
    """The calling test module needs LangChain: ``tests.peers.missing`` when it is not
    installed (fails under ``CI=true``)."""
    for module in NEEDED:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            missing(f"{module}", fix=f"make setup (the dev group; {error.name} is not installed)")


require_langchain()

from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402


class CallsOnce(BaseChatModel):
    """Calls ``tool`` (with ``args``) once, then answers ``tool said: <its text>``; no LLM, no
    network, no key. ``seen`` keeps every tool message it was given."""

    tool: str
    args: dict[str, Any] = {}
    seen: list[ToolMessage] = []

    @property
    def _llm_type(self) -> str:
        return "calls-once"

    def bind_tools(self, tools: Sequence[Any], **_: Any) -> CallsOnce:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            self.seen.append(last)
            message = AIMessage(content=f"tool said: {last.text}")
        else:
            call = {"name": self.tool, "args": dict(self.args), "id": f"call-{uuid.uuid4().hex}"}
            message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


def agent_for(
    tool: str, tools: list[Any], checkpointer: Any, *, args: dict[str, Any] | None = None
) -> Any:
    """``create_agent`` on :class:`CallsOnce` calling ``tool`` with ``args``."""
    model = CallsOnce(tool=tool, args=dict(args or {}), seen=[])
    return create_agent(model, tools, checkpointer=checkpointer)


async def run_agent(agent: Any, given: Any, thread: str) -> dict[str, Any]:
    """One ``ainvoke`` on the thread ``thread``: ``given`` is the question (a string) or a
    ``Command(resume=...)``. Its state: ``messages``, and ``__interrupt__`` when it paused."""
    config = {"configurable": {"thread_id": thread}}
    if isinstance(given, str):
        given = {"messages": [{"role": "user", "content": given}]}
    result: dict[str, Any] = await agent.ainvoke(given, config)
    return result


def final_text(state: dict[str, Any]) -> str:
    """The agent's last message, as text."""
    return str(state["messages"][-1].text)


@contextmanager
def rule_breakers(logs: Path) -> Iterator[str]:
    """tests/peer_servers/rule_breakers.py over HTTP until the block ends: its base URL (add
    ``NAME/mcp``)."""
    markers.require("slow")
    port = free_port()
    logs.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, str(PEER_SERVERS / "rule_breakers.py"), "--http", str(port)]
    with (logs / "rule_breakers.log").open("ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise AssertionError((logs / "rule_breakers.log").read_text()[-3000:])
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(timeout=15)
