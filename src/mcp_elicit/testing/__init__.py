"""Test elicitation the way Starlette's ``TestClient`` tests an app: connect a real client to
your server, on the revision you choose, answer from a script, and look at what was asked::

    from mcp_elicit.testing import connect, enter_secret

    async def test_booking() -> None:
        async with connect(server, protocol="2026-07-28",
                           answers=[{"action": "accept", "content": {"name": "Ada"}}]) as mcp:
            result = await mcp.call("book", {"nights": 2})
        assert result.text == "Booked for Ada"
        assert mcp.asked[0].message == "Who is the booking for?"

- ``server``: an ``MCPServer`` or a fastmcp ``FastMCP`` (in-process), an ``http(s)://`` URL,
  an ``mcp.client.stdio.StdioServerParameters``, or any transport ``mcp.Client`` takes.
- ``protocol``: ``"2025-06-18"``, ``"2025-11-25"``, ``"2026-07-28"`` or ``"auto"``.
- ``answers``: the person's answers, in order, as ``mcp-elicit call --answers`` takes them
  (``{"action": "accept", "content": {...}}``, ``{"action": "accept", "defaults": true}``,
  ``{"action": "decline"}``, ``{"action": "cancel"}``; for a link, ``accept`` is the consent).
- ``links``: what the person does on a page they agreed to open: :func:`enter_secret` or
  :func:`decline_page` (over real HTTP, to the server's hosted pages), or your own coroutine.
- ``elicitation``: the server's :class:`~mcp_elicit.server.Elicitation`, to serve its hosted
  pages (on a loopback port) and run its background work while the session lasts.
- ``strict`` (default): a reply the client had to read liberally (a quirk, such as a
  2026-07-28 result without ``resultType``) fails the call: it is a bug of the server's.

Everything goes through the real stack: :class:`~mcp_elicit.client.ElicitingClient` and its
handler (the same checks, validation and URL-safety verdicts a host applies), the official
SDK's sessions, and the server's own middleware.
"""

from __future__ import annotations

import contextlib
import html.parser
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import anyio.abc
import httpx2
import mcp_types as types

from mcp_elicit import _sdk
from mcp_elicit.client import (
    Asking,
    ElicitationHandler,
    ElicitingClient,
    Policy,
    ScriptedAnswer,
    ScriptedRenderer,
    Tracker,
)
from mcp_elicit.protocol import FORM_AND_URL, ElicitationModes, ElicitationRequest
from mcp_elicit.server import Elicitation
from mcp_elicit.urls import UrlPolicy

__all__ = [
    "ReceivedQuestion",
    "Result",
    "TestSession",
    "connect",
    "decline_page",
    "enter_secret",
]

LinkAction = Callable[[str], Coroutine[Any, Any, None]]
"""What the person does on a page, given its URL."""


@dataclass(frozen=True, slots=True)
class ReceivedQuestion:
    """One elicitation as the client received it: ``params`` exactly as sent."""

    revision: str
    params: Mapping[str, Any]

    @property
    def mode(self) -> Literal["form", "url"]:
        return "url" if self.params.get("mode") == "url" else "form"

    @property
    def message(self) -> str:
        return str(self.params.get("message", ""))

    @property
    def schema(self) -> Mapping[str, Any] | None:
        found = self.params.get("requestedSchema")
        return found if isinstance(found, Mapping) else None

    @property
    def url(self) -> str | None:
        found = self.params.get("url")
        return found if isinstance(found, str) else None


@dataclass(frozen=True, slots=True)
class Result:
    """A tool's result: ``text`` (its text blocks, joined by newlines), ``structured``,
    ``is_error``, and the SDK's ``raw`` result."""

    raw: types.CallToolResult

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.raw.content if isinstance(b, types.TextContent))

    @property
    def structured(self) -> Any:
        return self.raw.structured_content

    @property
    def is_error(self) -> bool:
        return bool(self.raw.is_error)


@dataclass
class TestSession:
    """A connected client: :meth:`call` a tool; :attr:`asked` and :attr:`opened` say what the
    person was asked and which links they agreed to open."""

    __test__ = False  # not a pytest test class

    client: ElicitingClient
    strict: bool = True
    asked: list[ReceivedQuestion] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)

    async def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> Result:
        """Call the tool ``name``, answering whatever it asks from the script. Protocol errors
        raise ``MCPError``, as the client does."""
        before = len(self.client.accepted_quirks)
        result = await self.client.call_tool(name, arguments)
        quirks = self.client.accepted_quirks[before:]
        if self.strict and quirks:
            raise AssertionError(
                f"{name}: the server's reply had to be read liberally: {'; '.join(quirks)}"
            )
        return Result(result)

    @property
    def protocol_version(self) -> str:
        return self.client.protocol_version


class _RecordingHandler(ElicitationHandler):
    """The real handler, remembering each request's params before handling it."""

    def __init__(self, session_asked: list[ReceivedQuestion], **options: Any) -> None:
        super().__init__(**options)
        self._asked = session_asked

    async def handle(self, params: Any, asking: Asking) -> dict[str, Any]:
        if isinstance(params, Mapping):
            self._asked.append(ReceivedQuestion(asking.revision.value, dict(params)))
        return await super().handle(params, asking)

    async def obtain(
        self,
        requests: Sequence[ElicitationRequest],
        asking: Asking,
        *,
        tracker: Tracker | None = None,
    ) -> bool:
        for request in requests:
            self._asked.append(
                ReceivedQuestion(asking.revision.value, request.to_params(asking.revision))
            )
        return await super().obtain(requests, asking, tracker=tracker)


@contextlib.asynccontextmanager
async def connect(
    server: Any,
    *,
    protocol: str = "auto",
    answers: Sequence[ScriptedAnswer | Mapping[str, Any]] = (),
    links: LinkAction | None = None,
    elicitation: Elicitation | None = None,
    modes: ElicitationModes = FORM_AND_URL,
    strict: bool = True,
    **client_options: Any,
) -> AsyncIterator[TestSession]:
    """A client connected to ``server`` (see the module's docstring). ``client_options`` go
    to :class:`~mcp_elicit.client.ElicitingClient` (and through it to ``mcp.Client``:
    ``sampling_callback``, ``list_roots_callback``, ...)."""
    asked: list[ReceivedQuestion] = []
    async with anyio.create_task_group() as tasks:
        opened: list[str] = []

        def open_link(url: str) -> None:
            opened.append(url)
            if links is not None:
                tasks.start_soon(links, url)

        handler = _RecordingHandler(
            asked,
            renderer=ScriptedRenderer(answers),
            # The server's own pages on loopback are what a test opens: allowed, as a
            # developer's host would with --allow-http-loopback.
            policy=Policy(
                modes=modes, url_policy=UrlPolicy(allow_http_loopback=True), rate_limit=None
            ),
            opener=open_link,
        )
        target = server
        framework = type(server).__module__.split(".")[0]  # an in-process server's, if any
        if framework == "fastmcp":
            target = _sdk.lowlevel_server_of(server)  # the SDK connects to its SDK Server
        client = ElicitingClient(target, handler, protocol=protocol, **client_options)
        async with contextlib.AsyncExitStack() as stack:
            if elicitation is not None:
                if not elicitation.installed and framework in ("mcp", "fastmcp"):
                    # A server built with server_options() learns its name (and so its
                    # server_id, which binds flows and secrets) when it is installed.
                    elicitation.install(server)
                await stack.enter_async_context(
                    elicitation.running(serve_pages_on_loopback=True, close_store=False)
                )
            await stack.enter_async_context(client)
            session = TestSession(client, strict, asked, opened)
            yield session
        tasks.cancel_scope.cancel()


# -- the person on a hosted page ------------------------------------------------------------------


def enter_secret(value: str, *, headers: Mapping[str, str] | None = None) -> LinkAction:
    """The person opens the hosted page and submits ``value`` (``headers``: whatever signs
    their browser in, for an identity that needs it)."""

    async def on_page(url: str) -> None:
        async with _browser(headers) as browser:
            token = await _form_token(browser, url)
            done = await browser.post(url, data={"csrf": token, "action": "submit", "value": value})
            if done.status_code != 303:
                raise AssertionError(f"the page refused the secret: {done.status_code}")

    return on_page


def decline_page(*, headers: Mapping[str, str] | None = None) -> LinkAction:
    """The person opens the hosted page and chooses Decline there."""

    async def on_page(url: str) -> None:
        async with _browser(headers) as browser:
            token = await _form_token(browser, url)
            done = await browser.post(url, data={"csrf": token, "action": "decline"})
            if done.status_code != 303:
                raise AssertionError(f"the page refused the decline: {done.status_code}")

    return on_page


@contextlib.asynccontextmanager
async def _browser(headers: Mapping[str, str] | None) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(headers=dict(headers or {}), timeout=30.0) as browser:
        yield browser


async def _form_token(browser: httpx2.AsyncClient, url: str) -> str:
    page = await browser.get(url)
    if page.status_code != 200:
        raise AssertionError(f"the hosted page answered {page.status_code}: {url}")
    reader = _CsrfField()
    reader.feed(page.text)
    if reader.token is None:
        raise AssertionError(f"the hosted page shows no form: {url}")
    return reader.token


class _CsrfField(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.token: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "input" and named.get("name") == "csrf":
            self.token = named.get("value")
