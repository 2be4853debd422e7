"""The demo server: Hotel MCP, an official-SDK ``MCPServer`` that asks the way a real one would.

    python -m mcp_elicit.demo.hotel_server --store sqlite:///tmp/demo.db   # stdio

Tools, one source for every protocol revision:

- ``book_room`` — a booking form (a date, a titled choice, defaults, a falsy default), then a
  multi-select of extras (skipped, and said so, on 2025-06-18, which cannot express one);
- ``cancel_booking`` — a confirmation before something that cannot be undone;
- ``connect_weather`` — an API key through URL mode: a flow bound to the user, this server's
  own page, the vault; the key never passes through the client;
- ``forecast`` — uses the stored key, or raises ``secret_required`` when there is none.

Bookings live in this process's memory (it is a demo); flows and the encrypted key live in
the store (SQLite), under the deployment key (``MCP_ELICIT_KEY`` or a key file).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Annotated, Any

import annotated_types as at
from mcp.server.mcpserver import Context, MCPServer

from mcp_elicit.demo.forms_tour import Room  # the tour's rooms: one hotel
from mcp_elicit.forms import Description, Title
from mcp_elicit.server import (
    Accepted,
    Cancelled,
    CannotAsk,
    Declined,
    DeploymentKey,
    Elicitation,
    ask,
    choose,
    confirm,
    forget_secret,
    logs,
    secret,
    secret_required,
    stored_secret,
)

SERVER_NAME = "Hotel MCP"
KEY_NAME = "WEATHER_API_KEY"
KEY_MESSAGE = (
    "Enter your weather service API key on Hotel MCP's own page. It goes from your browser "
    "to the server and is stored encrypted; your MCP client never sees it."
)
EXTRAS = {"parking": "Parking", "late-checkout": "Late checkout", "crib": "Baby crib"}
PRICES = {"std": 90, "sea": 130, "ste": 210}


@dataclass
class Stay:
    guest: Annotated[str, at.MinLen(2), at.MaxLen(40), Title("Guest name")]
    arrival: Annotated[date, Title("Arrival date")]
    nights: Annotated[int, at.Ge(1), at.Le(14), Title("Nights")] = 1
    room: Annotated[
        Room, Title("Room"), Description("A night: standard €90, sea view €130, suite €210")
    ] = Room.STANDARD
    breakfast: Annotated[bool, Title("Breakfast included")] = False


@dataclass
class Booking:
    id: str
    user: str
    stay: Stay
    extras: list[str]

    def summary(self) -> str:
        stay = self.stay
        leaving = stay.arrival + timedelta(days=stay.nights)
        extras = ", ".join(EXTRAS[e].lower() for e in self.extras) or "no extras"
        return (
            f"{self.id}: {stay.guest}, {Room.__titles__[stay.room.value].lower()}, "
            f"{stay.arrival.isoformat()} to {leaving.isoformat()} "
            f"({stay.nights} night{'s' * (stay.nights != 1)}), "
            f"{'with' if stay.breakfast else 'no'} breakfast, {extras}"
        )


def build(
    *,
    store: str | None = None,
    key: DeploymentKey | None = None,
    elicitation: Elicitation | None = None,
    server_options: Mapping[str, Any] | None = None,
) -> Elicitation:
    """Hotel MCP's server, installed on ``elicitation`` (default: one on ``store`` and
    ``key``); ``server_options`` go to ``MCPServer`` too (the remote demo's authorization).
    The server is ``elicitation.server``."""
    if elicitation is None:
        elicitation = Elicitation(key=key, store=store)
    server = MCPServer(
        SERVER_NAME,
        instructions="A hotel that asks before it acts.",
        **elicitation.server_options(),
        **(server_options or {}),
    )
    elicitation.install(server)
    bookings: dict[str, Booking] = {}
    numbers = itertools.count(1042)

    @server.tool()
    async def book_room(ctx: Context) -> str:
        """Book a room: asks for the stay with a form, then for extras."""
        match await ask(ctx, Stay, "Book a room at Hotel MCP: who, when, and which room?"):
            case Accepted(stay):
                pass
            case Declined():
                return "No booking: you declined."
            case Cancelled(reason):
                return f"No booking: cancelled ({reason or 'by you'})."
        try:
            picked = await choose(
                ctx,
                "Any extras? Parking is €15 a night; late checkout €20; a crib is free.",
                EXTRAS,
                label="Extras",
                multiple=True,
                default=[],
            )
            extras = picked.value if isinstance(picked, Accepted) else []
            skipped = ""
        except CannotAsk:
            # 2025-06-18 has no multi-select: the question cannot be sent, so it is not.
            extras, skipped = [], " (extras skipped: this protocol revision has no multi-select)"
        # Everything before here runs again on each 2026-07-28 round; the side effect is last.
        booking = Booking(f"B-{next(numbers)}", elicitation.user_of(ctx), stay, sorted(extras))
        bookings[booking.id] = booking
        total = stay.nights * (PRICES[stay.room.value] + 15 * ("parking" in extras))
        total += 20 * ("late-checkout" in extras)
        return f"Booked {booking.summary()}. Total €{total}{skipped}."

    @server.tool()
    async def cancel_booking(ctx: Context, booking_id: str = "") -> str:
        """Cancel a booking (asks for confirmation first: it cannot be undone)."""
        user = elicitation.user_of(ctx)
        mine = [b for b in bookings.values() if b.user == user]
        booking = bookings.get(booking_id) if booking_id else (mine[-1] if mine else None)
        if booking is None or booking.user != user:
            return "No such booking." if booking_id else "You have no booking to cancel."
        if not await confirm(ctx, f"Cancel booking {booking.summary()}? This cannot be undone."):
            return f"Kept {booking.id}."
        del bookings[booking.id]
        return f"Cancelled {booking.id}."

    @server.tool()
    async def connect_weather(ctx: Context) -> str:
        """Connect the weather service: asks for its API key on this server's own page."""
        match await secret(ctx, KEY_NAME, KEY_MESSAGE):
            case Accepted(value):
                return f"Connected the weather service with key {fingerprint(value)}."
            case Declined():
                return "Not connected: you declined."
            case Cancelled(reason):
                return f"Not connected: cancelled ({reason or 'by you'})."
        raise AssertionError("unreachable")  # Answer is one of the three

    @server.tool()
    async def forecast(ctx: Context, city: str = "Lisbon") -> str:
        """The forecast for CITY (needs the weather key: connect_weather)."""
        value = await stored_secret(ctx, KEY_NAME)
        if value is None:
            raise await secret_required(ctx, KEY_NAME, KEY_MESSAGE)
        return (
            f"{city}: 19°C, light wind (a made-up forecast: the demo calls no weather service; "
            f"it would use key {fingerprint(value)})."
        )

    @server.tool()
    async def forget_weather_key(ctx: Context) -> str:
        """Delete the stored weather key."""
        return "Forgot the key." if await forget_secret(ctx, KEY_NAME) else "No key was stored."

    return elicitation


def fingerprint(value: Any) -> str:
    """Enough to recognise a key, nothing to use it with."""
    digest = hashlib.sha256(value.get_secret_value().encode()).hexdigest()
    return f"sha256:{digest[:12]}…"


def main() -> None:
    parser = argparse.ArgumentParser(description="Hotel MCP, the mcp-elicit demo server (stdio)")
    parser.add_argument("--store", help="store URL (default: SQLite in the user's state dir)")
    parser.add_argument("--key-file", help="deployment key file (default: MCP_ELICIT_KEY, …)")
    args = parser.parse_args()
    # Before the server is built: the SDK's MCPServer would set up Rich records otherwise.
    logs.configure()
    key = DeploymentKey.load(file=args.key_file) if args.key_file else None
    build(store=args.store or os.environ.get("MCP_ELICIT_STORE"), key=key).run("stdio")


if __name__ == "__main__":
    main()
