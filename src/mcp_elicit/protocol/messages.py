"""``elicitation/create`` requests and their results: parsed liberally, built strictly.

Parsing takes what any revision (and the early draft) might send and returns one typed model
with ``accepted_quirks`` saying what was accepted beyond the revision's rules. Building
produces exactly the shape the peer's revision defines, and raises ``ValueError`` for what
that revision cannot express.

Only the request's *shape* is checked here. Whether ``requestedSchema`` stays inside a
revision's schema subset is ``mcp_elicit.forms.check_schema``'s job, and whether a URL is safe
to show is ``mcp_elicit.urls.check_url``'s.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_elicit.i18n import _
from mcp_elicit.protocol.codes import ELICITATION_COMPLETE, ELICITATION_CREATE, META_OUTCOME
from mcp_elicit.protocol.problems import ProtocolProblem
from mcp_elicit.protocol.revisions import EARLY_DRAFT, rules_for
from mcp_elicit.revisions import Revision

Mode = Literal["form", "url"]
Action = Literal["accept", "decline", "cancel"]
ACTIONS: tuple[Action, ...] = ("accept", "decline", "cancel")

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$")  # RFC 3986: scheme ":" ...


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """One elicitation, whatever revision it came in."""

    mode: Mode
    message: str
    requested_schema: dict[str, Any] | None = None  # form mode; ``None`` for an early-draft ask
    url: str | None = None  # URL mode
    elicitation_id: str | None = None  # URL mode, url-draft and 2025-11-25
    revision_hint: str | None = None  # the revision whose shape this is
    accepted_quirks: tuple[str, ...] = ()
    meta: dict[str, Any] | None = field(default=None, compare=False)  # ``_meta`` (2025-11-25)

    def to_params(self, revision: Revision | str) -> dict[str, Any]:
        """This elicitation as ``params`` for a peer speaking ``revision`` (strict)."""
        if self.mode == "url":
            if self.url is None:
                raise ValueError("a URL-mode elicitation needs a url")
            version = Revision.parse(revision)
            keep_id = rules_for(version).has_elicitation_id
            return url_request_params(
                self.message,
                self.url,
                elicitation_id=self.elicitation_id if keep_id else None,
                revision=version,
            )
        if self.requested_schema is None:
            raise ValueError("an early-draft elicitation (message only) has no schema to send")
        return form_request_params(self.message, self.requested_schema, revision=revision)


# -- parsing ---------------------------------------------------------------------------------


def parse_elicitation_params(
    params: Any, *, revision: Revision | str
) -> ElicitationRequest | list[ProtocolProblem]:
    """An ``elicitation/create`` request's ``params``, read as ``revision`` (liberally).

    Accepted and noted in ``accepted_quirks``: a missing ``mode`` where the revision requires
    one (read as form), ``mode: "form"`` on 2025-06-18, the early draft's message-only ask
    (``requested_schema=None``), the url-draft's ``elicitionId`` spelling, and an
    ``elicitationId`` on 2026-07-28 (kept). Anything else wrong is a list of problems.
    """
    version = Revision.parse(revision)
    rules = rules_for(version)
    if not isinstance(params, Mapping):
        return [ProtocolProblem("params_type", _("params must be an object"), "params")]
    problems: list[ProtocolProblem] = []
    quirks: list[str] = []
    hint: str = version.value

    message = params.get("message")
    if message is None:
        problems.append(ProtocolProblem("message_missing", _("message is required"), "message"))
    elif not isinstance(message, str):
        problems.append(ProtocolProblem("message_type", _("message must be a string"), "message"))

    raw_mode = params.get("mode")
    mode: Mode
    read_schema = True
    if raw_mode is None:
        has_schema = "requestedSchema" in params
        if not has_schema and "url" not in params and "elicitationId" not in params:
            quirks.append("early draft: message only, no requestedSchema")
            hint = EARLY_DRAFT
        elif not has_schema and "url" in params:
            read_schema = False
            problems.append(
                ProtocolProblem(
                    "mode_missing", _('a URL-mode request must say mode: "url"'), "mode"
                )
            )
        elif rules.mode_field == "required":
            quirks.append("mode missing: treated as form")
        mode = "form"
    elif raw_mode == "form":
        mode = "form"
        if rules.mode_field == "absent":
            quirks.append(f'mode "form" on {version}: ignored (this revision has no mode)')
    elif raw_mode == "url":
        mode = "url"
        if not rules.has_url_mode:
            problems.append(
                ProtocolProblem(
                    "mode_unsupported",
                    _("{revision} has no URL mode").format(revision=version),
                    "mode",
                )
            )
    else:
        problems.append(
            ProtocolProblem(
                "mode_unknown", _("unknown mode {mode}").format(mode=repr(raw_mode)), "mode"
            )
        )
        mode, read_schema = "form", False

    schema: dict[str, Any] | None = None
    url: str | None = None
    elicitation_id: str | None = None
    if mode == "form" and hint != EARLY_DRAFT and read_schema:
        schema, schema_problems = _read_schema(params.get("requestedSchema"))
        problems.extend(schema_problems)
    elif mode == "url":
        url, elicitation_id, url_problems = _read_url_fields(params, version, quirks)
        problems.extend(url_problems)
        if "elicitionId" in params and "elicitationId" not in params:
            hint = Revision.URL_DRAFT.value

    if problems or not isinstance(message, str):
        return problems
    meta = params.get("_meta")
    return ElicitationRequest(
        mode=mode,
        message=message,
        requested_schema=schema,
        url=url,
        elicitation_id=elicitation_id,
        revision_hint=hint,
        accepted_quirks=tuple(quirks),
        meta=dict(meta) if isinstance(meta, Mapping) else None,
    )


def _read_schema(value: Any) -> tuple[dict[str, Any] | None, list[ProtocolProblem]]:
    where = "requestedSchema"
    if value is None:
        return None, [
            ProtocolProblem("schema_missing", _("form mode needs requestedSchema"), where)
        ]
    if not isinstance(value, Mapping):
        return None, [ProtocolProblem("schema_type", _("requestedSchema must be an object"), where)]
    problems = []
    if value.get("type") != "object":
        problems.append(
            ProtocolProblem("schema_type", _('requestedSchema needs type "object"'), where)
        )
    if not isinstance(value.get("properties"), Mapping):
        problems.append(
            ProtocolProblem("schema_properties", _("requestedSchema needs properties"), where)
        )
    return _copy_json(dict(value)), problems


_ATOMS = (str, int, float, bool, type(None))


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON data (plain dicts, lists and scalars), a few times faster than
    ``copy.deepcopy`` on the schema of every request and the content of every answer;
    anything else in it, or a structure that contains itself, goes to ``copy.deepcopy``."""
    try:
        return _copy_tree(value)
    except RecursionError:
        return copy.deepcopy(value)


def _copy_tree(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copy_tree(item) for key, item in value.items()}
    if kind is list:
        return [_copy_tree(item) for item in value]
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)


def _read_url_fields(
    params: Mapping[str, Any], version: Revision, quirks: list[str]
) -> tuple[str | None, str | None, list[ProtocolProblem]]:
    problems: list[ProtocolProblem] = []
    url = params.get("url")
    if not isinstance(url, str) or not url:
        problems.append(ProtocolProblem("url_missing", _("URL mode needs a url"), "url"))
        url = None
    elif not _SCHEME.match(url):
        problems.append(
            ProtocolProblem("url_invalid", _("{url} is not a URL").format(url=repr(url)), "url")
        )

    key = "elicitationId"
    if key not in params and "elicitionId" in params:
        key = "elicitionId"
        quirks.append("elicitionId spelling (url-draft typo) read as elicitationId")
    elicitation_id = params.get(key)
    if elicitation_id is not None and not isinstance(elicitation_id, str):
        problems.append(
            ProtocolProblem("elicitation_id_type", _("{key} must be a string").format(key=key), key)
        )
        elicitation_id = None
    if rules_for(version).has_elicitation_id and not elicitation_id:
        problems.append(
            ProtocolProblem(
                "elicitation_id_missing",
                _("URL mode on {revision} needs elicitationId").format(revision=version),
                key,
            )
        )
    elif elicitation_id and not rules_for(version).has_elicitation_id:
        quirks.append(f"elicitationId on {version}: kept, though this revision has none")
    return url, elicitation_id, problems


def parse_elicit_request(
    message: Any, *, revision: Revision | str
) -> ElicitationRequest | list[ProtocolProblem]:
    """A whole ``elicitation/create``: a JSON-RPC request, or a 2026-07-28 input request."""
    if not isinstance(message, Mapping):
        return [ProtocolProblem("request_type", _("a request must be an object"))]
    if message.get("method") != ELICITATION_CREATE:
        return [
            ProtocolProblem(
                "method",
                _("expected method {expected}, got {method}").format(
                    expected=repr(ELICITATION_CREATE), method=repr(message.get("method"))
                ),
            )
        ]
    return parse_elicitation_params(message.get("params"), revision=revision)


# -- building --------------------------------------------------------------------------------


def form_request_params(
    message: str, schema: Mapping[str, Any], *, revision: Revision | str
) -> dict[str, Any]:
    """Form-mode ``params``: no ``mode`` on 2025-06-18, ``mode: "form"`` from then on."""
    version = Revision.parse(revision)
    _require_message(message)
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise ValueError('requestedSchema must be an object schema (type "object")')
    params: dict[str, Any] = {}
    if rules_for(version).mode_field != "absent":
        params["mode"] = "form"
    params["message"] = message
    params["requestedSchema"] = copy.deepcopy(dict(schema))
    return params


def url_request_params(
    message: str,
    url: str,
    *,
    elicitation_id: str | None = None,
    revision: Revision | str,
) -> dict[str, Any]:
    """URL-mode ``params``. ``elicitation_id`` is required on url-draft and 2025-11-25 and
    refused on 2026-07-28 (correlate through ``requestState`` there)."""
    version = Revision.parse(revision)
    rules = rules_for(version)
    if not rules.has_url_mode:
        raise ValueError(f"{version} has no URL mode: fall back to a tool error or text")
    _require_message(message)
    if not isinstance(url, str) or not _SCHEME.match(url):
        raise ValueError(f"url must be a valid URL, not {url!r}")
    params: dict[str, Any] = {"mode": "url", "message": message}
    if rules.has_elicitation_id:
        if not elicitation_id:
            raise ValueError(f"URL mode on {version} needs an elicitation_id")
        params["elicitationId"] = elicitation_id
    elif elicitation_id is not None:
        raise ValueError(
            f"{version} has no elicitationId: put the correlation in requestState instead"
        )
    params["url"] = url
    return params


def elicit_request(
    params: Mapping[str, Any],
    *,
    revision: Revision | str,
    request_id: str | int | None = None,
) -> dict[str, Any]:
    """The whole request: a JSON-RPC request where servers push (needs ``request_id``), or
    the bare ``{method, params}`` input request of 2026-07-28 (takes none)."""
    version = Revision.parse(revision)
    if rules_for(version).push_requests:
        if request_id is None:
            raise ValueError(f"a pushed request on {version} needs a request_id")
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": ELICITATION_CREATE,
            "params": dict(params),
        }
    if request_id is not None:
        raise ValueError(f"{version} input requests have no JSON-RPC id")
    return {"method": ELICITATION_CREATE, "params": dict(params)}


def _require_message(message: object) -> None:
    if not isinstance(message, str):
        raise ValueError("message must be a string")


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ElicitResult:
    """What the person did, whatever revision the answer came in."""

    action: Action
    content: dict[str, Any] | None = None
    early_content: tuple[dict[str, Any], ...] | None = None  # the early draft's content array
    revision_hint: str | None = None
    accepted_quirks: tuple[str, ...] = ()
    outcome: str | None = None
    """On a cancel: why, when the client said (``_meta["mcp-elicit/outcome"]``, e.g.
    ``"no-person"``); ``None`` when it did not (usually: the person dismissed the question)."""


def parse_elicit_result(
    result: Any, *, revision: Revision | str, mode: Mode = "form"
) -> ElicitResult | list[ProtocolProblem]:
    """An ``ElicitResult`` (the ``result`` member, or a 2026-07-28 input response), liberally.

    Accepted and noted: the early draft's ``{content: [...], cancelled?}`` (cancel, or accept
    with ``early_content``), ``"reject"`` as decline, stray ``content`` on decline, cancel or
    a URL-mode accept (dropped), and list answers on a revision without multi-select.
    """
    version = Revision.parse(revision)
    if not isinstance(result, Mapping):
        return [ProtocolProblem("result_type", _("a result must be an object"))]
    raw_content = result.get("content")
    if "action" not in result and isinstance(raw_content, list):
        return _early_result(result, raw_content)

    quirks: list[str] = []
    raw_action = result.get("action")
    action: Action
    if raw_action == "reject":
        action = "decline"
        quirks.append('action "reject" read as "decline"')
    elif raw_action in ACTIONS:
        action = raw_action
    elif raw_action is None:
        return [ProtocolProblem("action_missing", _("action is required"), "action")]
    else:
        return [
            ProtocolProblem(
                "action_unknown",
                _("unknown action {action}").format(action=repr(raw_action)),
                "action",
            )
        ]

    if raw_content is None or action != "accept" or mode == "url":
        if raw_content is not None:
            why = f"{action} ({mode} mode)" if action == "accept" else action
            quirks.append(f"content on {why}: dropped")
        outcome = _outcome_of(result) if action == "cancel" else None
        return ElicitResult(action, None, None, version.value, tuple(quirks), outcome)
    if not isinstance(raw_content, Mapping):
        return [ProtocolProblem("content_type", _("content must be an object"), "content")]
    problems: list[ProtocolProblem] = []
    for name, value in raw_content.items():
        where = f"content.{name}"
        if isinstance(value, list):
            if not all(isinstance(item, str) for item in value):
                problems.append(
                    ProtocolProblem("content_value", _("lists hold strings only"), where)
                )
            elif not rules_for(version).list_content:
                quirks.append(f"{where}: a list answer, which {version} does not define")
        elif not _is_primitive(value):
            problems.append(
                ProtocolProblem(
                    "content_value",
                    _("must be a string, number, boolean or list of strings"),
                    where,
                )
            )
    if problems:
        return problems
    return ElicitResult(
        action, copy.deepcopy(dict(raw_content)), None, version.value, tuple(quirks)
    )


def _outcome_of(result: Mapping[str, Any]) -> str | None:
    meta = result.get("_meta")
    found = meta.get(META_OUTCOME) if isinstance(meta, Mapping) else None
    return found if isinstance(found, str) and found else None


def _early_result(result: Mapping[str, Any], content: list[Any]) -> ElicitResult:
    items = tuple(dict(item) for item in content if isinstance(item, Mapping))
    quirks = ["early draft result: content array"]
    if result.get("cancelled") is True:
        return ElicitResult("cancel", None, items, EARLY_DRAFT, (*quirks, "cancelled: cancel"))
    return ElicitResult("accept", None, items, EARLY_DRAFT, tuple(quirks))


def _is_primitive(value: object) -> bool:
    if isinstance(value, bool | str | int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def elicit_result(
    action: str,
    content: Mapping[str, Any] | None = None,
    *,
    revision: Revision | str,
    mode: Mode = "form",
) -> dict[str, Any]:
    """An ``ElicitResult`` exactly as ``revision`` defines it.

    Content only on a form-mode accept (where it is required); list answers only where the
    revision has multi-select. The early draft's shape is never produced.
    """
    version = Revision.parse(revision)
    if action not in ACTIONS:
        raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
    if action != "accept" or mode == "url":
        if content is not None:
            raise ValueError(f"a {action} result in {mode} mode has no content")
        return {"action": action}
    if not isinstance(content, Mapping):
        raise ValueError("a form-mode accept needs content (an object)")
    for name, value in content.items():
        if isinstance(value, list):
            if not rules_for(version).list_content:
                raise ValueError(f"{name}: {version} has no list answers (multi-select)")
            if not all(isinstance(item, str) for item in value):
                raise ValueError(f"{name}: list answers hold strings only")
        elif not _is_primitive(value):
            raise ValueError(f"{name}: {value!r} is not a string, number or boolean")
    return {"action": "accept", "content": _copy_json(dict(content))}


# -- URL-mode completion ---------------------------------------------------------------------


def elicitation_complete_params(elicitation_id: str, *, revision: Revision | str) -> dict[str, Any]:
    """``notifications/elicitation/complete`` params; only 2025-11-25 has the notification."""
    version = Revision.parse(revision)
    if rules_for(version).completion != "notification":
        raise ValueError(f"{version} has no {ELICITATION_COMPLETE} notification")
    if not isinstance(elicitation_id, str) or not elicitation_id:
        raise ValueError("elicitation_id must be a non-empty string")
    return {"elicitationId": elicitation_id}


def parse_elicitation_complete(params: Any) -> str | None:
    """The ``elicitationId`` a completion notification names, or ``None`` if it names none.

    Whether the id is known is the client's business: unknown ids are ignored, not errors.
    """
    if not isinstance(params, Mapping):
        return None
    found = params.get("elicitationId")
    return found if isinstance(found, str) and found else None


TRACK_PROGRESS_EVERY = 5.0
"""Seconds between the progress notifications a server sends while ``elicitation/track`` waits
(the URL-mode draft): often enough that a client knows the elicitation is still pending."""


def track_request_params(
    elicitation_id: str, progress_token: str | int, *, revision: Revision | str
) -> dict[str, Any]:
    """``elicitation/track`` params (url-draft only); the draft's schema requires the token."""
    version = Revision.parse(revision)
    if rules_for(version).completion != "track":
        raise ValueError(f"{version} has no elicitation/track")
    return {"_meta": {"progressToken": progress_token}, "elicitationId": elicitation_id}
