"""Fuzz target: the protocol parsers (``mcp_elicit.protocol.parse_*`` and the capability
readers), every revision, on any JSON value.

Contract, for any JSON value (each parser is handed the value itself, and the ``params``,
``result`` and ``error`` members of it when it has them):

- ``parse_elicitation_params`` / ``parse_elicit_request`` return an ``ElicitationRequest``
  or a non-empty list of ``ProtocolProblem``; ``parse_elicit_result`` an ``ElicitResult`` or
  problems; ``parse_url_required_error`` ``None`` or a non-empty list of URL-mode requests;
  ``parse_input_required_result`` ``None``, an ``InputRequired`` or problems; the others
  their documented value or ``None``. None of them raises, and none changes its argument;
- what was parsed without quirks can be built again for the same revision
  (``ElicitationRequest.to_params``, ``elicit_result``) and parses back to the same thing:
  the strict builders accept what the liberal parsers read;
- ``read_content_items`` (the early draft's answers) returns ``ContentItem`` objects or a non-empty
  list of problems, each naming its item; what it read is built again by ``early_result``
  and reads back the same.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import atheris
from _harness import expect, json_from_bytes, main, too_deep

with atheris.instrument_imports(include=["mcp_elicit"]):
    from mcp_elicit.protocol import (
        ContentItem,
        ElicitationModes,
        ElicitationRequest,
        ElicitResult,
        InputRequired,
        ProtocolProblem,
        Revision,
        capabilities_from_request,
        early_result,
        elicit_result,
        modes_from_capabilities,
        parse_elicit_request,
        parse_elicit_result,
        parse_elicitation_complete,
        parse_elicitation_params,
        parse_input_required_result,
        parse_missing_capability_error,
        parse_url_required_error,
        read_content_items,
    )

REVISIONS = [version.value for version in Revision]
WORDS = (
    "jsonrpc",
    "2.0",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "message",
    "data",
    "elicitation/create",
    "mode",
    "form",
    "url",
    "requestedSchema",
    "type",
    "object",
    "properties",
    "required",
    "string",
    "elicitationId",
    "elicitionId",
    "action",
    "accept",
    "decline",
    "cancel",
    "reject",
    "content",
    "cancelled",
    "_meta",
    "mcp-elicit/outcome",
    "no-person",
    "elicitations",
    "resultType",
    "input_required",
    "complete",
    "inputRequests",
    "requestState",
    "requiredCapabilities",
    "elicitation",
    "capabilities",
    "io.modelcontextprotocol/clientCapabilities",
    "https://example.com/x",
    "text",
    "image",
    "audio",
    "data",
    "mimeType",
    "image/png",
    "audio/wav",
    "aGk=",
    "a",
    "",
)


def check(data: bytes) -> None:
    value = json_from_bytes(data, WORDS)
    if too_deep(value):
        return
    values = [value]
    if isinstance(value, Mapping):
        values += [value[key] for key in ("params", "result", "error") if key in value]
    before = repr(value)
    for item in values:
        parse_all(item)
    expect(repr(value) == before, "a parser changed its argument")


def problems_or(parsed: Any, kind: type, what: str) -> None:
    if isinstance(parsed, list):
        expect(parsed, f"{what} returned an empty list of problems")
        for problem in parsed:
            expect(isinstance(problem, ProtocolProblem), f"{what}: not a problem: {problem!r}")
            expect(problem.code and problem.message, f"{what}: an empty problem: {problem!r}")
    else:
        expect(isinstance(parsed, kind), f"{what} returned {type(parsed).__name__}")


def parse_all(value: Any) -> None:
    for revision in REVISIONS:
        request = parse_elicitation_params(value, revision=revision)
        problems_or(request, ElicitationRequest, "parse_elicitation_params")
        if isinstance(request, ElicitationRequest):
            rebuilt_request(request, revision)
        problems_or(
            parse_elicit_request(value, revision=revision),
            ElicitationRequest,
            "parse_elicit_request",
        )
        for mode in ("form", "url"):
            result = parse_elicit_result(value, revision=revision, mode=mode)
            problems_or(result, ElicitResult, "parse_elicit_result")
            if isinstance(result, ElicitResult):
                rebuilt_result(result, revision, mode)
        modes = modes_from_capabilities(value, revision)
        expect(isinstance(modes, ElicitationModes), f"modes_from_capabilities gave {modes!r}")
        if revision == "2025-06-18":
            expect(not modes.url, "URL mode read from a 2025-06-18 capability")
    required = parse_url_required_error(value)
    if required is not None:
        expect(isinstance(required, list) and required, f"parse_url_required_error: {required!r}")
        for item in required:
            expect(isinstance(item, ElicitationRequest) and item.mode == "url", repr(item))
    needed = parse_input_required_result(value)
    if needed is not None:
        problems_or(needed, InputRequired, "parse_input_required_result")
        if isinstance(needed, InputRequired):
            expect(set(needed.elicitations) <= set(needed.input_requests), repr(needed))
    for name, found in (
        ("parse_missing_capability_error", parse_missing_capability_error(value)),
        ("capabilities_from_request", capabilities_from_request(value)),
    ):
        expect(found is None or isinstance(found, dict), f"{name} gave {found!r}")
    completed = parse_elicitation_complete(value)
    expect(completed is None or (isinstance(completed, str) and completed), repr(completed))
    items = read_content_items(value)
    if isinstance(items, list):
        problems_or(items, ContentItem, "read_content_items")
        for problem in items:
            expect(bool(problem.field), f"a content problem names no item: {problem!r}")
    else:
        again = read_content_items(early_result(items)["content"])
        expect(again == items, f"content items changed on the way back: {items} -> {again}")


def rebuilt_request(request: ElicitationRequest, revision: str) -> None:
    if request.accepted_quirks or (request.requested_schema is None and request.mode == "form"):
        return  # a liberty the strict builders rightly refuse, or the early draft's ask
    params = request.to_params(revision)
    again = parse_elicitation_params(params, revision=revision)
    expect(isinstance(again, ElicitationRequest), f"{params!r} does not parse back: {again}")
    assert isinstance(again, ElicitationRequest)
    expect(not again.accepted_quirks, f"what we built needs quirks: {again.accepted_quirks}")
    for name in ("mode", "message", "requested_schema", "url", "elicitation_id"):
        expect(
            repr(getattr(again, name)) == repr(getattr(request, name)),
            f"{name} changed on the way back: {getattr(request, name)!r} -> "
            f"{getattr(again, name)!r}",
        )


def rebuilt_result(result: ElicitResult, revision: str, mode: str) -> None:
    if result.accepted_quirks or result.early_content is not None:
        return
    if result.action == "accept" and mode == "form" and result.content is None:
        return  # accepted with no content: read liberally, never built
    built = elicit_result(result.action, result.content, revision=revision, mode=mode)  # type: ignore[arg-type]
    again = parse_elicit_result(built, revision=revision, mode=mode)  # type: ignore[arg-type]
    expect(isinstance(again, ElicitResult), f"{built!r} does not parse back: {again}")
    assert isinstance(again, ElicitResult)
    expect(
        (again.action, repr(again.content)) == (result.action, repr(result.content)),
        f"the result changed on the way back: {result} -> {again}",
    )


if __name__ == "__main__":
    main(check, "protocol_parse")
    sys.exit(0)
