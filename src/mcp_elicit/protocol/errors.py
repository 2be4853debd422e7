"""The JSON-RPC ``error`` objects of elicitation, per revision.

"Elicitation required before retrying": -32604 in the URL-mode draft, -32042 in 2025-11-25,
and nothing in 2026-07-28, which MUST NOT emit -32042 and returns an ``InputRequiredResult``
instead. A 2026-07-28 server that needs a capability the request did not declare answers
-32021. A 2025-11-25 client that gets a mode it did not declare answers -32602.

Builders return the ``error`` member (``{code, message, data}``); :func:`error_response`
wraps one in a JSON-RPC response.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mcp_elicit.i18n import _
from mcp_elicit.protocol.capabilities import ElicitationModes
from mcp_elicit.protocol.codes import (
    ELICITATION_REQUIRED_DRAFT,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    URL_ELICITATION_REQUIRED,
)
from mcp_elicit.protocol.messages import ElicitationRequest, parse_elicitation_params
from mcp_elicit.protocol.problems import ProtocolProblem
from mcp_elicit.protocol.revisions import rules_for
from mcp_elicit.revisions import Revision

_REQUIRED_CODES = {
    URL_ELICITATION_REQUIRED: Revision.V2025_11_25,
    ELICITATION_REQUIRED_DRAFT: Revision.URL_DRAFT,
}


def error_response(request_id: str | int | None, error: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-RPC error response carrying ``error``."""
    return {"jsonrpc": "2.0", "id": request_id, "error": dict(error)}


def url_required_error(
    elicitations: Sequence[ElicitationRequest | Mapping[str, Any]],
    *,
    revision: Revision | str,
    message: str = "This request requires more information.",
) -> dict[str, Any]:
    """The "URL elicitation required" error: -32042 (2025-11-25) or -32604 (url-draft).

    Every item must be a URL-mode elicitation with an ``elicitationId``. Raises
    ``ValueError`` on 2025-06-18 (no URL mode) and 2026-07-28 (MUST NOT emit -32042: return an
    ``InputRequiredResult`` with a URL-mode input request instead).
    """
    version = Revision.parse(revision)
    code = rules_for(version).required_error_code
    if version is Revision.V2026_07_28:
        raise ValueError(
            f"{version} MUST NOT emit -32042: return an InputRequiredResult with a URL-mode "
            "elicitation/create input request instead"
        )
    if code is None:
        raise ValueError(f"{version} has no elicitation-required error")
    if not elicitations:
        raise ValueError("the error must list at least one elicitation")
    items = []
    for item in elicitations:
        if isinstance(item, Mapping):
            parsed = parse_elicitation_params(item, revision=version)
            if isinstance(parsed, list):
                raise ValueError("; ".join(str(problem) for problem in parsed))
            item = parsed
        if item.mode != "url":
            raise ValueError("only URL-mode elicitations may be listed in this error")
        items.append(item.to_params(version))
    return {"code": code, "message": message, "data": {"elicitations": items}}


def parse_url_required_error(error: Any) -> list[ElicitationRequest] | None:
    """The URL elicitations a -32042 or -32604 error asks for; ``None`` for any other error.

    Takes the ``error`` member or the whole response. Items may use the url-draft's
    ``elicitionId`` spelling or omit ``mode`` (read as URL; noted). Items that are not usable
    URL-mode elicitations are skipped; if none is usable the answer is ``None``.
    """
    if isinstance(error, Mapping) and isinstance(error.get("error"), Mapping):
        error = error["error"]
    if not isinstance(error, Mapping):
        return None
    code = error.get("code")
    version = _REQUIRED_CODES.get(code) if isinstance(code, int) else None
    data = error.get("data")
    if version is None or not isinstance(data, Mapping):
        return None
    raw_items = data.get("elicitations")
    if not isinstance(raw_items, list):
        return None
    found: list[ElicitationRequest] = []
    for raw in raw_items:
        if not isinstance(raw, Mapping):
            continue
        item = dict(raw)
        extra: list[str] = []
        if "mode" not in item:
            item["mode"] = "url"
            extra.append("mode missing in an elicitation-required error: read as url")
        parsed = parse_elicitation_params(item, revision=version)
        if isinstance(parsed, list) or parsed.mode != "url":
            continue
        if extra:
            parsed = _with_quirks(parsed, extra)
        found.append(parsed)
    return found or None


def _with_quirks(request: ElicitationRequest, quirks: Iterable[str]) -> ElicitationRequest:
    return ElicitationRequest(
        mode=request.mode,
        message=request.message,
        requested_schema=request.requested_schema,
        url=request.url,
        elicitation_id=request.elicitation_id,
        revision_hint=request.revision_hint,
        accepted_quirks=(*request.accepted_quirks, *quirks),
        meta=request.meta,
    )


def missing_capability_error(
    required: Mapping[str, Any],
    *,
    message: str = "Server requires the elicitation capability for this request",
) -> dict[str, Any]:
    """-32021 (2026-07-28): the request lacks a capability the server needs (HTTP 400)."""
    return {
        "code": MISSING_REQUIRED_CLIENT_CAPABILITY,
        "message": message,
        "data": {"requiredCapabilities": dict(required)},
    }


def parse_missing_capability_error(error: Any) -> dict[str, Any] | None:
    """The ``requiredCapabilities`` of a -32021 error, or ``None`` for any other error."""
    if isinstance(error, Mapping) and isinstance(error.get("error"), Mapping):
        error = error["error"]
    if not isinstance(error, Mapping) or error.get("code") != MISSING_REQUIRED_CLIENT_CAPABILITY:
        return None
    data = error.get("data")
    required = data.get("requiredCapabilities") if isinstance(data, Mapping) else None
    return dict(required) if isinstance(required, Mapping) else None


def unsupported_version_error(
    requested: str, supported: Sequence[str], *, message: str = "Unsupported protocol version"
) -> dict[str, Any]:
    """-32022 (2026-07-28): the request's protocol version is not one the server speaks."""
    return {
        "code": UNSUPPORTED_PROTOCOL_VERSION,
        "message": message,
        "data": {"supported": list(supported), "requested": requested},
    }


def invalid_params_error(
    problems: Sequence[ProtocolProblem], *, message: str = "Invalid elicitation request"
) -> dict[str, Any]:
    """-32602 listing what is wrong with an incoming request."""
    return {
        "code": INVALID_PARAMS,
        "message": message,
        "data": {
            "problems": [{"code": p.code, "message": p.message, "field": p.field} for p in problems]
        },
    }


def undeclared_mode_problem(
    request: ElicitationRequest, modes: ElicitationModes
) -> ProtocolProblem | None:
    """A problem if the request uses a mode the client did not declare (answer: -32602)."""
    if modes.allows(request.mode):
        return None
    if request.mode == "url":
        why = _("this client did not declare url mode")
    else:
        why = _("this client did not declare form mode")
    return ProtocolProblem("mode_undeclared", why, "mode")
