"""A Streamable HTTP client written by hand, to see which stream each server request comes on.

SEP-2260: a server sends ``elicitation/create`` (and ``sampling/createMessage``, ``roots/list``)
only inside a client request, so over Streamable HTTP only on the response stream of the POST
it relates to, never on the standalone GET stream. The SDK client (:class:`~.probe.Probe`)
merges every stream into one, so this probe speaks the transport itself with plain HTTP: it
initializes on a push revision, opens the GET stream, sends each request as a POST of its
own, and keeps every server request with the stream it came on (:class:`Arrival`). Each
one is answered (a POST of the response, as the transport wants), so that a server which
breaks the rule still ends its call and the check can say where the question came.

Push revisions only (2025-06-18, the URL-mode draft, 2025-11-25): 2026-07-28 has no server
requests at all.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
from anyio.abc import TaskGroup

from mcp_elicit.check.probe import TIMEOUT, ProbeReply
from mcp_elicit.revisions import Revision

ASSOCIATED = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
"""The server requests SEP-2260 ties to a client request (``ping`` is exempt)."""

GET = "get"
POST = "post"

Responder = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers one server request (the whole JSON-RPC message) with a raw result."""

PUSH_REVISIONS: tuple[str, ...] = (Revision.V2025_06_18, Revision.URL_DRAFT, Revision.V2025_11_25)


class StreamProbeError(Exception):
    """The server broke the transport itself (a refused POST, no session id, no answer)."""


async def decline_forms(message: dict[str, Any]) -> dict[str, Any]:
    """Declines a form (nothing is filled in); agrees to a link (it is never opened)."""
    params = message.get("params") or {}
    if params.get("mode") == "url":
        return {"action": "accept"}
    return {"action": "decline"}


@dataclass(frozen=True)
class Arrival:
    """A server request as it came: the message, the stream (:data:`GET` or :data:`POST`),
    and for a POST's stream the request that POST carried."""

    message: dict[str, Any]
    stream: str
    post: dict[str, Any] | None = None

    @property
    def method(self) -> str:
        return str(self.message.get("method"))

    @property
    def params(self) -> dict[str, Any]:
        params = self.message.get("params")
        return dict(params) if isinstance(params, Mapping) else {}

    @property
    def post_id(self) -> Any:
        return None if self.post is None else self.post.get("id")

    def where(self) -> str:
        """The stream, in words: "the standalone GET stream", or "the response stream of
        POST #3 (tools/call test_elicitation)"."""
        if self.post is None:
            return "the standalone GET stream"
        method = self.post.get("method")
        name = (self.post.get("params") or {}).get("name")
        what = f"{method} {name}" if name else f"{method}"
        return f"the response stream of POST #{self.post.get('id')} ({what})"

    def describe(self) -> str:
        """The request in a few words: its method and mode, its message."""
        params = self.params
        mode = params.get("mode") or ("form" if "requestedSchema" in params else None)
        said = f" {mode}" if mode and self.method == "elicitation/create" else ""
        message = params.get("message")
        quoted = f" {str(message)[:80]!r}" if isinstance(message, str) else ""
        return f"{self.method}{said}{quoted}"


@dataclass
class _Post:
    """One request POSTed, and its answer once it came."""

    message: dict[str, Any]
    reply: dict[str, Any] | None = None
    failure: StreamProbeError | None = None
    done: anyio.Event = field(default_factory=anyio.Event)


class StreamProbe:
    """One session with the server at ``url``, spoken by hand.

    ``revision``: a push revision (:data:`PUSH_REVISIONS`). ``modes``: the elicitation modes
    declared. ``respond``: how each server request is answered (default: forms declined,
    links agreed to). ``headers``: sent with every HTTP request (a bearer token, say)."""

    def __init__(
        self,
        url: str,
        revision: str,
        *,
        modes: frozenset[str] = frozenset({"form", "url"}),
        respond: Responder = decline_forms,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if revision not in PUSH_REVISIONS:
            raise ValueError(f"{revision} has no server requests: the probe speaks a push revision")
        self.url = url
        self.revision = revision
        self.modes = modes
        self.respond = respond
        self.headers = dict(headers or {})
        self.arrivals: list[Arrival] = []
        """Every server request, in the order it came."""
        self.on_get: list[dict[str, Any]] = []
        """Every message of the GET stream (notifications included)."""
        self.get_refused: str | None = None
        """Why there is no GET stream (the server may offer none: 405), or ``None``."""
        self.protocol_version: str | None = None
        self.session_id: str | None = None
        self._ids = itertools.count(1)
        self._http: httpx2.AsyncClient | None = None
        self._group: TaskGroup | None = None
        self._stack: contextlib.AsyncExitStack | None = None

    # -- the session ----------------------------------------------------------------------

    async def __aenter__(self) -> StreamProbe:
        async with contextlib.AsyncExitStack() as stack:
            self._http = await stack.enter_async_context(
                httpx2.AsyncClient(timeout=httpx2.Timeout(TIMEOUT, read=None))
            )
            stack.push_async_callback(self._end_session)
            self._group = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(self._group.cancel_scope.cancel)  # the GET stream reads for ever
            await self._initialize()
            await self._open_get_stream()
            self._stack = stack.pop_all()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.__aexit__(*exc_info)

    def _proposed(self) -> str:
        # The URL-mode draft is spoken over 2025-06-18 by a client that declares URL mode.
        return Revision.V2025_06_18.value if self.revision == Revision.URL_DRAFT else self.revision

    def _capabilities(self) -> dict[str, Any]:
        if self.revision == Revision.V2025_06_18:
            return {"elicitation": {}}  # 2025-06-18 has no modes: form only
        return {"elicitation": {mode: {} for mode in sorted(self.modes)}}

    async def _initialize(self) -> None:
        reply = await self.request(
            "initialize",
            {
                "protocolVersion": self._proposed(),
                "capabilities": self._capabilities(),
                "clientInfo": {"name": "mcp-elicit check (streams)", "version": "0"},
            },
        )
        if reply.result is None:
            raise StreamProbeError(f"initialize was refused: {reply.describe()}")
        self.protocol_version = str(reply.result.get("protocolVersion"))
        await self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def _end_session(self) -> None:
        if self.session_id is not None and self._http is not None:
            with anyio.move_on_after(5), contextlib.suppress(httpx2.HTTPError):
                await self._http.delete(self.url, headers=self._headers())

    def _headers(self, accept: str = "application/json, text/event-stream") -> dict[str, str]:
        headers = {**self.headers, "Accept": accept, "Content-Type": "application/json"}
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version is not None:
            headers["Mcp-Protocol-Version"] = self.protocol_version
        return headers

    @property
    def http(self) -> httpx2.AsyncClient:
        if self._http is None or self._group is None:
            raise RuntimeError("StreamProbe must be used within 'async with'")
        return self._http

    # -- requests and their streams -------------------------------------------------------

    async def request(self, method: str, params: Mapping[str, Any]) -> ProbeReply:
        """Send ``method`` as a POST of its own; its answer, read from that POST's response
        (JSON, or the SSE stream that carries server requests before it)."""
        post = _Post({"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params})
        if self._group is None:
            raise RuntimeError("StreamProbe must be used within 'async with'")
        self._group.start_soon(self._post, post)
        with anyio.move_on_after(TIMEOUT):
            await post.done.wait()
        if post.failure is not None:
            raise post.failure
        if post.reply is None:
            name = params.get("name")
            what = f"{method} {name}" if isinstance(name, str) else method
            raise StreamProbeError(f"no answer to {what} within {TIMEOUT:g} s")
        reply = post.reply
        if "error" in reply:
            return ProbeReply(error=dict(reply["error"]))
        return ProbeReply(result=dict(reply.get("result") or {}))

    async def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> ProbeReply:
        """``tools/call``, answered on its own stream."""
        return await self.request("tools/call", {"name": name, "arguments": dict(arguments or {})})

    def associated(self) -> list[Arrival]:
        """The server requests SEP-2260 ties to a client request (:data:`ASSOCIATED`)."""
        return [arrival for arrival in self.arrivals if arrival.method in ASSOCIATED]

    async def _post(self, post: _Post) -> None:
        try:
            async with self.http.stream(
                "POST", self.url, content=json.dumps(post.message), headers=self._headers()
            ) as response:
                if response.status_code != 200:
                    body = (await response.aread()).decode(errors="replace")[:200]
                    raise StreamProbeError(
                        f"POST {post.message.get('method')} got HTTP {response.status_code}: "
                        f"{body!r}"
                    )
                self.session_id = response.headers.get("mcp-session-id", self.session_id)
                kind = response.headers.get("content-type", "")
                if kind.startswith("application/json"):
                    await self._take(json.loads(await response.aread()), post)
                    return
                async for message in _sse(response):
                    await self._take(message, post)
                    if post.done.is_set():
                        return
            if not post.done.is_set():
                raise StreamProbeError(
                    f"the stream of POST #{post.message['id']} ({post.message.get('method')}) "
                    "ended without its response"
                )
        except StreamProbeError as error:
            post.failure = error  # the caller's to raise: the session goes on
        except httpx2.HTTPError as error:
            post.failure = StreamProbeError(
                f"POST {post.message.get('method')} broke: {type(error).__name__}: {error}"
            )
        finally:
            post.done.set()

    async def _take(self, message: Any, post: _Post | None) -> None:
        """One message from a stream: ``post``'s, or the GET stream's (``None``)."""
        if not isinstance(message, dict):
            return
        if post is None:
            self.on_get.append(message)
        if "method" in message and "id" in message:
            stream = GET if post is None else POST
            self.arrivals.append(Arrival(message, stream, None if post is None else post.message))
            # Answered apart: the stream it came on goes on (the call's response follows).
            if self._group is not None:
                self._group.start_soon(self._answer, message)
            return
        if post is not None and "method" not in message and message.get("id") == post.message["id"]:
            post.reply = message
            post.done.set()

    async def _answer(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": message.get("id")}
        if method == "elicitation/create":
            answer["result"] = await self.respond(message)
        elif method == "ping":
            answer["result"] = {}
        elif method == "roots/list":
            answer["result"] = {"roots": []}
        else:
            answer["error"] = {"code": -32601, "message": f"{method} not supported by the probe"}
        await self._send(answer)

    async def _send(self, message: dict[str, Any]) -> None:
        """A notification or a response: the server acknowledges it (202), nothing comes."""
        response = await self.http.post(
            self.url, content=json.dumps(message), headers=self._headers()
        )
        if response.status_code not in (200, 202):
            raise StreamProbeError(
                f"the server refused a {'response' if 'id' in message else 'notification'} "
                f"with HTTP {response.status_code}"
            )

    # -- the GET stream -------------------------------------------------------------------

    async def _open_get_stream(self) -> None:
        assert self._group is not None
        opened = anyio.Event()
        self._group.start_soon(self._listen, opened)
        with anyio.fail_after(TIMEOUT):
            await opened.wait()

    async def _listen(self, opened: anyio.Event) -> None:
        try:
            headers = self._headers(accept="text/event-stream")
            async with self.http.stream("GET", self.url, headers=headers) as response:
                if response.status_code != 200:
                    # The stream is optional (405): nothing can come on it, then.
                    self.get_refused = f"HTTP {response.status_code}"
                    return
                opened.set()
                async for message in _sse(response):
                    await self._take(message, None)
        except httpx2.HTTPError as error:
            self.get_refused = f"{type(error).__name__}: {error}"
        finally:
            opened.set()


async def _sse(response: httpx2.Response) -> AsyncIterator[Any]:
    """The JSON-RPC messages of an SSE body, as they come (priming events carry no data)."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif not line.strip():
            if data and "".join(data).strip():
                yield json.loads("\n".join(data))
            data = []
    if data and "".join(data).strip():
        yield json.loads("\n".join(data))


__all__ = [
    "ASSOCIATED",
    "GET",
    "POST",
    "PUSH_REVISIONS",
    "Arrival",
    "StreamProbe",
    "StreamProbeError",
    "decline_forms",
]
