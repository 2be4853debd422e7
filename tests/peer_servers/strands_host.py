"""A host on Strands Agents (run with ``peers/strands/.venv/bin/python``: Strands pins
mcp<2.2 and cannot share our environment; `make strands`): a real ``strands.Agent`` whose
tools are an MCP server's, reached through ``strands.tools.mcp.MCPClient`` over stdio as a
Strands user writes it, with no ``elicitation_callback`` (none declared). Its model is a
scripted one (no LLM, no network, no AWS credentials): asked anything, it calls the next tool
of the list once, then says what the tool returned.

    peers/strands/.venv/bin/python tests/peer_servers/strands_host.py TOOL... -- COMMAND...

Through the gateway, COMMAND is ``mcp-elicit gateway --ask web -- SERVER...``. Prints one JSON
line per tool, ``{"tool", "status", "said"}`` (the tool result's status as Strands gives it to
the model, and the agent's final answer), then ``{"conversation": ...}`` (every message the
agent and its model exchanged) and ``{"connections": [...]}`` (every address a socket of this
process tried to reach: none may be off this machine; each is refused).
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
from collections.abc import AsyncGenerator, AsyncIterable
from typing import Any

# No endpoint but this machine: every socket connection to another address is refused (and
# recorded), so a Strands default that reached for Bedrock or telemetry would show.
CONNECTIONS: list[str] = []
_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: Any) -> Any:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = str(address[0])
        CONNECTIONS.append(host)
        try:
            local = ipaddress.ip_address(host).is_loopback
        except ValueError:
            local = host == "localhost"
        if not local:
            raise ConnectionRefusedError(f"strands_host: no network ({host})")
    return _connect(self, address)


socket.socket.connect = _loopback_only  # type: ignore[method-assign]
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")

from mcp import StdioServerParameters, stdio_client  # noqa: E402
from strands import Agent  # noqa: E402
from strands.models import Model  # noqa: E402
from strands.tools.mcp import MCPClient  # noqa: E402

# What the gateway needs to open its page in the person's browser.
SHOWN = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "XDG_RUNTIME_DIR")
# What the tests give the gateway and the server: where state goes, the deployment key, the
# checkout on the path (the server of tests/gateway/asking_support.py), unbuffered output.
TESTS_PASS = ("XDG_STATE_HOME", "MCP_ELICIT_KEY", "PYTHONPATH", "PYTHONUNBUFFERED")


class CallsEachTool(Model):
    """No LLM: asked to answer, it calls ``tools[n]`` (the next one), and once the tool's
    result is in the conversation, answers ``tool said: <its text>``."""

    def __init__(self, tools: list[str]) -> None:
        self.tools = list(tools)
        self.calls = 0

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        raise NotImplementedError("no structured output")
        yield  # pragma: no cover

    async def stream(
        self,
        messages: Any,
        tool_specs: Any = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncIterable[Any]:
        last = messages[-1]["content"]
        results = [block["toolResult"] for block in last if "toolResult" in block]
        yield {"messageStart": {"role": "assistant"}}
        if results:
            said = " ".join(part.get("text", "") for part in results[-1]["content"])
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": f"tool said: {said}"}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        tool = self.tools[self.calls]
        assert tool in [spec["name"] for spec in tool_specs or []], tool_specs
        self.calls += 1
        start = {"toolUse": {"name": tool, "toolUseId": f"call-{self.calls}"}}
        yield {"contentBlockStart": {"start": start}}
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": "{}"}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def main(tools: list[str], command: list[str]) -> int:
    # As docs/frameworks.md tells a Strands user to write it: the SDK passes HOME, PATH and a
    # few more; the gateway gets what it needs to show its page and no more (it passes its
    # environment on to the server), and here the tests' own (TESTS_PASS).
    env = {name: os.environ[name] for name in (*SHOWN, *TESTS_PASS) if name in os.environ}
    server = MCPClient(
        lambda: stdio_client(StdioServerParameters(command=command[0], args=command[1:], env=env))
    )
    model = CallsEachTool(tools)
    with server:
        agent = Agent(model=model, tools=server.list_tools_sync(), callback_handler=None)
        for tool in tools:
            result = agent(f"Use {tool}.")
            statuses = [
                block["toolResult"]["status"]
                for message in agent.messages
                for block in message["content"]
                if "toolResult" in block
            ]
            line = {"tool": tool, "status": statuses[-1], "said": str(result).strip()}
            print(json.dumps(line), flush=True)
    print(json.dumps({"conversation": agent.messages}, default=str), flush=True)
    print(json.dumps({"connections": CONNECTIONS}), flush=True)
    return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if "--" not in arguments:
        sys.exit("usage: strands_host.py TOOL... -- COMMAND...")
    cut = arguments.index("--")
    sys.exit(main(arguments[:cut], arguments[cut + 1 :]))
