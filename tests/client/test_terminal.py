"""The terminal renderer, driven through a pipe like a person at a keyboard.

Each test runs the renderer in a task and plays a script: wait until some text is on the
captured screen, then type. Waiting before typing matters where a test checks an error shown
under the line: prompt_toolkit draws only after it has handled the keys it has read.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from prompt_toolkit.input import create_pipe_input

from mcp_elicit.client import ElicitationHandler, ElicitingClient, prompts
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.prompts import (
    Accept,
    Attachment,
    Cancel,
    Decline,
    FormPrompt,
    Notice,
    UrlPrompt,
)
from mcp_elicit.client.renderer import Renderer
from mcp_elicit.client.terminal import TerminalRenderer
from mcp_elicit.forms import Field, FieldKind, Form, Problem
from mcp_elicit.urls import check_url
from tests.client.held_support import LINK, HeldServer
from tests.client.terminal_support import (
    BACKSPACE,
    CTRL_C,
    CTRL_D,
    ESC,
    SCHEMA,
    Screen,
    form_prompt,
    play,
    png_bytes,
    wav_bytes,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def screen() -> Iterator[Screen]:
    with create_pipe_input() as pipe:
        yield Screen(pipe)


@pytest.fixture
def renderer(screen: Screen) -> TerminalRenderer:
    return TerminalRenderer(input=screen.pipe, output=screen.output)


def url_prompt(url: str, **kwargs: Any) -> UrlPrompt:
    return UrlPrompt(
        server="bank",
        message="Sign in to link your account",
        url=url,
        verdict=check_url(url),
        **kwargs,
    )


def test_is_a_renderer() -> None:
    renderer: Renderer = TerminalRenderer()
    assert renderer is not None


# -- forms ------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_every_field_kind_with_errors_fixed_and_defaults(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    answer = await play(
        screen,
        renderer.ask_form(form_prompt()),
        [
            ("weather asks:", ""),
            ("Tell us about you", ""),
            ("Answer this request? [a]nswer/[d]ecline/[c]ancel", "\r"),
            ("Field 1 of 7: Name (text, required, 2–20 characters)", ""),
            ("Your full name", ""),
            ("Required: it cannot be left empty.", ""),
            # Enter on an empty required field: refused, with the form model's message.
            ("Name:", "\r"),
            ("Error: Name is required", "A\r"),
            ("Error: must be at least 2 characters long (it has 1)", "da\r"),
            ("Field 2 of 7: Email (email address, optional)", "not-an-email\r"),
            (
                "Error: must be an email address like name@example.com",
                BACKSPACE * 12 + "ada@example.com\r",
            ),
            ("Field 3 of 7: Age (integer, optional, 0–150, default 30)", ""),
            ("Enter alone takes the default: 30.", "200\r"),
            ("Error: must be 150 or less (it is 200)", BACKSPACE * 3 + "\r"),
            ("Field 4 of 7: Height (number, optional, 0.5–2.5)", "tall\r"),
            ("Error: must be a number, like 42 or 3.5 (not 'tall')", BACKSPACE * 4 + "1.75\r"),
            ("Field 5 of 7: Subscribe (yes/no, optional, default no)", ""),
            ("Subscribe [y/n]:", "maybe\r"),
            ("Error: answer yes or no (y/n, true/false)", BACKSPACE * 5 + "\r"),
            ("Field 6 of 7: Colour (choose one, required)", ""),
            ("1. Red (r)", ""),
            ("2. Green (g)", ""),
            ("Colour:", "Green\r"),
            ("Field 7 of 7: Toppings (choose several, required, pick 1–2)", ""),
            ("3. Olives (olives)", ""),
            ("Toppings:", "1,2,3\r"),
            ("Error: choose at most 2 options (chosen: 3)", BACKSPACE * 2 + "\r"),
            ("Review your answers:", ""),
            ('1. Name: "Ada"', ""),
            ('2. Email: "ada@example.com"', ""),
            ("3. Age: 30", ""),
            ("4. Height: 1.75", ""),
            ("5. Subscribe: no", ""),
            ("6. Colour: Green (g)", ""),
            ("7. Toppings: Cheese (cheese), Ham (ham)", ""),
            ("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel:", "s\r"),
            ("Submitted.", ""),
        ],
    )
    assert answer == Accept(
        content={
            "name": "Ada",
            "email": "ada@example.com",
            "age": 30,
            "height": 1.75,
            "subscribe": False,
            "colour": "g",
            "toppings": ["cheese", "ham"],
        }
    )


MINIMAL: list[tuple[str, str]] = [
    ("Answer this request?", "\r"),
    ("Name:", "Ada\r"),
    ("Email:", "\r"),
    ("Age:", "\r"),
    ("Height:", "\r"),
    ("Subscribe [y/n]:", "\r"),
    ("Colour:", "1\r"),
    ("Toppings:", "olives\r"),
    ("Review your answers:", ""),
]


@pytest.mark.anyio
async def test_empty_optional_fields_stay_unset_and_defaults_are_taken(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    answer = await play(
        screen,
        renderer.ask_form(form_prompt()),
        [*MINIMAL, ("2. Email: (no answer)", ""), ("[s]ubmit", "submit\r")],
    )
    assert answer == Accept(
        content={
            "name": "Ada",
            "age": 30,
            "subscribe": False,
            "colour": "r",
            "toppings": ["olives"],
        }
    )


@pytest.mark.anyio
async def test_falsy_defaults_are_shown_and_taken(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "nick": {"type": "string", "default": ""},
            "count": {"type": "integer", "default": 0},
            "ok": {"type": "boolean", "default": False},
        },
    }
    answer = await play(
        screen,
        renderer.ask_form(form_prompt(schema)),
        [
            ("Answer this request?", "a\r"),
            ('Field 1 of 3: Nick (text, optional, default "")', "\r"),
            ("Field 2 of 3: Count (integer, optional, default 0)", "\r"),
            ("Field 3 of 3: Ok (yes/no, optional, default no)", "\r"),
            ("Review your answers:", "s\r"),
        ],
    )
    assert answer == Accept(content={"nick": "", "count": 0, "ok": False})


@pytest.mark.anyio
async def test_review_edit_a_field_then_submit(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(
        screen,
        renderer.ask_form(form_prompt()),
        [
            *MINIMAL,
            ("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel:", "nonsense\r"),
            ("Error: type s to submit, e to edit a field, d to decline or c to cancel", ""),
            ("", BACKSPACE * 8 + "e\r"),
            ("Edit which field? (number or name):", "3\r"),
            ("Field 3 of 7: Age (integer, optional, 0–150, default 30)", ""),
            ("Current answer: 30", ""),
            ("Age:", "41\r"),
            ("Review your answers:", ""),
            ("3. Age: 41", ""),
            # Straight from the review line, by name.
            ("[s]ubmit", "e subscribe\r"),
            ("Field 5 of 7: Subscribe", ""),
            ("Current answer: no", ""),
            ("Subscribe [y/n]:", "y\r"),
            ("5. Subscribe: yes", ""),
            ("[s]ubmit", "s\r"),
        ],
    )
    assert isinstance(answer, Accept)
    assert answer.content["age"] == 41
    assert answer.content["subscribe"] is True


@pytest.mark.anyio
async def test_submit_with_problems_goes_back_to_review(screen: Screen) -> None:
    # A default its own bounds refuse: a schema cannot hold one (reading it refuses), but a Form
    # built by hand can, and then only the check on submit catches it.
    form = Form([Field("age", FieldKind.INTEGER, title="Age", minimum=18, default=10)])
    assert form.validate({"age": 10}), "the test needs an invalid default"
    renderer = TerminalRenderer(input=screen.pipe, output=screen.output)
    prompt = FormPrompt(server="weather", message="How old?", form=form)
    answer = await play(
        screen,
        renderer.ask_form(prompt),
        [
            ("Answer this request?", "\r"),
            ("Age:", "\r"),
            ("Review your answers:", ""),
            ("1. Age: 10", ""),
            ("[s]ubmit", "s\r"),
            ("Error: Age: must be 18 or more (it is 10)", ""),
            ("Nothing was sent: fix these, then submit again.", ""),
            ("Review your answers:", ""),
            ("[s]ubmit", "1\r"),
            ("Age:", "20\r"),
            ("1. Age: 20", ""),
            ("[s]ubmit", "s\r"),
        ],
    )
    assert answer == Accept(content={"age": 20})


@pytest.mark.anyio
async def test_decline_on_review(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(
        screen,
        renderer.ask_form(form_prompt()),
        [*MINIMAL, ("[s]ubmit", "d\r"), ("Declined.", "")],
    )
    assert answer == Decline()


@pytest.mark.anyio
async def test_decline_at_the_start(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(
        screen,
        renderer.ask_form(form_prompt()),
        [("[a]nswer/[d]ecline/[c]ancel", "d\r"), ("Declined.", "")],
    )
    assert answer == Decline()
    assert "Field 1 of" not in screen.text


@pytest.mark.anyio
async def test_cancel_chosen_on_review(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(screen, renderer.ask_form(form_prompt()), [*MINIMAL, ("[s]ubmit", "c\r")])
    assert isinstance(answer, Cancel) and not answer.no_person


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("keys", "how"),
    [(ESC, "Esc"), (CTRL_C, "Ctrl-C"), (CTRL_D, "Ctrl-D")],
    ids=["esc", "ctrl-c", "ctrl-d"],
)
async def test_cancel_with_a_key_mid_form(
    screen: Screen, renderer: TerminalRenderer, keys: str, how: str
) -> None:
    answer = await play(
        screen,
        renderer.ask_form(form_prompt()),
        [("Answer this request?", "\r"), ("Name:", "Ada\r"), ("Email:", keys), ("Cancelled.", "")],
    )
    assert isinstance(answer, Cancel)
    assert answer.reason is not None and how in answer.reason
    assert not answer.no_person


@pytest.mark.anyio
async def test_esc_on_the_review_screen_cancels(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(screen, renderer.ask_form(form_prompt()), [*MINIMAL, ("[s]ubmit", ESC)])
    assert isinstance(answer, Cancel)


@pytest.mark.anyio
async def test_findings_are_shown_before_the_fields(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    findings = (
        Problem("email", "secret_like", "this field looks like it asks for a secret"),
        Problem(None, "url_in_form", "the message holds a URL: https://x.example"),
    )
    await play(
        screen,
        renderer.ask_form(form_prompt(findings=findings)),
        [
            ("weather asks:", ""),
            ("Warning: Email: this field looks like it asks for a secret", ""),
            ("Warning: the message holds a URL: https://x.example", ""),
            ("Keys: Enter confirms each answer; Esc or Ctrl-C cancels", ""),
            ("Answer this request?", ESC),
        ],
    )


# -- free text (the early draft's message-only ask) and its files ----------------------------

FREE_TEXT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"response": {"type": "string", "title": "Your answer"}},
}
ATTACH = "Attach an image or audio file (a path; Enter when done):"


def free_text_prompt() -> FormPrompt:
    return FormPrompt(
        server="old",
        message="What is your favourite city?",
        form=Form.from_schema(FREE_TEXT_SCHEMA),
        free_text=True,
    )


@pytest.mark.anyio
async def test_free_text_is_one_question(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("What is your favourite city?", ""),
            ("Answer this request?", "\r"),
            ("Your answer (text)", ""),
            ("Image or audio files can be attached next: text, files or both.", ""),
            ("Your answer:", "Lisbon\r"),
            ("You may attach image or audio files (up to 10 MB in all)", ""),
            (ATTACH, "\r"),
            ('1. Your answer: "Lisbon"', ""),
            ("(no files attached)", ""),
            ("[s]ubmit / [e]dit your answer / [a]ttach a file / [d]ecline / [c]ancel:", "s\r"),
            ("Submitted.", ""),
        ],
    )
    assert answer == Accept(content={"response": "Lisbon"})
    assert "Field 1 of 1" not in screen.text


@pytest.mark.anyio
async def test_free_text_attaches_a_png_and_a_wav(
    screen: Screen, renderer: TerminalRenderer, tmp_path: Path
) -> None:
    picture, sound = tmp_path / "cat.png", tmp_path / "purr.wav"
    picture.write_bytes(png_bytes())
    sound.write_bytes(wav_bytes())
    png_size, wav_size = len(picture.read_bytes()), len(sound.read_bytes())
    assert wav_size > 1024  # shown in KB
    wav_shown = f"{wav_size / 1024:.1f} KB"
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "A grey cat\r"),
            (ATTACH, f"{picture}\r"),
            (f"Attached: cat.png (image/png, {png_size} bytes)", ""),
            (ATTACH, f"{sound}\r"),
            ("Attached: purr.wav (audio/", ""),
            (ATTACH, "\r"),
            ("Review your answers:", ""),
            ('1. Your answer: "A grey cat"', ""),
            (f"Attached: cat.png (image/png, {png_size} bytes)", ""),
            ("Attached: purr.wav (audio/", ""),
            (f"{wav_shown})", ""),
            ("[r]emove a file", "s\r"),
            ("Submitted.", ""),
        ],
    )
    assert isinstance(answer, Accept)
    assert answer.content == {"response": "A grey cat"}
    first, second = answer.attachments
    assert (first.name, first.mime_type, first.data) == ("cat.png", "image/png", png_bytes())
    assert (second.name, second.kind, second.data) == ("purr.wav", "audio", wav_bytes())
    # audio/wav, whatever the system's MIME table says (some still say audio/x-wav)
    assert second.mime_type == "audio/wav"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("missing.png", "Error: {path}: no such file"),
        ("notes.txt", "Error: notes.txt is not an image or audio file (text/plain)"),
        ("big.png", "Error: big.png is too large: attachments may hold"),
        ("folder", "Error: {path} is a folder: type the path of a file in it"),
        ("program.png", "Error: program.png was sent as image/png, but its content is ELF"),
        ("logo.svg", "Error: logo.svg is an SVG image, which can carry scripts and links"),
    ],
    ids=["missing", "text-file", "too-large", "folder", "a-program-named-png", "svg"],
)
async def test_a_file_that_cannot_go_is_refused_and_nothing_is_lost(
    screen: Screen,
    renderer: TerminalRenderer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    reason: str,
) -> None:
    picture = tmp_path / "cat.png"
    picture.write_bytes(png_bytes())
    (tmp_path / "notes.txt").write_text("a shopping list")
    (tmp_path / "folder").mkdir()
    # Room for the cat, not for one byte more: the limit counts all the files together.
    monkeypatch.setattr(prompts, "MAX_ATTACHMENT_BYTES", len(png_bytes()) + 10)
    (tmp_path / "big.png").write_bytes(png_bytes(8, 8))
    (tmp_path / "program.png").write_bytes(b"\x7fELF\x02\x01\x01\x00")  # fits the limit
    (tmp_path / "logo.svg").write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg"/>')
    bad = str(tmp_path / name)
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "Lisbon\r"),
            (ATTACH, f"{picture}\r"),
            ("Attached: cat.png (image/png", ""),
            (ATTACH, f"{bad}\r"),
            (reason.format(path=bad), ""),
            # The path stays on the line to fix: here, take it away and finish.
            ("", BACKSPACE * len(bad) + "\r"),
            ("Review your answers:", ""),
            ('1. Your answer: "Lisbon"', ""),
            ("Attached: cat.png (image/png", ""),
            ("[s]ubmit", "s\r"),
            ("Submitted.", ""),
        ],
    )
    assert answer == Accept(
        content={"response": "Lisbon"},
        attachments=(Attachment("cat.png", "image/png", png_bytes()),),
    )
    assert f"Attached: {name}" not in screen.text


@pytest.mark.anyio
async def test_an_unreadable_file_is_refused_with_the_systems_reason(
    screen: Screen, renderer: TerminalRenderer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked.png"
    locked.write_bytes(png_bytes())
    read_bytes = Path.read_bytes

    def refuse(path: Path) -> bytes:  # chmod 000 is no obstacle to root, who may run this
        if path.name == "locked.png":
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "Lisbon\r"),
            (ATTACH, f"{locked}\r"),
            (f"Error: {locked}: Permission denied", BACKSPACE * len(str(locked)) + "\r"),
            ('1. Your answer: "Lisbon"', "s\r"),
        ],
    )
    assert answer == Accept(content={"response": "Lisbon"})


@pytest.mark.anyio
async def test_free_text_needs_text_or_a_file(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "   \r"),  # white space is no answer
            (ATTACH, "\r"),
            ("Error: Type an answer or attach a file", ""),
            ("Your answer:", "Porto\r"),
            (ATTACH, "\r"),
            ('1. Your answer: "Porto"', "s\r"),
        ],
    )
    assert answer == Accept(content={"response": "Porto"})


@pytest.mark.anyio
async def test_files_only_then_removed_attached_again_and_text_edited_from_review(
    screen: Screen, renderer: TerminalRenderer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cat.png").write_bytes(png_bytes())
    (tmp_path / "dog.png").write_bytes(png_bytes(2, 2))
    monkeypatch.setenv("HOME", str(tmp_path))  # ~ is the home folder
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "\r"),
            (ATTACH, "~/cat.png\r"),
            ("Attached: cat.png (image/png", ""),
            (ATTACH, "~/dog.png\r"),
            ("Attached: dog.png (image/png", ""),
            (ATTACH, "\r"),
            ("1. Your answer: (no answer)", ""),
            ("Attached: cat.png", ""),
            ("Attached: dog.png", ""),
            ("[r]emove a file", "r\r"),
            ("1. cat.png (image/png", ""),
            ("2. dog.png (image/png", ""),
            ("Remove which file? (number or name):", "3\r"),
            ("Error: type a file's number (1–2) or its name", BACKSPACE + "1\r"),
            ("Removed: cat.png", ""),
            ("Review your answers:", ""),
            ("Attached: dog.png", ""),
            ("[r]emove a file", "r dog.png\r"),
            ("Removed: dog.png", ""),
            ("(no files attached)", ""),
            # Nothing left: refused, back to the review.
            ("[a]ttach a file / [d]ecline", "s\r"),
            ("Error: Type an answer or attach a file", ""),
            ("Nothing was sent: fix these, then submit again.", ""),
            ("[a]ttach a file / [d]ecline", "a\r"),
            (ATTACH, "~/dog.png\r"),
            ("Attached: dog.png", ""),
            (ATTACH, "\r"),
            ("Attached: dog.png", ""),
            ("[r]emove a file", "e\r"),
            ("Current answer: (no answer)", ""),
            ("Your answer:", "A dog\r"),
            ('1. Your answer: "A dog"', ""),
            ("Attached: dog.png", ""),
            ("[r]emove a file", "s\r"),
            ("Submitted.", ""),
        ],
    )
    assert answer == Accept(
        content={"response": "A dog"},
        attachments=(Attachment("dog.png", "image/png", png_bytes(2, 2)),),
    )


@pytest.mark.anyio
async def test_a_file_name_only_with_an_attachment_is_an_answer(
    screen: Screen, renderer: TerminalRenderer, tmp_path: Path
) -> None:
    sound = tmp_path / "purr.wav"
    sound.write_bytes(wav_bytes(10))
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "\r"),
            (ATTACH, f"{sound}\r"),
            (ATTACH, "\r"),
            ("[r]emove a file", "s\r"),
            ("Submitted.", ""),
        ],
    )
    assert isinstance(answer, Accept)
    assert answer.content == {}  # no text: the early-draft answer is the file alone
    assert [a.data for a in answer.attachments] == [wav_bytes(10)]


@pytest.mark.anyio
async def test_tab_completes_a_path_and_a_quoted_path_is_read(
    screen: Screen, renderer: TerminalRenderer, tmp_path: Path
) -> None:
    (tmp_path / "my cat.png").write_bytes(png_bytes())
    (tmp_path / "notes.txt").write_text("not offered")
    answer = await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "Cat\r"),
            # Tab offers folders and images or audio only: one candidate, completed whole.
            (ATTACH, f"{tmp_path}/\t"),
            (f"{tmp_path}/my cat.png", "\r"),
            ("Attached: my cat.png (image/png", ""),
            # A path dropped onto a terminal comes quoted.
            (ATTACH, f"'{tmp_path}/my cat.png'\r"),
            ("Attached: my cat.png (image/png", ""),
            (ATTACH, "\r"),
            ("[r]emove a file", "s\r"),
        ],
    )
    assert isinstance(answer, Accept)
    assert [a.name for a in answer.attachments] == ["my cat.png", "my cat.png"]


@pytest.mark.anyio
async def test_typed_file_names_are_shown_cleaned(
    screen: Screen, renderer: TerminalRenderer, tmp_path: Path
) -> None:
    (tmp_path / "ca\u202et.png").write_bytes(png_bytes())
    await play(
        screen,
        renderer.ask_form(free_text_prompt()),
        [
            ("Answer this request?", "\r"),
            ("Your answer:", "x\r"),
            (ATTACH, "/nowhere/\u202eevil.png\r"),
            (
                "Error: /nowhere/\\u{202e}evil.png: no such file",
                BACKSPACE * 20 + f"{tmp_path}/ca\u202et.png\r",
            ),
            ("Attached: ca\\u{202e}t.png (image/png", "\r"),
            ("Review your answers:", ""),
            ("Attached: ca\\u{202e}t.png (image/png", ESC),
            ("Cancelled.", ""),
        ],
    )
    # Only the line being typed echoes what was typed; every line the renderer writes is clean.
    written = [line for line in screen.text.split("\n") if not line.startswith(ATTACH)]
    assert not any("\u202e" in line for line in written)


@pytest.mark.anyio
async def test_server_text_cannot_drive_the_terminal(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    prompt = FormPrompt(server="evil\x1b[2J", message="hi\u202eoll", form=Form.from_schema(SCHEMA))
    await play(
        screen,
        renderer.ask_form(prompt),
        [("evil\\u{001b}[2J asks:", ""), ("hi\\u{202e}oll", ""), ("Answer this request?", ESC)],
    )
    assert "\x1b[2J" not in screen.buffer.getvalue()


def test_clean_keeps_text_and_writes_out_controls() -> None:
    assert clean("Zoë 東京") == "Zoë 東京"
    assert clean("a\nb") == "a\nb"
    assert clean("a\nb", newlines=False) == "a\\u{000a}b"
    assert clean("x\x9by\u200bz\u2028") == "x\\u{009b}y\\u{200b}z\\u{2028}"
    assert clean("東京\u3000駅\ta") == "東京\u3000駅 a"  # spaces of any script stay


# -- URL consent ------------------------------------------------------------------------------


LOOKALIKE = "https://accounts.google.com.evil.co.uk/login"
IDN = "https://bücher.example.com/konto"


@pytest.mark.anyio
async def test_url_consent_yes(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(
        screen,
        renderer.ask_url(url_prompt(LOOKALIKE, required_by="search_flights")),
        [
            ("bank asks you to open a link:", ""),
            ("Sign in to link your account", ""),
            ("Required by: search_flights", ""),
            (f"URL: {LOOKALIKE}\n", ""),
            ("\n\nDomain: evil.co.uk\n\n", ""),
            ("Host: accounts.google.com.evil.co.uk", ""),
            ("Open this link in your browser? [y]es/[n]o (decline)/Esc cancel:", "x\r"),
            ("Error: type y to open the link or n to decline (Esc cancels)", BACKSPACE + "y\r"),
            ("You agreed to open the link.", ""),
        ],
    )
    assert answer == Accept()


@pytest.mark.anyio
async def test_url_consent_no_shows_both_host_forms_and_warnings(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    prompt = url_prompt(IDN)
    assert prompt.verdict.reasons, "the IDN host should carry a warning"
    answer = await play(
        screen,
        renderer.ask_url(prompt),
        [
            (f"URL: {IDN}", ""),
            ("Domain: example.com", ""),
            ("Host: bücher.example.com (punycode: xn--bcher-kva.example.com)", ""),
            *[(f"Warning: {r.message}", "") for r in prompt.verdict.reasons],
            ("Open this link in your browser?", "no\r"),
            ("Declined.", ""),
        ],
    )
    assert answer == Decline()


@pytest.mark.anyio
@pytest.mark.parametrize("keys", [ESC, CTRL_C], ids=["esc", "ctrl-c"])
async def test_url_consent_dismissed(screen: Screen, renderer: TerminalRenderer, keys: str) -> None:
    answer = await play(
        screen,
        renderer.ask_url(url_prompt(LOOKALIKE)),
        [("Open this link in your browser?", keys), ("Cancelled.", "")],
    )
    assert isinstance(answer, Cancel)


@pytest.mark.anyio
async def test_url_is_never_truncated(screen: Screen, renderer: TerminalRenderer) -> None:
    url = "https://example.com/" + "a" * 600 + "?q=end"
    await play(
        screen,
        renderer.ask_url(url_prompt(url)),
        [(f"URL: {url}", ""), ("Open this link", "n\r")],
    )


# -- waiting for completion -------------------------------------------------------------------


@pytest.mark.anyio
async def test_wait_returns_when_the_server_confirms(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    done = anyio.Event()

    async def confirm() -> None:
        await screen.expect("Waiting for bank to confirm … press Enter when you are done")
        await screen.expect(">")
        done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(confirm)
        with anyio.fail_after(10):
            answer = await renderer.wait_for_completion(url_prompt(LOOKALIKE), done)
    assert answer == Accept()
    await screen.expect("bank confirmed.")
    # The prompt was taken down cleanly: the next question still works.
    after = await play(screen, renderer.ask_url(url_prompt(LOOKALIKE)), [("Open this", "y\r")])
    assert after == Accept()


@pytest.mark.anyio
async def test_wait_returns_at_once_when_already_confirmed(renderer: TerminalRenderer) -> None:
    done = anyio.Event()
    done.set()
    with anyio.fail_after(5):
        assert await renderer.wait_for_completion(url_prompt(LOOKALIKE), done) == Accept()


@pytest.mark.anyio
async def test_wait_returns_on_enter(screen: Screen, renderer: TerminalRenderer) -> None:
    answer = await play(
        screen,
        renderer.wait_for_completion(url_prompt(LOOKALIKE), anyio.Event()),
        [("Esc to cancel", ""), (">", "\r"), ("Done.", "")],
    )
    assert answer == Accept()


@pytest.mark.anyio
@pytest.mark.parametrize("keys", [ESC, CTRL_C], ids=["esc", "ctrl-c"])
async def test_wait_cancelled(screen: Screen, renderer: TerminalRenderer, keys: str) -> None:
    answer = await play(
        screen,
        renderer.wait_for_completion(url_prompt(LOOKALIKE), anyio.Event()),
        [("Esc to cancel", ""), (">", keys), ("Cancelled.", "")],
    )
    assert isinstance(answer, Cancel)


# -- notices and the writer -------------------------------------------------------------------


@pytest.mark.anyio
async def test_notify_prints_without_waiting(screen: Screen, renderer: TerminalRenderer) -> None:
    with anyio.fail_after(2):
        await renderer.notify(Notice(server="bank", text="too many requests", level="warning"))
        await renderer.notify(Notice(server="bank", text="link blocked", level="error"))
        await renderer.notify(Notice(server="bank", text="fyi", level="info"))
    await screen.expect("Warning from bank: too many requests")
    await screen.expect("Error from bank: link blocked")
    await screen.expect("Info from bank: fyi")


@pytest.mark.anyio
async def test_a_custom_writer_gets_the_plain_text(screen: Screen) -> None:
    lines: list[str] = []
    write: Callable[[str], None] = lines.append
    renderer = TerminalRenderer(input=screen.pipe, output=screen.output, write=write)
    answer = await play(
        screen, renderer.ask_url(url_prompt(LOOKALIKE)), [("Open this link", "y\r")]
    )
    assert answer == Accept()
    assert "Domain: evil.co.uk" in lines
    assert any(line.startswith("bank asks you to open a link:") for line in lines)
    await renderer.notify(Notice(server="bank", text="hello", level="info"))
    assert lines[-1] == "Info from bank: hello"


@pytest.mark.anyio
async def test_notify_during_a_question_prints_above_it(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    async def notify_then_answer() -> None:
        await screen.expect("Open this link in your browser?")
        with anyio.fail_after(2):
            await renderer.notify(Notice(server="other", text="rate limit reached"))
        await screen.expect("Warning from other: rate limit reached")
        await screen.expect("Open this link in your browser?")  # drawn again below it
        screen.type("n\r")

    async with anyio.create_task_group() as group:
        group.start_soon(notify_then_answer)
        with anyio.fail_after(10):
            answer = await renderer.ask_url(url_prompt(LOOKALIKE))
    assert answer == Decline()


# -- a link the browser did not open ------------------------------------------------------------


@pytest.mark.anyio
async def test_a_link_that_did_not_open_is_shown_whole_and_enter_goes_on(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    url = "https://accounts.example.com/elicit/flows/F-abc?step=1"
    answer = await play(
        screen,
        renderer.link_not_opened(url_prompt(url), "no browser could be started from here"),
        [
            ("Error: the link did not open: no browser could be started from here.", ""),
            (f"  {url}", ""),
            ("Nothing has been sent to bank yet.", ""),
            ("Press Enter once you have opened it yourself, Esc to cancel", "\r"),
            ("Going on.", ""),
        ],
    )
    assert answer == Accept()


@pytest.mark.anyio
@pytest.mark.parametrize("keys", [ESC, CTRL_C], ids=["esc", "ctrl-c"])
async def test_a_link_that_did_not_open_can_be_cancelled(
    screen: Screen, renderer: TerminalRenderer, keys: str
) -> None:
    answer = await play(
        screen,
        renderer.link_not_opened(url_prompt(LOOKALIKE), "no browser could be started from here"),
        [("Press Enter once you have opened it yourself", keys), ("Cancelled.", "")],
    )
    assert isinstance(answer, Cancel)


def held_call(
    held: HeldServer, handler: ElicitationHandler, results: list[str]
) -> Callable[[], Coroutine[Any, Any, None]]:
    """A 2026-07-28 call of the held server's ``connect``, its text appended to ``results``."""

    async def call() -> None:
        async with ElicitingClient(held.server, handler, protocol="2026-07-28") as client:
            result = await client.call_tool("connect", {})
        results.append(" ".join(getattr(c, "text", "") for c in result.content))

    return call


@pytest.mark.anyio
async def test_the_handler_asks_at_the_terminal_when_the_browser_did_not_open(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    held = HeldServer(hold=30.0)
    handler = ElicitationHandler(renderer, opener=lambda url: False)
    results: list[str] = []

    call = held_call(held, handler, results)

    await play(
        screen,
        call(),
        [
            ("Open this link in your browser?", "y\r"),
            (f"  {LINK}", ""),
            ("Press Enter once you have opened it yourself", ESC),
            ("Cancelled.", ""),
        ],
    )
    assert results == ["link cancel"]  # not accept: the server was told cancel
    assert held.retries == ["cancel"]


# -- 2026-07-28: the retry the server holds ---------------------------------------------------


@pytest.mark.anyio
async def test_the_held_retry_is_shown_and_enter_asks_the_server_again(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    held = HeldServer(hold=30.0)
    handler = ElicitationHandler(renderer, opener=lambda url: None)
    results: list[str] = []
    waiting = (
        "Waiting for held: it goes on once you finish on the page … press Enter when you are "
        "done (asks held again now), Esc to cancel"
    )

    call = held_call(held, handler, results)

    async def person() -> None:
        await screen.expect("Open this link in your browser?")
        screen.type("y\r")
        await screen.expect(waiting)  # up while the server holds the retry
        await held.when_holding()
        await screen.expect(">")
        screen.type("\r")  # done: asked again at once
        await screen.expect("Done.")
        await screen.expect(waiting)
        await held.when_holding(retries=2)
        held.page_done.set()
        await screen.expect("held confirmed.")

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(person)
            await call()
    assert results == ["connected"]
    assert held.retries == ["accept", "accept"]


@pytest.mark.anyio
async def test_esc_while_held_tells_the_server_cancel(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    held = HeldServer(hold=30.0)
    handler = ElicitationHandler(renderer, opener=lambda url: None)
    results: list[str] = []

    call = held_call(held, handler, results)

    await play(
        screen,
        call(),
        [("Open this link in your browser?", "y\r"), ("asks held again now", ""), (">", ESC)],
    )
    assert results == ["link cancel"]
    assert held.retries == ["accept", "cancel"]


# -- the server's own sign-in (MCP authorization) --------------------------------------------------


@pytest.mark.anyio
async def test_a_sign_in_says_it_is_one_and_waits_for_the_browser(
    screen: Screen, renderer: TerminalRenderer
) -> None:
    prompt = UrlPrompt(
        server="hotel.example:443",
        message="hotel.example:443 requires you to sign in before it can be used.",
        url="https://accounts.example.com/auth?client_id=x",
        verdict=check_url("https://accounts.example.com/auth?client_id=x"),
        sign_in=True,
    )
    answer = await play(
        screen,
        renderer.ask_url(prompt),
        [
            ("hotel.example:443 asks you to sign in:", ""),
            (
                "This is the server's own sign-in (MCP authorization), not a question from a tool",
                "",
            ),
            ("\n\nDomain: example.com\n\n", ""),
            ("Open this link in your browser?", "y\r"),
            ("You agreed to open the link.", ""),
        ],
    )
    assert answer == Accept()
    back = anyio.Event()

    async def browser_comes_back() -> None:
        await screen.expect("Waiting for you to sign in to hotel.example:443 in your browser")
        back.set()

    async with anyio.create_task_group() as group:
        group.start_soon(browser_comes_back)
        with anyio.fail_after(10):
            assert await renderer.wait_for_completion(prompt, back) == Accept()
    await screen.expect("Signed in to hotel.example:443.")


def test_a_held_wait_taken_down_does_not_say_its_request_was_cancelled(
    renderer: TerminalRenderer, screen: Screen
) -> None:
    """The waiting screen of a held retry is taken down when the server answers by asking
    again (or the request ends): "… this question (its request was cancelled or timed out)"
    misled a newcomer through the gateway, who had only said they were done (issue 31)."""
    held = url_prompt("https://bank.example/link", held=True)
    renderer.withdraw(held)
    shown = " ".join(screen.text.split())
    assert "Withdrawn: bank stopped holding the call for this page (it answered, or" in shown
    assert "cancelled or timed out" not in shown
    renderer.withdraw(url_prompt("https://bank.example/link"))
    assert "Withdrawn: bank no longer waits" in " ".join(screen.text.split())
