"""The bridge (``mcp_elicit.gateway.bridge``): one call per question, one per answer, each
checking, converting and auditing on the way."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from mcp_elicit.client import AuditLog
from mcp_elicit.gateway import VERDICT_META, Safeguards
from mcp_elicit.gateway.bridge import BadAnswer, Bridge, LinkBlocked, Refused
from mcp_elicit.protocol import FORM_AND_URL, FORM_ONLY, ElicitationRequest
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision
from mcp_elicit.urls import Reason, Severity, UrlVerdict, Verdict

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
WHO = ElicitationRequest("form", "Who?", NAME)
LINK = ElicitationRequest("url", "Open it", url="https://pages.example.com/x", elicitation_id="e1")
BLOCKED = ElicitationRequest("url", "Open it", url="http://127.0.0.1/x", elicitation_id="e2")
CLIENT_2025 = Peer("2025-11-25", Revision.V2025_11_25, FORM_AND_URL)


def audited() -> tuple[Bridge, io.StringIO]:
    sink = io.StringIO()
    return Bridge(Safeguards(audit=AuditLog(sink))), sink


def lines(sink: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in sink.getvalue().splitlines()]


def test_an_answer_is_checked_written_for_the_server_and_audited_in_one_call() -> None:
    bridge, sink = audited()
    raw = {"action": "accept", "content": {"name": "Ada"}}
    carried = bridge.answer(raw, WHO, read_in=Revision.V2026_07_28, write_in=Revision.V2025_06_18)
    assert carried.answer.action == "accept" and carried.answer.content == {"name": "Ada"}
    assert carried.sent == {"action": "accept", "content": {"name": "Ada"}}
    [entry] = lines(sink)
    assert entry["by"] == "gateway" and entry["action"] == "accept"
    assert entry["content"] == {"name": "[redacted]"}


def test_a_blocked_links_reasons_are_cleaned_before_the_person_reads_them() -> None:
    # The checker's reasons quote parts of the server's URL; whatever they hold, a control
    # character never reaches the person's screen as one.
    reason = Reason("bidi_control", "the host exa\u202emple.com\x1b[2J", Severity.BLOCK)
    verdict = UrlVerdict(Verdict.BLOCK, (reason,), None, None, "https://x")
    said = LinkBlocked(BLOCKED, verdict).result_for("tools/call")["content"][0]["text"]
    assert said.endswith("the host exa\\u{202e}mple.com\\u{001b}[2J")


def test_an_answer_that_does_not_fit_is_refused_and_audited_as_invalid() -> None:
    bridge, sink = audited()
    with pytest.raises(BadAnswer) as bad:
        bridge.answer(
            {"action": "accept", "content": {}},
            WHO,
            read_in=Revision.V2026_07_28,
            write_in=Revision.V2026_07_28,
        )
    assert "name" in str(bad.value)
    [entry] = lines(sink)
    assert entry["action"] == "invalid" and "name" in entry["why"]


def test_with_answer_checks_off_a_misfit_answer_is_carried() -> None:
    bridge = Bridge(Safeguards(validate_answers=False))
    carried = bridge.answer(
        {"action": "accept", "content": {}},
        WHO,
        read_in=Revision.V2025_11_25,
        write_in=Revision.V2026_07_28,
    )
    assert carried.sent["content"] == {}


def test_a_question_is_written_for_the_client_with_its_links_verdict() -> None:
    params = Bridge().question(LINK, CLIENT_2025)
    assert params is not None
    assert params["url"] == LINK.url and params["elicitationId"] == "e1"
    assert params["_meta"][VERDICT_META]["registrable_domain"] == "example.com"


def test_a_blocked_link_is_not_written_says_why_and_is_audited_as_cancelled() -> None:
    bridge, sink = audited()
    with pytest.raises(LinkBlocked) as blocked:
        bridge.question(BLOCKED, CLIENT_2025)
    said = str(blocked.value)
    assert said.startswith("The gateway blocked a link the server asked you to open")
    assert "the scheme 'http:' is not allowed" in said and "loopback" in said
    [entry] = lines(sink)
    assert entry["action"] == "cancel" and entry["why"] == "url-blocked"
    assert entry["message"] == "Open it" and entry["url_reasons"][0] == "scheme_not_allowed"
    assert Bridge(Safeguards(block_links=False)).question(BLOCKED, CLIENT_2025) is not None
    # The links of a -32042 are the server's refusal, not a question: never blocked.
    assert Bridge().written(BLOCKED, Revision.V2026_07_28, FORM_AND_URL)["url"] == BLOCKED.url


@pytest.mark.parametrize(
    ("request_", "client", "said"),
    [
        (WHO, Peer("2024-11-05", None, FORM_ONLY), "The client has no elicitation"),
        (LINK, Peer("2025-11-25", Revision.V2025_11_25, FORM_ONLY), "did not declare url"),
        (LINK, Peer("2025-06-18", Revision.V2025_06_18, FORM_AND_URL), "has no URL mode"),
    ],
)
def test_a_question_the_client_cannot_be_asked_is_refused(
    request_: ElicitationRequest, client: Peer, said: str
) -> None:
    with pytest.raises(Refused) as refused:
        Bridge().question(request_, client)
    assert said in refused.value.message
