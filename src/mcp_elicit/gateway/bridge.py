"""One question and its answer, carried from the upstream's revision to the downstream's and
back, with the checks a gateway applies on the way. No I/O but the audit log.

A question is read in the upstream's revision (:func:`read_question`) and written in the
downstream's (:meth:`Bridge.question_for`): a schema is converted (a schema the downstream
revision cannot express is an error naming what), a mode the downstream client did not
declare is refused (never silently declined), a link gets its safety verdict in ``_meta``
(:data:`VERDICT_META`) or, blocked by policy, never reaches the person (the upstream is told
``cancel``, as a host's own client does). The URL itself is never rewritten, opened or
fetched.

An answer is read in the downstream's revision, checked against the question's schema before
it goes anywhere (:meth:`Bridge.read_answer`), and written in the upstream's
(:func:`answer_for`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from mcp_elicit.client.audit import AuditLog
from mcp_elicit.forms import ConversionError, Form, InvalidSchema, Problem, convert
from mcp_elicit.i18n import current_language
from mcp_elicit.protocol import (
    ElicitationModes,
    ElicitationRequest,
    ElicitResult,
    ProtocolProblem,
    elicit_result,
    invalid_params_error,
    parse_elicit_result,
    parse_elicitation_params,
    rules_for,
)
from mcp_elicit.revisions import Revision
from mcp_elicit.urls import DEFAULT_POLICY, UrlPolicy, UrlVerdict, check_url

VERDICT_META = "io.github.mcp-elicit/url-verdict"
"""The ``_meta`` key under which the gateway attaches a link's safety verdict (the JSON of
``mcp-elicit url check --json``) to a URL-mode question it passes on."""


class Refused(Exception):
    """The question cannot go to this client: ``error`` is the JSON-RPC error for it."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error["message"])
        self.error = error


class BadAnswer(Exception):
    """The client's answer to ``request`` does not fit it: ``problems`` say where."""

    def __init__(
        self, request: ElicitationRequest, problems: list[Problem] | list[ProtocolProblem]
    ) -> None:
        said = "; ".join(f"{p.field}: {p.message}" if p.field else p.message for p in problems)
        super().__init__(f"The answer to {request.message!r} is invalid: {said}")
        self.request = request
        self.problems = problems

    def result_for(self, method: str) -> dict[str, Any]:
        """What the client's call ends with: a tool error naming the fields (a tool's
        errors have a result to go in), else raised as -32602."""
        if method == "tools/call":
            return {"content": [{"type": "text", "text": str(self)}], "isError": True}
        raise MCPError(INVALID_PARAMS, str(self))


@dataclass(frozen=True, slots=True)
class Checks:
    """What the gateway checks on the way (every one on by default).

    - ``validate_answers``: an answer that does not fit the question's schema never goes
      upstream: the call ends with an error naming the fields (a tool error for
      ``tools/call``), and the upstream's call is given up.
    - ``url_verdicts``: attach each link's safety verdict (:data:`VERDICT_META`).
    - ``block_links``: a link whose verdict is *block* never reaches the person.
    - ``audit``: a JSON-lines record of every question and what became of it (answers
      redacted, links redacted: ``mcp_elicit.client.audit``).
    """

    validate_answers: bool = True
    url_verdicts: bool = True
    block_links: bool = True
    url_policy: UrlPolicy = DEFAULT_POLICY
    audit: AuditLog | None = field(default=None, compare=False)


def read_question(params: Any, revision: Revision | str) -> ElicitationRequest:
    """The question in ``params`` (an ``elicitation/create``'s, in ``revision``); ``Refused``
    with -32602 and every problem when it is not one."""
    parsed = parse_elicitation_params(params, revision=revision)
    if isinstance(parsed, list):
        raise Refused(invalid_params_error(parsed))
    return parsed


@dataclass(frozen=True, slots=True)
class Bridge:
    """The checks, applied between an upstream and a downstream revision."""

    checks: Checks = Checks()

    def blocked(self, request: ElicitationRequest) -> bool:
        """A link the policy refuses to show (the caller answers ``cancel`` upstream)."""
        if request.mode != "url" or request.url is None or not self.checks.block_links:
            return False
        return _verdict(request.url, self.checks.url_policy).blocked

    def question_for(
        self,
        request: ElicitationRequest,
        revision: Revision,
        modes: ElicitationModes,
    ) -> dict[str, Any]:
        """``request`` as ``elicitation/create`` params for a client of ``revision`` that
        declared ``modes``. ``Refused`` when that client cannot be asked it."""
        if not modes.allows(request.mode):
            raise Refused(
                {
                    "code": INVALID_REQUEST,
                    "message": (
                        f"The server asked a {request.mode}-mode question and the client "
                        f"did not declare {request.mode} mode"
                    ),
                }
            )
        if request.mode == "url" and not rules_for(revision).has_url_mode:
            raise Refused({"code": INVALID_REQUEST, "message": f"{revision} has no URL mode"})
        try:
            if request.mode == "form" and request.requested_schema is not None:
                schema = convert(request.requested_schema, to=revision.value)
                request = replace(request, requested_schema=schema)
            params = request.to_params(revision)
        except (ConversionError, InvalidSchema, ValueError) as cannot:
            raise Refused(
                {
                    "code": INVALID_REQUEST,
                    "message": f"The server's question cannot be asked on {revision}: {cannot}",
                }
            ) from None
        if request.mode == "url" and request.url is not None and self.checks.url_verdicts:
            verdict = _verdict(request.url, self.checks.url_policy)
            params["_meta"] = {**(request.meta or {}), VERDICT_META: verdict.to_json()}
        elif request.meta:
            params["_meta"] = dict(request.meta)
        return params

    def read_answer(
        self, raw: Any, request: ElicitationRequest, revision: Revision | str
    ) -> ElicitResult:
        """The client's answer to ``request``, read in ``revision`` and checked against the
        question's schema; ``BadAnswer`` when it does not fit."""
        parsed = parse_elicit_result(raw, revision=revision, mode=request.mode)
        if isinstance(parsed, list):
            raise BadAnswer(request, parsed)
        if (
            self.checks.validate_answers
            and parsed.action == "accept"
            and request.mode == "form"
            and request.requested_schema is not None
        ):
            problems = Form.from_schema(request.requested_schema).validate(parsed.content or {})
            if problems:
                raise BadAnswer(request, problems)
        return parsed

    def record(self, event: Mapping[str, Any]) -> None:
        if self.checks.audit is not None:
            self.checks.audit.record({"by": "gateway", **event})

    def audit_answer(self, request: ElicitationRequest, answer: ElicitResult, **event: Any) -> None:
        if self.checks.audit is None:
            return
        self.record(
            {
                "mode": request.mode,
                "message": request.message,
                "url": request.url,
                "action": answer.action,
                "content": self.checks.audit.content(answer.content),
                **event,
            }
        )


# A link is judged when the gateway decides whether to block it and again when it attaches
# the verdict; the same links come back round after round. A verdict's reasons are worded in
# the language in effect, which is part of the key.
@functools.lru_cache(maxsize=1024)
def _verdict_in(url: str, policy: UrlPolicy, language: str) -> UrlVerdict:
    return check_url(url, policy)


def _verdict(url: str, policy: UrlPolicy) -> UrlVerdict:
    return _verdict_in(url, policy, current_language())


def answer_for(
    answer: ElicitResult, request: ElicitationRequest, revision: Revision | str
) -> dict[str, Any]:
    """``answer`` as the ``ElicitResult`` a server of ``revision`` reads."""
    content = answer.content if answer.action == "accept" and request.mode == "form" else None
    return elicit_result(answer.action, content, revision=revision, mode=request.mode)


CANCEL: dict[str, Any] = {"action": "cancel"}
