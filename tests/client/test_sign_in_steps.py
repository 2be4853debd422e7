"""The sign-in's own steps (``mcp_elicit.client.sign_in``), without a provider or a browser:
the link the SDK hands over is checked, put to the person or opened ahead, and the browser's
return is played with plain HTTP to the loopback listener.

Consent given ahead (``SignIn(ask=False)``, ``--sign-in yes``) covers only a link without
warnings (finding 8): a look-alike (``xn--ggle-55da.com``, which reads google.com with two
Cyrillic o's) is put before the person, and announced with its warnings once agreed; with nobody to
ask it is refused, naming the warnings. ``tests/client/test_sign_in.py`` signs in for real.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import pytest

from mcp_elicit.client import (
    Accept,
    AuditLog,
    Decision,
    Decline,
    ElicitationHandler,
    FormPrompt,
    Notice,
    Policy,
    ScriptedRenderer,
    UrlPrompt,
)
from mcp_elicit.client._loopback import free_port
from mcp_elicit.client.sign_in import SignIn, SignInRefused, _Flow, covered_ahead
from mcp_elicit.urls import UrlPolicy, check_url

pytestmark = pytest.mark.anyio

SERVER_URL = "https://mcp.example.com/mcp"
LOOK_ALIKE = "https://xn--ggle-55da.com/authorize?client_id=c&state=st4te"
CLEAN = "https://accounts.example.com/authorize?client_id=c&state=st4te"
LOOK_ALIKE_WARNINGS = (
    "the host is internationalised: it reads gооgle.com but is xn--ggle-55da.com",
    "the label 'gооgle' mixes scripts (Cyrillic, Latin), a common spoofing trick",
    "the host can be read as google.com",
)


@dataclass
class Person:
    """A renderer that records what it is shown and answers ``answer``."""

    answer: Decision = field(default_factory=Accept)
    prompts: list[UrlPrompt] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        raise AssertionError("no form here")

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        self.prompts.append(prompt)
        return self.answer

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        await completed.wait()
        return Accept()

    async def notify(self, notice: Notice) -> None:
        self.notices.append(notice)


@dataclass
class Ahead:
    """Consent given ahead, as ``mcp-elicit call --sign-in yes`` gives it: what was
    announced, what was opened, what the audit got."""

    announced: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    audit: io.StringIO = field(default_factory=io.StringIO)

    @property
    def recorded(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.audit.getvalue().splitlines()]

    def settings(self) -> SignIn:
        return SignIn(ask=False, announce=self.announced.append, opener=self.opener)

    def opener(self, url: str) -> bool:
        self.opened.append(url)
        return True

    def flow(self, renderer: Any, policy: Policy | None = None) -> _Flow:
        handler = ElicitationHandler(
            renderer, policy=policy or Policy(), opener=self.opener, audit=AuditLog(self.audit)
        )
        return _Flow(SERVER_URL, self.settings(), handler, free_port())


async def signed_in(flow: _Flow, url: str, **query: str) -> Any:
    """The SDK's two steps for ``url``: ``redirect``, then ``callback`` while the browser
    returns to the loopback port with ``query``; what ``callback`` makes of it."""
    replies: list[httpx2.Response] = []

    async def browser() -> None:
        async with httpx2.AsyncClient() as http:
            back = f"http://127.0.0.1:{flow.port}/callback"
            replies.append(await http.get(back, params={"state": "st4te", **query}))

    async with anyio.create_task_group() as tasks:
        await flow.redirect(url)
        tasks.start_soon(browser)
        try:
            result: Any = await flow.callback()
        except SignInRefused as refused:
            result = refused
    assert [reply.status_code for reply in replies] == [200]
    return result


NOBODY: dict[str, Callable[[], tuple[Any, Policy | None]]] = {
    "no renderer": lambda: (None, None),
    "a script's answers": lambda: (ScriptedRenderer([{"action": "accept"}]), None),
    "no person there": lambda: (Person(), Policy(person_available=False)),
}


@pytest.mark.parametrize("nobody", list(NOBODY))
async def test_consent_ahead_does_not_open_a_look_alike_with_nobody_to_ask(nobody: str) -> None:
    renderer, policy = NOBODY[nobody]()
    ahead = Ahead()
    flow = ahead.flow(renderer, policy)
    with pytest.raises(SignInRefused) as refused:
        await flow.redirect(LOOK_ALIKE)
    message = str(refused.value)
    assert message.startswith("not signed in to mcp.example.com: its sign-in link has warnings (")
    for warning in LOOK_ALIKE_WARNINGS:
        assert warning in message
    assert "consent given ahead covers only a link without any" in message
    assert "--sign-in ask" in message
    assert ahead.opened == [] and ahead.announced == []
    if isinstance(renderer, Person):
        assert renderer.prompts == []
    (event,) = ahead.recorded
    assert event["outcome"] == "no-person" and event["why"] == "url-warnings"
    assert event["url_verdict"] == "warn"
    assert event["url_reasons"] == ["idn_host", "mixed_scripts", "confusable_characters"]


async def test_consent_ahead_asks_about_a_look_alike_and_announces_its_warnings() -> None:
    person = Person()
    ahead = Ahead()
    result = await signed_in(ahead.flow(person), LOOK_ALIKE, code="c0de")
    assert result.code == "c0de"
    (prompt,) = person.prompts  # asked, though consent was given ahead
    assert prompt.sign_in and prompt.url == LOOK_ALIKE
    assert prompt.verdict.verdict == "warn"
    assert ahead.opened == [LOOK_ALIKE]
    (line,) = ahead.announced
    assert line.startswith(
        f"signing in to mcp.example.com: opening {LOOK_ALIKE}, which you agreed to despite its "
        "warnings: "
    )
    for warning in LOOK_ALIKE_WARNINGS:
        assert warning in line
    assert ahead.recorded[-1]["outcome"] == "accept"


async def test_consent_ahead_declined_for_a_look_alike_opens_nothing() -> None:
    person = Person(answer=Decline())
    ahead = Ahead()
    with pytest.raises(SignInRefused, match="you declined the sign-in"):
        await ahead.flow(person).redirect(LOOK_ALIKE)
    assert len(person.prompts) == 1
    assert ahead.opened == [] and ahead.announced == []


async def test_consent_ahead_opens_a_link_without_warnings_unasked() -> None:
    person = Person()
    ahead = Ahead()
    result = await signed_in(ahead.flow(person), CLEAN, code="c0de")
    assert result.code == "c0de"
    assert person.prompts == []
    assert ahead.opened == [CLEAN]
    assert ahead.announced == [
        f"signing in to mcp.example.com (consent given ahead): opening {CLEAN}"
    ]


async def test_a_providers_hostile_words_reach_the_refusal_cleaned() -> None:
    ahead = Ahead()
    refused = await signed_in(
        ahead.flow(Person()),
        CLEAN,
        error="access_denied\x1b[2J",
        error_description="\u202eno\x1b[31m thanks\u200b",
    )
    assert isinstance(refused, SignInRefused)
    assert str(refused) == (
        "not signed in to mcp.example.com: access_denied\\u{001b}[2J: "
        "\\u{202e}no\\u{001b}[31m thanks\\u{200b}"
    )


@pytest.mark.parametrize(
    ("url", "covered"),
    [
        ("https://accounts.example.com/authorize", True),  # no warnings
        ("http://127.0.0.1:4000/auth", True),  # this machine, allowed for local development
        ("http://localhost:4000/auth", True),
        ("http://[::1]/auth", True),
        ("https://xn--ggle-55da.com/auth", False),  # a look-alike
        ("http://10.0.0.7/auth", False),  # a private network is not this machine
        ("http://192.168.1.2:8080/auth", False),
    ],
)
def test_consent_ahead_covers_only_a_clean_link_or_this_machine(url: str, covered: bool) -> None:
    verdict = check_url(url, UrlPolicy(allow_http_loopback=True, allow_private=True))
    assert covered_ahead(verdict) is covered, verdict.codes


def test_consent_ahead_does_not_cover_loopback_the_policy_does_not_allow() -> None:
    verdict = check_url("http://127.0.0.1:4000/auth", UrlPolicy(allow_http_loopback=False))
    assert not covered_ahead(verdict)
