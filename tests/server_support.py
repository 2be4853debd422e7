"""One tool source for the server-side tests, and the real clients that drive it.

``booking_server()`` builds an ``MCPServer`` with ``Elicitation`` installed whose tools use
``ask``, ``confirm`` and ``choose`` exactly as an author would. It records, in process, what
each tool body received (``BookingServer.outcomes``) and how often each body ran, so a test can
check the typed values the author gets, not only the text the client sees.

``connect(server, era, peer)`` connects a real client speaking ``era``:

- 2025-11-25 and 2026-07-28: the official SDK's ``mcp.Client`` (``mode="legacy"`` and
  ``mode="auto"``) with an ``elicitation_callback``;
- 2025-06-18: the SDK's ``Client`` cannot propose it (its ``initialize`` always offers its
  newest handshake version), so :class:`mcp_elicit.client.ElicitingClient` carries it, with a
  handler whose ``handle`` answers from the same script.
"""

from __future__ import annotations

import contextlib
import datetime
import enum
import socket
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol

import annotated_types as at
import anyio
import anyio.abc
import mcp_types as types
import uvicorn
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.client import Asking, ElicitationHandler, ElicitingClient
from mcp_elicit.forms import NotSecret
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.server import (
    Accepted,
    Answer,
    Cancelled,
    Declined,
    DeploymentKey,
    Elicitation,
    ask,
    choose,
    confirm,
)

ERAS = ["2025-06-18", "2025-11-25", "2026-07-28"]
PUSH_ERAS = ["2025-06-18", "2025-11-25"]
SDK_MODES = {"2025-11-25": "legacy", "2026-07-28": "auto"}

BOOK = "Book a room?"
ROOMS = {"std": "Standard", "ste": "Suite"}
EXTRAS = ["wifi", "breakfast", "parking"]


class Room(enum.Enum):
    STANDARD = "standard"
    SUITE = "suite"


@dataclass
class Booking:
    name: str
    arrival: datetime.date
    room: Room = Room.STANDARD
    guests: Annotated[int, at.Ge(1), at.Le(8)] = 2


@dataclass
class Who:
    name: str


@dataclass
class Credentials:
    api_key: str


@dataclass
class PublicId:
    api_key: Annotated[str, NotSecret()]


FALLBACK = Booking("Walk-in", datetime.date(2030, 1, 1))


def describe(answer: Answer[Booking]) -> str:
    match answer:
        case Accepted(b):
            return f"booked {b.name} {b.arrival.isoformat()} {b.room.value} x{b.guests}"
        case Declined():
            return "declined"
        case Cancelled(reason):
            return f"cancelled ({reason})"
    raise AssertionError(answer)


@dataclass
class BookingServer:
    """The server and what its tool bodies saw."""

    server: MCPServer
    outcomes: list[Any] = field(default_factory=list)  # what the last ask/confirm/choose gave
    runs: Counter[str] = field(default_factory=Counter)  # tool body starts
    finished: Counter[str] = field(default_factory=Counter)  # code after the last ask


def booking_server(
    key: DeploymentKey | None = None, *, name: str = "booking-test"
) -> BookingServer:
    server = MCPServer(name)
    Elicitation(server, key=key or DeploymentKey.generate(), store="memory://")
    made = BookingServer(server)

    @server.tool()
    async def book(ctx: Context, reask: int = 0) -> str:
        answer = await ask(ctx, Booking, BOOK, reask=reask)
        made.outcomes.append(answer)
        return describe(answer)

    @server.tool()
    async def book_quickly(ctx: Context) -> str:
        answer = await ask(ctx, Booking, BOOK, timeout=0.2)
        made.outcomes.append(answer)
        return describe(answer)

    @server.tool()
    async def book_or_walk_in(ctx: Context) -> str:
        answer = await ask(ctx, Booking, BOOK, fallback=Accepted(FALLBACK))
        sure = await confirm(ctx, "Go ahead?", fallback=True)
        made.outcomes.append((answer, sure))
        return f"{describe(answer)}; sure={sure}"

    @server.tool()
    async def go_ahead(ctx: Context) -> str:
        sure = await confirm(ctx, "Go ahead?")
        made.outcomes.append(sure)
        return "yes" if sure else "no"

    @server.tool()
    async def pick_room(ctx: Context) -> str:
        answer = await choose(ctx, "Which room?", ROOMS)
        made.outcomes.append(answer)
        return repr(answer)

    @server.tool()
    async def pick_extras(ctx: Context) -> str:
        answer = await choose(ctx, "Any extras?", EXTRAS, label="Extras", multiple=True)
        made.outcomes.append(answer)
        return repr(answer)

    @server.tool()
    async def trip(ctx: Context, n: int = 1) -> str:
        made.runs["trip"] += 1
        who = await ask(ctx, Who, "Who travels?")
        sure = await confirm(ctx, "Go ahead?")
        room = await choose(ctx, "Which room?", ROOMS)
        made.finished["trip"] += 1
        made.outcomes.append((who, sure, room))
        name = who.value.name if isinstance(who, Accepted) else "-"
        chosen = room.value if isinstance(room, Accepted) else "-"
        return f"{n}: {name} {sure} {chosen}"

    @server.tool()
    async def store_key(ctx: Context) -> str:
        return repr(await ask(ctx, Credentials, "Your API key?"))

    @server.tool()
    async def store_public_id(ctx: Context) -> str:
        answer = await ask(ctx, PublicId, "Your public client id?")
        made.outcomes.append(answer)
        return repr(answer)

    return made


# -- the clients -----------------------------------------------------------------------------


@dataclass
class Person:
    """The answers a client sends, in order, and every request's params as received."""

    answers: list[dict[str, Any]] = field(default_factory=list)
    delay: float = 0.0  # how long the person takes to answer
    seen: list[dict[str, Any]] = field(default_factory=list)
    withdrawn: anyio.Event = field(default_factory=anyio.Event)  # a question taken back

    async def answer(self, params: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(params)
        if self.delay:
            try:
                await anyio.sleep(self.delay)
            except anyio.get_cancelled_exc_class():
                self.withdrawn.set()
                raise
        if not self.answers:
            raise AssertionError(f"asked more than the script answers: {params}")
        return self.answers.pop(0)

    async def sdk_callback(
        self, context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        return types.ElicitResult.model_validate(await self.answer(raw))


class _ScriptedHandler(ElicitationHandler):
    """Our client's handler reduced to the script: it receives the raw params as they came
    off the wire and sends back exactly what the script says (even an invalid answer)."""

    def __init__(self, person: Person, modes: ElicitationModes) -> None:
        super().__init__(None, opener=None)
        self.person = person
        self.declared = modes

    @property
    def modes(self) -> ElicitationModes:
        return self.declared

    async def handle(self, params: Any, asking: Asking) -> dict[str, Any]:
        return await self.person.answer(dict(params))


class Caller(Protocol):
    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None
    ) -> types.CallToolResult: ...


@contextlib.asynccontextmanager
async def connect(
    server: MCPServer,
    era: str,
    person: Person | None = None,
    *,
    declare: bool = True,
    modes: ElicitationModes | None = None,
) -> AsyncIterator[Caller]:
    """A real client speaking ``era``; ``declare=False``: one with no elicitation capability.

    ``modes``: declare exactly these (the SDK client declares form and URL or nothing, so
    this takes our ``ElicitingClient`` on every revision)."""
    person = person if person is not None else Person()
    if era == "2025-06-18" or modes is not None:
        wanted = modes if modes is not None else ElicitationModes(form=declare)
        handler = _ScriptedHandler(person, ElicitationModes(form=True))
        client = ElicitingClient(server, handler, protocol=era)
        # ElicitingClient refuses a 2025-06-18 handler without forms up front; a client
        # with no elicitation at all is what some tests need, so declare it after that check.
        handler.declared = wanted
        async with client:
            assert client.protocol_version == era
            yield client
        return
    callback = person.sdk_callback if declare else None
    async with Client(server, elicitation_callback=callback, mode=SDK_MODES[era]) as sdk:
        assert sdk.protocol_version == era
        yield sdk


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


# -- Streamable HTTP ---------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def serve_on_loopback(app: Any, *, port: int = 0, **config: Any) -> AsyncIterator[int]:
    """Serve the ASGI ``app`` with uvicorn on 127.0.0.1: ``port``, or a free one; yield the
    port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", port))
    port: int = sock.getsockname()[1]
    web = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, **config))
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: web.serve(sockets=[sock]))
        with anyio.fail_after(10):
            while not web.started:
                await anyio.sleep(0.01)
        try:
            yield port
        finally:
            web.should_exit = True
    sock.close()


@contextlib.asynccontextmanager
async def serve_http(server: MCPServer) -> AsyncIterator[str]:
    """Serve ``server`` over Streamable HTTP on a free loopback port; yield its URL."""
    async with serve_on_loopback(server.streamable_http_app(), log_level="warning") as port:
        yield f"http://127.0.0.1:{port}/mcp"
