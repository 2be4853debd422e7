"""The terminal renderer in the person's language, driven through a pipe as in test_terminal.

- In Chinese (``zh-Hans``): a form with every field kind, its re-asks, the review, a link's
  consent screen and a sign-in's, the waits, a link that did not open, notices.
- East Asian wide characters: the screen is read cell by cell (a wide character takes two
  cells, as in a real terminal), so a line prompt_toolkit drew by counting characters rather
  than cells would come out garbled. Labels of the same display width put their values in the
  same column, on the review and on the consent screen; Chinese typed through an input method
  is entered, checked and shown whole.
- Dates and numbers on the review follow the language; the answer keeps its JSON form.
- Under the pseudo-locale (``tests/i18n_support.py``) every word the terminal itself shows
  comes from the catalogs: nothing English escaped. What the terminal only shows (the server's
  text, the values, the form model's and the URL check's messages, which forms/ and urls/
  translate) is allowed as it is produced.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.utils import get_cwidth

from mcp_elicit.client import _terminal_text as text
from mcp_elicit.client import form_requests
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.prompts import Accept, Cancel, Decline, FormPrompt, Notice, UrlPrompt
from mcp_elicit.client.terminal import TerminalRenderer
from mcp_elicit.forms import Form, Problem
from mcp_elicit.i18n import _, format_date, format_datetime, language
from mcp_elicit.i18n.catalogs import forget_catalogs
from mcp_elicit.urls import check_url
from tests.client.terminal_support import (
    BACKSPACE,
    ESC,
    SCHEMA,
    Screen,
    form_prompt,
    play,
    png_bytes,
    wav_bytes,
)
from tests.i18n_support import escaped, pseudo_language

T = TypeVar("T")


class WideScreen(Screen):
    """:class:`Screen`, with a wide character taking two cells as a terminal gives it: the
    second holds ``""`` (nothing joins into the text), and the cursor moves past both."""

    def _put(self, char: str) -> None:
        width = get_cwidth(char)
        line = self._line()
        if width == 0:  # a combining mark joins the cell before it
            if self._col:
                line[self._col - 1] += char
            return
        line.extend(" " * (self._col + width - len(line)))
        line[self._col] = char
        for extra in range(1, width):
            line[self._col + extra] = ""
        self._col += width

    def column(self, needle: str, *, on: str = "") -> int:
        """The terminal column (cell) where ``needle`` starts, on the last line holding it
        (that starts with ``on``)."""
        self._feed()
        for cells in reversed(self._lines):
            line = "".join(cells)
            at = line.find(needle)
            if at < 0 or not line.startswith(on):
                continue
            seen = 0
            for cell, content in enumerate(cells):
                if content and seen == at:  # not the second cell of a wide character
                    return cell
                seen += len(content)
        raise AssertionError(f"{needle!r} not on screen:\n{self.text}")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def fresh_catalogs() -> Iterator[None]:
    forget_catalogs()  # the catalogs as merged now, not as an earlier test read them
    yield
    forget_catalogs()


@pytest.fixture
def screen() -> Iterator[WideScreen]:
    with create_pipe_input() as pipe:
        yield WideScreen(pipe)


@pytest.fixture
def renderer(screen: WideScreen) -> TerminalRenderer:
    return TerminalRenderer(input=screen.pipe, output=screen.output)


async def watch(
    screen: WideScreen, call: Awaitable[T], script: list[tuple[str, str]], seen: list[str]
) -> T:
    """:func:`play`, keeping in ``seen`` the screen as it was at each step: an error under the
    line is gone once its question is answered."""
    results: list[T] = []

    async def run() -> None:
        results.append(await call)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(run)
            for wait_for, keys in script:
                await screen.expect(wait_for)
                seen.append(screen.text)
                screen.type(keys)
    seen.append(screen.text)
    return results[0]


def escaped_anywhere(seen: list[str], allowed: list[str]) -> list[str]:
    return sorted({word for shown in seen for word in escaped(shown, allowed)})


CHINESE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "姓名", "minLength": 2, "maxLength": 10},
        "city": {"type": "string", "title": "City"},  # as wide as 姓名: four cells
        "day": {"type": "string", "format": "date", "title": "出发日期"},
        "budget": {"type": "number", "title": "预算"},
    },
    "required": ["name"],
}


def chinese_prompt() -> FormPrompt:
    return FormPrompt(server="旅行社", message="请填写行程", form=Form.from_schema(CHINESE_SCHEMA))


# -- Chinese -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_form_in_chinese_with_every_field_kind(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    findings = (Problem("email", "secret_like", "this field looks like it asks for a secret"),)
    with language("zh-Hans"):
        answer = await play(
            screen,
            renderer.ask_form(form_prompt(findings=findings)),
            [
                ("weather 询问：", ""),
                ("警告：Email：", ""),
                ("按键：Enter 确认每个回答；", ""),
                ("回答此请求？[a] 回答 / [d] 拒绝 / [c] 取消（Enter：回答）：", "x\r"),
                ("错误：输入 a 回答，d 拒绝，c 取消", BACKSPACE + "\r"),
                ("字段 1/7：Name（文本，必填，2–20 个字符）", ""),
                ("必填：不能留空。", ""),
                ("Name：", "\r"),
                ("错误：", "Ada\r"),
                ("字段 2/7：Email（电子邮件地址，可选）", ""),
                ("直接按 Enter 则留空。", "\r"),
                ("字段 3/7：Age（整数，可选，0–150，默认 30）", ""),
                ("直接按 Enter 则使用默认值：30。", "\r"),
                ("字段 4/7：Height（数字，可选，0.5–2.5）", "1234\r"),
                ("错误：", BACKSPACE * 4 + "1.5\r"),
                ("字段 5/7：Subscribe（是/否，可选，默认 否）", ""),
                ("输入 y 或 n。", ""),
                ("Subscribe [y/n]：", "y\r"),
                ("字段 6/7：Colour（单选，必填）", ""),
                ("输入一个选项的编号或值。", ""),
                ("Colour：", "2\r"),
                ("字段 7/7：Toppings（多选，必填，选 1–2 个）", ""),
                ("输入编号或值，用英文逗号分隔，如 1,3。", ""),
                ("Toppings：", "1,2\r"),
                ("检查你的回答：", ""),
                ('1. Name："Ada"', ""),
                ("2. Email：（未回答）", ""),
                ("5. Subscribe：是", ""),
                ("7. Toppings：Cheese (cheese)，Ham (ham)", ""),
                ("[s] 提交 / [e] 编辑字段 / [d] 拒绝 / [c] 取消：", "?\r"),
                ("错误：输入 s 提交，e 编辑字段，d 拒绝，c 取消", BACKSPACE + "e\r"),
                ("编辑哪个字段？（编号或名称）：", "9\r"),
                ("错误：请输入字段编号（1–7）或名称", BACKSPACE + "4\r"),
                ("当前回答：1.5", ""),
                ("Height：", "2\r"),
                ("4. Height：2", "s\r"),
                ("已提交。", ""),
            ],
        )
    assert answer == Accept(
        content={
            "name": "Ada",
            "age": 30,
            "height": 2,
            "subscribe": True,
            "colour": "g",
            "toppings": ["cheese", "ham"],
        }
    )


@pytest.mark.anyio
async def test_chinese_typed_through_an_input_method_is_entered_checked_and_shown_whole(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    with language("zh-Hans"):
        answer = await play(
            screen,
            renderer.ask_form(chinese_prompt()),
            [
                ("旅行社 询问：", ""),
                ("请填写行程", ""),
                ("回答此请求？", "\r"),
                ("字段 1/4：姓名（文本，必填，2–10 个字符）", ""),
                ("姓名：", "张"),
                # Checked as typed: one character is too short, said under the line, which
                # stays whole.
                ("姓名：张", ""),
                ("错误：", "三\r"),
                ("字段 2/4：City", "東京\r"),
                ("字段 3/4：出发日期（日期，YYYY-MM-DD，可选）", "2026-11-27\r"),
                ("字段 4/4：预算（数字，可选）", "12345.5\r"),
                ("检查你的回答：", ""),
                ("4. 预算：12,345.5", ""),
                ("[s] 提交", "s\r"),
                ("已提交。", ""),
            ],
        )
    # What is sent keeps its JSON form, whatever the review showed.
    assert answer == Accept(
        content={"name": "张三", "city": "東京", "day": "2026-11-27", "budget": 12345.5}
    )
    assert "姓名：张三" in screen.text
    assert "City：東京" in screen.text


@pytest.mark.anyio
async def test_on_the_review_values_of_labels_as_wide_share_a_column(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    with language("zh-Hans"):
        await play(
            screen,
            renderer.ask_form(chinese_prompt()),
            [
                ("回答此请求？", "\r"),
                ("姓名：", "张三\r"),
                ("City：", "東京\r"),
                ("出发日期：", "2026-11-27\r"),
                ("预算：", "\r"),
                ("检查你的回答：", ""),
                ("[s] 提交", ESC),
            ],
        )
        shown_day = format_date(date(2026, 11, 27))
    assert shown_day == "2026年11月27日"
    review = screen.text[screen.text.rindex("检查你的回答：") :]
    assert '  1. 姓名："张三"' in review
    assert '  2. City："東京"' in review
    assert f"  3. 出发日期：{shown_day}" in review
    assert "  4. 预算：（未回答）" in review
    # 姓名 (two characters) and City (four) are both four cells wide: their values, one of
    # them Chinese, start in the same column; a label two cells wider moves its value by two.
    name_at, city_at = screen.column('"张三"'), screen.column('"東京"')
    assert name_at == city_at == len("  1. ") + 4 + get_cwidth("：")
    assert screen.column(shown_day) == name_at + 4  # 出发日期: eight cells
    assert screen.column("（未回答）") == name_at  # 预算: four cells


@pytest.mark.anyio
async def test_the_consent_screen_in_chinese_keeps_its_columns(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    url = "https://bücher.example.com/订单"
    with language("zh-Hans"):
        prompt = UrlPrompt("书店", "请确认订单", url, check_url(url), required_by="下单")
        assert prompt.verdict.reasons, "the test needs a warning"
        answer = await play(
            screen,
            renderer.ask_url(prompt),
            [
                ("书店 请你打开一个链接：", ""),
                ("请确认订单", ""),
                ("要求方：下单", ""),
                (f"URL：{clean(url, newlines=False)}", ""),
                ("域名：example.com", ""),
                ("主机：bücher.example.com（punycode：xn--bcher-kva.example.com）", ""),
                ("警告：", ""),
                ("在浏览器中打开此链接？[y] 是 / [n] 否（拒绝）/ Esc 取消：", "x\r"),
                ("错误：输入 y 打开链接，n 拒绝（Esc 取消）", BACKSPACE + "y\r"),
                ("您已同意打开此链接。", ""),
            ],
        )
        warnings = [clean(r.message, newlines=False) for r in prompt.verdict.reasons]
    assert answer == Accept()
    # Domain, host and every warning: labels of six cells, values in one column; the URL's
    # label is one cell narrower, its value one column to the left.
    column = get_cwidth("域名：")
    assert column == 6
    assert screen.column("example.com", on="域名：") == column
    assert screen.column("bücher.example.com（") == column
    for warning in warnings:
        assert screen.column(warning, on="警告：") == column
    assert screen.column("https://", on="URL：") == column - 1


@pytest.mark.anyio
async def test_a_sign_in_its_waits_and_a_link_not_opened_in_chinese(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    url = "https://auth.example.com/authorize?state=1"
    with language("zh-Hans"):
        prompt = UrlPrompt(
            "files.example",
            "files.example 要求你先登录才能使用。",
            url,
            check_url(url),
            sign_in=True,
        )
        consent = await play(
            screen,
            renderer.ask_url(prompt),
            [
                ("files.example 请你登录：", ""),
                ("这是服务器自身的登录（MCP 授权），而不是工具提出的问题", ""),
                ("请确认下面的域名是你预期的登录方。", ""),
                ("域名：example.com", ""),
                ("在浏览器中打开此链接？", "y\r"),
            ],
        )
        not_opened = await play(
            screen,
            renderer.link_not_opened(prompt, "无法从此处启动浏览器"),
            [
                ("错误：链接未能打开：无法从此处启动浏览器。", ""),
                ("请自行打开（将其复制到浏览器中）：", ""),
                ("尚未向 files.example 发送任何内容。", ""),
                ("自行打开后按 Enter，按 Esc 取消：", "\r"),
                ("继续。", ""),
            ],
        )
        done = anyio.Event()
        done.set()
        waited = await renderer.wait_for_completion(prompt, done)
        await screen.expect(
            "正在等待你在浏览器中登录 files.example……浏览器返回后即结束；按 Esc 取消"
        )
        await screen.expect("已登录 files.example。")
        held = UrlPrompt("bank", "m", url, check_url(url), held=True)
        cancelled = await play(
            screen,
            renderer.wait_for_completion(held, anyio.Event()),
            [("正在等待 bank：你在页面上完成后它会继续……", ESC), ("已取消。", "")],
        )
        await renderer.notify(Notice("bank", "请求过多", "warning"))
        await screen.expect("来自 bank 的警告：请求过多")
    assert (consent, not_opened, waited) == (Accept(), Accept(), Accept())
    assert isinstance(cancelled, Cancel)


# -- the pseudo-locale: nothing the terminal says escaped the catalogs -------------------------


def _problem(form: Form, name: str, typed: str) -> str:
    """What the form model says of a refused answer (forms/ translates it)."""
    found = form.coerce(name, typed)
    assert isinstance(found, Problem), (name, typed)
    return found.message


def _error(form: Form, name: str, typed: str) -> str:
    """The line under a refused answer."""
    return text.error_line(_problem(form, name, typed))


def _question(form: Form, name: str) -> str:
    return text.field_question(form[name]).rstrip()


@pytest.mark.anyio
async def test_nothing_escaped_on_a_form_its_re_asks_and_the_review(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    findings = (
        Problem("email", "secret_like", "this field looks like it asks for a secret"),
        Problem(None, "url_in_form", "the message holds a URL: https://x.example"),
    )
    form = Form.from_schema(SCHEMA)
    with pseudo_language():
        refused = {
            ("name", ""),
            ("name", "A"),
            ("email", "bad"),
            ("age", "200"),
            ("height", "x"),
            ("subscribe", "maybe"),
            ("toppings", "1,2,3"),
        }
        lines = [_error(form, name, typed) for name, typed in refused]
        messages = [_problem(form, name, typed) for name, typed in refused]
        seen: list[str] = []
        answer = await watch(
            screen,
            renderer.ask_form(form_prompt(findings=findings)),
            [
                (_(text.START_QUESTION).rstrip(), "x\r"),
                (_("Error: type a to answer, d to decline or c to cancel"), BACKSPACE + "\r"),
                (_question(form, "name"), "\r"),
                (_error(form, "name", ""), "A\r"),
                (_error(form, "name", "A"), "da\r"),
                (_question(form, "email"), "bad\r"),
                (_error(form, "email", "bad"), BACKSPACE * 3 + "\r"),
                (_question(form, "age"), "200\r"),
                (_error(form, "age", "200"), BACKSPACE * 3 + "\r"),
                (_question(form, "height"), "x\r"),
                (_error(form, "height", "x"), BACKSPACE + "1.5\r"),
                (_question(form, "subscribe"), "maybe\r"),
                (_error(form, "subscribe", "maybe"), BACKSPACE * 5 + "\r"),
                (_question(form, "colour"), "1\r"),
                (_question(form, "toppings"), "1,2,3\r"),
                (_error(form, "toppings", "1,2,3"), BACKSPACE * 2 + "\r"),
                (_(text.REVIEW_HEADING), ""),
                (text.review_question().rstrip(), "?\r"),
                (
                    _("Error: type s to submit, e to edit a field, d to decline or c to cancel"),
                    BACKSPACE + "e\r",
                ),
                (_(text.EDIT_QUESTION).rstrip(), "9\r"),
                (
                    _("Error: type a field's number (1\N{EN DASH}{last}) or its name").format(
                        last=7
                    ),
                    BACKSPACE + "3\r",
                ),
                (_("Current answer: {value}").format(value=30), ""),
                (_question(form, "age"), "41\r"),
                (_(text.REVIEW_HEADING), "d\r"),
                (_("Declined."), ""),
            ],
            seen,
        )
        allowed = [
            "weather",
            "Tell us about you",
            *(f.message for f in findings),
            *messages,
            *(f.label for f in form),
            *(f.help for f in form if f.help),
            *(c.title for f in form for c in f.choices if c.title),
            *(c.value for f in form for c in f.choices),
            "Ada",  # typed
            "bad",
            "maybe",
            "'x'",  # typed, quoted back in the message
        ]
    assert answer == Decline()
    for shown in lines:  # each error was on screen at its step
        assert any(shown in at_step for at_step in seen), shown
    for at_step in seen:
        assert escaped(at_step, allowed) == [], at_step
    assert escaped_anywhere(seen, allowed) == [], seen[-1]


@pytest.mark.anyio
async def test_nothing_escaped_on_the_review_of_dates_numbers_and_files(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "day": {"type": "string", "format": "date", "title": "Day"},
            "at": {"type": "string", "format": "date-time", "title": "At"},
            "n": {"type": "number", "title": "N", "default": 1234.5},
            "tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["x"]}},
            "site": {"type": "string", "format": "uri", "title": "Site", "pattern": "^https"},
            "note": {"type": "string", "title": "Note", "maxLength": 1},
        },
    }
    moment = datetime.fromisoformat("2025-03-31T14:30:00Z")
    with pseudo_language():
        prompt = FormPrompt("weather", "Tell us about you", Form.from_schema(schema))
        await play(
            screen,
            renderer.ask_form(prompt),
            [
                (_(text.START_QUESTION).rstrip(), "\r"),
                ("Day", "2026-11-27\r"),
                ("At", "2025-03-31T14:30:00Z\r"),
                ("N", "\r"),
                ("Tags", "\r"),
                ("Site", "\r"),
                ("Note", "\r"),
                (_(text.REVIEW_HEADING), "c\r"),
                (_("Cancelled."), ""),
            ],
        )
        shown = [format_date(date(2026, 11, 27)), format_datetime(moment)]
        allowed = ["weather", "Tell us about you", "Day", "At", "Tags", "Site", "Note"]
        allowed += [*shown, "2025-03-31T14:30:00Z", "^https"]  # CLDR's words (Nov, PM)
    assert "1,234.5" in screen.text
    for value in shown:
        assert value in screen.text
    assert escaped(screen.text, allowed) == [], screen.text


@pytest.mark.anyio
async def test_nothing_escaped_on_the_consent_screens_and_waits(
    screen: WideScreen, renderer: TerminalRenderer
) -> None:
    link = "https://bücher.example.com/order?next=http://a.example"
    sign_in = "https://auth.example.com/authorize?state=1"
    local = "https://printer.local/setup"
    with pseudo_language():
        warned = UrlPrompt(
            "bank", "Sign in to link your account", link, check_url(link), required_by="book"
        )
        assert warned.verdict.reasons, "the test needs a warning"
        signing = UrlPrompt("files", "Sign in first", sign_in, check_url(sign_in), sign_in=True)
        nameless = UrlPrompt("bank", "Set up", local, check_url(local))
        assert nameless.verdict.registrable_domain is None
        yes_no = _("Error: type y to open the link or n to decline (Esc cancels)")
        await play(
            screen,
            renderer.ask_url(warned),
            [(_(text.URL_QUESTION).rstrip(), "x\r"), (yes_no, BACKSPACE + "n\r")],
        )
        await play(screen, renderer.ask_url(signing), [(_(text.SIGN_IN_NOTE)[-20:], "y\r")])
        await play(screen, renderer.ask_url(nameless), [("printer.local", ESC)])
        await play(
            screen,
            renderer.link_not_opened(warned, "no display"),
            [(_(text.OPENED_QUESTION).rstrip(), ESC)],
        )
        done = anyio.Event()
        done.set()
        await renderer.wait_for_completion(signing, done)
        await renderer.wait_for_completion(warned, done)
        await play(
            screen,
            renderer.wait_for_completion(UrlPrompt("bank", "m", link, check_url(link)), done),
            [],
        )
        held = UrlPrompt("bank", "m", link, check_url(link), held=True)
        await play(screen, renderer.wait_for_completion(held, anyio.Event()), [(">", "\r")])
        for level in ("info", "warning", "error", "debug", ""):
            await renderer.notify(Notice("bank", "too many", level))
        await screen.expect("too many")
        allowed = [
            "bank",
            "files",
            "book",
            "Sign in to link your account",
            "Sign in first",
            "Set up",
            "no display",
            "too many",
            "Debug",  # the level of a notice, a code, as it came
            clean(link, newlines=False),
            sign_in,
            local,
            "bücher.example.com",
            "xn--bcher-kva.example.com",
            "auth.example.com",
            "example.com",
            "printer.local",
        ]
        for prompt in (warned, signing, nameless):
            allowed += [clean(r.message, newlines=False) for r in prompt.verdict.reasons]
            allowed.append(prompt.verdict.who_controls or "")
    assert escaped(screen.text, [a for a in allowed if a]) == [], screen.text


@pytest.mark.anyio
async def test_nothing_escaped_on_a_free_text_answer_and_its_files(
    screen: WideScreen, renderer: TerminalRenderer, tmp_path: Path
) -> None:
    (tmp_path / "cat.png").write_bytes(png_bytes())
    (tmp_path / "purr.wav").write_bytes(wav_bytes())
    (tmp_path / "notes.txt").write_text("a shopping list")
    (tmp_path / "folder").mkdir()
    folder, missing = tmp_path / "folder", tmp_path / "missing.png"
    cat, purr, notes = tmp_path / "cat.png", tmp_path / "purr.wav", tmp_path / "notes.txt"
    seen: list[str] = []
    with pseudo_language():
        form = Form.from_schema(form_requests.free_text_schema())
        prompt = FormPrompt("old", "What is your favourite city?", form, free_text=True)
        attach = _(text.ATTACH_QUESTION).rstrip()
        review = text.review_question(free_text=True, files=True).rstrip()
        not_attachable = _(
            "{name} is not an image or audio file ({type}): only images and audio can be attached"
        ).format(name="notes.txt", type="text/plain")
        answer = await watch(
            screen,
            renderer.ask_form(prompt),
            [
                (_(text.START_QUESTION).rstrip(), "\r"),
                (text.field_question(form.fields[0], free_text=True).rstrip(), "\r"),
                (attach, "\r"),
                (_(text.TEXT_OR_FILE_ERROR), ""),
                (text.field_question(form.fields[0], free_text=True).rstrip(), "\r"),
                (attach, f"{folder}\r"),
                (
                    text.error_line(
                        _("{path} is a folder: type the path of a file in it").format(path=folder)
                    ),
                    BACKSPACE * len(str(folder)) + f"{missing}\r",
                ),
                (
                    text.error_line(_("{path}: no such file").format(path=missing)),
                    BACKSPACE * len(str(missing)) + f"{notes}\r",
                ),
                (text.error_line(not_attachable), BACKSPACE * len(str(notes)) + f"{cat}\r"),
                (attach, f"{purr}\r"),
                (attach, "\r"),
                (_(text.REVIEW_HEADING), ""),
                (review, "?\r"),
                (
                    _(
                        "Error: type s to submit, e to edit your answer, a to attach a file, "
                        "r to remove a file, d to decline or c to cancel"
                    ),
                    BACKSPACE + "r\r",
                ),
                (_(text.REMOVE_QUESTION).rstrip(), "3\r"),
                (
                    _("Error: type a file's number (1\N{EN DASH}{last}) or its name").format(
                        last=2
                    ),
                    BACKSPACE + "1\r",
                ),
                (_("Removed: {name}").format(name="cat.png"), ""),
                (review, "r\r"),
                (_("Removed: {name}").format(name="purr.wav"), ""),
                (_("(no files attached)"), "s\r"),
                (_("Nothing was sent: fix these, then submit again."), "e\r"),
                (_("Current answer: {value}").format(value=_("(no answer)")), "Lisbon\r"),
                ('"Lisbon"', "c\r"),
                (_("Cancelled."), ""),
            ],
            seen,
        )
        allowed = [
            "old",
            "What is your favourite city?",
            str(tmp_path),
            "cat.png",
            "purr.wav",
            "notes.txt",
            "folder",
            "missing.png",
            "image/png",
            "audio/wav",
            "text/plain",
            "Lisbon",
        ]
        sizes = [_("{size} MB").format(size=10), text.size_text(len(wav_bytes()))]
    assert isinstance(answer, Cancel)
    for size in sizes:  # the limit, and purr.wav in KB
        assert any(size in at_step for at_step in seen), size
    assert escaped_anywhere(seen, allowed) == [], seen[-1]


def test_nothing_escaped_where_a_link_has_no_host() -> None:
    url = "mailto:someone@example.com"
    with pseudo_language():
        verdict = check_url(url)
        assert verdict.display_host is None
        before, domain, after = text.url_screen(UrlPrompt("bank", "Write to us", url, verdict))
        allowed = [
            "bank",
            "Write to us",
            url,
            *(clean(r.message, newlines=False) for r in verdict.reasons),
            "'mailto:'",  # the scheme and the allowed ones, named in the reason: data
            "'https'",
            "https",
        ]
    assert escaped("\n".join([*before, domain, *after]), allowed) == []


# -- the handler -------------------------------------------------------------------------------


def test_the_handler_caches_what_it_read_of_a_schema_per_language() -> None:
    """The findings it caches with a schema are for people, in their language."""
    schema = {"type": "object", "properties": {"password": {"type": "string"}}}
    form_requests._read_and_lint_cached.cache_clear()
    with language("en"):
        english = form_requests._read_and_lint(schema, "2025-06-18")[2]
    with pseudo_language():
        form_requests._read_and_lint(schema, "2025-06-18")
    with language("en"):
        assert form_requests._read_and_lint(schema, "2025-06-18")[2] == english
    info = form_requests._read_and_lint_cached.cache_info()
    assert (info.misses, info.hits) == (2, 1)


def test_the_free_text_question_is_titled_in_the_language() -> None:
    with language("zh-Hans"):
        title = form_requests.free_text_schema()["properties"]["response"]["title"]
    assert title == "你的回答"
    assert form_requests.free_text_schema()["properties"]["response"]["title"] == "Your answer"
