"""What the web renderer's review step and consent screen say, without a browser.

The review shows text as the person typed it (no JSON quotes, dates included) and everything
else as the terminal's review does; a link whose host has no registrable domain says who
controls it instead, in the same words on the page and at the terminal.
"""

from __future__ import annotations

import pytest

from mcp_elicit.client._terminal_text import url_screen
from mcp_elicit.client.prompt_text import value_text
from mcp_elicit.client.prompts import UrlPrompt
from mcp_elicit.client.web.answers import review, review_value
from mcp_elicit.client.web.views import url_view
from mcp_elicit.forms import Form, JSONValue
from mcp_elicit.urls import UrlPolicy, check_url

FORM = Form.from_schema(
    {
        "type": "object",
        "properties": {
            "arrival": {"type": "string", "format": "date", "title": "Arrival"},
            "call_at": {"type": "string", "format": "date-time", "title": "Call me at"},
            "email": {"type": "string", "format": "email", "title": "Email"},
            "site": {"type": "string", "format": "uri", "title": "Website"},
            "name": {"type": "string", "title": "Name"},
            "nights": {"type": "integer", "title": "Nights"},
            "budget": {"type": "number", "title": "Budget"},
            "breakfast": {"type": "boolean", "title": "Breakfast"},
            "room": {
                "type": "string",
                "title": "Room",
                "oneOf": [{"const": "s", "title": "Standard"}, {"const": "d", "title": "Deluxe"}],
            },
            "extras": {
                "type": "array",
                "title": "Extras",
                "items": {
                    "anyOf": [{"const": "p", "title": "Parking"}, {"const": "l", "title": "Late"}]
                },
            },
            "note": {"type": "string", "title": "Note", "default": ""},
        },
    }
)


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("arrival", "2026-12-31", "2026-12-31"),
        ("call_at", "2026-05-01T18:30:00+01:00", "2026-05-01T18:30:00+01:00"),
        ("email", "ada@example.com", "ada@example.com"),
        ("site", "https://ada.example.org/", "https://ada.example.org/"),
        ("name", "Ada Lovelace", "Ada Lovelace"),
        ("name", 'She said "hi"', 'She said "hi"'),
        ("name", "  Ada  ", "  Ada  "),  # as typed; the page keeps the spaces (pre-wrap)
        ("name", "first line\nsecond line", "first line\nsecond line"),
        ("name", "evil\u202etxt", "evil\\u{202e}txt"),  # written out, as everywhere
        ("note", "", "(empty)"),
        ("name", "   ", "(only white space)"),
    ],
)
def test_text_is_shown_as_typed(field: str, value: str, shown: str) -> None:
    assert review_value(FORM[field], value) == shown


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("nights", 3, "3"),
        ("budget", 120.5, "120.5"),
        ("budget", 2.0, "2"),
        ("breakfast", True, "yes"),
        ("breakfast", False, "no"),
        ("room", "d", "Deluxe (d)"),
        ("extras", ["p", "l"], "Parking (p), Late (l)"),
        ("extras", [], "(none chosen)"),
        ("nights", None, "(no answer)"),
    ],
)
def test_everything_else_is_shown_as_the_terminal_shows_it(
    field: str, value: JSONValue, shown: str
) -> None:
    assert review_value(FORM[field], value) == shown == value_text(FORM[field], value)


def test_the_review_lines_have_no_json_quotes() -> None:
    lines = review(FORM, {"arrival": "2026-12-31", "name": "Ada", "nights": 2})
    values = {line["name"]: line["value"] for line in lines}
    assert values["arrival"] == "2026-12-31"
    assert values["name"] == "Ada"
    assert values["nights"] == "2"
    assert values["budget"] == "(no answer)"
    assert [line["label"] for line in lines][:2] == ["Arrival", "Call me at"]
    # The terminal's review keeps its quotes: there, they show where text starts and ends.
    assert value_text(FORM["arrival"], "2026-12-31") == '"2026-12-31"'


def _prompt(url: str, policy: UrlPolicy | None = None) -> UrlPrompt:
    verdict = check_url(url, policy or UrlPolicy())
    assert not verdict.blocked, verdict.reasons
    return UrlPrompt("hotel", "Open this", url, verdict)


@pytest.mark.parametrize(
    ("url", "policy", "note"),
    [
        (
            "https://printer.local/setup",
            UrlPolicy(allow_private=True),
            "printer.local is a local network name (mDNS .local): any device on your network "
            "can answer to it",
        ),
        (
            "https://nas.home.arpa/",
            UrlPolicy(allow_private=True),
            "nas.home.arpa is a local network name (home.arpa): nobody registers it; your "
            "network's own DNS decides where it leads",
        ),
        (
            "http://127.0.0.1:8123/elicit/flows/x",
            UrlPolicy(allow_http_loopback=True),
            "127.0.0.1 is an IP address: whoever runs the machine at it controls the link; no "
            "name says who",
        ),
    ],
)
def test_a_host_without_a_registrable_domain_says_who_controls_it(
    url: str, policy: UrlPolicy, note: str
) -> None:
    prompt = _prompt(url, policy)
    view = url_view(prompt)
    assert view["domain"] is None
    assert view["domain_note"] == note
    _, domain, _ = url_screen(prompt)
    assert domain == f"Domain: none ({note})"
    assert "whoever registered" not in domain


def test_a_registered_name_is_shown_as_the_domain() -> None:
    prompt = _prompt("https://accounts.example.co.uk/link")
    view = url_view(prompt)
    assert (view["domain"], view["domain_note"]) == ("example.co.uk", None)
    assert url_screen(prompt)[1] == "Domain: example.co.uk"
