"""LangChain agents as the host, through :mod:`mcp_elicit.integrations.langchain`: a real
``langchain.agents.create_agent`` (its model is :class:`CallsOnce`, no LLM: no network, no
key), a LangGraph checkpointer, and ``langchain.mcp.MCPAdapter`` on the real server processes
the fastmcp tests start over stdio, which serve 2026-07-28: a tool that needs input pauses the
run with LangChain's ``mcp_elicitation`` interrupt.

What is checked: the interrupt reviewed as the handler would check it, the answers checked by
``resume_from`` and the tool's result reaching the model; a secret typed on the server's page
in Chromium after the review showed the link's verdict; decline and cancel reaching the tool;
a blocked link refused (no accept, nothing opened); bad answers refused without losing the
interrupt (resumed afterwards from a fresh SQLite saver on the same file, and a fresh server
process); the audit log; ``answer_interrupt`` through the whole handler; "open this link
first" (-32042) on LangChain's path and on ours; and ``MCPAdapter(ElicitingFastMCPClient)``,
where LangChain leaves our handler in charge; and, pinned from the bytes on the wire, that a
resumed run calls the tool afresh and answers the new round.
"""

# ruff: noqa: I001  (LangChain is imported once the support module has checked for it)
from __future__ import annotations

import io
import json
import re
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.integrations import langchain_support
from tests.integrations.langchain_support import (
    agent_for,
    final_text,
    rule_breakers,
    run_agent,
)

import fastmcp
from langchain.mcp import MCPAdapter
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import AuditLog, ElicitationHandler, FormPrompt, Policy, UrlPrompt
from mcp_elicit.integrations.fastmcp import ElicitingFastMCPClient
from mcp_elicit.protocol import FORM_ONLY
from mcp_elicit.integrations.langchain import (
    InterruptAnswerError,
    answer_interrupt,
    is_elicitation_interrupt,
    resume_from,
    review_interrupt,
)
from tests.client_support import RecordingRenderer
from tests.integrations.fastmcp_support import (
    STAY,
    Opener,
    PatientRenderer,
    audit_events,
    handler_for,
    quick_start,
    recorded,
    secret_server,
    type_on_page,
)
from tests.peer_servers.secret_server import Browser

pytestmark = pytest.mark.anyio


def paused(state: dict[str, Any]) -> Any:
    """The run's one pending interrupt: LangChain's elicitation."""
    (interrupt,) = state["__interrupt__"]
    assert is_elicitation_interrupt(interrupt)
    return interrupt


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex}"


# -- 2026-07-28: the interrupt, reviewed and resumed -------------------------------------------


@pytest.mark.slow
async def test_the_form_is_reviewed_resumed_and_its_result_reaches_the_model(
    tmp_path: Path,
) -> None:
    stream = _stream()
    log = AuditLog(stream)
    async with MCPAdapter(quick_start(tmp_path)) as adapter:
        server = adapter.client.server_info.name
        assert adapter.client.protocol_version == "2026-07-28"
        agent = agent_for("book", await adapter.list_tools(), InMemorySaver())
        thread = new_thread()
        interrupt = paused(await run_agent(agent, "book a room", thread))
        review = review_interrupt(interrupt, server=server, local=True)
        shown = review.to_json()
        assert json.loads(json.dumps(shown)) == shown  # plain JSON, for a page
        assert shown["server"] == "hotel" and shown["tool_name"] == "book"
        (request,) = shown["requests"]
        assert request["mode"] == "form" and request["message"] == "Who is staying, and when?"
        assert [f["name"] for f in request["fields"]] == ["guest", "arrival", "nights"]
        assert request["fields"][1]["hint"] == "date, YYYY-MM-DD" and not request["refused"]
        resume = resume_from(
            interrupt,
            {request["key"]: {"action": "accept", "content": STAY}},
            server=server,
            local=True,
            audit=log,
        )
        state = await run_agent(agent, Command(resume=resume), thread)
    assert "__interrupt__" not in state
    assert final_text(state) == "tool said: Booked 2 night(s) from 2026-12-01 for Ada."
    (event,) = audit_events(stream)
    assert event["mode"] == "form" and event["outcome"] == "accept"
    assert event["server"] == "hotel" and event["revision"] == "2026-07-28"
    assert event["tool"] == "book" and event["input_key"] == request["key"]
    assert event["fields"] == ["guest", "arrival", "nights"]
    assert event["content"] == {
        "guest": "[redacted]",
        "arrival": "[redacted]",
        "nights": "[redacted]",
    }
    assert "Ada" not in stream.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("action", "said"), [("decline", "Declined()"), ("cancel", "Cancelled(reason=None)")]
)
async def test_a_decline_or_a_cancel_reaches_the_tool(
    tmp_path: Path, action: str, said: str
) -> None:
    stream = _stream()
    async with MCPAdapter(quick_start(tmp_path)) as adapter:
        agent = agent_for("book", await adapter.list_tools(), InMemorySaver())
        thread = new_thread()
        interrupt = paused(await run_agent(agent, "book a room", thread))
        (key,) = review_interrupt(interrupt, server="hotel").keys
        resume = resume_from(
            interrupt, {key: {"action": action}}, server="hotel", audit=AuditLog(stream)
        )
        assert resume == {"responses": {key: {"action": action}}}
        state = await run_agent(agent, Command(resume=resume), thread)
    assert final_text(state).startswith("tool said: Nothing booked (")
    assert said.split("(")[0] in final_text(state)
    assert [e["outcome"] for e in audit_events(stream)] == [action]


@pytest.mark.slow
@pytest.mark.browser
async def test_the_secret_typed_on_the_page_after_the_review_showed_the_links_verdict(
    tmp_path: Path,
) -> None:
    stream = _stream()
    secret = f"weather-{uuid.uuid4().hex}"
    async with MCPAdapter(quick_start(tmp_path)) as adapter:
        agent = agent_for("connect_weather", await adapter.list_tools(), InMemorySaver())
        thread = new_thread()
        interrupt = paused(await run_agent(agent, "connect the weather", thread))
        # Not said to be local, the stdio server's http://127.0.0.1 page is blocked ...
        remote = review_interrupt(interrupt, server="hotel")
        (blocked,) = remote.requests
        assert blocked.blocked and blocked.to_json()["open_url"] is None
        # ... and offered, with the local-development warning, for the server we started.
        review = review_interrupt(interrupt, server="hotel", local=True)
        (link,) = review.to_json()["requests"]
        assert link["mode"] == "url" and link["verdict"] == "warn"
        assert link["host"] == "127.0.0.1"
        assert "local_development" in {r["code"] for r in link["reasons"]}
        assert link["open_url"].startswith("http://127.0.0.1:")
        await type_on_page(link["open_url"], "WEATHER_API_KEY", secret)
        resume = resume_from(
            interrupt,
            {link["key"]: {"action": "accept"}},
            server="hotel",
            local=True,
            audit=AuditLog(stream),
        )
        state = await run_agent(agent, Command(resume=resume), thread)
    assert final_text(state) == f"tool said: Connected ({len(secret)} characters)."
    (event,) = audit_events(stream)
    assert event["mode"] == "url" and event["outcome"] == "accept"
    assert event["url_verdict"] == "warn" and "/elicit/…#sha256:" in event["url"]
    everything = stream.getvalue() + repr(state) + json.dumps(review.to_json())
    assert secret not in everything


@pytest.mark.slow
async def test_a_blocked_link_is_reviewed_as_blocked_and_its_accept_refused(
    tmp_path: Path,
) -> None:
    # rule_breakers' http-link asks to open http://check.example.com/connect: plain http on a
    # public host, blocked whatever the server (local or not).
    stream = _stream()
    opener = Opener()
    with rule_breakers(tmp_path / "logs") as base:
        async with MCPAdapter(f"{base}http-link/mcp") as adapter:
            agent = agent_for("test_url_elicitation", await adapter.list_tools(), InMemorySaver())
            thread = new_thread()
            interrupt = paused(await run_agent(agent, "open the check page", thread))
            review = review_interrupt(interrupt, server="http-link", local=True)
            (link,) = review.to_json()["requests"]
            assert link["verdict"] == "block" and link["open_url"] is None
            assert "scheme_not_allowed" in {r["code"] for r in link["reasons"]}
            assert link["host"] == "check.example.com"
            with pytest.raises(InterruptAnswerError) as refused:
                resume_from(
                    interrupt,
                    {link["key"]: {"action": "accept"}},
                    server="http-link",
                    local=True,
                    audit=AuditLog(stream),
                )
            (problem,) = refused.value.problems
            assert problem["key"] == link["key"] and problem["code"] == "url_blocked"
            resume = resume_from(
                interrupt,
                {link["key"]: {"action": "decline"}},
                server="http-link",
                audit=AuditLog(stream),
            )
            state = await run_agent(agent, Command(resume=resume), thread)
    assert "__interrupt__" not in state and final_text(state).startswith("tool said: ")
    assert opener.urls == []  # nothing ever opened it
    refused_event, declined = audit_events(stream)
    assert refused_event["outcome"] == "not-sent"
    assert refused_event["problems"][0]["code"] == "url_blocked"
    assert declined["outcome"] == "decline" and declined["why"] == "url-blocked"
    assert declined["url_verdict"] == "block"


@pytest.mark.slow
async def test_bad_answers_are_refused_and_the_interrupt_resumes_from_a_fresh_saver(
    tmp_path: Path,
) -> None:
    # Nothing is sent while an answer is wrong; the interrupt stays, and another process (a
    # fresh SQLite saver on the same file, a fresh server process) reviews and resumes it.
    stream = _stream()
    audit = AuditLog(stream)
    database = str(tmp_path / "checkpoints.sqlite")
    thread = new_thread()
    async with (
        MCPAdapter(quick_start(tmp_path)) as adapter,
        AsyncSqliteSaver.from_conn_string(database) as saver,
    ):
        agent = agent_for("book", await adapter.list_tools(), saver)
        interrupt = paused(await run_agent(agent, "book a room", thread))
        (key,) = review_interrupt(interrupt, server="hotel").keys
        wrong: list[dict[str, Any]] = [
            {key: {"action": "accept", "content": STAY}, "q9": {"action": "decline"}},
            {},
            {key: {"action": "accept", "content": {**STAY, "nights": "two"}}},
            {key: {"action": "accept", "content": {"guest": "Ada"}}},
            {key: {"action": "maybe"}},
        ]
        seen: list[list[dict[str, Any]]] = []
        for answers in wrong:
            with pytest.raises(InterruptAnswerError) as refused:
                resume_from(interrupt, answers, server="hotel", audit=audit)
            seen.append(refused.value.problems)
        assert [p["code"] for p in seen[0]] == ["unknown_key"] and seen[0][0]["key"] == "q9"
        assert seen[1][0]["code"] == "missing_keys" and repr(key) in seen[1][0]["message"]
        assert [(p["key"], p["field"]) for p in seen[2]] == [(key, "nights")]
        assert [(p["key"], p["field"], p["code"]) for p in seen[3]] == [
            (key, "arrival", "required")
        ]
        assert seen[4][0]["code"] == "bad_action"
        with pytest.raises(InterruptAnswerError, match=r"key '\w+' field 'nights': "):
            resume_from(
                interrupt,
                {key: {"action": "accept", "content": {**STAY, "nights": "x"}}},
                server="hotel",
            )
        still = await agent.aget_state({"configurable": {"thread_id": thread}})
        assert [i.value for i in still.interrupts] == [interrupt.value]

    async with (
        MCPAdapter(quick_start(tmp_path)) as adapter,
        AsyncSqliteSaver.from_conn_string(database) as saver,
    ):
        agent = agent_for("book", await adapter.list_tools(), saver)
        snapshot = await agent.aget_state({"configurable": {"thread_id": thread}})
        (restored,) = snapshot.interrupts
        assert (
            review_interrupt(restored, server="hotel").to_json()
            == review_interrupt(interrupt, server="hotel").to_json()
        )
        resume = resume_from(
            restored, {key: {"action": "accept", "content": STAY}}, server="hotel", audit=audit
        )
        state = await run_agent(agent, Command(resume=resume), thread)
    assert final_text(state) == "tool said: Booked 2 night(s) from 2026-12-01 for Ada."
    events = audit_events(stream)
    assert [e["outcome"] for e in events] == ["not-sent"] * 5 + ["accept"]
    assert events[2]["problems"][0]["field"] == "nights"
    assert "Ada" not in stream.getvalue()  # not in a refused answer's problems either


@pytest.mark.slow
async def test_on_resume_langchain_calls_the_tool_afresh_and_answers_the_new_round(
    tmp_path: Path,
) -> None:
    # What LangChain does (docs/frameworks.md): interrupt() unwinds the tool call, so the
    # resumed run calls the tool again from the start, and the answers go out with the
    # requestState of that new round, whose requests nobody reviewed (matched by key only).
    record = tmp_path / "wire"
    record.mkdir()
    async with MCPAdapter(quick_start(tmp_path, record=record)) as adapter:
        agent = agent_for("book", await adapter.list_tools(), InMemorySaver())
        thread = new_thread()
        interrupt = paused(await run_agent(agent, "book a room", thread))
        (key,) = review_interrupt(interrupt, server="hotel").keys
        resume = resume_from(
            interrupt, {key: {"action": "accept", "content": STAY}}, server="hotel"
        )
        state = await run_agent(agent, Command(resume=resume), thread)
    assert final_text(state).startswith("tool said: Booked 2 night(s)")
    lines = b"".join(recorded(record, "sent")).decode().splitlines()
    calls = [
        m["params"] for m in map(json.loads, filter(None, lines)) if m.get("method") == "tools/call"
    ]
    assert [("inputResponses" in c, "requestState" in c) for c in calls] == [
        (False, False),  # the first run: the question, shown as the interrupt
        (False, False),  # the resumed run: the call again, the question asked anew
        (True, True),  # the answers, with the second round's state
    ]
    received = b"".join(recorded(record, "received")).decode()
    states = re.findall(r'"requestState":"([^"]+)"', received)
    assert len(states) == 2 and calls[2]["requestState"] == states[1] != states[0]


# -- a person on this machine: the whole handler -----------------------------------------------


@pytest.mark.slow
async def test_answer_interrupt_takes_the_interrupt_through_the_handler(tmp_path: Path) -> None:
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}])
    handler, log = handler_for(renderer)
    async with MCPAdapter(quick_start(tmp_path)) as adapter:
        agent = agent_for("book", await adapter.list_tools(), InMemorySaver())
        thread = new_thread()
        interrupt = paused(await run_agent(agent, "book a room", thread))
        resume = await answer_interrupt(interrupt, handler, server="hotel", local=True)
        state = await run_agent(agent, Command(resume=resume), thread)
    assert final_text(state) == "tool said: Booked 2 night(s) from 2026-12-01 for Ada."
    (prompt,) = renderer.prompts
    assert isinstance(prompt, FormPrompt) and prompt.server == "hotel"
    assert prompt.revision == "2026-07-28"
    (event,) = audit_events(log)
    assert event["mode"] == "form" and event["outcome"] == "accept"
    assert "Ada" not in log.getvalue()


@pytest.mark.slow
async def test_answer_interrupt_never_offers_a_blocked_link(tmp_path: Path) -> None:
    opener = Opener()
    renderer = RecordingRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    async with MCPAdapter(quick_start(tmp_path)) as adapter:
        agent = agent_for("connect_weather", await adapter.list_tools(), InMemorySaver())
        thread = new_thread()
        interrupt = paused(await run_agent(agent, "connect the weather", thread))
        resume = await answer_interrupt(interrupt, handler, server="hotel")  # not local
        (answer,) = resume["responses"].values()
        assert answer == {"action": "cancel"}
        state = await run_agent(agent, Command(resume=resume), thread)
    assert final_text(state).startswith("tool said: Not connected (")
    assert opener.urls == [] and renderer.prompts == []
    (notice,) = renderer.notices
    assert "Blocked a link" in notice.text
    (event,) = audit_events(log)
    assert event["why"] == "url-blocked" and event["outcome"] == "cancel"


@pytest.mark.slow
async def test_with_our_client_langchain_leaves_the_handler_in_charge(tmp_path: Path) -> None:
    # MCPAdapter honors a client that has an elicitation handler: no interrupt, the handler
    # answers inside the tool call, and the run never pauses.
    renderer = RecordingRenderer([{"action": "accept", "content": STAY}])
    handler, log = handler_for(renderer)
    client = ElicitingFastMCPClient(quick_start(tmp_path), handler)
    async with MCPAdapter(client) as adapter:
        assert adapter.client is client  # not cloned, not armed
        agent = agent_for("book", await adapter.list_tools(), InMemorySaver())
        state = await run_agent(agent, "book a room", new_thread())
    assert "__interrupt__" not in state
    assert final_text(state) == "tool said: Booked 2 night(s) from 2026-12-01 for Ada."
    (prompt,) = renderer.prompts
    assert isinstance(prompt, FormPrompt)
    assert [e["outcome"] for e in audit_events(log)] == ["accept"]


# -- "open this link first" ----------------------------------------------------------------------


@pytest.mark.slow
async def test_on_2026_07_28_a_link_first_is_an_interrupt_not_an_error(tmp_path: Path) -> None:
    # secret_server's connect_later raises secret_required(): on 2026-07-28 that is an
    # InputRequiredResult with a URL request, so LangChain pauses the run with it.
    secret = f"service-{uuid.uuid4().hex}"
    person = Browser(None)
    try:
        async with MCPAdapter(secret_server(tmp_path)) as adapter:
            agent = agent_for("connect_later", await adapter.list_tools(), InMemorySaver())
            thread = new_thread()
            interrupt = paused(await run_agent(agent, "connect", thread))
            (link,) = review_interrupt(interrupt, server="secret", local=True).to_json()["requests"]
            assert link["mode"] == "url" and link["verdict"] == "warn"
            await person.enter(link["open_url"], secret)
            resume = resume_from(
                interrupt, {link["key"]: {"action": "accept"}}, server="secret", local=True
            )
            state = await run_agent(agent, Command(resume=resume), thread)
    finally:
        await person.aclose()
    assert final_text(state).startswith(f"tool said: ok: key ending in {secret[-4:]}")


@pytest.mark.slow
async def test_on_2025_11_25_langchain_ends_the_run_with_the_servers_32042(
    tmp_path: Path,
) -> None:
    # What LangChain decides (docs/frameworks.md): on a 2025-11-25 session the adapter's
    # client only calls the tool, and the server's -32042 is raised out of ainvoke. The model
    # never sees it, no person is asked, and the run ends (nothing to resume).
    adapter = MCPAdapter(fastmcp.Client(secret_server(tmp_path), mode="legacy"))
    async with adapter:
        assert adapter.client.protocol_version == "2025-11-25"
        agent = agent_for("connect_later", await adapter.list_tools(), InMemorySaver())
        with pytest.raises(MCPError) as raised:
            await run_agent(agent, "connect", new_thread())
    assert raised.value.code == -32042
    assert "open a link first" in raised.value.message


@pytest.mark.slow
async def test_on_2025_11_25_langchains_placeholder_refuses_a_pushed_form(tmp_path: Path) -> None:
    # The armed client's handler only declares the capability: a question pushed the
    # 2025-11-25 way is refused (fastmcp answers -32603), nobody is asked, and the model reads
    # the tool's failure, which carries LangChain's words (the quick start's tool fails so).
    adapter = MCPAdapter(fastmcp.Client(quick_start(tmp_path), mode="legacy"))
    async with adapter:
        assert adapter.client.protocol_version == "2025-11-25"
        agent = agent_for("book", await adapter.list_tools(), InMemorySaver())
        state = await run_agent(agent, "book a room", new_thread())
    assert "__interrupt__" not in state
    said = final_text(state)
    assert said.startswith("tool said: Error executing tool book: the client refused")
    assert "legacy server-initiated elicitation path" in said


@pytest.mark.slow
async def test_on_2025_11_25_our_client_takes_the_link_first_through_consent(
    tmp_path: Path,
) -> None:
    opener = Opener()
    renderer = PatientRenderer([{"action": "accept"}])
    handler, log = handler_for(renderer, opener)
    secret = f"service-{uuid.uuid4().hex}"
    client = ElicitingFastMCPClient(secret_server(tmp_path), handler, mode="legacy")
    person = Browser(None)
    try:
        async with MCPAdapter(client) as adapter, anyio.create_task_group() as tasks:

            async def enter_the_key() -> None:
                await person.enter(await opener.next_url(), secret)

            tasks.start_soon(enter_the_key)
            agent = agent_for("connect_later", await adapter.list_tools(), InMemorySaver())
            state = await run_agent(agent, "connect", new_thread())
    finally:
        await person.aclose()
    assert final_text(state).startswith(f"tool said: ok: key ending in {secret[-4:]}")
    (prompt,) = renderer.prompts
    assert isinstance(prompt, UrlPrompt) and prompt.required_by == "connect_later"
    (event,) = audit_events(log)
    assert event["required_by"] == "connect_later" and event["outcome"] == "accept"
    assert secret not in log.getvalue() + repr(state)


# -- without a server process ----------------------------------------------------------------


FORM = {"type": "object", "properties": {"name": {"type": "string", "title": "Your name"}}}


def interrupt_of(*requests: dict[str, Any]) -> dict[str, Any]:
    return {"type": "mcp_elicitation", "tool_name": "t", "requests": list(requests)}


def test_a_refused_form_and_an_undeclared_mode_are_marked_refused() -> None:
    nested = {"type": "object", "properties": {"a": {"type": "object"}}}
    interrupt = interrupt_of(
        {"key": "n", "mode": "form", "message": "m", "requested_schema": nested},
        {"key": "u", "mode": "url", "message": "m", "url": "https://example.com/x"},
    )
    review = review_interrupt(interrupt, server="s", policy=Policy(modes=_form_only()))
    nested_review, link = review.requests
    assert nested_review.refused and nested_review.problems[0]["code"] == "nested"
    assert link.refused and link.problems[0]["code"] == "mode_undeclared"
    with pytest.raises(InterruptAnswerError) as refused:
        resume_from(
            interrupt,
            {"n": {"action": "accept", "content": {}}, "u": {"action": "accept"}},
            server="s",
            policy=Policy(modes=_form_only()),
        )
    assert [p["code"] for p in refused.value.problems] == ["refused", "refused"]


def test_the_review_cleans_what_the_server_wrote() -> None:
    interrupt = interrupt_of(
        {"key": "k", "mode": "form", "message": "Hi \u202eevil\x1b[2J", "requested_schema": FORM}
    )
    (shown,) = review_interrupt(interrupt, server="s").to_json()["requests"]
    assert "\u202e" not in json.dumps(shown, ensure_ascii=False)
    assert "\\u{202e}" in shown["message"] and shown["fields"][0]["label"] == "Your name"


def test_a_denied_server_may_not_be_answered() -> None:
    interrupt = interrupt_of({"key": "k", "mode": "form", "message": "m", "requested_schema": FORM})
    policy = Policy(deny_servers=("evil*",))
    review = review_interrupt(interrupt, server="evil-corp", policy=policy)
    assert review.turned_away == "server-denied"
    with pytest.raises(InterruptAnswerError, match=r"lets nobody answer"):
        resume_from(
            interrupt,
            {"k": {"action": "accept", "content": {"name": "x"}}},
            server="evil-corp",
            policy=policy,
        )
    resume = resume_from(interrupt, {"k": {"action": "decline"}}, server="evil-corp", policy=policy)
    assert resume == {"responses": {"k": {"action": "decline"}}}


def test_a_link_accept_carries_no_content_and_other_interrupts_are_refused() -> None:
    interrupt = interrupt_of(
        {"key": "u", "mode": "url", "message": "m", "url": "https://example.com/x"}
    )
    with pytest.raises(InterruptAnswerError, match="no content"):
        resume_from(interrupt, {"u": {"action": "accept", "content": {"a": 1}}}, server="s")
    assert resume_from(interrupt, {"u": {"action": "accept"}}, server="s") == {
        "responses": {"u": {"action": "accept"}}
    }
    with pytest.raises(ValueError, match="not an MCP elicitation interrupt"):
        review_interrupt({"type": "approval", "requests": []}, server="s")
    assert not is_elicitation_interrupt({"type": "approval"})


async def test_answer_interrupt_cancels_a_request_the_handler_refuses() -> None:
    renderer = RecordingRenderer([])
    handler = ElicitationHandler(renderer, audit=AuditLog(stream := _stream()))
    nested = {"type": "object", "properties": {"a": {"type": "object"}}}
    interrupt = interrupt_of(
        {"key": "n", "mode": "form", "message": "m", "requested_schema": nested}
    )
    resume = await answer_interrupt(interrupt, handler, server="s")
    assert resume == {"responses": {"n": {"action": "cancel"}}}
    assert renderer.prompts == []
    (event,) = audit_events(stream)
    assert event["outcome"] == "error" and event["error"]["code"] == -32602


def test_a_missing_langchain_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(langchain_support, "NEEDED", ("langchain.no_such_module",))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"langchain\.no_such_module is missing"):
        langchain_support.require_langchain()


def _stream() -> io.StringIO:
    return io.StringIO()


def _form_only() -> Any:
    return FORM_ONLY
