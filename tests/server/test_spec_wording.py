"""What a question may say, checked before anything is sent (``mcp_elicit.server.wording``).

- CHECKLIST #86 (2025-11-25, 2026-07-28: SHOULD NOT; #25, the URL-mode draft: MUST NOT): no
  URL in any field of a form-mode request but URL mode's ``url``. ``ask``, ``confirm`` and
  ``choose`` refuse a URL in the message, a title, a description, an option or a default with
  ``LinkInText``, naming the place, on every revision.
- CHECKLIST #26-#28: no secrets in form mode. A message that reads as asking for one, on a
  form a secret could be typed into, is a ``SecretInForm`` like a secret-looking field;
  ``not_secret=True`` is the author's word that it only mentions one.

Driven through real clients (the SDK's, and ours for 2025-06-18): the error reaches the tool
result, and the client is never asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from mcp_elicit.forms import Description, Form, Title
from mcp_elicit.server import (
    Accepted,
    DeploymentKey,
    Elicitation,
    SecretInForm,
    ask,
    choose,
    confirm,
)
from mcp_elicit.server.errors import LinkInText
from mcp_elicit.server.questions import question_for_raw_schema
from mcp_elicit.server.wording import (
    check_form_message,
    form_texts,
    refuse_links_in_form,
    refuse_links_in_text,
)
from tests.server_support import ERAS, Person, connect, text

pytestmark = pytest.mark.anyio

LINK = "https://rooms.example/suite"


@dataclass
class TitledRoom:
    room: Annotated[str, Title(f"Room (see {LINK})")]


@dataclass
class DescribedRoom:
    room: Annotated[str, Description("Pick one from www.rooms.example")]


@dataclass
class DefaultRoom:
    room: str = LINK


@dataclass
class Note:
    text: str


@dataclass
class Plain:
    room: str


def wording_server() -> tuple[MCPServer, list[Any]]:
    server = MCPServer("wording")
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")
    outcomes: list[Any] = []

    async def record(answer: Any) -> str:
        outcomes.append(answer)
        return repr(answer)

    @server.tool()
    async def titled(ctx: Context) -> str:
        return await record(await ask(ctx, TitledRoom, "Which room?"))

    @server.tool()
    async def described(ctx: Context) -> str:
        return await record(await ask(ctx, DescribedRoom, "Which room?"))

    @server.tool()
    async def defaulted(ctx: Context) -> str:
        return await record(await ask(ctx, DefaultRoom, "Which room?"))

    @server.tool()
    async def ask_message(ctx: Context) -> str:
        return await record(await ask(ctx, Plain, f"Which room? The list is at {LINK}"))

    @server.tool()
    async def confirm_message(ctx: Context) -> str:
        return await record(await confirm(ctx, f"Read {LINK} first?"))

    @server.tool()
    async def choose_message(ctx: Context) -> str:
        return await record(await choose(ctx, f"Pick one ({LINK})", ["std", "ste"]))

    @server.tool()
    async def choose_titled_option(ctx: Context) -> str:
        options = {"std": "Standard", "ste": f"Suite, see {LINK}"}
        return await record(await choose(ctx, "Which room?", options))

    @server.tool()
    async def choose_untitled_option(ctx: Context) -> str:
        return await record(await choose(ctx, "Which room?", ["std", LINK]))

    @server.tool()
    async def choose_label(ctx: Context) -> str:
        return await record(await choose(ctx, "Which room?", ["std"], label=f"Room ({LINK})"))

    @server.tool()
    async def choose_url_values_titled(ctx: Context) -> str:
        # The values are never shown (the titles are): links as values are not text.
        options = {"https://a.example/r": "Repository A", "https://b.example/r": "Repository B"}
        return await record(await choose(ctx, "Which repository?", options))

    @server.tool()
    async def raw_schema(ctx: Context) -> str:
        schema = {
            "type": "object",
            "properties": {"room": {"type": "string", "description": f"see {LINK}"}},
        }
        return await record(await ask(ctx, schema, "Which room?"))

    @server.tool()
    async def link_even_with_a_fallback(ctx: Context) -> str:
        answer = await ask(ctx, Plain, f"Which room? ({LINK})", fallback=Accepted(Plain("std")))
        return await record(answer)

    @server.tool()
    async def asks_for_a_password(ctx: Context) -> str:
        return await record(await ask(ctx, Note, "Enter your password to continue"))

    @server.tool()
    async def asks_for_an_api_key(ctx: Context) -> str:
        return await record(await ask(ctx, Note, "Paste your OpenAI API key"))

    @server.tool()
    async def mentions_a_token_on_purpose(ctx: Context) -> str:
        answer = await ask(ctx, Note, "Why revoke the token?", not_secret=True)
        return await record(answer)

    @server.tool()
    async def confirms_about_a_key(ctx: Context) -> str:
        return await record(await confirm(ctx, "Revoke the API key ending 4f2a?"))

    @server.tool()
    async def chooses_a_key(ctx: Context) -> str:
        answer = await choose(ctx, "Which API key should be revoked?", ["ci", "laptop"])
        return await record(answer)

    return server, outcomes


async def refused(era: str, tool: str) -> tuple[str, Person, list[Any]]:
    """Call ``tool``; it must fail as a tool error without anything reaching the client."""
    server, outcomes = wording_server()
    person = Person([])
    async with connect(server, era, person) as client:
        result = await client.call_tool(tool, {})
    assert result.is_error, text(result)
    assert person.seen == [] and outcomes == []  # nothing was sent, the body got nothing
    return text(result), person, outcomes


async def asked(era: str, tool: str, answer: dict[str, Any]) -> tuple[list[Any], Person]:
    server, outcomes = wording_server()
    person = Person([answer])
    async with connect(server, era, person) as client:
        result = await client.call_tool(tool, {})
    assert not result.is_error, text(result)
    return outcomes, person


# -- a URL outside the url field (#86, #25) ---------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("tool", "place"),
    [
        ("titled", "TitledRoom: properties.room.title"),
        ("described", "DescribedRoom: properties.room.description"),
        ("defaulted", "DefaultRoom: properties.room.default"),
        ("ask_message", "the message"),
        ("confirm_message", "the message"),
        ("choose_message", "the message"),
        ("choose_titled_option", "choose(): properties.choice option 'ste'"),
        ("choose_untitled_option", f"choose(): properties.choice option '{LINK}'"),
        ("choose_label", "choose(): properties.choice.title"),
        ("raw_schema", "requestedSchema: properties.room.description"),
        ("link_even_with_a_fallback", "the message"),
    ],
)
async def test_a_url_in_a_forms_text_is_refused_naming_the_place(
    era: str, tool: str, place: str
) -> None:
    message, _, _ = await refused(era, tool)
    assert f"{place} contains a URL (" in message
    assert "put links in URL mode, not in a form's text" in message
    assert "ask_url()" in message and "UrlRequired" in message


@pytest.mark.parametrize("era", ERAS)
async def test_an_authoring_error_is_raised_even_when_a_fallback_would_answer(era: str) -> None:
    # A client without forms would get the fallback: the author still learns of the link.
    server, outcomes = wording_server()
    async with connect(server, era, Person([]), declare=False) as client:
        result = await client.call_tool("link_even_with_a_fallback", {})
    assert result.is_error and "the message contains a URL" in text(result)
    assert outcomes == []


async def test_the_error_quotes_the_url_it_found() -> None:
    message, _, _ = await refused("2025-11-25", "described")
    assert "(www.rooms.example)" in message
    message, _, _ = await refused("2026-07-28", "titled")
    assert f"({LINK})" in message


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_links_as_values_behind_plain_titles_are_not_text(era: str) -> None:
    outcomes, person = await asked(
        era,
        "choose_url_values_titled",
        {"action": "accept", "content": {"choice": "https://a.example/r"}},
    )
    assert outcomes == [Accepted("https://a.example/r")]
    assert person.seen[0]["message"] == "Which repository?"


def test_link_in_text_is_a_tool_error_and_a_value_error() -> None:
    with pytest.raises(LinkInText) as raised:
        question_for_raw_schema(
            {"type": "object", "properties": {"x": {"type": "string", "title": LINK}}}
        )
    assert isinstance(raised.value, ToolError) and isinstance(raised.value, ValueError)
    assert str(raised.value).startswith("requestedSchema: properties.x.title contains a URL")


def test_what_a_person_reads_of_a_form_is_what_is_checked() -> None:
    form = Form.from_schema(
        {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "title": "Name",
                    "description": "Yours",
                    "default": "Ada",
                },
                "room": {"type": "string", "oneOf": [{"const": "s", "title": "Suite"}]},
                "extras": {"type": "array", "items": {"type": "string", "enum": ["wifi"]}},
                "count": {"type": "integer", "default": 2},
            },
        }
    )
    assert list(form_texts(form)) == [
        ("properties.name.title", "Name"),
        ("properties.name.description", "Yours"),
        ("properties.name.default", "Ada"),
        ("properties.room option 's'", "Suite"),
        ("properties.extras option 'wifi'", "wifi"),
    ]
    refuse_links_in_form(form, where="Booking")  # nothing to refuse


@pytest.mark.parametrize(
    "text",
    [
        f"Open {LINK} to connect",
        "Go to www.example.com and sign in",
        "mailto:help@example.com if it fails",
        "javascript:alert(1)",
    ],
)
def test_url_mode_messages_are_checked_by_the_same_finder(text: str) -> None:
    # The check url_mode calls for ask_url(), secret() and UrlRequired's message.
    with pytest.raises(LinkInText) as raised:
        refuse_links_in_text(text, where="ask_url() message")
    message = str(raised.value)
    assert message.startswith("ask_url() message contains a URL (")
    assert "the link goes in the url field only" in message
    refuse_links_in_text("Connect your weather account", where="ask_url() message")


# -- a message asking for a secret (#26-#28) ----------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("tool", "term"), [("asks_for_a_password", "password"), ("asks_for_an_api_key", "api key")]
)
async def test_a_message_asking_for_a_secret_is_refused_like_a_secret_field(
    era: str, tool: str, term: str
) -> None:
    message, _, _ = await refused(era, tool)
    assert f"seems to ask for a secret ({term!r})" in message
    # the same advice as a secret-looking field's, and the opt-out
    assert "URL mode" in message and "secret()" in message
    assert "not_secret=True" in message


@pytest.mark.parametrize("era", ERAS)
async def test_not_secret_is_the_authors_word_that_the_message_only_mentions_one(
    era: str,
) -> None:
    outcomes, person = await asked(
        era, "mentions_a_token_on_purpose", {"action": "accept", "content": {"text": "leaked"}}
    )
    assert outcomes == [Accepted(Note("leaked"))]
    assert person.seen[0]["message"] == "Why revoke the token?"


@pytest.mark.parametrize("era", ERAS)
async def test_a_confirmation_or_a_choice_can_mention_a_secret(era: str) -> None:
    # No field of theirs can carry a typed secret, whatever the message says.
    outcomes, _ = await asked(
        era, "confirms_about_a_key", {"action": "accept", "content": {"confirm": True}}
    )
    assert outcomes == [True]
    outcomes, _ = await asked(
        era, "chooses_a_key", {"action": "accept", "content": {"choice": "ci"}}
    )
    assert outcomes == [Accepted("ci")]


def test_the_message_check_reads_the_form_not_the_words_alone() -> None:
    text_form = Form.from_schema({"type": "object", "properties": {"v": {"type": "string"}}})
    number_form = Form.from_schema({"type": "object", "properties": {"v": {"type": "integer"}}})
    choice_form = Form.from_schema(
        {"type": "object", "properties": {"v": {"type": "string", "enum": ["a", "b"]}}}
    )
    with pytest.raises(SecretInForm):
        check_form_message("Your PIN code?", text_form)
    with pytest.raises(SecretInForm):
        check_form_message("Your card number?", number_form)
    check_form_message("Your card number?", choice_form)
    check_form_message("Your card number?", text_form, not_secret=True)
    check_form_message("How many tokens may the summary use?", number_form)  # "tokens" ≠ "token"
    with pytest.raises(LinkInText):  # not_secret lifts only the secret check
        check_form_message(f"See {LINK}", text_form, not_secret=True)


# -- URL mode: the link goes in `url`, never in the message -------------------------------------


def url_mode_server() -> tuple[MCPServer, list[str]]:
    from mcp_elicit.server import (
        DeploymentKey,
        Elicitation,
        UrlRequired,
        ask_url,
        secret,
        secret_required,
    )

    server = MCPServer("linky")
    Elicitation(server, key=DeploymentKey.generate(), store="memory://")
    reached: list[str] = []
    bad = "Open https://evil.example/login to continue"

    @server.tool()
    async def via_secret(ctx: Context) -> str:
        await secret(ctx, "KEY", bad)
        reached.append("secret")
        return "sent"

    @server.tool()
    async def via_secret_required(ctx: Context) -> str:
        raise await secret_required(ctx, "KEY", bad)

    @server.tool()
    async def via_ask_url(ctx: Context) -> str:
        await ask_url(ctx, "https://pages.example/x", bad)
        reached.append("ask_url")
        return "sent"

    @server.tool()
    async def via_url_required(ctx: Context) -> str:
        raise UrlRequired("https://pages.example/x", bad)

    return server, reached


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("tool", "where"),
    [
        ("via_secret", "secret() message"),
        ("via_secret_required", "secret_required() message"),
        ("via_ask_url", "the link's message"),
        ("via_url_required", "UrlRequired message"),
    ],
)
async def test_a_url_in_a_url_mode_message_is_refused_before_anything_is_sent(
    era: str, tool: str, where: str
) -> None:
    server, reached = url_mode_server()
    person = Person([])
    async with connect(server, era, person) as client:
        result = await client.call_tool(tool, {})
    assert result.is_error and where in text(result) and "https://evil.example" in text(result)
    assert person.seen == [] and reached == []  # no link, no flow, nothing asked
