"""Protocol problems in the person's language: the same codes and fields in every language, the
message in the one in effect, and nothing left in English under the pseudo-locale. The same
for the reason a schema cannot be converted."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcp_elicit.forms import ConversionError, convert
from mcp_elicit.i18n import language
from mcp_elicit.protocol import (
    ElicitationModes,
    ElicitationRequest,
    ProtocolProblem,
    parse_elicit_request,
    parse_elicit_result,
    parse_elicitation_params,
    parse_input_required_result,
    read_content_items,
    undeclared_mode_problem,
)
from tests.i18n_support import escaped, pseudo_language

_CJK = re.compile(r"[\u4e00-\u9fff]")

R1, R2 = "2025-06-18", "2025-11-25"
# One request per rule of a request's shape.
REQUESTS: list[tuple[Any, str]] = [
    ([], R2),
    ({}, R2),
    ({"message": 3, "requestedSchema": {"type": "array"}}, R2),
    ({"message": "m", "url": "https://example.com/x"}, R2),
    ({"mode": "url", "message": "m", "url": "https://example.com/x"}, R1),
    ({"mode": "chat", "message": "m"}, R2),
    ({"mode": "form", "message": "m", "requestedSchema": []}, R2),
    ({"mode": "form", "message": "m"}, R2),
    ({"mode": "url", "message": "m"}, R2),
    ({"mode": "url", "message": "m", "url": "not a url", "elicitationId": 7}, R2),
]
RESULTS: list[Any] = [
    [],
    {},
    {"action": "approve"},
    {"action": "accept", "content": []},
    {"action": "accept", "content": {"tags": ["a", 1], "when": {"day": 1}}},
]
ITEMS: list[Any] = [
    {"type": "text"},
    [
        "text",
        {"type": "text", "text": 3},
        {"type": "video"},
        {"type": "image", "mimeType": "audio/wav", "data": "***"},
        {"type": "audio", "mimeType": "audio", "data": 5},
    ],
]
INPUT_REQUIRED: list[Any] = [
    [],
    {"resultType": "later"},
    {"resultType": "input_required"},
    {"resultType": "input_required", "inputRequests": [], "requestState": 1},
    {
        "resultType": "input_required",
        "inputRequests": {"a": 1, "b": {"method": "elicitation/create", "params": {}}},
    },
]
ANY_MODE = ElicitationModes(form=False, url=False)


def every_problem() -> list[ProtocolProblem]:
    found: list[ProtocolProblem] = []
    for params, revision in REQUESTS:
        parsed = parse_elicitation_params(params, revision=revision)
        assert isinstance(parsed, list), params
        found += parsed
    for message in ([], {"method": "tools/call"}):
        parsed = parse_elicit_request(message, revision=R2)
        assert isinstance(parsed, list)
        found += parsed
    for result in RESULTS:
        read = parse_elicit_result(result, revision=R1)
        assert isinstance(read, list), result
        found += read
    for items in ITEMS:
        content = read_content_items(items)
        assert isinstance(content, list), items
        found += content
    for raw in INPUT_REQUIRED:
        required = parse_input_required_result(raw)
        assert required is not None
        found += required if isinstance(required, list) else required.problems
    for mode in ("form", "url"):
        request = ElicitationRequest(mode=mode, message="m", url="https://example.com/x")
        undeclared = undeclared_mode_problem(request, ANY_MODE)
        assert undeclared is not None
        found.append(undeclared)
    return found


def conversion_error() -> str:
    schema = {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}},
    }
    with pytest.raises(ConversionError) as raised:
        convert(schema, to=R1)
    return str(raised.value)


def test_every_rule_is_exercised() -> None:
    codes = {p.code for p in every_problem()}
    for code in ("params_type", "message_missing", "message_type", "mode_missing"):
        assert code in codes
    for code in ("mode_unsupported", "mode_unknown", "schema_missing", "schema_type"):
        assert code in codes
    for code in ("schema_properties", "url_missing", "url_invalid", "elicitation_id_type"):
        assert code in codes
    for code in ("elicitation_id_missing", "request_type", "method", "result_type"):
        assert code in codes
    for code in ("action_missing", "action_unknown", "content_type", "content_value"):
        assert code in codes
    for code in ("item_type", "item_text", "item_kind", "item_mime_type", "item_data"):
        assert code in codes
    for code in ("result_type_unknown", "input_requests_type", "request_state_type"):
        assert code in codes
    for code in ("input_required_empty", "input_request_type", "mode_undeclared"):
        assert code in codes


def test_in_chinese_the_fields_and_codes_stay_the_messages_change() -> None:
    english = every_problem()
    with language("zh-Hans"):
        chinese = every_problem()
    assert [(p.code, p.field) for p in chinese] == [(p.code, p.field) for p in english]
    for en, zh in zip(english, chinese, strict=True):
        assert _CJK.search(zh.message), (en.code, zh.message)
        assert zh.message != en.message


def test_a_conversion_error_is_in_the_language() -> None:
    english = conversion_error()
    assert english == (
        "field 'tags': multi-select has no form in this revision (it arrived in 2025-11-25)"
    )
    with language("zh-Hans"):
        chinese = conversion_error()
    assert _CJK.search(chinese) and "'tags'" in chinese and "2025-11-25" in chinese


def test_nothing_escapes_the_catalogs() -> None:
    with pseudo_language():
        problems = every_problem()
        converted = conversion_error()
    # What the messages quote: values (as repr), a member's name, a media kind, revisions.
    data = [
        "'chat'",
        "'not a url'",
        "'elicitation/create'",
        "'tools/call'",
        "'approve'",
        "'video'",
        "'audio/wav'",
        "'later'",
        "'tags'",
        "elicitationId",
        "image",
        R1,
        R2,
    ]
    for problem in problems:
        assert escaped(problem.message, data) == [], problem
    assert escaped(converted, data) == [], converted
