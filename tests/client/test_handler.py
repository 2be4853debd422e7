"""The handler and ElicitingClient against in-process official-SDK servers."""

from __future__ import annotations

import io
import json
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import (
    OUTCOME_META,
    Asking,
    AuditLog,
    ElicitationHandler,
    ElicitingClient,
    Policy,
    RateLimit,
    UrlPrompt,
)
from mcp_elicit.client.audit import REDACTED
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.revisions import Revision
from tests.client_support import RecordingRenderer, booking_server
from tests.peers import EVERYTHING_INTEGER_FIELD

pytestmark = pytest.mark.anyio

ERAS = ["2025-06-18", "2025-11-25", "2026-07-28"]
PUSH_ERAS = ["2025-06-18", "2025-11-25"]
FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def handler(answers: list[dict[str, Any]], **kwargs: Any) -> ElicitationHandler:
    opened: list[str] = []
    made = ElicitationHandler(RecordingRenderer(answers), opener=opened.append, **kwargs)
    made.opened = opened  # type: ignore[attr-defined]
    return made


def text(result: Any) -> str:
    return str(result.content[0].text)


def structured(result: Any) -> Any:
    return result.structured_content.get("result", result.structured_content)


async def call(
    h: ElicitationHandler, tool: str, args: dict[str, Any] | None = None, **kw: Any
) -> Any:
    protocol = kw.pop("protocol", "2025-11-25")
    async with ElicitingClient(booking_server(), h, protocol=protocol, **kw) as client:
        return await client.call_tool(tool, args or {})


@pytest.mark.parametrize("protocol", ERAS)
async def test_accept_decline_and_cancel_reach_the_server(protocol: str) -> None:
    h = handler(
        [
            {"action": "accept", "content": {"name": "Ada"}, "defaults": True},
            {"action": "accept", "content": {"name": "Bo", "guests": 5}},
            {"action": "decline"},
            {"action": "cancel"},
        ]
    )
    async with ElicitingClient(booking_server(), h, protocol=protocol) as client:
        assert client.protocol_version == protocol
        outcomes = [text(await client.call_tool("book")) for _ in range(4)]
    assert outcomes == [
        "booked Ada x2",
        "booked Bo x5",
        "no booking: decline",
        "no booking: cancel",
    ]
    prompt = h.renderer.prompts[0]  # type: ignore[union-attr]
    assert prompt.server == "test-server" and prompt.message == "Book a table?"
    assert [f.name for f in prompt.form] == ["name", "guests"]


@pytest.mark.parametrize(
    ("modes", "declared"),
    [
        (ElicitationModes(form=True), {"form": {}}),
        (ElicitationModes(url=True), {"url": {}}),
        (ElicitationModes(form=True, url=True), {"form": {}, "url": {}}),
    ],
)
@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_capabilities_declare_exactly_the_modes(
    modes: ElicitationModes, declared: dict[str, Any], protocol: str
) -> None:
    h = handler([], policy=Policy(modes=modes))
    result = await call(h, "caps", protocol=protocol)
    assert result.structured_content == {"elicitation": declared}


async def test_2025_06_18_declares_the_bare_capability() -> None:
    result = await call(handler([]), "caps", protocol="2025-06-18")
    assert result.structured_content == {"elicitation": {}}


async def test_a_malformed_schema_gets_invalid_params_naming_each_problem() -> None:
    h = handler([{"action": "accept", "content": {}}])
    bad = {
        "message": "Where?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "address": {"type": "object", "properties": {}},
                "size": {"type": "integer", "minimum": "big"},
            },
        },
    }
    result = await call(h, "raw", {"params": bad})
    error = result.structured_content["error"]
    assert error["code"] == -32602
    fields = {p["field"] for p in error["data"]["problems"]}
    assert fields == {
        "requestedSchema.properties.address",
        "requestedSchema.properties.size",
    }
    assert h.renderer.prompts == []  # type: ignore[union-attr]  # never shown to the person


async def test_a_request_without_a_message_gets_invalid_params() -> None:
    result = await call(handler([]), "raw", {"params": {"requestedSchema": FORM}})
    error = result.structured_content["error"]
    assert error["code"] == -32602
    assert error["data"]["problems"][0]["field"] == "message"


async def test_a_mode_the_client_did_not_declare_is_refused() -> None:
    h = handler([{"action": "accept"}], policy=Policy(modes=ElicitationModes(form=True)))
    params = {
        "mode": "url",
        "message": "Open",
        "url": "https://example.com/x",
        "elicitationId": "1",
    }
    result = await call(h, "raw", {"params": params})
    assert result.structured_content["error"]["code"] == -32602
    assert "url" in json.dumps(result.structured_content["error"]["data"])


async def test_no_person_available_cancels_and_says_so_in_meta() -> None:
    h = ElicitationHandler(None)
    result = await call(h, "raw", {"params": {"message": "Name?", "requestedSchema": FORM}})
    assert result.structured_content == {"action": "cancel", "_meta": {OUTCOME_META: "no-person"}}


async def test_a_persons_decline_carries_no_outcome_marker() -> None:
    h = handler([{"action": "decline"}])
    result = await call(h, "raw", {"params": {"message": "Name?", "requestedSchema": FORM}})
    assert result.structured_content == {"action": "decline"}


async def test_a_denied_server_is_never_shown() -> None:
    h = handler([{"action": "accept"}], policy=Policy(deny_servers=("test-*",)))
    result = await call(h, "raw", {"params": {"message": "Name?", "requestedSchema": FORM}})
    assert result.structured_content["_meta"] == {OUTCOME_META: "server-denied"}
    assert h.renderer.prompts == []  # type: ignore[union-attr]


async def test_a_flood_is_cancelled_beyond_the_limit_and_the_person_told_once() -> None:
    answers = [{"action": "accept", "content": {}}] * 10
    h = handler(answers, policy=Policy(rate_limit=RateLimit(requests=3, per_seconds=60)))
    result = await call(h, "flood", {"count": 8})
    assert structured(result) == ["accept"] * 3 + ["cancel:rate-limited"] * 5
    renderer = h.renderer
    assert len(renderer.prompts) == 3  # type: ignore[union-attr]
    assert len(renderer.notices) == 1  # type: ignore[union-attr]
    assert "test-server" in renderer.notices[0].text  # type: ignore[union-attr]


async def test_an_invalid_answer_is_never_sent() -> None:
    h = handler([{"action": "accept", "content": {"name": "Ada", "guests": 99}}])
    assert text(await call(h, "book")) == "no booking: cancel"
    notice = h.renderer.notices[0]  # type: ignore[union-attr]
    assert notice.level == "error" and "guests" in notice.text


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data",
        "https://user:pw@example.com/",
        "https://127.0.0.1/",
        "javascript:alert(1)",
    ],
)
async def test_a_blocked_url_is_never_offered_or_opened(url: str) -> None:
    h = handler([{"action": "accept"}])
    params = {"mode": "url", "message": "Open", "url": url, "elicitationId": "e1"}
    result = await call(h, "raw", {"params": params})
    assert result.structured_content == {"action": "cancel", "_meta": {OUTCOME_META: "url-blocked"}}
    assert h.renderer.prompts == []  # type: ignore[union-attr]
    assert h.opened == []  # type: ignore[attr-defined]
    assert "Blocked" in h.renderer.notices[0].text  # type: ignore[union-attr]


async def test_a_url_opens_only_after_consent() -> None:
    h = handler([{"action": "decline"}, {"action": "accept"}])
    url = "https://accounts.example.co.uk/link"
    params = {"mode": "url", "message": "Link", "url": url, "elicitationId": "e1"}
    declined = await call(h, "raw", {"params": params})
    assert declined.structured_content == {"action": "decline"}
    assert h.opened == []  # type: ignore[attr-defined]
    accepted = await call(h, "raw", {"params": params})
    assert accepted.structured_content == {"action": "accept"}
    assert h.opened == [url]  # type: ignore[attr-defined]
    prompt = h.renderer.prompts[1]  # type: ignore[union-attr]
    assert isinstance(prompt, UrlPrompt)
    assert prompt.verdict.registrable_domain == "example.co.uk"


async def test_the_early_drafts_message_only_ask_is_one_free_text_question() -> None:
    h = handler([{"action": "accept", "content": {"response": "blue"}}])
    result = await call(h, "raw", {"params": {"message": "Favourite colour?"}})
    # Answered in the draft's own shape: content items, no action.
    assert result.structured_content == {"content": [{"type": "text", "text": "blue"}]}
    prompt = h.renderer.prompts[0]  # type: ignore[union-attr]
    assert prompt.free_text and len(prompt.form) == 1


async def test_an_early_draft_decline_or_cancel_is_cancelled() -> None:
    h = handler([{"action": "decline"}, {"action": "cancel"}])
    for _ in range(2):
        result = await call(h, "raw", {"params": {"message": "Favourite colour?"}})
        assert result.structured_content == {"content": [], "cancelled": True}


async def test_the_url_drafts_spelling_is_accepted_on_an_older_session() -> None:
    h = handler([{"action": "accept"}])
    params = {"mode": "url", "message": "Link", "url": "https://example.com/a", "elicitionId": "7"}
    result = await call(h, "raw", {"params": params}, protocol="2025-06-18")
    assert result.structured_content == {"action": "accept"}


async def test_findings_about_the_request_reach_the_person() -> None:
    schema = {
        "type": "object",
        "properties": {"api_key": {"type": "string", "title": "API key"}},
    }
    h = handler([{"action": "decline"}])
    params = {"message": "Paste it, or visit https://evil.example/", "requestedSchema": schema}
    await call(h, "raw", {"params": params})
    codes = {p.code for p in h.renderer.prompts[0].findings}  # type: ignore[union-attr]
    assert {"looks_secret", "url_in_text"} <= codes


async def test_the_reference_servers_negated_pin_is_not_flagged_to_the_person() -> None:
    # server-everything's form says "do not give us your phone number, pin, ...": telling
    # the person it asks for a secret was wrong (issue 31).
    schema = {"type": "object", "properties": {"integer": EVERYTHING_INTEGER_FIELD}}
    h = handler([{"action": "decline"}])
    params = {
        "message": "Please provide inputs for the following fields:",
        "requestedSchema": schema,
    }
    await call(h, "raw", {"params": params})
    assert h.renderer.prompts[0].findings == ()  # type: ignore[union-attr]


async def test_request_timeouts_pause_while_the_person_answers() -> None:
    slow_person = handler([{"action": "accept", "content": {"name": "Ada"}}])
    slow_person.renderer.delay = 1.0  # type: ignore[union-attr]
    result = await call(slow_person, "book", read_timeout=0.4)
    assert text(result) == "booked Ada x2"


async def test_a_silent_server_still_times_out() -> None:
    with pytest.raises(MCPError) as caught:
        await call(handler([]), "slow", {"seconds": 2}, read_timeout=0.3)
    assert caught.value.code == -32001 or "timed out" in caught.value.message


async def test_the_audit_log_redacts_answers_by_default_and_secrets_always() -> None:
    sink = io.StringIO()
    h = handler([{"action": "accept", "content": {"name": "Ada"}}], audit=AuditLog(sink))
    await call(h, "book")
    entry = json.loads(sink.getvalue().splitlines()[-1])
    assert entry["outcome"] == "accept" and entry["server"] == "test-server"
    assert entry["content"] == {"name": REDACTED}
    assert "Ada" not in sink.getvalue()

    open_log = AuditLog(io.StringIO(), redact=False)
    assert open_log.content({"name": "Ada", "password": "hunter2"}) == {
        "name": "Ada",
        "password": REDACTED,
    }


async def test_concurrent_requests_are_shown_one_at_a_time() -> None:
    h = handler([{"action": "accept", "content": {"name": str(i)}} for i in range(6)])
    h.renderer.delay = 0.05  # type: ignore[union-attr]
    showing = 0
    most = 0
    original = h.renderer.ask_form  # type: ignore[union-attr]

    async def counting(prompt: Any) -> Any:
        nonlocal showing, most
        showing += 1
        most = max(most, showing)
        try:
            return await original(prompt)
        finally:
            showing -= 1

    h.renderer.ask_form = counting  # type: ignore[union-attr]
    client = ElicitingClient(booking_server(), h, protocol="2025-11-25")
    async with client, anyio.create_task_group() as tasks:
        for _ in range(6):
            tasks.start_soon(client.call_tool, "book")
    assert most == 1


LOOPBACK_LINK = {
    "mode": "url",
    "message": "Type your key on this server's page",
    "url": "http://127.0.0.1:8123/pages/flow/abc",
    "elicitationId": "e1",
}


@pytest.mark.parametrize(
    ("local", "policy", "offered"),
    [
        (True, Policy(), True),  # a server this host started over stdio: its own pages
        (False, Policy(), False),  # any other server: the default policy blocks http
        (True, Policy(loopback_for_local_servers=False), False),  # the host said no
    ],
)
async def test_http_loopback_links_are_offered_for_a_server_the_host_started(
    local: bool, policy: Policy, offered: bool
) -> None:
    h = handler([{"action": "accept"}], policy=policy)
    asking = Asking("hotel", Revision.V2025_11_25, local=local)
    result = await h.handle(LOOPBACK_LINK, asking)
    if offered:
        assert result == {"action": "accept"}
        (prompt,) = h.renderer.prompts  # type: ignore[union-attr]
        assert "local_development" in prompt.verdict.codes  # the warning is shown
        assert h.opened == [LOOPBACK_LINK["url"]]  # type: ignore[attr-defined]
    else:
        assert result == {"action": "cancel", "_meta": {OUTCOME_META: "url-blocked"}}
        assert h.opened == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/pages/flow/abc",
        "http://192.168.1.10/pages",
        "http://169.254.169.254/",
        "https://0x7f.1/admin",  # loopback in disguise: not how a server names its pages
    ],
)
async def test_a_local_server_gets_loopback_http_only(url: str) -> None:
    h = handler([{"action": "accept"}])
    asking = Asking("hotel", Revision.V2025_11_25, local=True)
    result = await h.handle({**LOOPBACK_LINK, "url": url}, asking)
    assert result == {"action": "cancel", "_meta": {OUTCOME_META: "url-blocked"}}
    assert h.opened == []  # type: ignore[attr-defined]


def test_only_a_server_started_over_stdio_is_local(tmp_path: Any) -> None:
    from mcp.client.stdio import StdioServerParameters

    from mcp_elicit.client.targets import server_for

    h = handler([])
    stdio = StdioServerParameters(command="python", args=["server.py"])
    logged = server_for(None, ["python", "server.py"], log_stderr=True)
    assert ElicitingClient(stdio, h).local and ElicitingClient(logged, h).local
    assert not ElicitingClient("http://127.0.0.1:8000/mcp", h).local
    assert not ElicitingClient(booking_server(), h).local  # in-process: not started by us
