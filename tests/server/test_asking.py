"""``ask``, ``confirm`` and ``choose`` driven by real peer clients, on every revision.

One tool source (``tests/server_support.py``) serves the official SDK client (2025-11-25 and
2026-07-28), our ``ElicitingClient`` (2025-06-18, which the SDK client cannot propose) and
fastmcp's client. The tool bodies record what they received, so the tests check the typed
values an author gets as well as what the client sees.
"""

from __future__ import annotations

import base64
import binascii
import datetime
from typing import Any, Literal

import anyio
import fastmcp
import mcp_types as types
import pytest
from fastmcp.client.elicitation import ElicitResult
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import ElicitationHandler, ElicitingClient, ScriptedRenderer
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.server import (
    Accepted,
    Cancelled,
    CannotAsk,
    CapabilityRequired,
    Declined,
    DeploymentKey,
    Elicitation,
    ModeUnavailable,
    NotExpressible,
    SecretInForm,
    choose,
)
from mcp_elicit.server.questions import question_for_raw_schema
from tests.server_support import (
    BOOK,
    ERAS,
    EXTRAS,
    FALLBACK,
    PUSH_ERAS,
    Booking,
    Person,
    PublicId,
    Room,
    Who,
    booking_server,
    connect,
    serve_http,
    text,
)

pytestmark = pytest.mark.anyio

GOOD = {"name": "Ada", "arrival": "2026-03-01", "room": "suite", "guests": 3}
BAD = {"name": "Ada", "arrival": "2026-03-01", "guests": 12}


def accept(content: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": content}


DECLINE = {"action": "decline"}
CANCEL = {"action": "cancel"}


async def call(era: str, tool: str, answers: list[dict[str, Any]], **kw: Any) -> tuple[Any, ...]:
    """Call ``tool`` once on a fresh server; return (result, person, server)."""
    made = booking_server()
    person = Person(list(answers), delay=kw.pop("delay", 0.0))
    async with connect(made.server, era, person, declare=kw.pop("declare", True)) as client:
        result = await client.call_tool(tool, kw)
    return result, person, made


# -- 1. every revision: forms, confirmations, choices ------------------------------------------


@pytest.mark.parametrize("era", ERAS)
async def test_an_accepted_form_reaches_the_tool_as_the_typed_value(era: str) -> None:
    result, person, made = await call(era, "book", [accept(GOOD)])
    assert not result.is_error
    assert text(result) == "booked Ada 2026-03-01 suite x3"
    [answer] = made.outcomes
    assert isinstance(answer, Accepted) and isinstance(answer.value, Booking)
    booking = answer.value
    assert type(booking.arrival) is datetime.date  # not a str, not a datetime
    assert booking.arrival == datetime.date(2026, 3, 1)
    assert booking.room is Room.SUITE
    assert booking.guests == 3 and type(booking.guests) is int
    [asked] = person.seen
    assert asked["message"] == BOOK
    schema = asked["requestedSchema"]
    assert schema["properties"]["arrival"] == {"type": "string", "format": "date"}
    assert schema["required"] == ["name", "arrival"]


@pytest.mark.parametrize("era", ERAS)
async def test_fields_left_out_take_the_python_defaults(era: str) -> None:
    result, _, made = await call(era, "book", [accept({"name": "Bo", "arrival": "2026-04-02"})])
    assert text(result) == "booked Bo 2026-04-02 standard x2"
    assert made.outcomes[0].value.room is Room.STANDARD


@pytest.mark.parametrize("era", ERAS)
async def test_decline_and_cancel_reach_the_tool_as_such(era: str) -> None:
    made = booking_server()
    async with connect(made.server, era, Person([DECLINE, CANCEL])) as client:
        declined = await client.call_tool("book", {})
        cancelled = await client.call_tool("book", {})
    assert (text(declined), text(cancelled)) == ("declined", "cancelled (None)")
    assert made.outcomes == [Declined(), Cancelled()]


async def test_2025_06_18_gets_its_own_shape_without_mode_or_defaults() -> None:
    _, person, _ = await call("2025-06-18", "book", [accept(GOOD)])
    [asked] = person.seen
    assert set(asked) == {"message", "requestedSchema"}  # no "mode": not in that revision
    properties = asked["requestedSchema"]["properties"]
    assert all("default" not in prop for prop in properties.values())
    assert properties["room"] == {"type": "string", "enum": ["standard", "suite"]}
    assert properties["guests"] == {"type": "integer", "minimum": 1, "maximum": 8}


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_later_revisions_get_mode_form_and_defaults(era: str) -> None:
    _, person, _ = await call(era, "book", [accept(GOOD)])
    [asked] = person.seen
    assert asked["mode"] == "form"
    properties = asked["requestedSchema"]["properties"]
    assert properties["room"]["default"] == "standard"
    assert properties["guests"]["default"] == 2


@pytest.mark.parametrize("era", ERAS)
async def test_confirm_is_true_only_for_a_ticked_acceptance(era: str) -> None:
    made = booking_server()
    answers = [accept({"confirm": True}), accept({"confirm": False}), DECLINE, CANCEL]
    async with connect(made.server, era, Person(answers)) as client:
        replies = [text(await client.call_tool("go_ahead", {})) for _ in range(4)]
    assert replies == ["yes", "no", "no", "no"]
    assert made.outcomes == [True, False, False, False]
    assert all(type(sure) is bool for sure in made.outcomes)


@pytest.mark.parametrize("era", ERAS)
async def test_choose_one_titled_option(era: str) -> None:
    result, person, made = await call(era, "pick_room", [accept({"choice": "ste"})])
    assert made.outcomes == [Accepted("ste")]
    assert not result.is_error
    choice = person.seen[0]["requestedSchema"]["properties"]["choice"]
    assert choice["title"] == "Choice"
    if era == "2025-06-18":  # titles travel as the legacy enumNames there
        assert choice["enum"] == ["std", "ste"] and choice["enumNames"] == ["Standard", "Suite"]
    else:
        assert choice["oneOf"] == [
            {"const": "std", "title": "Standard"},
            {"const": "ste", "title": "Suite"},
        ]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_choose_several(era: str) -> None:
    result, person, made = await call(era, "pick_extras", [accept({"choice": ["wifi", "parking"]})])
    assert text(result) == "Accepted(value=['wifi', 'parking'])"
    assert made.outcomes == [Accepted(["wifi", "parking"])]
    choice = person.seen[0]["requestedSchema"]["properties"]["choice"]
    assert choice["type"] == "array" and choice["items"]["enum"] == EXTRAS
    assert choice["title"] == "Extras"  # label=, where the default would be "Choices"


async def test_multi_select_cannot_be_asked_on_2025_06_18() -> None:
    result, person, made = await call("2025-06-18", "pick_extras", [])
    assert result.is_error
    message = text(result)
    assert "cannot be asked" in message and "2025-06-18" in message
    assert "multi-select" in message
    assert person.seen == [] and made.outcomes == []  # nothing reached the client


@pytest.mark.parametrize("era", ERAS)
async def test_an_invalid_answer_is_a_tool_error_naming_the_field_and_rule(era: str) -> None:
    result, _, made = await call(era, "book", [accept(BAD)])
    assert result.is_error
    message = text(result)
    assert "guests" in message and "8" in message
    assert made.outcomes == []  # the tool body never saw the bad value


@pytest.mark.parametrize("era", ERAS)
async def test_reask_asks_again_saying_what_to_fix(era: str) -> None:
    result, person, made = await call(era, "book", [accept(BAD), accept(GOOD)], reask=1)
    assert text(result) == "booked Ada 2026-03-01 suite x3"
    first, second = (asked["message"] for asked in person.seen)
    assert first == BOOK
    assert second.startswith(BOOK) and second != BOOK
    assert "guests" in second and "8" in second
    assert len(made.outcomes) == 1


@pytest.mark.parametrize("era", ERAS)
async def test_reask_gives_up_after_the_allowed_tries(era: str) -> None:
    result, person, _ = await call(era, "book", [accept(BAD), accept(BAD)], reask=1)
    assert result.is_error and "guests" in text(result)
    assert len(person.seen) == 2


@pytest.mark.parametrize("era", PUSH_ERAS)
async def test_a_client_without_elicitation_gets_a_tool_error(era: str) -> None:
    result, _, made = await call(era, "book", [], declare=False)
    assert result.is_error
    assert "cannot show this question" in text(result)
    assert made.outcomes == []


async def test_a_2026_client_without_elicitation_gets_minus_32021() -> None:
    made = booking_server()
    async with connect(made.server, "2026-07-28", declare=False) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("book", {})
    assert caught.value.error.code == -32021
    assert caught.value.error.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_client_with_url_mode_only_is_never_sent_a_form(era: str) -> None:
    made = booking_server()
    person = Person([accept(GOOD)])
    async with connect(made.server, era, person, modes=ElicitationModes(url=True)) as client:
        if era == "2026-07-28":
            with pytest.raises(MCPError) as caught:
                await client.call_tool("book", {})
            assert caught.value.error.code == -32021
        else:
            result = await client.call_tool("book", {})
            assert result.is_error and "cannot show this question" in text(result)
    assert person.seen == [] and made.outcomes == []


@pytest.mark.parametrize("era", ERAS)
async def test_fallback_replaces_the_question_when_the_client_cannot_ask(era: str) -> None:
    result, _, made = await call(era, "book_or_walk_in", [], declare=False)
    assert not result.is_error
    assert text(result) == "booked Walk-in 2030-01-01 standard x2; sure=True"
    assert made.outcomes == [(Accepted(FALLBACK), True)]


@pytest.mark.parametrize("era", ERAS)
async def test_fallback_is_not_used_when_the_client_can_ask(era: str) -> None:
    answers = [accept(GOOD), accept({"confirm": False})]
    result, _, _ = await call(era, "book_or_walk_in", answers)
    assert text(result) == "booked Ada 2026-03-01 suite x3; sure=False"


@pytest.mark.parametrize("era", ERAS)
async def test_a_question_left_unanswered_past_its_timeout_is_cancelled(era: str) -> None:
    made = booking_server()
    person = Person([accept(GOOD)], delay=1.0)
    async with connect(made.server, era, person) as client:
        started = anyio.current_time()
        result = await client.call_tool("book_quickly", {})
        assert text(result) == "cancelled (timeout)"
        assert made.outcomes == [Cancelled("timeout")]
        if era != "2026-07-28":
            # pushed: the server stops waiting at the deadline and takes the question back
            # from the client (notifications/cancelled), which stops showing it
            assert anyio.current_time() - started < 0.9
            with anyio.fail_after(0.5):
                await person.withdrawn.wait()
        # 2026-07-28: nothing is pushed; the late answer is refused when the retry brings it


@pytest.mark.parametrize("era", ERAS)
async def test_a_question_answered_in_time_is_not_cancelled(era: str) -> None:
    result, _, _ = await call(era, "book_quickly", [accept(GOOD)])
    assert text(result) == "booked Ada 2026-03-01 suite x3"


# -- 2. 2026-07-28: rounds and the sealed requestState ----------------------------------------


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_the_body_reruns_once_per_round_and_finishes_once(era: str) -> None:
    made = booking_server()
    answers = [accept({"name": "Ada"}), accept({"confirm": True}), accept({"choice": "std"})]
    async with connect(made.server, era, Person(answers)) as client:
        result = await client.call_tool("trip", {"n": 7})
    assert text(result) == "7: Ada True std"
    assert made.runs["trip"] == (4 if era == "2026-07-28" else 1)  # three questions
    assert made.finished["trip"] == 1


async def _never(context: Any, params: Any) -> Any:
    raise AssertionError("the raw tests answer by hand")


def answered(key: str, content: dict[str, Any]) -> dict[str, types.InputResponse]:
    return {key: types.ElicitResult(action="accept", content=content)}


WHO = answered("q1", {"name": "Zebedee"})
SURE = answered("q2", {"confirm": True})


async def _first_two_rounds(client: Client, args: dict[str, Any]) -> types.InputRequiredResult:
    """The InputRequiredResult that holds the answer to q1 and asks q2."""
    first = await client.session.call_tool("trip", args, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult)
    second = await client.session.call_tool(
        "trip",
        args,
        allow_input_required=True,
        input_responses=WHO,
        request_state=first.request_state,
    )
    assert isinstance(second, types.InputRequiredResult)
    return second


async def _retry(client: Client, args: dict[str, Any], state: str | None) -> Any:
    return await client.session.call_tool(
        "trip", args, allow_input_required=True, input_responses=SURE, request_state=state
    )


async def _finish(client: Client, args: dict[str, Any], state: str | None) -> str:
    """Answer q2 and q3 from ``state`` on; the tool's final text."""
    third = await _retry(client, args, state)
    assert isinstance(third, types.InputRequiredResult)
    assert set(third.input_requests or {}) == {"q3"}
    done = await client.session.call_tool(
        "trip",
        args,
        allow_input_required=True,
        input_responses=answered("q3", {"choice": "ste"}),
        request_state=third.request_state,
    )
    assert isinstance(done, types.CallToolResult) and not done.is_error
    return text(done)


async def test_input_required_result_has_the_2026_shape() -> None:
    made = booking_server()
    async with Client(made.server, elicitation_callback=_never) as client:
        first = await client.session.call_tool("trip", {"n": 1}, allow_input_required=True)
    wire = first.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire["resultType"] == "input_required"
    assert set(wire["inputRequests"]) == {"q1"}
    request = wire["inputRequests"]["q1"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form"
    assert request["params"]["message"] == "Who travels?"
    assert isinstance(wire["requestState"], str) and wire["requestState"]


async def test_the_request_state_does_not_show_the_answers() -> None:
    made = booking_server()
    async with Client(made.server, elicitation_callback=_never) as client:
        second = await _first_two_rounds(client, {"n": 1})
        assert await _finish(client, {"n": 1}, second.request_state) == "1: Zebedee True ste"
    state = second.request_state
    assert state is not None
    assert "Zebedee" not in state
    decoded = []
    for part in state.split("."):
        try:
            decoded.append(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
        except (binascii.Error, ValueError):
            continue
    assert max(len(raw) for raw in decoded) >= 32  # the body was looked into
    for raw in decoded:  # not base64 of the JSON either
        assert b"Zebedee" not in raw and b"mcp-elicit" not in raw


def _flip_a_byte(state: str) -> str:
    prefix, _, body = state.rpartition(".")
    raw = bytearray(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw[len(raw) // 2] ^= 0x01
    tampered = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    return f"{prefix}.{tampered}" if prefix else tampered


async def test_a_tampered_request_state_is_refused() -> None:
    made = booking_server()
    async with Client(made.server, elicitation_callback=_never) as client:
        second = await _first_two_rounds(client, {"n": 1})
        assert second.request_state is not None
        with pytest.raises(MCPError) as caught:
            await _retry(client, {"n": 1}, _flip_a_byte(second.request_state))
        assert caught.value.error.code == -32602
        # the untouched state still works: the refusal was about the tampering
        assert await _finish(client, {"n": 1}, second.request_state) == "1: Zebedee True ste"


async def test_a_request_state_is_bound_to_the_tool_and_its_arguments() -> None:
    made = booking_server()
    async with Client(made.server, elicitation_callback=_never) as client:
        second = await _first_two_rounds(client, {"n": 1})
        with pytest.raises(MCPError) as other_arguments:
            await _retry(client, {"n": 2}, second.request_state)
        with pytest.raises(MCPError) as other_tool:
            await client.session.call_tool(
                "go_ahead",
                {},
                allow_input_required=True,
                input_responses=answered("q1", {"confirm": True}),
                request_state=second.request_state,
            )
        assert other_arguments.value.error.code == other_tool.value.error.code == -32602
        # with its own arguments it still completes
        assert await _finish(client, {"n": 1}, second.request_state) == "1: Zebedee True ste"
    assert made.outcomes == [(Accepted(Who("Zebedee")), True, Accepted("ste"))]


async def test_a_request_state_survives_a_restart_with_the_same_key() -> None:
    key = DeploymentKey.generate()
    # Two MCPServer instances: the restart. Same key and same server name (the SDK's boundary
    # binds a state to the server's name as its audience, so a renamed server refuses it).
    before, after = booking_server(key), booking_server(key)
    async with Client(before.server, elicitation_callback=_never) as client:
        second = await _first_two_rounds(client, {"n": 3})
    async with Client(after.server, elicitation_callback=_never) as client:
        assert await _finish(client, {"n": 3}, second.request_state) == "3: Zebedee True ste"
    assert before.finished["trip"] == 0
    assert after.outcomes == [(Accepted(Who("Zebedee")), True, Accepted("ste"))]


async def test_a_request_state_from_another_key_is_refused() -> None:
    before, other = booking_server(), booking_server()  # each its own generated key
    async with Client(before.server, elicitation_callback=_never) as client:
        second = await _first_two_rounds(client, {"n": 3})
    async with Client(other.server, elicitation_callback=_never) as client:
        with pytest.raises(MCPError) as caught:
            await _retry(client, {"n": 3}, second.request_state)
    assert caught.value.error.code == -32602
    assert other.runs["trip"] == 0


async def test_a_forged_first_call_answering_a_question_never_asked_is_asked_it() -> None:
    # A client calls with an answer to a confirmation no person saw, and no requestState:
    # nothing sealed says q1 was sent, so the answer is ignored and the question is asked.
    made = booking_server()
    async with Client(made.server, elicitation_callback=_never) as client:
        forged = await client.session.call_tool(
            "go_ahead",
            {},
            allow_input_required=True,
            input_responses=answered("q1", {"confirm": True}),
        )
        assert isinstance(forged, types.InputRequiredResult)
        assert set(forged.input_requests or {}) == {"q1"}
        assert made.outcomes == []  # the tool did not go ahead
        # Answered once asked, it counts.
        done = await client.session.call_tool(
            "go_ahead",
            {},
            allow_input_required=True,
            input_responses=answered("q1", {"confirm": True}),
            request_state=forged.request_state,
        )
    assert isinstance(done, types.CallToolResult) and text(done) == "yes"
    assert made.outcomes == [True]


async def test_a_forged_answer_cannot_skip_the_timeout() -> None:
    # book_quickly asks with timeout=0.2: a forged answer with no state would have been
    # taken at once, with no time to measure; now it is asked, and the clock runs.
    made = booking_server()
    async with Client(made.server, elicitation_callback=_never) as client:
        forged = await client.session.call_tool(
            "book_quickly",
            {},
            allow_input_required=True,
            input_responses=answered("q1", GOOD),
        )
        assert isinstance(forged, types.InputRequiredResult)
        await anyio.sleep(0.3)
        late = await client.session.call_tool(
            "book_quickly",
            {},
            allow_input_required=True,
            input_responses=answered("q1", GOOD),
            request_state=forged.request_state,
        )
    assert isinstance(late, types.CallToolResult) and text(late) == "cancelled (timeout)"
    assert made.outcomes == [Cancelled("timeout")]


# -- 3. form mode does not ask for secrets ------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
async def test_a_secret_looking_field_fails_the_call_and_is_never_asked(era: str) -> None:
    result, person, _ = await call(era, "store_key", [accept({"api_key": "sk-1"})])
    assert result.is_error
    assert person.seen == []  # the form never left the server
    # An authoring error, but one whose text says what to do: it reaches the tool result
    # (any exception that is not a ToolError would read only "Error executing tool
    # store_key"), so whoever sees the failed call can pass it on to the server's author.
    message = text(result)
    assert message.startswith("Error executing tool store_key: Credentials.api_key looks like")
    assert "URL mode" in message and "secret()" in message
    assert "mcp_elicit.forms.NotSecret()" in message
    assert "sk-1" not in message


async def test_a_secret_looking_field_in_a_raw_schema_is_refused_with_its_own_advice() -> None:
    schema = {"type": "object", "properties": {"password": {"type": "string"}}}
    with pytest.raises(SecretInForm) as refused:
        question_for_raw_schema(schema)
    # A ToolError for the SDK, still a ValueError (a bad argument to ask) for callers.
    assert isinstance(refused.value, ToolError) and isinstance(refused.value, ValueError)
    message = str(refused.value)
    assert message.startswith("requestedSchema.password looks like a secret")
    assert "ask with a dataclass or TypedDict" in message


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_a_field_marked_not_secret_is_asked(era: str) -> None:
    result, person, made = await call(
        era, "store_public_id", [accept({"api_key": "public-client-7"})]
    )
    assert not result.is_error
    assert made.outcomes == [Accepted(PublicId("public-client-7"))]
    assert list(person.seen[0]["requestedSchema"]["properties"]) == ["api_key"]


# -- 4. fastmcp's client ---------------------------------------------------------------------------


class FastmcpPerson:
    """A fastmcp ``elicitation_handler``: it gets a dataclass built from the schema and its
    return value means accept; an ``ElicitResult`` says decline or cancel."""

    def __init__(self, replies: dict[str, Any]) -> None:
        self.replies = replies
        self.fields: dict[str, list[str]] = {}

    async def __call__(self, message: str, response_type: Any, params: Any, context: Any) -> Any:
        self.fields[message] = list(response_type.__dataclass_fields__)
        reply = self.replies[message]
        if isinstance(reply, ElicitResult):
            return reply
        return response_type(**reply)


FASTMCP_ANSWERS = {
    # fastmcp types a date field as datetime.date, and serialises what the handler returns
    BOOK: {"name": "Ada", "arrival": datetime.date(2026, 3, 1), "room": "suite", "guests": 3},
    "Go ahead?": {"confirm": True},
    "Which room?": {"choice": "ste"},
    "Any extras?": {"choice": ["wifi", "breakfast"]},
}


async def _fastmcp_session(target: Any, mode: str, person: FastmcpPerson) -> list[str]:
    async with fastmcp.Client(target, elicitation_handler=person, mode=mode) as client:
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        replies = []
        for tool in ["book", "go_ahead", "pick_room", "pick_extras"]:
            result = await client.call_tool(tool, {}, raise_on_error=False)
            assert not result.is_error, result
            replies.append(text(result))
        return replies


# fastmcp 4.1.2's client speaks both eras against this server, in process and over HTTP.
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_fastmcp_client_answers_every_kind_of_question(mode: str) -> None:
    made = booking_server()
    person = FastmcpPerson(FASTMCP_ANSWERS)
    replies = await _fastmcp_session(made.server, mode, person)
    assert replies == [
        "booked Ada 2026-03-01 suite x3",
        "yes",
        "Accepted(value='ste')",
        "Accepted(value=['wifi', 'breakfast'])",
    ]
    booking = made.outcomes[0].value
    assert type(booking.arrival) is datetime.date and booking.room is Room.SUITE
    assert person.fields[BOOK] == ["name", "arrival", "room", "guests"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_fastmcp_client_declines_and_cancels(mode: str) -> None:
    made = booking_server()
    actions: list[Literal["decline", "cancel"]] = ["decline", "cancel"]
    for action in actions:
        person = FastmcpPerson(
            {BOOK: ElicitResult(action=action), "Go ahead?": ElicitResult(action=action)}
        )
        async with fastmcp.Client(made.server, elicitation_handler=person, mode=mode) as client:
            book = await client.call_tool("book", {}, raise_on_error=False)
            sure = await client.call_tool("go_ahead", {}, raise_on_error=False)
        assert (text(book), text(sure)) == (
            "declined" if action == "decline" else "cancelled (None)",
            "no",
        )
    assert made.outcomes == [Declined(), False, Cancelled(), False]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_fastmcp_client_over_streamable_http(mode: str) -> None:
    made = booking_server()
    person = FastmcpPerson(FASTMCP_ANSWERS)
    with anyio.fail_after(20):
        async with serve_http(made.server) as url:
            replies = await _fastmcp_session(url, mode, person)
    assert replies[0] == "booked Ada 2026-03-01 suite x3"
    assert replies[3] == "Accepted(value=['wifi', 'breakfast'])"
    assert type(made.outcomes[0].value.arrival) is datetime.date


# -- why a question was cancelled, and why it could not be asked ---------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("script", "reason"),
    [
        (None, "no-person"),  # nobody to ask: a host without a terminal or a script
        ([], "answers-exhausted"),
        ([{"action": "accept", "content": BAD}], "invalid-answer"),
        ([{"action": "cancel"}], None),  # the person dismissed it
    ],
    ids=["no-person", "answers-exhausted", "invalid-answer", "person"],
)
async def test_the_clients_reason_for_a_cancel_reaches_the_tool(
    era: str, script: list[dict[str, Any]] | None, reason: str | None
) -> None:
    made = booking_server()
    renderer = ScriptedRenderer(script) if script is not None else None
    handler = ElicitationHandler(renderer, opener=None)
    async with ElicitingClient(made.server, handler, protocol=era) as client:
        result = await client.call_tool("book", {})
    assert made.outcomes == [Cancelled(reason)]
    assert text(result) == f"cancelled ({reason})"


def _picky_server() -> tuple[MCPServer, list[str]]:
    """A tool that tells the two kinds of CannotAsk apart, as the docs show."""
    server = MCPServer("picky")
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")
    seen: list[str] = []

    @server.tool()
    async def extras(ctx: Context) -> str:
        try:
            answer: Any = await choose(ctx, "Extras?", EXTRAS, multiple=True)
        except NotExpressible as simpler:
            seen.append(f"not expressible on {simpler.revision}")
            answer = await choose(ctx, "One extra?", EXTRAS)
        except ModeUnavailable as unavailable:
            seen.append(f"no {unavailable.mode} mode on {unavailable.revision}")
            return "no extras"
        return f"extras: {answer.value if isinstance(answer, Accepted) else answer}"

    return server, seen


@pytest.mark.parametrize("era", ERAS)
async def test_a_tool_tells_a_question_too_rich_from_a_mode_not_declared(era: str) -> None:
    server, seen = _picky_server()
    person = Person([accept({"choice": "wifi"} if era == "2025-06-18" else {"choice": ["wifi"]})])
    async with connect(server, era, person) as client:
        result = await client.call_tool("extras", {})
    if era == "2025-06-18":  # no multi-select: the tool asks for one instead
        assert seen == ["not expressible on 2025-06-18"]
        assert text(result) == "extras: wifi"
    else:
        assert seen == [] and text(result) == "extras: ['wifi']"

    server, seen = _picky_server()
    async with connect(server, era, declare=False) as client:
        result = await client.call_tool("extras", {})
    assert text(result) == "no extras"  # caught on every revision, -32021's included
    assert seen == [f"no form mode on {era}"]


async def test_a_mode_unavailable_left_uncaught_is_minus_32021_on_2026() -> None:
    error = CapabilityRequired("url", "declare URL mode")
    assert isinstance(error, ModeUnavailable) and isinstance(error, CannotAsk)
    assert isinstance(error, MCPError) and error.error.code == -32021
    assert error.error.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
