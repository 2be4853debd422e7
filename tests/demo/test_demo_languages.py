"""``mcp-elicit demo`` under ``zh_CN.UTF-8``, as a person in China runs it, in tmux.

The whole demo, to the end: the host's narration, the questions' frames, the validation message
for a date that does not exist, the review screen and the consent screen before a link opens
are in Chinese; what the demo server says (its questions, its results) is the server's own
words and stays as it sent them. The expected Chinese comes from the catalog, and each is
checked to be Chinese first, so an untranslated string fails here rather than matching itself.
"""

from __future__ import annotations

import re
import subprocess
import uuid

import anyio
import pytest

from mcp_elicit.i18n import _, language
from tests.demo.support import Demo, fingerprint
from tests.peer_servers.secret_server import browser
from tests.peers import missing
from tests.tmux_pane import Pane

pytestmark = [pytest.mark.tmux, pytest.mark.slow]

_CJK = re.compile(r"[\u4e00-\u9fff]")


def zh(message: str, **fields: object) -> str:
    """``message`` as the Chinese catalog has it (and Chinese, or the test is wrong)."""
    with language("zh-Hans"):
        text = _(message).format(**fields)
    assert _CJK.search(text), f"not translated: {message!r}"
    return text


def head(text: str, n: int = 24) -> str:
    """The first ``n`` characters: a long line may wrap on the 160-column screen."""
    return text.strip()[:n]


def test_the_demo_in_chinese_from_booking_to_the_secret_and_the_prompt(demo: Demo) -> None:
    listed = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=False)
    if "zh_cn.utf8" not in listed.stdout.lower().replace("-", ""):
        missing("the zh_CN.UTF-8 locale (make zh-locale)")
    pane = demo.start("2026-07-28", env={"LANG": "zh_CN.UTF-8"})
    pane.wait_for(head(zh("Press Enter to call {tool}… ", tool="book_room")), timeout=Pane.STARTUP)
    pane.keys("Enter")
    screen = pane.wait_for(
        head(zh("Answer this request? [a]nswer/[d]ecline/[c]ancel (Enter: answer): "))
    )
    assert zh("{server} asks:", server="Hotel MCP") in screen
    pane.keys("Enter")
    pane.wait_for("Guest name")
    pane.type("Ada Lovelace")
    pane.wait_for("Arrival date")
    pane.type("2026-13-01")
    # The client checks the answer before it is sent: the message is the catalog's Chinese.
    with language("zh-Hans"):
        from mcp_elicit.forms import Form

        (problem,) = Form.from_schema(
            {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}
        ).validate({"d": "2026-13-01"})
    assert _CJK.search(problem.message), problem.message
    screen = pane.wait_for(head(problem.message, 12))
    assert "must be a real calendar date" not in screen
    pane.keys(*["BSpace"] * 10)
    pane.type("2026-12-01")
    pane.wait_for("Nights")
    pane.type("3")
    pane.wait_for("Room")
    pane.type("2")
    pane.wait_for("Breakfast included")
    pane.keys("Enter")
    review = zh("[s]ubmit / [e]dit a field / [d]ecline / [c]ancel: ")
    screen = pane.wait_for(head(review, 12))
    # The review shows the date the person's way; the server still gets 2026-12-01.
    assert "2026年12月1日" in screen
    pane.type("s")
    pane.wait_for("Any extras?")
    pane.wait_for(
        head(zh("Answer this request? [a]nswer/[d]ecline/[c]ancel (Enter: answer): ")), count=2
    )
    pane.keys("Enter")
    pane.wait_for("Extras")
    pane.type("1,2")
    pane.wait_for(head(review, 12), count=2)
    pane.type("s")
    pane.wait_for("Booked B-1042: Ada Lovelace, sea view, 2026-12-01 to 2026-12-04")

    pane.wait_for(head(zh("Press Enter to call {tool}… ", tool="cancel_booking")))
    pane.keys("Enter")
    pane.wait_for("Cancel booking B-1042")
    pane.keys("Enter")
    pane.type("y")
    pane.wait_for(head(review, 12), count=3)
    pane.type("s")
    pane.wait_for("Cancelled B-1042.")

    pane.wait_for(head(zh("Press Enter to call {tool}… ", tool="forget_weather_key")))
    pane.keys("Enter")
    pane.wait_for(head(zh("Press Enter to call {tool}… ", tool="connect_weather")))
    pane.keys("Enter")
    # The consent screen, in Chinese, before anything opens.
    screen = pane.wait_for(
        head(zh("Open this link in your browser? [y]es/[n]o (decline)/Esc cancel: "))
    )
    assert zh("{server} asks you to open a link:", server="Hotel MCP") in screen
    assert zh("Domain: {domain}", domain="")[:3] in screen
    with language("zh-Hans"):
        assert _("URL: {url}").format(url="http://127.0.0.1:") in screen  # "URL：", full width
    assert not demo.opened.exists()
    pane.type("y")
    url = demo.link()
    key = f"demo-key-{uuid.uuid4().hex}"

    async def person() -> None:
        async with browser(None) as someone:
            await someone.enter(url, key)

    anyio.run(person)
    pane.wait_for(f"Connected the weather service with key {fingerprint(key)}…")
    pane.wait_for(head(zh("Press Enter to call {tool}… ", tool="forecast")))
    pane.keys("Enter")
    pane.wait_for(f"it would use key {fingerprint(key)}…")
    pane.wait_for("mcp>")
    pane.type('call forecast {"city": "Oslo"}')
    pane.wait_for("Oslo: 19°C")
    pane.type("quit")
    pane.wait_for("[exited 0]")
    assert key not in pane.screen()
