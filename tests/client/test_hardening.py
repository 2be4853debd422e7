"""Issue 13: the audit log is its owner's and keeps no live link; a link the browser did not
open is never reported as accepted; a completion for an id the client is not watching is
ignored, not remembered. (Links on command lines: test_opening.py; the 2026-07-28 held
retry: test_held_retry.py.)"""

from __future__ import annotations

import io
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams

from mcp_elicit.client import (
    Accept,
    Asking,
    AuditLog,
    Cancel,
    ElicitationHandler,
    ElicitingClient,
    ScriptedRenderer,
    UrlPrompt,
)
from mcp_elicit.client.audit import redact_url
from mcp_elicit.client.completions import CompletionWatch
from mcp_elicit.client.link_requests import NOT_OPENED
from mcp_elicit.client.web import WebRenderer
from mcp_elicit.protocol import parse_url_required_error
from mcp_elicit.revisions import Revision
from mcp_elicit.urls import check_url
from tests.client.held_support import FLOW, LINK, HeldServer, Person
from tests.client_support import RecordingRenderer, booking_server

pytestmark = pytest.mark.anyio


def entries(sink: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in sink.getvalue().splitlines()]


def pushed(url: str = LINK, elicitation_id: str = "e1") -> dict[str, Any]:
    """``raw``'s argument: a 2025-11-25 URL-mode elicitation pushed during a call."""
    return {
        "params": {
            "mode": "url",
            "message": "Sign in.",
            "url": url,
            "elicitationId": elicitation_id,
        }
    }


async def raw_call(h: ElicitationHandler, arguments: dict[str, Any]) -> Any:
    with anyio.fail_after(20):
        async with ElicitingClient(booking_server(), h, protocol="2025-11-25") as client:
            result = await client.call_tool("raw", arguments)
    return result.structured_content


def link_server() -> MCPServer:
    """``needs_link`` fails with -32042 for :data:`LINK` (id ``a1``) until retried once;
    ``completes_first`` says ``a2`` is complete *before* it first asks for it."""
    server = MCPServer("links")
    seen: set[str] = set()

    @server.tool()
    async def needs_link(ctx: Context) -> str:
        if "a1" in seen:
            return "linked"
        seen.add("a1")
        raise UrlElicitationRequiredError(
            [ElicitRequestURLParams(message="Sign in.", url=LINK, elicitation_id="a1")]
        )

    @server.tool()
    async def completes_first(ctx: Context) -> str:
        if "a2" in seen:
            return "linked"
        seen.add("a2")
        await ctx.request_context.session.send_elicit_complete("a2")
        await anyio.sleep(0.2)  # the notice is in before the error that names the id
        raise UrlElicitationRequiredError(
            [ElicitRequestURLParams(message="Sign in.", url=LINK, elicitation_id="a2")]
        )

    return server


# -- 2. the audit log ---------------------------------------------------------------------------


def test_the_audit_log_file_is_created_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)  # the usual umask, under which a plain open() makes 0644
    try:
        log = AuditLog(tmp_path / "audit.jsonl")
    finally:
        os.umask(old)
    log.record({"outcome": "accept"})
    log.close()
    assert stat.S_IMODE((tmp_path / "audit.jsonl").stat().st_mode) == 0o600


def test_an_audit_log_others_could_read_is_tightened_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text('{"earlier": true}\n')
    path.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.client._private"):
        log = AuditLog(path)
    log.record({"outcome": "decline"})
    log.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "was open to other users (permissions 0644)" in caplog.text
    assert path.read_text().splitlines()[0] == '{"earlier": true}'  # appended to, not replaced


def test_an_audit_log_of_another_user_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text("")
    path.chmod(0o600)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 4242)  # as if it were theirs
    with pytest.raises(PermissionError, match="belongs to another user"):
        AuditLog(path)


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        (LINK, "https://accounts.example.com/elicit/…#sha256:"),
        ("https://example.com/oauth/authorize?state=s3cr3t", "https://example.com/oauth/…#sha256:"),
        ("https://example.com/Zm9vYmFyYmF6", "https://example.com/…#sha256:"),  # may be a token
        ("https://example.com/k9x2", "https://example.com/…#sha256:"),  # digits: may be one
        ("https://user:pw@example.com/", "https://example.com/…#sha256:"),
        ("http://127.0.0.1:8080/elicit/flows/abc", "http://127.0.0.1:8080/elicit/…#sha256:"),
        ("https://[::1]:8443/x/y", "https://[::1]:8443/x/…#sha256:"),
        ("https://example.com/start#frag", "https://example.com/start/…#sha256:"),
    ],
)
def test_links_keep_their_origin_and_a_word_and_lose_the_rest(url: str, kept: str) -> None:
    redacted = redact_url(url)
    assert redacted.startswith(kept)
    assert len(redacted) == len(kept) + 12
    for secret in (FLOW, "s3cr3t", "Zm9vYmFyYmF6", "k9x2", "pw", "abc", "y", "frag"):
        if secret in url:
            assert secret not in redacted.removeprefix(kept[: kept.index("…")])


@pytest.mark.parametrize(
    "url", ["https://example.com", "https://example.com/", "https://example.com/sign-in"]
)
def test_a_link_with_nothing_to_hide_is_kept(url: str) -> None:
    assert redact_url(url) == url


async def test_flow_links_never_reach_the_audit_log_and_entries_still_match() -> None:
    sink = io.StringIO()
    person = Person(consent=[Accept(), Accept()], waits=["done"])
    h = ElicitationHandler(person, opener=lambda url: None, audit=AuditLog(sink))
    await raw_call(h, pushed())  # the pushed link (2025-11-25)
    with anyio.fail_after(20):  # and the same link required by -32042
        async with ElicitingClient(link_server(), h, protocol="2025-11-25") as client:
            await client.call_tool("needs_link", {})
    logged = entries(sink)
    assert FLOW not in sink.getvalue() and "step=1" not in sink.getvalue()
    urls = {entry["url"] for entry in logged}
    (only,) = urls  # both entries carry the same fingerprint: they can be matched
    assert only.startswith("https://accounts.example.com/elicit/…#sha256:")
    assert [e.get("required_by") for e in logged] == [None, "needs_link"]


# -- 3. a link the browser did not open ---------------------------------------------------------


def refusing(result: object) -> Any:
    opened: list[str] = []

    def opener(url: str) -> object:
        opened.append(url)
        if isinstance(result, Exception):
            raise result
        return result

    opener.opened = opened  # type: ignore[attr-defined]
    return opener


FAILURES = {
    "returns False": (False, NOT_OPENED),
    "raises": (OSError("no display"), "the browser could not be started (OSError: no display)"),
}


@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("then", ["opened it myself", "cancel"])
async def test_a_pushed_link_that_did_not_open_is_not_accepted_until_the_person_says(
    failure: str, then: str
) -> None:
    result, why = FAILURES[failure]
    sink = io.StringIO()
    answer = Accept() if then == "opened it myself" else Cancel(reason="the person pressed Esc")
    person = Person(consent=[Accept()], not_opened=[answer])
    opener = refusing(result)
    h = ElicitationHandler(person, opener=opener, audit=AuditLog(sink))
    outcome = await raw_call(h, pushed())
    assert opener.opened == [LINK]
    ((told, reason),) = person.told  # the person heard it, with the link to copy
    assert told.url == LINK and reason == why
    (entry,) = entries(sink)
    assert entry["open_failed"] == why
    if then == "opened it myself":
        assert outcome == {"action": "accept"}
        assert entry["outcome"] == "accept" and entry["opened_by"] == "person"
    else:
        assert outcome == {"action": "cancel"}  # never accept
        assert entry["outcome"] == "cancel"


@pytest.mark.parametrize("then", ["opened it myself", "cancel"])
async def test_a_required_link_that_did_not_open_waits_for_the_person(then: str) -> None:
    answer = Accept() if then == "opened it myself" else Cancel(reason="the person pressed Esc")
    person = Person(consent=[Accept()], not_opened=[answer], waits=["done"])
    h = ElicitationHandler(person, opener=refusing(False))
    with anyio.fail_after(20):
        async with ElicitingClient(link_server(), h, protocol="2025-11-25") as client:
            if then == "cancel":
                with pytest.raises(MCPError) as caught:
                    await client.call_tool("needs_link", {})
                assert caught.value.code == -32042
                assert person.waited == []  # no "waiting for you" for a link never opened
            else:
                result = await client.call_tool("needs_link", {})
                assert result.content[0].text == "linked"  # type: ignore[union-attr]
                assert len(person.waited) == 1
    assert len(person.told) == 1


async def test_on_2026_07_28_a_link_that_did_not_open_and_was_cancelled_is_cancel() -> None:
    held = HeldServer(hold=30.0)
    person = Person(consent=[Accept()], not_opened=[Cancel(reason="the person pressed Esc")])
    h = ElicitationHandler(person, opener=refusing(False))
    with anyio.fail_after(20):
        async with ElicitingClient(held.server, h, protocol="2026-07-28") as client:
            result = await client.call_tool("connect", {})
    assert result.content[0].text == "link cancel"  # type: ignore[union-attr]
    assert held.retries == ["cancel"] and person.waited == []


async def test_a_renderer_without_link_not_opened_is_told_and_asked_by_its_wait() -> None:
    renderer = RecordingRenderer([{"action": "accept"}])  # no link_not_opened
    h = ElicitationHandler(renderer, opener=refusing(False))
    outcome = await raw_call(h, pushed())
    assert outcome == {"action": "accept"}  # the scripted wait stands for "done"
    (notice,) = renderer.notices
    assert LINK in notice.text and NOT_OPENED in notice.text


async def test_a_script_goes_on_and_says_the_link_did_not_open() -> None:
    told: list[str] = []
    renderer = ScriptedRenderer([{"action": "accept"}], notices=lambda n: told.append(n.text))
    h = ElicitationHandler(renderer, opener=refusing(False))
    assert await raw_call(h, pushed()) == {"action": "accept"}
    assert told == [f"the link did not open ({NOT_OPENED}): {LINK}"]


async def test_an_opener_that_returns_nothing_has_opened_it() -> None:
    # Openers that return None (a script's "consented to open" line, list.append) are not
    # failures: only False or an exception is.
    person = Person(consent=[Accept()])
    h = ElicitationHandler(person, opener=lambda url: None)
    assert await raw_call(h, pushed()) == {"action": "accept"}
    assert person.told == []


async def test_a_renderer_that_opens_links_itself_is_never_told_the_opener_failed() -> None:
    class OpensLinks(Person):
        opens_links = True

    person = OpensLinks(consent=[Accept()])
    opener = refusing(False)
    h = ElicitationHandler(person, opener=opener)
    assert await raw_call(h, pushed()) == {"action": "accept"}
    assert opener.opened == [] and person.told == []


# -- 5. completions for ids the client is not watching -----------------------------------------


def test_a_completion_for_an_unknown_id_is_not_remembered() -> None:
    completions = CompletionWatch()
    assert completions.complete("never-seen") is False
    assert not completions.watching("never-seen")
    assert not completions.expect("never-seen").is_set()  # a later one starts incomplete
    for number in range(10_000):  # a flood of them keeps nothing
        completions.complete(f"flood-{number}")
    assert completions._events.keys() == {"never-seen"}


def test_a_forgotten_id_is_unknown_again() -> None:
    completions = CompletionWatch()
    event = completions.expect("e1")
    assert completions.complete("e1") is True and event.is_set()
    completions.forget("e1")
    assert completions.complete("e1") is False
    assert not completions.expect("e1").is_set()


async def test_a_completion_announced_before_the_link_is_asked_for_is_ignored() -> None:
    # The attack: a server says "a2 is complete" before it asks for a2, so that the client
    # would skip the person's "done" and retry at once, as if they had finished the page.
    sink = io.StringIO()
    person = Person(consent=[Accept()], waits=["done"])
    h = ElicitationHandler(person, opener=lambda url: None, audit=AuditLog(sink))
    with anyio.fail_after(20):
        async with ElicitingClient(link_server(), h, protocol="2025-11-25") as client:
            result = await client.call_tool("completes_first", {})
    assert result.content[0].text == "linked"  # type: ignore[union-attr]
    ((_, completed_at_start),) = person.waited
    assert not completed_at_start  # the early notice did not count
    assert [e.get("completed_by") for e in entries(sink)] == ["person"]
    assert not h.completions.watching("a2")


async def test_a_completion_while_the_consent_screen_is_up_still_counts() -> None:
    # The id is watched from before the consent screen: a server that completes while the
    # person is still reading it is heard.
    h = ElicitationHandler(None, opener=lambda url: None)

    class Completing(Person):
        async def ask_url(self, prompt: UrlPrompt) -> Accept:
            assert prompt.elicitation_id is not None
            assert h.completions.complete(prompt.elicitation_id)  # watched already
            return Accept()

    person = Completing()
    h.renderer = person
    error = {
        "code": -32042,
        "message": "open this first",
        "data": {
            "elicitations": [
                {"mode": "url", "message": "Sign in.", "url": LINK, "elicitationId": "c1"}
            ]
        },
    }
    requests = parse_url_required_error(error)
    assert requests is not None
    asking = Asking("links", Revision.V2025_11_25, required_by="needs_link")
    with anyio.fail_after(10):
        assert await h.obtain(requests, asking) is True
    ((_, completed_at_start),) = person.waited
    assert completed_at_start
    assert not h.completions.watching("c1")  # forgotten once the step is over


def test_a_held_prompt_is_only_made_by_the_handler() -> None:
    prompt = UrlPrompt("s", "m", LINK, check_url(LINK))
    assert prompt.held is False


@pytest.mark.parametrize("result", [False, OSError("no display")], ids=["returns False", "raises"])
async def test_when_the_web_page_cannot_be_opened_the_person_is_told_where_it_is(
    result: object,
) -> None:
    said: list[str] = []
    async with WebRenderer(opener=refusing(result), announce=said.append) as page:
        h = ElicitationHandler(page, opener=None)
        async with (
            ElicitingClient(booking_server(), h, protocol="2025-11-25") as client,
            httpx2.AsyncClient(timeout=10) as http,
            anyio.create_task_group() as tasks,
        ):
            outcome: list[str] = []

            async def call() -> None:
                result = await client.call_tool("book", {})
                outcome.append(result.content[0].text)  # type: ignore[union-attr]

            tasks.start_soon(call)
            with anyio.fail_after(10):  # no page yet: the renderer tries to open one
                while not any("yourself" in line for line in said):
                    await anyio.sleep(0.02)
            with anyio.fail_after(10):  # the question waits for the page, opened by hand
                while not (state := (await http.get(f"{page.url}api/state")).json())["prompts"]:
                    await anyio.sleep(0.05)
            (prompt,) = state["prompts"]
            reply = await http.post(
                f"{page.url}api/answer", json={"id": prompt["id"], "action": "decline"}
            )
            assert reply.status_code == 200
            with anyio.fail_after(10):
                while not outcome:
                    await anyio.sleep(0.05)
    assert outcome == ["no booking: decline"]
    told = [line for line in said if "yourself" in line]
    assert len(told) == 1 and page_url_in(told[0])


def page_url_in(line: str) -> bool:
    return "http://127.0.0.1:" in line and line.rstrip().endswith("yourself")


@pytest.mark.parametrize("target", ["a file", "nothing yet"])
def test_an_audit_log_path_that_is_a_symbolic_link_is_refused_not_followed(
    tmp_path: Path, target: str
) -> None:
    """Someone who can make a link at the log's path (a shared or guessed folder) could send
    the record into a file of theirs, or make the host create one: refused, saying why."""
    elsewhere = tmp_path / "elsewhere.txt"
    if target == "a file":
        elsewhere.write_text("theirs\n")
    path = tmp_path / "audit.jsonl"
    path.symlink_to(elsewhere)
    with pytest.raises(OSError, match=r"audit\.jsonl is a symbolic link; the audit log is never"):
        AuditLog(path)
    if target == "a file":
        assert elsewhere.read_text() == "theirs\n"
    else:
        assert not elsewhere.exists()
    assert path.is_symlink()
