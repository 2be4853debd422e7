"""A question whose request is given up while a person has it is withdrawn.

Hosts on agent frameworks run tool calls under short timeouts (the OpenAI Agents SDK: 5 s) or
cancel them, and a server may give up on its own request. The question on screen must then go
(the terminal marks it withdrawn; the page drops it), the next one must show at once and take
an answer, and nothing may be left unawaited. The hosts are in ``withdraw_support``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import anyio
import pytest
from playwright.async_api import expect

from mcp_elicit.client import ElicitationHandler, FormPrompt, UrlPrompt
from tests import markers
from tests.client.web_support import browser_context, current_heading, hosting, open_page
from tests.client.withdraw_support import (
    ASKING,
    FIRST_FORM,
    FIRST_LINK,
    SECOND,
    WITHDRAWN,
    form,
    link,
)
from tests.client_support import RecordingRenderer
from tests.peer_servers.every_field_server import SERVER_NAME
from tests.tmux_pane import ROOT, Pane

HOST = [sys.executable, "-W", "error::RuntimeWarning", "-m", "tests.client.withdraw_support"]


@dataclass
class WithdrawingRenderer(RecordingRenderer):
    """Remembers what it was told to withdraw."""

    withdrawn: list[FormPrompt | UrlPrompt] = field(default_factory=list)

    def withdraw(self, prompt: FormPrompt | UrlPrompt) -> None:
        self.withdrawn.append(prompt)


# -- the handler: the one owner of withdrawal -------------------------------------------------


@pytest.mark.anyio
async def test_the_handler_withdraws_what_the_person_had_and_drops_what_waited() -> None:
    renderer = WithdrawingRenderer([{"action": "decline"}], delay=30.0)
    handler = ElicitationHandler(renderer, opener=None)
    outcomes: list[str] = []

    async def ask(params: dict[str, object], limit: float, label: str) -> None:
        with anyio.move_on_after(limit) as scope:
            await handler.handle(params, ASKING)
        outcomes.append(f"{label}: {'given up' if scope.cancelled_caught else 'answered'}")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(ask, form(FIRST_FORM, "city"), 0.3, "shown")
        await anyio.sleep(0.05)
        tasks.start_soon(ask, link(), 0.1, "queued")
    assert outcomes == ["queued: given up", "shown: given up"]
    # Only the question the person had reached the renderer, and it was withdrawn from it.
    assert [p.message for p in renderer.prompts] == [FIRST_FORM]
    assert renderer.withdrawn == renderer.prompts
    # The screen is free again: the next question is asked and answered at once.
    renderer.delay = 0.0
    assert await handler.handle(form(SECOND), ASKING) == {"action": "decline"}
    assert renderer.withdrawn == renderer.prompts[:1]


@pytest.mark.anyio
async def test_a_renderer_without_withdraw_is_still_given_up_on_cleanly() -> None:
    renderer = RecordingRenderer([{"action": "decline"}], delay=30.0)
    handler = ElicitationHandler(renderer, opener=None)
    with pytest.raises(TimeoutError), anyio.fail_after(0.1):
        await handler.handle(form(FIRST_FORM, "city"), ASKING)
    renderer.delay = 0.0
    assert await handler.handle(form(SECOND), ASKING) == {"action": "decline"}


# -- the terminal, as a person sees it --------------------------------------------------------


@pytest.fixture
def pane_for() -> Iterator[object]:
    panes: list[Pane] = []

    def start(mode: str) -> Pane:
        env = {"PATH": os.environ.get("PATH", ""), "TERM": "xterm"}
        pane = Pane([*HOST, mode], env)
        panes.append(pane)
        return pane

    yield start
    for pane in panes:
        pane.close()


def _after(screen: str, *texts: str) -> None:
    """Each of ``texts`` is on ``screen``, in this order."""
    at = 0
    for text in texts:
        found = screen.find(text, at)
        assert found >= 0, f"{text!r} not after the earlier lines; the screen:\n{screen}"
        at = found + len(text)


@pytest.mark.tmux
@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "first", "question"),
    [
        ("form", FIRST_FORM, "Answer this request? [a]nswer/[d]ecline/[c]ancel"),
        ("url", FIRST_LINK, "Open this link in your browser? [y]es/[n]o (decline)/Esc cancel:"),
    ],
)
def test_a_question_that_times_out_on_screen_is_withdrawn_and_the_next_is_answered(
    pane_for: object, mode: str, first: str, question: str
) -> None:
    pane = pane_for(mode)  # type: ignore[operator]
    pane.wait_for(first, timeout=Pane.STARTUP)
    # The first question's time limit runs out while it is on screen: it is marked withdrawn,
    # and the second, which waited behind it, shows at once.
    screen = pane.wait_for(SECOND)
    _after(screen, first, question, WITHDRAWN, "first: timed out", SECOND)
    pane.keys("Enter")
    pane.wait_for("Field 1 of 1: Town")
    pane.type("Paris")
    pane.wait_for("[s]ubmit")
    pane.type("s")
    screen = pane.wait_for("[done]")
    assert "second: {'action': 'accept', 'content': {'town': 'Paris'}}" in screen
    assert "never awaited" not in screen and "Traceback" not in screen


@pytest.mark.tmux
@pytest.mark.slow
def test_a_question_the_server_cancels_is_withdrawn_from_the_terminal(pane_for: object) -> None:
    pane = pane_for("server")  # type: ignore[operator]
    pane.wait_for("Quick, before I give up!", timeout=Pane.STARTUP)
    # After three seconds the server gives up: notifications/cancelled withdraws the question.
    screen = pane.wait_for("Question 1: a quick one.", timeout=15)
    withdrawn = f"Withdrawn: {SERVER_NAME} no longer waits for an answer to this question"
    _after(screen, "Quick, before I give up!", withdrawn, "Question 1: a quick one.")
    pane.type("d")
    screen = pane.wait_for("[done]")
    assert "impatient: gave up" in screen and "quick: 1:declined" in screen
    assert "never awaited" not in screen and "Traceback" not in screen


# -- nothing left unawaited --------------------------------------------------------------------


@pytest.mark.slow
def test_prompts_given_up_on_screen_or_in_the_queue_leave_nothing_unawaited() -> None:
    markers.require("slow")
    done = subprocess.run(
        [*HOST, "queued"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stderr == "", done.stderr  # no "coroutine ... was never awaited"
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "queued form: timed out",
        "queued link: timed out",
        "queued wait: timed out",
        "shown form: timed out",
        "shown link: timed out",
        "shown wait: timed out",
        "obtain: timed out",
        "withdrawn on screen: 4",  # the form, the link, the wait, the obtain's link
        "tasks left: 0",
        "[done]",
    ]


# -- the web page -------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.browser
async def test_a_withdrawn_question_leaves_the_page_and_the_next_shows() -> None:
    async with hosting() as host, browser_context() as context:
        page = await open_page(context, host)
        impatient = host.call("impatient")
        await expect(await current_heading(page)).to_have_text("Quick, before I give up!")
        quick = host.call("quick", {"n": 1})
        await expect(page.locator("#queue-heading")).to_have_text("1 more waiting")
        # The server gives up after three seconds: the question leaves, the next shows.
        assert await impatient.result() == "gave up"
        await expect(await current_heading(page)).to_have_text("Question 1: a quick one.")
        await expect(page.locator("#queue")).to_be_hidden()
        await expect(page.locator("#notices li")).to_contain_text(
            f"Info from {SERVER_NAME}: withdrew a question before it was answered "
            "(its request was cancelled or timed out): Quick, before I give up!"
        )
        await page.get_by_role("button", name="Decline").click()
        assert await quick.result() == "1:declined"
