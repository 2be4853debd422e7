"""Multi round-trip requests (2026-07-28): input requests inside a result, answers in a retry.

A tool call (or ``prompts/get``, ``resources/read``) may return an ``InputRequiredResult``;
the client answers every input request and retries the same method with a new JSON-RPC id,
``inputResponses`` and the ``requestState`` echoed byte for byte. A result without
``resultType`` comes from an earlier-protocol server and is complete.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp_elicit.i18n import _
from mcp_elicit.protocol.codes import ELICITATION_CREATE
from mcp_elicit.protocol.messages import ElicitationRequest, parse_elicitation_params
from mcp_elicit.protocol.problems import ProtocolProblem
from mcp_elicit.revisions import Revision

INPUT_REQUIRED = "input_required"
COMPLETE = "complete"

ASKING_METHODS: frozenset[str] = frozenset({"tools/call", "prompts/get", "resources/read"})
"""The requests whose result may be an ``InputRequiredResult`` (and so carries ``resultType``):
the ones a server may ask a person in, and a client retries with the answers."""
_R3 = Revision.V2026_07_28


@dataclass(frozen=True, slots=True)
class InputRequired:
    """A parsed ``InputRequiredResult``."""

    input_requests: dict[str, dict[str, Any]]  # every request, as sent (sampling, roots, ...)
    elicitations: dict[str, ElicitationRequest]  # the ``elicitation/create`` ones, parsed
    request_state: str | None = None
    problems: tuple[ProtocolProblem, ...] = field(default=())  # elicitations that did not parse


def input_required_result(
    input_requests: Mapping[str, ElicitationRequest | Mapping[str, Any]] | None,
    request_state: str | None = None,
) -> dict[str, Any]:
    """An ``InputRequiredResult``: at least one of ``input_requests`` and ``request_state``.

    An :class:`ElicitationRequest` value becomes a 2026-07-28 ``elicitation/create`` input
    request; a mapping is taken as an input request already (``{method, params}``).
    """
    if not input_requests and request_state is None:
        raise ValueError("an InputRequiredResult needs inputRequests or requestState (or both)")
    result: dict[str, Any] = {"resultType": INPUT_REQUIRED}
    if input_requests:
        built: dict[str, Any] = {}
        for key, value in input_requests.items():
            if not isinstance(key, str) or not key:
                raise ValueError("input request keys must be non-empty strings")
            if isinstance(value, ElicitationRequest):
                built[key] = {"method": ELICITATION_CREATE, "params": value.to_params(_R3)}
            elif isinstance(value.get("method"), str) and isinstance(value.get("params"), Mapping):
                built[key] = {"method": value["method"], "params": dict(value["params"])}
            else:
                raise ValueError(f"input request {key!r} needs a method and params")
        result["inputRequests"] = built
    if request_state is not None:
        if not isinstance(request_state, str):
            raise ValueError("requestState must be a string")
        result["requestState"] = request_state
    return result


def parse_input_required_result(result: Any) -> InputRequired | list[ProtocolProblem] | None:
    """``None`` for a complete result (``resultType`` absent or ``"complete"``), an
    :class:`InputRequired`, or problems (an unknown ``resultType``, nothing to act on)."""
    if not isinstance(result, Mapping):
        return [ProtocolProblem("result_type", _("a result must be an object"))]
    kind = result.get("resultType", COMPLETE)
    if kind == COMPLETE:
        return None
    if kind != INPUT_REQUIRED:
        return [
            ProtocolProblem(
                "result_type_unknown", _("unknown resultType {kind}").format(kind=repr(kind))
            )
        ]
    raw_requests = result.get("inputRequests")
    state = result.get("requestState")
    problems: list[ProtocolProblem] = []
    if raw_requests is not None and not isinstance(raw_requests, Mapping):
        problems.append(ProtocolProblem("input_requests_type", _("must be an object")))
    if state is not None and not isinstance(state, str):
        problems.append(ProtocolProblem("request_state_type", _("must be a string")))
    if raw_requests is None and state is None:
        problems.append(
            ProtocolProblem("input_required_empty", _("neither inputRequests nor requestState"))
        )
    if problems:
        return problems
    requests: dict[str, dict[str, Any]] = {}
    elicitations: dict[str, ElicitationRequest] = {}
    bad: list[ProtocolProblem] = []
    for key, value in (raw_requests or {}).items():
        if not isinstance(value, Mapping):
            bad.append(ProtocolProblem("input_request_type", _("must be an object"), key))
            continue
        requests[key] = dict(value)
        if value.get("method") != ELICITATION_CREATE:
            continue
        parsed = parse_elicitation_params(value.get("params"), revision=_R3)
        if isinstance(parsed, list):
            bad.extend(
                ProtocolProblem(p.code, p.message, f"{key}.{p.field}" if p.field else key)
                for p in parsed
            )
        else:
            elicitations[key] = parsed
    return InputRequired(requests, elicitations, state, tuple(bad))


def retry_params(
    original_params: Mapping[str, Any],
    input_responses: Mapping[str, Any],
    request_state: str | None,
) -> dict[str, Any]:
    """The params of the retry: the original ones, the answers, and ``requestState`` echoed
    exactly (absent when the server gave none). The caller sends it with a new id."""
    params = {
        key: value
        for key, value in original_params.items()
        if key not in ("inputResponses", "requestState")
    }
    params["inputResponses"] = dict(input_responses)
    if request_state is not None:
        params["requestState"] = request_state
    return params
