"""An official-SDK server (``MCPServer`` with mcp-elicit's ``ask``) whose questions cover every
field kind the form model knows, for the web renderer's browser tests. In process: ``build()``.

Tools:

- ``book_everything`` asks :class:`Everything` (every kind: text, email, URI, date, date-time,
  integer and number with bounds, boolean, single choice as radio buttons and as a list box,
  several choices with item bounds; required fields, optional ones, falsy defaults) and
  returns what it received as JSON;
- ``quick(n)`` asks :class:`Quick` (a few fields, for the keyboard and the queue) and returns
  ``"{n}:{answer}:{urgent}:{size}"``, or the action when not accepted;
- ``open_link`` asks to open :data:`LINK` (URL mode, 2025-11-25) and returns the action;
- ``needs_link`` fails with -32042 for :data:`LINK` until the link is done, then succeeds;
  ``complete_link`` sends the completion notice for it (the server's side of "done");
- ``blocked_link`` asks to open an ``http://`` link, which the client blocks;
- ``terms`` asks :class:`Quick` with a URL in its message (the client warns);
- ``impatient`` asks :class:`Quick` and gives up after three seconds.

What each tool received is kept in ``EveryFieldServer.outcomes``: the typed values an author
gets, not only the text the client sees.
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Annotated, Any

import annotated_types as at
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.session import ServerSession
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams
from pydantic import BaseModel

from mcp_elicit.forms import Description, Email, Title, Url
from mcp_elicit.server import Accepted, Cancelled, Declined, DeploymentKey, Elicitation, ask

SERVER_NAME = "Every Field Inn"
EVERYTHING = "Tell us about your stay: every kind of question a form can ask."
# A look-alike host (Cyrillic а in "pаypal"), so the consent screen has warnings to show.
LINK = "https://accounts.xn--pypal-4ve.com/authorize?client=every-field-inn&state=f00d"
LINK_ID = "link-1"
BLOCKED = "http://example.com/plain-http"
TERMS = "Read https://example.com/terms first, then answer."


class TermsAnswer(BaseModel):
    agree: bool = False


class Room(enum.Enum):
    __titles__ = {"std": "Standard room", "sea": "Sea view", "ste": "Suite"}
    STANDARD = "std"
    SEA_VIEW = "sea"
    SUITE = "ste"


class Country(enum.Enum):
    __titles__ = {
        "pt": "Portugal",
        "es": "Spain",
        "fr": "France",
        "it": "Italy",
        "de": "Germany",
        "nl": "Netherlands",
        "ie": "Ireland",
    }
    PT = "pt"
    ES = "es"
    FR = "fr"
    IT = "it"
    DE = "de"
    NL = "nl"
    IE = "ie"


class Extra(enum.Enum):
    __titles__ = {"parking": "Parking", "late": "Late checkout", "crib": "Baby crib"}
    PARKING = "parking"
    LATE = "late"
    CRIB = "crib"


class Size(enum.Enum):
    __titles__ = {"s": "Small", "m": "Medium", "l": "Large"}
    S = "s"
    M = "m"
    L = "l"


@dataclass
class Everything:
    name: Annotated[
        str, at.MinLen(2), at.MaxLen(40), Title("Full name"), Description("As on your passport")
    ]
    email: Annotated[Email, Title("Email")]
    country: Annotated[Country, Title("Country")]
    arrival: Annotated[date, Title("Arrival date")]
    extras: Annotated[list[Extra], at.MinLen(1), at.MaxLen(2), Title("Extras")]
    website: Annotated[Url | None, Title("Website")] = None
    call_at: Annotated[datetime | None, Title("Call me at")] = None
    nights: Annotated[int, at.Ge(1), at.Le(14), Title("Nights")] = 1
    budget: Annotated[float, at.Ge(0), at.Le(5000), Title("Budget per night")] = 0.0
    breakfast: Annotated[bool, Title("Breakfast included")] = False
    room: Annotated[Room, Title("Room"), Description("Sea view and suite cost more")] = (
        Room.STANDARD
    )
    note: Annotated[str, Title("Note for the desk")] = ""


@dataclass
class Quick:
    answer: Annotated[str, at.MinLen(1), Title("Your answer")]
    urgent: Annotated[bool, Title("Urgent")] = False
    size: Annotated[Size, Title("Size")] = Size.M


@dataclass
class OptIn:
    name: Annotated[str, Title("Your name")]
    newsletter: Annotated[bool | None, Title("Send me the newsletter")] = None


@dataclass
class EveryFieldServer:
    server: MCPServer
    outcomes: list[Any] = field(default_factory=list)
    sessions: list[ServerSession] = field(default_factory=list)


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def build() -> EveryFieldServer:
    server = MCPServer(SERVER_NAME)
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")
    made = EveryFieldServer(server)
    done: set[str] = set()

    @server.tool()
    async def book_everything(ctx: Context) -> str:
        answer = await ask(ctx, Everything, EVERYTHING)
        made.outcomes.append(answer)
        match answer:
            case Accepted(value):
                return json.dumps({k: _plain(v) for k, v in asdict(value).items()})
            case Declined():
                return "declined"
            case Cancelled(reason):
                return f"cancelled ({reason})" if reason else "cancelled"
        raise AssertionError(answer)

    @server.tool()
    async def quick(ctx: Context, n: int) -> str:
        answer = await ask(ctx, Quick, f"Question {n}: a quick one.", key=f"quick-{n}")
        made.outcomes.append(answer)
        if isinstance(answer, Accepted):
            value = answer.value
            return f"{n}:{value.answer}:{value.urgent}:{value.size.value}"
        return f"{n}:{'declined' if isinstance(answer, Declined) else 'cancelled'}"

    @server.tool()
    async def newsletter(ctx: Context) -> str:
        """An optional yes/no without a default: left alone, it is no answer at all."""
        answer = await ask(ctx, OptIn, "Stay in touch?")
        if isinstance(answer, Accepted):
            return json.dumps(asdict(answer.value))
        return "not accepted"

    @server.tool()
    async def terms(ctx: Context) -> str:
        """A URL in a form's message, as a careless server sends it: the client flags it
        (URLs belong in URL mode). Through the SDK's own ``elicit``: ours refuses to send it."""
        result = await ctx.elicit(TERMS, schema=TermsAnswer)
        return "accepted" if result.action == "accept" else "not accepted"

    @server.tool()
    async def impatient(ctx: Context) -> str:
        """Gives up on its question after three seconds: the client must drop it too. (Long
        enough for a browser on a busy machine to show the question first.)"""
        answer = await ask(ctx, Quick, "Quick, before I give up!", timeout=3.0)
        made.outcomes.append(answer)
        return "answered" if isinstance(answer, Accepted) else "gave up"

    @server.tool()
    async def open_link(ctx: Context) -> str:
        result = await ctx.elicit_url("Sign in to connect your calendar.", LINK, LINK_ID)
        made.outcomes.append(result.action)
        return result.action

    @server.tool()
    async def needs_link(ctx: Context) -> str:
        made.sessions.append(ctx.request_context.session)
        if LINK_ID in done:
            return "linked"
        done.add(LINK_ID)
        raise UrlElicitationRequiredError(
            [ElicitRequestURLParams(message="Sign in first.", url=LINK, elicitation_id=LINK_ID)]
        )

    @server.tool()
    async def complete_link(ctx: Context) -> str:
        await ctx.request_context.session.send_elicit_complete(LINK_ID)
        return "completed"

    @server.tool()
    async def blocked_link(ctx: Context) -> str:
        result = await ctx.elicit_url("Open this plain-http page.", BLOCKED, "blocked-1")
        return result.action

    return made
