"""The handler's check step as public seams (``check_request``, ``link_verdict``): what a host
that shows requests its own way (a LangGraph interrupt, :mod:`mcp_elicit.integrations.langchain`)
uses to read them exactly as :class:`~mcp_elicit.client.ElicitationHandler` does."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_elicit.client import ElicitationRefused, Policy
from mcp_elicit.client.handler import check_request
from mcp_elicit.client.link_requests import link_verdict
from mcp_elicit.protocol import FORM_ONLY
from mcp_elicit.revisions import Revision

MODERN = Revision.V2026_07_28


def test_check_request_reads_and_records_as_the_handler() -> None:
    event: dict[str, Any] = {}
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    params = {"mode": "form", "message": "Name?", "requestedSchema": schema}
    request = check_request(params, MODERN, Policy().modes, event)
    assert request.mode == "form" and request.message == "Name?"
    assert event == {"mode": "form", "message": "Name?"}


def test_check_request_refuses_a_mode_not_answered_and_a_malformed_request() -> None:
    link = {"mode": "url", "message": "Open", "url": "https://example.com/a"}
    with pytest.raises(ElicitationRefused) as refused:
        check_request(link, MODERN, FORM_ONLY, {})
    assert refused.value.error["code"] == -32602
    with pytest.raises(ElicitationRefused):
        check_request({"mode": "url", "message": "no url"}, MODERN, Policy().modes, {})


def test_check_request_reads_the_url_drafts_link_on_2025_06_18() -> None:
    event: dict[str, Any] = {}
    params = {
        "mode": "url",
        "message": "Open",
        "url": "https://example.com/a",
        "elicitationId": "e",
    }
    request = check_request(params, Revision.V2025_06_18, Policy().modes, event)
    assert request.mode == "url" and any("URL-mode draft" in q for q in event["quirks"])


def test_link_verdict_is_the_policys_with_loopback_for_local_servers() -> None:
    page = "http://127.0.0.1:8000/elicit/flows/x"
    assert link_verdict(Policy(), page, local=False).blocked
    local = link_verdict(Policy(), page, local=True)
    assert not local.blocked and local.verdict.value == "warn"
    strict = Policy(loopback_for_local_servers=False)
    assert link_verdict(strict, page, local=True).blocked
