"""The client the server checks drive a server with: the official SDK's, speaking the revision
a check asks for, declaring exactly the modes it asks for, answering each question the way
the check scripts it, and keeping every message that crossed the wire.

It is deliberately not :class:`~mcp_elicit.client.ElicitingClient`: that client validates,
fills defaults, retries and refuses, all things a probe must not do to the server under test.
It shares the SDK seams (``mcp_elicit._sdk``: the capabilities declared, the version
proposed, ``elicitation/create`` read raw, every request sent raw) and the transport the
SDK opens, wrapped to record each JSON-RPC message (:class:`Wire`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import encode_header_value
from mcp.shared.message import SessionMessage
from pydantic import TypeAdapter, ValidationError

from mcp_elicit import _sdk
from mcp_elicit.client.server_log import LoggedStdioServer, logged
from mcp_elicit.protocol.codes import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
)
from mcp_elicit.protocol.tasks import tasks_declaration
from mcp_elicit.revisions import Revision

Answerer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers one ``elicitation/create`` (its raw params) with a raw result."""

Target = str | StdioServerParameters | LoggedStdioServer

TIMEOUT = 30.0
"""Seconds a probe waits for any one answer from the server under test."""

MAX_PAGES = 100
"""Pages of ``tools/list`` a probe follows: a server that sends a ``nextCursor`` on every page
would otherwise keep it listing for ever."""


class EndlessList(Exception):
    """A list still paginating after :data:`MAX_PAGES` pages."""

    def __init__(self, method: str, pages: int) -> None:
        super().__init__(f"{method} still paginating after {pages} pages (a nextCursor on each)")


async def accept_at_once(params: dict[str, Any]) -> dict[str, Any]:
    """A person who agrees: opens the link (URL mode), or submits the form empty."""
    if params.get("mode") == "url":
        return {"action": "accept"}
    return {"action": "accept", "content": {}}


@dataclass
class Wire:
    """Every JSON-RPC message of one connection, in order: ``("sent" | "received", message)``."""

    messages: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    arrived: anyio.Event = field(default_factory=anyio.Event)

    def record(self, direction: str, item: Any) -> None:
        if isinstance(item, SessionMessage):
            dumped = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
            self.messages.append((direction, dumped))
            if direction == "received":
                self.arrived.set()
                self.arrived = anyio.Event()

    def received(self, method: str | None = None) -> list[dict[str, Any]]:
        """What the server sent (``method``: only those requests or notifications)."""
        return [
            message
            for direction, message in self.messages
            if direction == "received" and (method is None or message.get("method") == method)
        ]

    async def until_any(self, *, timeout: float) -> None:
        """Until the server's next message, or ``timeout`` seconds."""
        with anyio.move_on_after(timeout):
            await self.arrived.wait()

    async def until(self, method: str, *, timeout: float) -> list[dict[str, Any]]:
        """The server's messages named ``method`` once there is one, or none after
        ``timeout`` seconds."""
        with anyio.move_on_after(timeout):
            while not self.received(method):
                await self.arrived.wait()
        return self.received(method)


class _TapRead:
    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner, self._wire = inner, wire

    def __getattr__(self, name: str) -> Any:  # last_context and the like
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._wire.record("received", item)
        return item

    def __aiter__(self) -> _TapRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapRead:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


class _TapWrite:
    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner, self._wire = inner, wire

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: Any, /) -> None:
        self._wire.record("sent", item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapWrite:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


@contextlib.asynccontextmanager
async def _tapped(transport: Any, wire: Wire) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read, write):
        yield _TapRead(read, wire), _TapWrite(write, wire)


@dataclass(frozen=True)
class ProbeReply:
    """A response as it came: the raw result, or the error."""

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def code(self) -> int | None:
        return None if self.error is None else self.error.get("code")

    def describe(self) -> str:
        if self.error is not None:
            return f"error {self.error.get('code')} {self.error.get('message')!r}"
        assert self.result is not None
        kind = self.result.get("resultType")
        said = f" ({kind})" if kind is not None else ""
        if self.result.get("isError"):
            return f"a tool error{said}: {text_of(self.result)!r}"
        return f"a result{said}"


def text_of(result: Mapping[str, Any]) -> str:
    """The text blocks of a tool result, joined."""
    return " ".join(
        str(block.get("text", ""))
        for block in result.get("content") or []
        if isinstance(block, Mapping) and block.get("type") == "text"
    )


_RAW: ContextVar[list[Any] | None] = ContextVar("mcp_elicit_check_raw", default=None)
_ANY = TypeAdapter(Any)


class _ProbeHooks:
    def __init__(self, probe: Probe) -> None:
        self._probe = probe

    @property
    def proposed_version(self) -> str | None:
        revision = self._probe.revision
        return (
            Revision.V2025_06_18.value
            if revision in (Revision.V2025_06_18, Revision.URL_DRAFT)
            else None
        )

    def capabilities(self, version: str, declared: types.ClientCapabilities) -> Any:
        modes = self._probe.modes
        if modes is None:
            return None
        if self._probe.revision == Revision.V2025_06_18:
            return types.ElicitationCapability()  # 2025-06-18: `elicitation: {}`
        return types.ElicitationCapability(
            form=types.FormElicitationCapability() if "form" in modes else None,
            url=types.UrlElicitationCapability() if "url" in modes else None,
        )

    async def on_elicitation(self, session: ClientSession, params: Any) -> dict[str, Any]:
        raw = dict(params or {})
        self._probe.asked.append(raw)
        return await self._probe.answer(raw)

    async def send(
        self,
        send: Callable[[str, Mapping[str, Any] | None, dict[str, Any]], Awaitable[Any]],
        method: str,
        params: Mapping[str, Any] | None,
        options: dict[str, Any],
        version: str | None,
    ) -> Any:
        raw = await send(method, params, options)
        sink = _RAW.get()
        if sink is not None:
            sink.append(raw)
        return raw


class Probe:
    """One connection to the server under test, as one client.

    ``revision``: one of the catalog's. ``modes``: the elicitation modes declared
    (``None``: no elicitation capability at all). ``answer``: how each question pushed to
    it is answered (default: accepted at once)."""

    def __init__(
        self,
        target: Target,
        revision: str,
        *,
        modes: frozenset[str] | None = frozenset({"form", "url"}),
        answer: Answerer = accept_at_once,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.target = target
        self.revision = revision
        self.modes = modes
        self.answer = answer
        self.headers = dict(headers or {})
        self.wire = Wire()
        self.asked: list[dict[str, Any]] = []
        self._client: _sdk.ElicitingSdkClient | None = None
        self._stack: contextlib.AsyncExitStack | None = None

    async def __aenter__(self) -> Probe:
        async with contextlib.AsyncExitStack() as stack:
            transport: Any
            if isinstance(self.target, str):
                http = httpx2.AsyncClient(headers=self.headers, timeout=httpx2.Timeout(TIMEOUT))
                await stack.enter_async_context(http)
                transport = streamable_http_client(self.target, http_client=http)
            elif isinstance(self.target, StdioServerParameters):
                transport = logged(self.target)
            else:
                transport = self.target
            client = _sdk.ElicitingSdkClient(
                _tapped(transport, self.wire),
                mode="auto" if self.revision == Revision.V2026_07_28 else "legacy",
                read_timeout_seconds=TIMEOUT,
                elicitation_callback=_never_called,
                cache=None,
            )
            client.hooks = _ProbeHooks(self)
            await stack.enter_async_context(client)
            self._client = client
            self._stack = stack.pop_all()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            await stack.__aexit__(*exc_info)

    @property
    def client(self) -> _sdk.ElicitingSdkClient:
        if self._client is None:
            raise RuntimeError("Probe must be used within 'async with'")
        return self._client

    @property
    def protocol_version(self) -> str:
        return self.client.protocol_version

    async def tools(self) -> list[str]:
        """The names of every tool listed, all pages followed (at most :data:`MAX_PAGES`, else
        :class:`EndlessList`); read raw, so that a listing the SDK would refuse (no
        ``resultType``, say) still names the tools."""
        names: list[str] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await self.list_tools_raw(cursor)
            if page.result is None:
                error = page.error or {}
                raise MCPError(error.get("code", 0), str(error.get("message")), error.get("data"))
            names.extend(str(tool.get("name")) for tool in page.result.get("tools") or [])
            cursor = page.result.get("nextCursor")
            if not cursor:
                return names
        raise EndlessList("tools/list", MAX_PAGES)

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
    ) -> ProbeReply:
        """``tools/call`` as the wire has it; 2026-07-28 retries carry ``input_responses``
        and ``request_state`` exactly as given."""
        params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
        if input_responses is not None:
            params["inputResponses"] = dict(input_responses)
        if request_state is not None:
            params["requestState"] = request_state
        request = types.CallToolRequest.model_validate({"method": "tools/call", "params": params})
        return await self._send(lambda: self.client.session.send_request(request, _ANY))

    async def list_tools_raw(self, cursor: str | None = None) -> ProbeReply:
        """One page of ``tools/list`` as the wire has it."""
        params = {"cursor": cursor} if cursor else {}
        request = types.ListToolsRequest.model_validate({"method": "tools/list", "params": params})
        return await self._send(lambda: self.client.session.send_request(request, _ANY))

    async def request(
        self,
        method: str,
        params: Mapping[str, Any],
        *,
        on_progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None,
    ) -> ProbeReply:
        """A request the SDK has no method for (``elicitation/track``)."""
        options: dict[str, Any] = {"timeout": TIMEOUT}
        if on_progress is not None:
            options["on_progress"] = on_progress
        dispatcher = self.client.dispatcher
        return await self._send(lambda: dispatcher.send_raw_request(method, dict(params), options))

    async def task_request(
        self, method: str, params: Mapping[str, Any], *, declare: bool = True
    ) -> ProbeReply:
        """A request of the tasks extension's exchanges (2026-07-28), sent exactly as written
        here: its own ``_meta`` (the probe's modes, and the extension unless ``declare`` is
        false: the declaration is per request), and over Streamable HTTP the headers the
        revision asks for, ``Mcp-Name`` the ``taskId`` (or the tool's name)."""
        capabilities: dict[str, Any] = {}
        if self.modes is not None:
            capabilities["elicitation"] = {mode: {} for mode in sorted(self.modes)}
        if declare:
            capabilities.update(tasks_declaration())
        sent = dict(params)
        sent["_meta"] = {
            **dict(sent.get("_meta") or {}),
            META_PROTOCOL_VERSION: self.protocol_version,
            META_CLIENT_INFO: {"name": "mcp-elicit-check", "version": "1"},
            META_CLIENT_CAPABILITIES: capabilities,
        }
        headers = {"mcp-protocol-version": self.protocol_version, "mcp-method": method}
        name = sent.get("taskId", sent.get("name"))
        if isinstance(name, str):
            headers["mcp-name"] = encode_header_value(name)
        options: dict[str, Any] = {"timeout": TIMEOUT, "headers": headers}
        dispatcher = self.client.dispatcher
        return await self._send(lambda: dispatcher.send_raw_request(method, sent, options))

    async def _send(self, send: Callable[[], Awaitable[Any]]) -> ProbeReply:
        sink: list[Any] = []
        token = _RAW.set(sink)
        try:
            try:
                raw = await send()
            except ValidationError:
                # The SDK refused the result (a 2026-07-28 result without resultType, say):
                # the check judges what came, which the hook kept.
                raw = sink[-1] if sink else None
        except MCPError as error:
            return ProbeReply(
                error={"code": error.code, "message": error.message, "data": error.data}
            )
        finally:
            _RAW.reset(token)
        if sink:
            raw = sink[-1]
        return ProbeReply(result=raw if isinstance(raw, dict) else {"value": raw})


async def _never_called(context: Any, params: Any) -> Any:  # pragma: no cover - hooks answer
    raise AssertionError("the probe answers elicitation/create through its hooks")
