"""ScriptedRenderer is built one way: dicts in code, or ``load_answers(path)`` for a file. Both
check every entry before the first question, and say which entry is wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_elicit.client import (
    Accept,
    AnswersError,
    Cancel,
    Decline,
    ElicitationHandler,
    FormPrompt,
    Notice,
    ScriptedRenderer,
    UrlPrompt,
    load_answers,
)
from mcp_elicit.client import handler as handler_module
from mcp_elicit.client.scripted import parse_answers
from mcp_elicit.forms import Form
from mcp_elicit.urls import check_url
from tests.client.terminal_support import png_bytes, wav_bytes

ANSWERS: list[dict[str, Any]] = [
    {"action": "accept", "content": {"name": "Ada"}},
    {"action": "accept", "defaults": True, "content": {"name": "Bea"}},
    {"action": "decline"},
    {"action": "cancel"},
]
FORM = Form.from_schema(
    {
        "type": "object",
        "properties": {"name": {"type": "string"}, "guests": {"type": "integer", "default": 2}},
        "required": ["name"],
    }
)
PROMPT = FormPrompt("bistro", "Book a table?", FORM)


async def _answer_all(renderer: ScriptedRenderer, count: int) -> list[Any]:
    return [await renderer.ask_form(PROMPT) for _ in range(count)]


def _file(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_dicts_in_code_and_a_file_answer_alike(tmp_path: Path) -> None:
    from_code = ScriptedRenderer(ANSWERS)
    from_file = ScriptedRenderer(load_answers(_file(tmp_path, ANSWERS)))
    expected = [
        Accept({"name": "Ada"}),
        Accept({"guests": 2, "name": "Bea"}),
        Decline(),
        Cancel(),
        Cancel("answers-exhausted", no_person=True),
    ]
    assert anyio.run(_answer_all, from_code, 5) == expected
    assert anyio.run(_answer_all, from_file, 5) == expected


def test_used_and_remaining_count_the_entries() -> None:
    told: list[str] = []
    renderer = ScriptedRenderer(ANSWERS[:1], exhausted=told.append)
    assert (renderer.used, renderer.remaining) == (0, 1)
    anyio.run(_answer_all, renderer, 2)
    assert (renderer.used, renderer.remaining) == (1, 0)
    assert told == ["no answer left for bistro's request 'Book a table?': cancelled"]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([{"action": "accept"}, {"action": "decline"}, {"action": "yes"}], "answers[2].action"),
        ([{"action": "decline"}, {"action": "decline", "content": {}}], "answers[1]: only"),
        ([{"action": "accept", "contents": {}}], "answers[0]: unknown key 'contents'"),
        ([{"action": "accept"}, "accept"], "answers[1]: must be an object, not str"),
        ([{"action": "accept", "defaults": "yes"}], "answers[0].defaults"),
    ],
)
def test_a_bad_entry_is_named_by_its_index(
    entries: list[Any], message: str, tmp_path: Path
) -> None:
    with pytest.raises(AnswersError, match=re.escape(message)):
        ScriptedRenderer(entries)
    with pytest.raises(AnswersError, match=re.escape(message)):
        load_answers(_file(tmp_path, entries))
    with pytest.raises(AnswersError, match=re.escape(message)):
        parse_answers(entries)


def test_a_file_that_cannot_be_used_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(AnswersError, match=r"missing\.json: No such file"):
        load_answers(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(AnswersError, match=r"broken\.json: not JSON"):
        load_answers(broken)
    with pytest.raises(AnswersError, match="must be a JSON list"):
        load_answers(_file(tmp_path, {"action": "accept"}))


def test_what_load_answers_returns_is_what_the_renderer_takes(tmp_path: Path) -> None:
    loaded = load_answers(_file(tmp_path, ANSWERS))
    assert loaded == parse_answers(ANSWERS)
    mixed = ScriptedRenderer([*loaded[:1], {"action": "decline"}])
    assert anyio.run(_answer_all, mixed, 2) == [Accept({"name": "Ada"}), Decline()]


# -- attached files, for a free-text question (the early draft) ------------------------------

FREE = FormPrompt(
    "gallery",
    "Caption it",
    Form.from_schema({"type": "object", "properties": {"response": {"type": "string"}}}),
    free_text=True,
)


def test_attach_reads_the_files_when_the_list_is_checked(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png_bytes())
    (tmp_path / "b.wav").write_bytes(wav_bytes())
    renderer = ScriptedRenderer(
        [
            {
                "action": "accept",
                "content": {"response": "two"},
                "attach": [str(tmp_path / "a.png"), str(tmp_path / "b.wav")],
            }
        ]
    )
    answer = anyio.run(renderer.ask_form, FREE)
    assert isinstance(answer, Accept)
    assert answer.content == {"response": "two"}
    picture, sound = answer.attachments
    assert (picture.name, picture.mime_type, picture.data) == ("a.png", "image/png", png_bytes())
    # audio/wav, whatever the system's MIME table says (some still say audio/x-wav)
    assert (sound.name, sound.mime_type, sound.data) == ("b.wav", "audio/wav", wav_bytes())


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"action": "decline", "attach": []},
            "answers[0]: only accept takes content, defaults or attach",
        ),
        (
            {"action": "accept", "attach": "a.png"},
            "answers[0].attach: must be a list of file paths",
        ),
        (
            {"action": "accept", "attach": ["missing.png"]},
            "answers[0].attach[0]: missing.png: No such file",
        ),
        (
            {"action": "accept", "attach": ["notes.txt"]},
            "answers[0].attach[0]: notes.txt is not an image or audio file",
        ),
    ],
)
def test_a_bad_attach_is_named_before_any_question(
    entry: dict[str, Any], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("text")
    with pytest.raises(AnswersError, match=re.escape(message)):
        ScriptedRenderer([entry])


def test_files_for_a_form_are_not_sent_and_the_person_is_told(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png_bytes())
    told: list[str] = []
    renderer = ScriptedRenderer(
        [{"action": "accept", "content": {"name": "Ada"}, "attach": [str(tmp_path / "a.png")]}],
        notices=lambda notice: told.append(notice.text),
    )
    answer = anyio.run(renderer.ask_form, PROMPT)
    assert answer == Cancel("invalid-answer", no_person=True)
    assert told and "takes none" in told[0]


def test_an_entry_consenting_to_a_link_with_warnings_is_announced_with_them() -> None:
    """What says a link is opened says what its warnings were (finding 8): ``mcp-elicit call
    --answers`` prints the notices before "consented to open"."""
    told: list[Notice] = []
    renderer = ScriptedRenderer([{"action": "accept"}, {"action": "accept"}], notices=told.append)
    look_alike = "https://xn--ggle-55da.com/elicit/flows/1"
    plain = "https://pages.example.com/elicit/flows/2"
    for url in (look_alike, plain):
        prompt = UrlPrompt("hotel", "Pay the deposit", url, check_url(url))
        assert anyio.run(renderer.ask_url, prompt) == Accept()
    [notice] = told
    assert notice.level == "warning"
    assert notice.text.startswith(f"answers[0] consents to a link with warnings: {look_alike}: ")
    assert "mixes scripts (Cyrillic, Latin), a common spoofing trick" in notice.text


def test_a_scripted_run_opens_no_browser_unless_given_an_opener(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As ``mcp-elicit call --answers`` opens none: the entries speak for no one at a browser."""
    opened: list[str] = []
    monkeypatch.setattr(handler_module, "open_in_browser", opened.append)
    url = "https://pages.example.com/elicit/flows/2"
    prompt = UrlPrompt("hotel", "Pay the deposit", url, check_url(url))

    scripted = ElicitationHandler(ScriptedRenderer([{"action": "accept"}]))
    assert anyio.run(scripted.open_link, prompt, {}) == Accept()
    assert opened == []

    given: list[str] = []
    chosen = ElicitationHandler(ScriptedRenderer([]), opener=given.append)
    assert anyio.run(chosen.open_link, prompt, {}) == Accept()
    assert given == [url]

    person = ElicitationHandler(None)  # any other renderer: the system browser, by default
    assert anyio.run(person.open_link, prompt, {}) == Accept()
    assert opened == [url]
