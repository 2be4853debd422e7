"""mcp_elicit.protocol against the specification's own JSON and official schema.json files."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema.validators import validator_for

from mcp_elicit.protocol import (
    EARLY_DRAFT,
    FORM_AND_URL,
    FORM_ONLY,
    NO_MODES,
    RULES,
    ElicitationModes,
    ElicitationRequest,
    ElicitResult,
    InputRequired,
    ProtocolProblem,
    capabilities_for,
    capabilities_from_request,
    codes,
    elicit_request,
    elicit_result,
    elicitation_complete_params,
    error_response,
    form_request_params,
    input_required_result,
    invalid_params_error,
    missing_capability_error,
    modes_from_capabilities,
    parse_elicit_request,
    parse_elicit_result,
    parse_elicitation_complete,
    parse_elicitation_params,
    parse_input_required_result,
    parse_missing_capability_error,
    parse_url_required_error,
    request_meta,
    retry_params,
    rules_for,
    track_request_params,
    undeclared_mode_problem,
    unsupported_version_error,
    url_request_params,
    url_required_error,
)
from mcp_elicit.revisions import Revision, negotiated_revision
from tests.spec_data import EXAMPLES, TAG_REVISION, VECTORS, load_jsonc, official_json_schema

R1, S4, R2, R3 = "2025-06-18", "url-draft", "2025-11-25", "2026-07-28"
OFFICIAL = (R1, R2, R3)  # revisions with a released schema.json
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
URL = "https://mcp.example.com/ui/set_api_key"
ID = "550e8400-e29b-41d4-a716-446655440000"


@cache
def _official(revision: str) -> dict[str, Any]:
    return official_json_schema(revision)


def validator(revision: str, definition: str) -> Any:
    doc = _official(revision)
    defs = "definitions" if "definitions" in doc else "$defs"
    assert definition in doc[defs], f"{revision} has no {definition}"
    root = {**doc, "$ref": f"#/{defs}/{definition}"}
    return validator_for(doc)(root)


def assert_valid(revision: str, definition: str, instance: Any) -> None:
    errors = [e.message for e in validator(revision, definition).iter_errors(instance)]
    assert not errors, f"{revision}#{definition}: {errors}"


def is_valid(revision: str, definition: str, instance: Any) -> bool:
    return bool(validator(revision, definition).is_valid(instance))


def vector(vid: str) -> tuple[str, Any]:
    """(revision, document) of vector ``Vnnn``; early-draft vectors read as 2025-06-18."""
    (path,) = sorted(VECTORS.glob(f"{vid}_*"))
    revision = TAG_REVISION[path.name.split("_")[1]]
    return revision or R1, load_jsonc(path)


def request_of(result: ElicitationRequest | list[ProtocolProblem]) -> ElicitationRequest:
    assert isinstance(result, ElicitationRequest), result
    return result


def result_of(result: ElicitResult | list[ProtocolProblem]) -> ElicitResult:
    assert isinstance(result, ElicitResult), result
    return result


def codes_of(result: object) -> set[str]:
    assert isinstance(result, list), result
    return {problem.code for problem in result}


# -- every elicitation vector parses ---------------------------------------------------------

# vector id → (mode, has elicitationId, early draft)
REQUEST_VECTORS = {
    "V002": ("form", False, False),
    "V004": ("form", False, False),
    "V023": ("form", False, False),
    "V024": ("form", False, False),
    "V025": ("url", True, False),
    "V032": ("form", False, False),
    "V034": ("form", False, False),
    "V036": ("url", False, False),
    "V055": ("form", False, True),
    "V057": ("form", False, True),
    "V059": ("form", False, True),
    "V066": ("form", False, False),
}
PARAMS_VECTORS = {"V067": "form", "V068": "form", "V069": "url"}
# vector id → (action, mode the request had, early draft)
RESULT_VECTORS = {
    "V003": ("accept", "form", False),
    "V005": ("accept", "form", False),
    "V006": ("decline", "form", False),
    "V007": ("cancel", "form", False),
    "V013": ("accept", "form", False),
    "V026": ("accept", "url", False),
    "V033": ("accept", "form", False),
    "V035": ("accept", "form", False),
    "V037": ("accept", "url", False),
    "V038": ("accept", "form", False),
    "V056": ("accept", "form", True),
    "V058": ("accept", "form", True),
    "V060": ("accept", "form", True),
    "V065": ("cancel", "form", True),
}
INPUT_REQUIRED_VECTORS = {"V041": True, "V042": True, "V073": True, "V074": False}
INPUT_REQUESTS_VECTORS = ("V039", "V072")
INPUT_RESPONSES_VECTORS = ("V040", "V043")
ERROR_VECTORS = ("V028", "V054", "V075")
CAPABILITY_VECTORS = {
    "V001": FORM_ONLY,
    "V015": FORM_AND_URL,
    "V016": FORM_ONLY,
    "V029": FORM_AND_URL,
    "V030": FORM_ONLY,
    "V045": FORM_ONLY,
    "V047": FORM_AND_URL,
    "V048": NO_MODES,  # task support for elicitation is not the elicitation capability
    "V070": FORM_AND_URL,
    "V071": FORM_ONLY,
    "V077": NO_MODES,
}
OTHER_VECTORS = ("V027", "V051", "V053")
COVERED = {
    *REQUEST_VECTORS,
    *PARAMS_VECTORS,
    *RESULT_VECTORS,
    *INPUT_REQUIRED_VECTORS,
    *INPUT_REQUESTS_VECTORS,
    *INPUT_RESPONSES_VECTORS,
    *ERROR_VECTORS,
    *CAPABILITY_VECTORS,
    *OTHER_VECTORS,
}


def test_every_elicitation_message_vector_is_covered() -> None:
    markers = ('"elicitation/create"', '"action"', '"elicitations"', "elicitationId", '"cancelled"')
    markers += ('"elicitation"', '"resultType"', '"elicitation/track"')
    for path in sorted(VECTORS.iterdir()):
        text = json.dumps(load_jsonc(path))
        if any(marker in text for marker in markers):
            assert path.name.split("_")[0] in COVERED, path.name


@pytest.mark.parametrize("vid", sorted(REQUEST_VECTORS))
def test_request_vectors_parse(vid: str) -> None:
    revision, document = vector(vid)
    mode, has_id, early = REQUEST_VECTORS[vid]
    request = request_of(parse_elicit_request(document, revision=revision))
    assert request.mode == mode
    assert request.message == document["params"]["message"]
    assert (request.elicitation_id is not None) is has_id
    if early:
        assert request.requested_schema is None
        assert request.revision_hint == EARLY_DRAFT
        assert request.accepted_quirks == ("early draft: message only, no requestedSchema",)
    elif mode == "form":
        assert request.requested_schema == document["params"]["requestedSchema"]
        assert request.accepted_quirks == ()
    else:
        assert request.url == document["params"]["url"]
        assert request.accepted_quirks == ()


@pytest.mark.parametrize("vid", sorted(PARAMS_VECTORS))
def test_params_vectors_parse(vid: str) -> None:
    revision, document = vector(vid)
    request = request_of(parse_elicitation_params(document, revision=revision))
    assert request.mode == PARAMS_VECTORS[vid]
    assert request.to_params(revision) == document  # strict output == the spec's own example


@pytest.mark.parametrize("vid", sorted(RESULT_VECTORS))
def test_result_vectors_parse(vid: str) -> None:
    revision, document = vector(vid)
    action, mode, early = RESULT_VECTORS[vid]
    body = document.get("result", document)
    result = result_of(parse_elicit_result(body, revision=revision, mode=mode))
    assert result.action == action
    if early:
        assert result.revision_hint == EARLY_DRAFT
        assert result.content is None
        assert result.early_content == tuple(body["content"])
        assert "early draft result: content array" in result.accepted_quirks
    else:
        assert result.content == body.get("content")
        assert result.accepted_quirks == ()
        # Our strict builder gives back exactly the spec's result.
        assert elicit_result(action, result.content, revision=revision, mode=mode) == body


@pytest.mark.parametrize("vid", sorted(INPUT_REQUIRED_VECTORS))
def test_input_required_vectors_parse(vid: str) -> None:
    _, document = vector(vid)
    body = document.get("result", document)
    parsed = parse_input_required_result(body)
    assert isinstance(parsed, InputRequired)
    assert parsed.request_state == body["requestState"]
    assert parsed.problems == ()
    if INPUT_REQUIRED_VECTORS[vid]:
        assert set(parsed.elicitations) == {"github_login"}
        assert parsed.elicitations["github_login"].requested_schema == SCHEMA
        assert parsed.input_requests == body["inputRequests"]
    else:
        assert parsed.elicitations == {}


@pytest.mark.parametrize("vid", INPUT_REQUESTS_VECTORS)
def test_input_requests_vectors_parse(vid: str) -> None:
    _, document = vector(vid)
    parsed = parse_input_required_result(
        {"resultType": "input_required", "inputRequests": document}
    )
    assert isinstance(parsed, InputRequired)
    assert list(parsed.elicitations) == ["github_login"]
    assert parsed.input_requests["capital_of_france"]["method"] == "sampling/createMessage"


@pytest.mark.parametrize("vid", INPUT_RESPONSES_VECTORS)
def test_input_responses_vectors_parse(vid: str) -> None:
    revision, document = vector(vid)
    responses = document.get("params", {}).get("inputResponses", document)
    result = result_of(parse_elicit_result(responses["github_login"], revision=revision))
    assert result.action == "accept" and result.content == {"name": "octocat"}


def test_error_vectors_parse() -> None:
    _, v028 = vector("V028")
    (required,) = parse_url_required_error(v028) or []
    assert required.mode == "url" and required.elicitation_id == ID
    assert required.revision_hint == R2 and required.accepted_quirks == ()

    _, v054 = vector("V054")  # the url-draft error: -32604 and the elicitionId typo
    (required,) = parse_url_required_error(v054["error"]) or []
    assert required.elicitation_id == ID
    assert required.revision_hint == S4
    assert required.accepted_quirks == (
        "elicitionId spelling (url-draft typo) read as elicitationId",
    )
    assert required.to_params(R2) == {
        "mode": "url",
        "message": "Authorization is required to access your Example Co files.",
        "elicitationId": ID,
        "url": v054["error"]["data"]["elicitations"][0]["url"],
    }

    _, v075 = vector("V075")
    assert parse_missing_capability_error(v075) == {"elicitation": {}}
    assert parse_url_required_error(v075) is None
    assert parse_missing_capability_error(v028) is None


@pytest.mark.parametrize("vid", sorted(CAPABILITY_VECTORS))
def test_capability_vectors(vid: str) -> None:
    revision, document = vector(vid)
    if "_meta" in document or ("params" in document and "_meta" in document["params"]):
        caps = capabilities_from_request(document.get("params", document))
    elif "params" in document:
        caps = document["params"]["capabilities"]
    else:
        caps = document.get("capabilities", document)
    assert modes_from_capabilities(caps, revision) == CAPABILITY_VECTORS[vid]


def test_completion_vectors() -> None:
    _, v027 = vector("V027")
    assert parse_elicitation_complete(v027["params"]) == ID
    assert elicitation_complete_params(ID, revision=R2) == v027["params"]
    _, v051 = vector("V051")
    assert track_request_params(ID, "abc123", revision=S4) == v051["params"]
    assert v051["method"] == codes.ELICITATION_TRACK


EXAMPLE_DIRS = {
    "ElicitRequest": "request",
    "ElicitRequestFormParams": "params",
    "ElicitRequestURLParams": "params",
    "ElicitResult": "result",
    "InputRequiredResult": "input_required",
    "MissingRequiredClientCapabilityError": "missing_capability",
}
EXAMPLE_FILES = sorted(p for name in EXAMPLE_DIRS for p in (EXAMPLES / name).glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_2026_examples_parse(path: Path) -> None:
    document = load_jsonc(path)
    kind = EXAMPLE_DIRS[path.parent.name]
    if kind == "request":
        request_of(parse_elicit_request(document, revision=R3))
    elif kind == "params":
        assert request_of(parse_elicitation_params(document, revision=R3)).to_params(R3) == document
    elif kind == "result":
        mode = "url" if "url-mode" in path.stem else "form"
        result = result_of(parse_elicit_result(document, revision=R3, mode=mode))
        assert elicit_result(result.action, result.content, revision=R3, mode=mode) == document
    elif kind == "input_required":
        assert isinstance(parse_input_required_result(document), InputRequired)
    else:
        assert parse_missing_capability_error(document) == {"elicitation": {}}


# -- strict builders validate against the official schema.json ---------------------------------


@pytest.mark.parametrize("revision", OFFICIAL)
def test_form_request_validates(revision: str) -> None:
    params = form_request_params("Your name?", SCHEMA, revision=revision)
    request = elicit_request(params, revision=revision, request_id=None if revision == R3 else 7)
    assert_valid(revision, "ElicitRequest", request)
    assert ("mode" in params) is (revision != R1)
    assert ("id" in request and "jsonrpc" in request) is (revision != R3)


def test_which_revisions_require_jsonrpc_and_id_on_elicit_request() -> None:
    bare = {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": SCHEMA}}
    assert is_valid(R1, "ElicitRequest", bare)  # R1's ElicitRequest is the bare Request shape
    assert not is_valid(R2, "ElicitRequest", bare)  # R2's is a JSONRPCRequest
    assert is_valid(R3, "ElicitRequest", bare)  # R3's is an input request


@pytest.mark.parametrize("revision", [R2, R3])
def test_url_request_validates(revision: str) -> None:
    elicitation_id = ID if revision == R2 else None
    params = url_request_params(
        "Add your key", URL, elicitation_id=elicitation_id, revision=revision
    )
    assert_valid(revision, "ElicitRequestURLParams", params)
    assert_valid(
        revision,
        "ElicitRequest",
        elicit_request(params, revision=revision, request_id=3 if revision == R2 else None),
    )
    assert ("elicitationId" in params) is (revision == R2)


def test_url_request_refusals() -> None:
    with pytest.raises(ValueError, match="no URL mode"):
        url_request_params("m", URL, revision=R1)
    for revision in (S4, R2):
        with pytest.raises(ValueError, match="needs an elicitation_id"):
            url_request_params("m", URL, revision=revision)
    with pytest.raises(ValueError, match="requestState"):
        url_request_params("m", URL, elicitation_id=ID, revision=R3)
    with pytest.raises(ValueError, match="valid URL"):
        url_request_params("m", "not a url", elicitation_id=ID, revision=R2)
    with pytest.raises(ValueError, match="request_id"):
        elicit_request({"message": "m"}, revision=R2)
    with pytest.raises(ValueError, match="no JSON-RPC id"):
        elicit_request({"message": "m"}, revision=R3, request_id=1)


def test_url_draft_request_requires_mode_and_id() -> None:
    assert form_request_params("m", SCHEMA, revision=S4)["mode"] == "form"
    assert url_request_params("m", URL, elicitation_id="e1", revision=S4) == {
        "mode": "url",
        "message": "m",
        "elicitationId": "e1",
        "url": URL,
    }


RESULTS = [
    ("accept", {"name": "octocat", "age": 30, "ok": True}, "form"),
    ("accept", None, "url"),
    ("decline", None, "form"),
    ("cancel", None, "form"),
]


@pytest.mark.parametrize("revision", OFFICIAL)
@pytest.mark.parametrize(("action", "content", "mode"), RESULTS)
def test_results_validate(revision: str, action: str, content: Any, mode: Any) -> None:
    if mode == "url" and revision == R1:
        return  # R1 has no URL mode; a URL accept is just {"action": "accept"} anyway
    built = elicit_result(action, content, revision=revision, mode=mode)
    assert_valid(revision, "ElicitResult", built)
    assert ("content" in built) is (content is not None)


def test_list_answers_only_where_multi_select_exists() -> None:  # N4
    answer = {"colors": ["Red"]}
    with pytest.raises(ValueError, match="no list answers"):
        elicit_result("accept", answer, revision=R1)
    with pytest.raises(ValueError, match="no list answers"):
        elicit_result("accept", answer, revision=S4)
    assert not is_valid(R1, "ElicitResult", {"action": "accept", "content": answer})
    for revision in (R2, R3):
        assert_valid(revision, "ElicitResult", elicit_result("accept", answer, revision=revision))
    # Liberal on input, and it says so.
    result = result_of(parse_elicit_result({"action": "accept", "content": answer}, revision=R1))
    assert result.content == answer
    assert result.accepted_quirks == (
        "content.colors: a list answer, which 2025-06-18 does not define",
    )


def test_result_builder_refusals() -> None:
    with pytest.raises(ValueError, match="action must be"):
        elicit_result("reject", revision=R2)
    with pytest.raises(ValueError, match="has no content"):
        elicit_result("decline", {"a": "b"}, revision=R2)
    with pytest.raises(ValueError, match="has no content"):
        elicit_result("accept", {"a": "b"}, revision=R2, mode="url")
    with pytest.raises(ValueError, match="needs content"):
        elicit_result("accept", revision=R2)
    with pytest.raises(ValueError, match="not a string"):
        elicit_result("accept", {"a": {"nested": 1}}, revision=R2)
    with pytest.raises(ValueError, match="not a string"):
        elicit_result("accept", {"a": float("nan")}, revision=R2)


def test_url_required_error_per_revision() -> None:
    request = ElicitationRequest(
        mode="url", message="Connect Example Co", url=URL, elicitation_id=ID
    )
    r2 = url_required_error([request], revision=R2)
    assert r2["code"] == codes.URL_ELICITATION_REQUIRED == -32042
    assert_valid(R2, "URLElicitationRequiredError", error_response(2, r2))
    s4 = url_required_error([request], revision=S4)
    assert s4["code"] == codes.ELICITATION_REQUIRED_DRAFT == -32604
    assert s4["data"]["elicitations"][0]["elicitationId"] == ID  # never the typo
    with pytest.raises(ValueError, match="MUST NOT emit -32042"):  # N9
        url_required_error([request], revision=R3)
    with pytest.raises(ValueError, match="has no elicitation-required error"):
        url_required_error([request], revision=R1)
    with pytest.raises(ValueError, match="at least one"):
        url_required_error([], revision=R2)
    form = ElicitationRequest(mode="form", message="m", requested_schema=SCHEMA)
    with pytest.raises(ValueError, match="only URL-mode"):
        url_required_error([form], revision=R2)
    with pytest.raises(ValueError, match="needs elicitationId"):
        url_required_error([{"mode": "url", "message": "m", "url": URL}], revision=R2)
    # Both codes read back to the same elicitations.
    for error in (r2, s4):
        assert parse_url_required_error(error) == [
            ElicitationRequest("url", "Connect Example Co", None, URL, ID, hint)
            for hint in [R2 if error is r2 else S4]
        ]


def test_parse_url_required_error_is_liberal_and_skips_junk() -> None:
    error = {
        "code": -32042,
        "message": "m",
        "data": {"elicitations": [{"message": "m", "url": URL, "elicitationId": "x"}, 5, {}]},
    }
    (only,) = parse_url_required_error(error) or []
    assert only.accepted_quirks == ("mode missing in an elicitation-required error: read as url",)
    assert parse_url_required_error({"code": -32042, "message": "m", "data": {}}) is None
    assert parse_url_required_error({"code": -32603, "message": "m"}) is None
    assert parse_url_required_error("nonsense") is None


@pytest.mark.parametrize("revision", OFFICIAL)
def test_capabilities_validate_and_round_trip(revision: str) -> None:
    for modes in (NO_MODES, FORM_ONLY, ElicitationModes(url=True), FORM_AND_URL):
        declared = capabilities_for(modes, revision)
        assert_valid(revision, "ClientCapabilities", declared)
        expected = modes if revision != R1 else ElicitationModes(form=modes.form)
        assert modes_from_capabilities(declared, revision) == expected


def test_capabilities_exact_shapes() -> None:
    assert capabilities_for(FORM_ONLY, R1) == {"elicitation": {}}
    assert capabilities_for(FORM_AND_URL, R1) == {"elicitation": {}}
    assert capabilities_for(NO_MODES, R1) == {}  # checklist #4: nothing to declare
    assert capabilities_for(NO_MODES, R2) == {}
    assert capabilities_for(FORM_ONLY, R2) == {"elicitation": {"form": {}}}
    assert capabilities_for(FORM_AND_URL, R3) == {"elicitation": {"form": {}, "url": {}}}
    assert capabilities_for(ElicitationModes(url=True), S4) == {"elicitation": {"url": {}}}
    assert modes_from_capabilities({"elicitation": {}}, S4) == FORM_ONLY
    assert modes_from_capabilities({"elicitation": {"url": {}}}, R1) == FORM_ONLY
    assert modes_from_capabilities({"elicitation": True}, R2) == FORM_ONLY
    assert modes_from_capabilities(None, R2) == NO_MODES
    assert modes_from_capabilities({"sampling": {}}, R3) == NO_MODES


def test_request_meta_makes_the_tools_page_retry_valid() -> None:
    """V043 omits ``_meta`` "for brevity"; built with ``request_meta`` it validates."""
    _, v043 = vector("V043")
    _, v077 = vector("V077")
    original = {**v077["params"], "_meta": request_meta(capabilities_for(FORM_ONLY, R3))}
    retried = retry_params(
        original, v043["params"]["inputResponses"], v043["params"]["requestState"]
    )
    assert retried["requestState"] == v043["params"]["requestState"]
    retry = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": retried}
    assert_valid(R3, "CallToolRequest", retry)
    assert not is_valid(R3, "CallToolRequest", v043)
    assert capabilities_from_request(retried) == {"elicitation": {"form": {}}}
    assert capabilities_from_request({"name": "x"}) is None


def test_retry_params_echo_state_exactly_and_only_when_given() -> None:  # N6/N7 (client side)
    original = {"name": "t", "inputResponses": {"old": 1}, "requestState": "old"}
    retried = retry_params(original, {"k": {"action": "cancel"}}, None)
    assert "requestState" not in retried
    assert retried["inputResponses"] == {"k": {"action": "cancel"}}
    assert original["requestState"] == "old"  # the original is untouched
    state = "  opaque/blob=+ \u00e9"
    assert retry_params({"name": "t"}, {}, state)["requestState"] == state


def test_input_required_result_validates() -> None:
    request = ElicitationRequest(mode="form", message="Your name?", requested_schema=SCHEMA)
    url = ElicitationRequest(mode="url", message="Add your key", url=URL, elicitation_id=ID)
    built = input_required_result({"name": request, "key": url}, "sealed-state")
    assert_valid(R3, "InputRequiredResult", built)
    assert_valid(R3, "InputRequests", built["inputRequests"])
    assert built["inputRequests"]["key"]["params"] == {
        "mode": "url",
        "message": "Add your key",
        "url": URL,
    }
    assert built["resultType"] == "input_required"
    assert input_required_result(None, "s") == {"resultType": "input_required", "requestState": "s"}
    with pytest.raises(ValueError, match="needs inputRequests or requestState"):  # N8
        input_required_result({}, None)
    with pytest.raises(ValueError, match="method and params"):
        input_required_result({"k": {"params": {}}})


def test_parse_input_required_result_edges() -> None:
    assert parse_input_required_result({"content": []}) is None  # no resultType: complete
    assert parse_input_required_result({"resultType": "complete"}) is None
    assert codes_of(parse_input_required_result({"resultType": "input_required"})) == {
        "input_required_empty"  # N8
    }
    assert codes_of(parse_input_required_result({"resultType": "later"})) == {"result_type_unknown"}
    broken = {
        "resultType": "input_required",
        "inputRequests": {"k": {"method": "elicitation/create", "params": {"mode": "url"}}},
    }
    parsed = parse_input_required_result(broken)
    assert isinstance(parsed, InputRequired) and parsed.elicitations == {}
    assert {(p.code, p.field) for p in parsed.problems} == {
        ("message_missing", "k.message"),
        ("url_missing", "k.url"),
    }


@pytest.mark.parametrize("revision", [R2, R3])
def test_missing_capability_and_version_errors(revision: str) -> None:
    error = missing_capability_error({"elicitation": {}})
    assert error["code"] == -32021
    assert_valid(R3, "MissingRequiredClientCapabilityError", error_response(1, error))
    _, v075 = vector("V075")
    assert error_response(1, error) == v075
    _, v044 = vector("V044")
    version_error = unsupported_version_error("1900-01-01", ["2026-07-28", "2025-11-25"])
    assert error_response(1, version_error) == v044
    assert_valid(R3, "UnsupportedProtocolVersionError", v044)


def test_completion_notification_validates_and_only_on_2025_11_25() -> None:
    params = elicitation_complete_params(ID, revision=R2)
    notification = {"jsonrpc": "2.0", "method": codes.ELICITATION_COMPLETE, "params": params}
    assert_valid(R2, "ElicitationCompleteNotification", notification)
    for revision in (R1, S4, R3):
        with pytest.raises(ValueError, match="has no"):
            elicitation_complete_params(ID, revision=revision)
    assert parse_elicitation_complete({"elicitationId": "unknown-to-us"}) == "unknown-to-us"  # N5
    assert parse_elicitation_complete({}) is None
    with pytest.raises(ValueError, match="elicitation/track"):
        track_request_params(ID, 1, revision=R2)


# -- negative vectors and liberal parsing ----------------------------------------------------


def test_n1_r2_url_without_elicitation_id() -> None:
    params = {"mode": "url", "message": "m", "url": "https://x"}
    problems = parse_elicitation_params(params, revision=R2)
    assert codes_of(problems) == {"elicitation_id_missing"}
    assert isinstance(problems, list)
    assert invalid_params_error(problems)["code"] == codes.INVALID_PARAMS == -32602
    assert not is_valid(R2, "ElicitRequestParams", params)  # the official schema agrees
    # 2026-07-28 has no elicitationId: the same params are a valid request there.
    assert request_of(parse_elicitation_params(params, revision=R3)).elicitation_id is None
    assert is_valid(R3, "ElicitRequestParams", params)


def test_n2_undeclared_mode_is_invalid_params() -> None:
    _, v025 = vector("V025")
    request = request_of(parse_elicit_request(v025, revision=R2))
    modes = modes_from_capabilities({"elicitation": {}}, R2)
    problem = undeclared_mode_problem(request, modes)
    assert problem is not None and problem.code == "mode_undeclared"
    assert invalid_params_error([problem])["code"] == -32602
    assert undeclared_mode_problem(request, FORM_AND_URL) is None


@pytest.mark.parametrize("revision", OFFICIAL)
def test_n3_reject_is_read_as_decline_and_never_sent(revision: str) -> None:
    assert not is_valid(revision, "ElicitResult", {"action": "reject"})
    result = result_of(parse_elicit_result({"action": "reject"}, revision=revision))
    assert result.action == "decline"
    assert result.accepted_quirks == ('action "reject" read as "decline"',)
    with pytest.raises(ValueError, match="action must be"):
        elicit_result("reject", revision=revision)


def test_liberal_request_parsing_says_what_it_accepted() -> None:
    form = {"message": "m", "requestedSchema": SCHEMA}
    assert request_of(parse_elicitation_params(form, revision=S4)).accepted_quirks == (
        "mode missing: treated as form",
    )
    for revision in (R1, R2, R3):  # these revisions allow (R1: require) a missing mode
        assert request_of(parse_elicitation_params(form, revision=revision)).accepted_quirks == ()
    with_mode = {"mode": "form", **form}
    assert request_of(parse_elicitation_params(with_mode, revision=R1)).accepted_quirks == (
        'mode "form" on 2025-06-18: ignored (this revision has no mode)',
    )
    url = {"mode": "url", "message": "m", "url": URL, "elicitationId": "e"}
    kept = request_of(parse_elicitation_params(url, revision=R3))
    assert kept.elicitation_id == "e"
    assert kept.accepted_quirks == (
        "elicitationId on 2026-07-28: kept, though this revision has none",
    )
    assert kept.to_params(R3) == {"mode": "url", "message": "m", "url": URL}


@pytest.mark.parametrize(
    ("params", "revision", "expected"),
    [
        ({"mode": "url", "message": "m", "url": URL}, R1, {"mode_unsupported"}),
        ({"mode": "popup", "message": "m", "requestedSchema": SCHEMA}, R2, {"mode_unknown"}),
        ({"message": 5, "requestedSchema": SCHEMA}, R2, {"message_type"}),
        ({"requestedSchema": SCHEMA}, R2, {"message_missing"}),
        ({"mode": "form", "message": "m"}, R2, {"schema_missing"}),
        ({"mode": "form", "message": "m", "requestedSchema": []}, R2, {"schema_type"}),
        (
            {"mode": "form", "message": "m", "requestedSchema": {"type": "object"}},
            R3,
            {"schema_properties"},
        ),
        ({"mode": "url", "message": "m", "elicitationId": "e"}, R2, {"url_missing"}),
        ({"mode": "url", "message": "m", "url": "not a url"}, R3, {"url_invalid"}),
        (
            {"mode": "url", "message": "m", "url": URL, "elicitationId": 7},
            R2,
            {"elicitation_id_type", "elicitation_id_missing"},
        ),
        ({"message": "m", "url": URL}, R2, {"mode_missing"}),
        ("not an object", R2, {"params_type"}),
    ],
)
def test_malformed_requests(params: Any, revision: str, expected: set[str]) -> None:
    assert codes_of(parse_elicitation_params(params, revision=revision)) == expected


def test_parse_elicit_request_checks_the_method() -> None:
    assert codes_of(parse_elicit_request({"method": "sampling/createMessage"}, revision=R3)) == {
        "method"
    }
    assert codes_of(parse_elicit_request([], revision=R3)) == {"request_type"}


def test_liberal_result_parsing() -> None:
    stray = result_of(parse_elicit_result({"action": "decline", "content": {"a": 1}}, revision=R2))
    assert stray.content is None and stray.accepted_quirks == ("content on decline: dropped",)
    url = result_of(
        parse_elicit_result({"action": "accept", "content": {}}, revision=R2, mode="url")
    )
    assert url.content is None and url.accepted_quirks == ("content on accept (url mode): dropped",)
    assert codes_of(parse_elicit_result({}, revision=R2)) == {"action_missing"}
    assert codes_of(parse_elicit_result({"action": "maybe"}, revision=R2)) == {"action_unknown"}
    assert codes_of(
        parse_elicit_result({"action": "accept", "content": {"a": {}}}, revision=R2)
    ) == {"content_value"}
    assert codes_of(
        parse_elicit_result({"action": "accept", "content": {"a": [1]}}, revision=R2)
    ) == {"content_value"}
    assert codes_of(parse_elicit_result({"action": "accept", "content": []}, revision=R2)) == {
        "content_type"
    }
    assert codes_of(parse_elicit_result(None, revision=R2)) == {"result_type"}
    early = result_of(parse_elicit_result({"content": [], "cancelled": True}, revision=R1))
    assert early.action == "cancel" and early.early_content == ()


def test_conversions_between_revisions() -> None:
    _, v025 = vector("V025")
    request = request_of(parse_elicit_request(v025, revision=R2))
    r3 = request.to_params(R3)
    assert "elicitationId" not in r3
    assert_valid(R3, "ElicitRequestURLParams", r3)
    with pytest.raises(ValueError, match="no URL mode"):
        request.to_params(R1)
    _, v023 = vector("V023")
    form = request_of(parse_elicit_request(v023, revision=R2))
    assert form.to_params(R1) == {"message": v023["params"]["message"], "requestedSchema": SCHEMA}
    _, v057 = vector("V057")
    early = request_of(parse_elicit_request(v057, revision=R1))
    with pytest.raises(ValueError, match="no schema to send"):
        early.to_params(R2)


def test_revisions_table() -> None:
    assert Revision.parse("draft") is Revision.V2026_07_28
    assert Revision.parse(" 2025-11-25 ") == "2025-11-25"
    with pytest.raises(ValueError, match="unknown revision"):
        Revision.parse("2024-11-05")
    assert set(RULES) == set(Revision)
    assert [rules_for(r).required_error_code for r in (R1, S4, R2, R3)] == [
        None,
        -32604,
        -32042,
        None,
    ]
    assert [rules_for(r).completion for r in (R1, S4, R2, R3)] == [
        "none",
        "track",
        "notification",
        "retry",
    ]
    assert [rules_for(r).mode_field for r in (R1, S4, R2, R3)] == [
        "absent",
        "required",
        "optional",
        "optional",
    ]
    assert [rules_for(r).push_requests for r in (R1, S4, R2, R3)] == [True, True, True, False]
    assert rules_for(R3).capability_in == "request_meta"
    assert not rules_for(R3).has_elicitation_id and rules_for(R2).has_elicitation_id


def test_problem_reads_well() -> None:
    assert (
        str(ProtocolProblem("url_missing", "URL mode needs a url", "url"))
        == "url: URL mode needs a url"
    )
    assert (
        str(ProtocolProblem("result_type", "a result must be an object"))
        == "a result must be an object"
    )


# -- one revision table for the client, the server and the forms ---------------------------------


def test_the_forms_and_the_protocol_name_revisions_with_one_enum() -> None:
    import mcp_elicit.forms
    import mcp_elicit.protocol
    import mcp_elicit.revisions

    assert mcp_elicit.forms.Revision is mcp_elicit.revisions.Revision
    assert mcp_elicit.protocol.Revision is mcp_elicit.revisions.Revision
    # Each layer's table covers every revision, keyed by that one enum.
    from mcp_elicit.forms.revisions import schema_rules

    for revision in Revision:
        assert schema_rules(revision) is schema_rules(revision.value)
        assert rules_for(revision) is RULES[revision]


@pytest.mark.parametrize(
    ("version", "revision"),
    [
        ("2024-11-05", None),
        ("2025-03-26", None),
        ("2025-06-18", "2025-06-18"),
        ("2025-09-01", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2026-07-28"),
        ("2027-01-01", "2026-07-28"),
    ],
)
def test_a_negotiated_version_maps_to_one_revision_for_client_and_server(
    version: str, revision: str | None
) -> None:
    from mcp_elicit.client.handler import revision_of

    found = negotiated_revision(version)
    assert (found.value if found is not None else None) == revision
    # The client reads a version older than elicitation liberally, as the first revision.
    assert revision_of(version).value == (revision or "2025-06-18")


@pytest.mark.parametrize(
    ("result", "outcome"),
    [
        ({"action": "cancel", "_meta": {"mcp-elicit/outcome": "no-person"}}, "no-person"),
        ({"action": "cancel"}, None),
        ({"action": "cancel", "_meta": {"mcp-elicit/outcome": 3}}, None),  # not a reason
        ({"action": "cancel", "_meta": "no-person"}, None),
        ({"action": "decline", "_meta": {"mcp-elicit/outcome": "no-person"}}, None),
    ],
)
def test_a_cancels_outcome_is_read_from_its_meta(
    result: dict[str, Any], outcome: str | None
) -> None:
    parsed = parse_elicit_result(result, revision="2025-11-25")
    assert not isinstance(parsed, list)
    assert parsed.outcome == outcome


def test_a_requests_schema_and_an_answers_content_are_copies_of_their_own() -> None:
    # The schema of every request and the content of every answer are copied (a JSON-only copy,
    # deepcopy for anything else): nothing the caller changes afterwards reaches them.
    value = {"type": "string", "enum": ["a", "b"]}
    schema = {"type": "object", "properties": {"x": value}, "required": ["x"]}
    request = request_of(
        parse_elicitation_params({"message": "m", "requestedSchema": schema}, revision=R2)
    )
    assert request.requested_schema == schema
    value["enum"].append("c")
    schema["required"].clear()
    assert request.requested_schema is not None
    assert request.requested_schema["properties"]["x"]["enum"] == ["a", "b"]
    assert request.requested_schema["required"] == ["x"]
    content: dict[str, Any] = {"x": ["a"], "y": 1}
    result = elicit_result("accept", content, revision=R2)
    content["x"].append("b")
    assert result["content"] == {"x": ["a"], "y": 1}


def test_a_schema_that_holds_itself_is_still_copied() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    request = request_of(
        parse_elicitation_params({"message": "m", "requestedSchema": schema}, revision=R2)
    )
    copied = request.requested_schema
    assert copied is not None and copied["properties"]["self"] is not schema
    assert copied["properties"]["self"]["properties"] is copied["properties"]  # as deepcopy does
