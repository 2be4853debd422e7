"""What ``ask``, ``confirm``, ``choose`` and ``ask_text`` put in front of the person, in the
server's language: the labels of the fields they make, the note of a question asked again and
the problems of a bad answer. The codes and field names stay as they are."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcp_elicit.forms import Problem
from mcp_elicit.i18n import language
from mcp_elicit.protocol import ContentItem
from mcp_elicit.server import InvalidAnswer
from mcp_elicit.server.asking import _read_items, retry_message
from mcp_elicit.server.free_text import _reply
from mcp_elicit.server.questions import question_for_raw_schema
from tests.i18n_support import escaped, pseudo_language
from tests.server_support import BOOK, Person, booking_server, connect

pytestmark = pytest.mark.anyio

_CJK = re.compile(r"[\u4e00-\u9fff]")
BAD = {"name": "Ada", "arrival": "2026-03-01", "guests": 12}
GOOD = {"name": "Ada", "arrival": "2026-03-01", "room": "suite", "guests": 3}


async def call(tool: str, answers: list[dict[str, Any]], **kw: Any) -> tuple[Any, Person]:
    made = booking_server()
    person = Person(list(answers))
    async with connect(made.server, "2025-11-25", person) as client:
        result = await client.call_tool(tool, kw)
    return result, person


def accept(content: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": content}


async def test_the_fields_confirm_and_choose_make_are_labelled_in_the_language() -> None:
    for tag, labels in (("zh-Hans", ("确认", "选择")), ("en", ("Confirm", "Choice"))):
        with language(tag):
            _, person = await call("trip", [accept({"name": "Ada"}), accept({"confirm": True})])
            _, picked = await call("pick_room", [accept({"choice": "ste"})])
        confirm = person.seen[1]["requestedSchema"]["properties"]["confirm"]
        choice = picked.seen[0]["requestedSchema"]["properties"]["choice"]
        assert (confirm["title"], choice["title"]) == labels


async def test_a_question_asked_again_says_what_to_fix_in_the_language() -> None:
    with language("zh-Hans"):
        _, person = await call("book", [accept(BAD), accept(GOOD)], reask=1)
    again = person.seen[1]["message"]
    assert again.startswith(BOOK + "\n\n请更正你的回答（guests：")
    assert again.endswith("）。") and "8" in again


def some_problems() -> list[Problem]:
    """The problems these files make: a retry's note, too many bytes, an early-draft answer to
    a form."""
    found = [Problem(None, "note", retry_message("Book?", [Problem("guests", "x", "12")]))]
    image = ContentItem("image", data=b"\x89PNG" * 4, mime_type="image/png")
    reply = _reply((ContentItem("text", text="hi"), image), 8)
    assert isinstance(reply, list)
    found += reply
    question = question_for_raw_schema({"type": "object", "properties": {"n": {"type": "string"}}})
    with pytest.raises(InvalidAnswer) as raised:
        _read_items(question, "Book?", [{"type": "text", "text": "hi"}])
    found += raised.value.problems
    return found


def test_the_problems_are_in_the_language_with_the_same_codes() -> None:
    english = some_problems()
    with language("zh-Hans"):
        chinese = some_problems()
    assert [(p.field, p.code) for p in chinese] == [(p.field, p.code) for p in english]
    assert english[0].message == "Book?\n\nPlease correct your answer (guests: 12)."
    assert chinese[0].message == "Book?\n\n请更正你的回答（guests：12）。"
    for en, zh in zip(english, chinese, strict=True):
        assert _CJK.search(zh.message) and zh.message != en.message


def test_nothing_escapes_the_catalogs() -> None:
    with pseudo_language():
        problems = some_problems()
    # The server's message, a field's name, and the question as its author named it.
    data = ["Book?", "guests", "this question"]
    for problem in problems:
        assert escaped(problem.message, data) == [], problem
