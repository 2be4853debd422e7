"""One question and its answer, carried from the upstream's revision to the downstream's and
back, with the checks a gateway applies on the way. No I/O but the audit log.

Rules:

- One call per question, one per answer: whichever way a call goes through, a question
  becomes what the client is shown by :meth:`Bridge.question`, and an answer becomes what the
  server is sent by :meth:`Bridge.answer`. Everything the gateway checks happens inside
  those two calls, and so does the audit.
- A question, read in the upstream's revision (a push-era server's by :mod:`.upstream`, a
  2026-07-28 server's with its round), is written in the downstream's: a schema is converted
  (a schema the downstream revision cannot express is an error naming what), a mode the
  downstream client did not declare is refused (never silently declined), a link gets its
  safety verdict in ``_meta`` (:data:`VERDICT_META`) or, blocked by policy, never reaches the
  person: :class:`LinkBlocked`, with which the caller ends the call, the person told that
  the gateway blocked the link and why (the verdict's reasons), rather than answering
  ``cancel`` for them in silence. The URL itself is never rewritten, opened or fetched.
- The links of an upstream's -32042 / -32604 are the server's refusal, not a question: they
  are written for the client (:meth:`Bridge.written`) and not blocked. They are audited all
  the same, marked ``"required": true``: the person's answer to each, when it comes back
  through the gateway (:meth:`Bridge.answer`, ``required=True``), else the link passed on
  to a client that answers the server itself (:meth:`Bridge.passed_on`).
- An answer is read in the downstream's revision, checked against the question's schema
  before it goes anywhere, and written in the upstream's; one that does not fit is
  :class:`BadAnswer` (audited as ``invalid``) and never goes upstream.
- Sizes are checked here too (:class:`~.limits.Limits`): a question larger than
  ``question_bytes`` is never written for the client, an answer larger is never read
  (:class:`~.limits.OverLimit`, naming the limit); so are the answers one retry carries
  (:meth:`Bridge.responses`). How many questions one call asks is counted by each way
  through (:meth:`Bridge.asked`), since only it knows where its call begins and ends.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from mcp_elicit.client.audit import AuditLog
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.forms import ConversionError, Form, InvalidSchema, Problem, convert
from mcp_elicit.gateway.limits import Limits
from mcp_elicit.i18n import _, current_language
from mcp_elicit.protocol import (
    ElicitationModes,
    ElicitationRequest,
    ElicitResult,
    ProtocolProblem,
    elicit_result,
    parse_elicit_result,
    rules_for,
)
from mcp_elicit.protocol.peers import Peer
from mcp_elicit.revisions import Revision
from mcp_elicit.urls import DEFAULT_POLICY, UrlPolicy, UrlVerdict, check_url

logger = logging.getLogger(__name__)

VERDICT_META = "io.github.mcp-elicit/url-verdict"
"""The ``_meta`` key under which the gateway attaches a link's safety verdict (the JSON of
``mcp-elicit url check --json``) to a URL-mode question it passes on."""


class Refused(MCPError):
    """The question cannot go to this client (the JSON-RPC error for it)."""


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


class LinkBlocked(Exception):
    """The server asked the person to open ``request``'s link, and the gateway's policy
    blocks it (``verdict``): the call ends, the person told why (never a silent ``cancel``)."""

    def __init__(self, request: ElicitationRequest, verdict: UrlVerdict) -> None:
        # The reasons are our checker's words, but they quote parts of the server's URL.
        reasons = "; ".join(clean(r.message, newlines=False) for r in verdict.reasons)
        super().__init__(
            _(
                "The gateway blocked a link the server asked you to open, so the call "
                "cannot go on: {reasons}"
            ).format(reasons=reasons)
        )
        self.request = request
        self.verdict = verdict

    def result_for(self, method: str) -> dict[str, Any]:
        """What the client's call ends with: a tool error saying so (a tool's errors have a
        result to go in), else raised as -32600 with the verdict's reason codes."""
        if method == "tools/call":
            return {"content": [{"type": "text", "text": str(self)}], "isError": True}
        data = {"why": "url-blocked", "reasons": [str(code) for code in self.verdict.codes]}
        raise MCPError(INVALID_REQUEST, str(self), data)


@dataclass(frozen=True, slots=True)
class Safeguards:
    """What the gateway checks and records on the way (every one on by default).

    - ``validate_answers``: an answer that does not fit the question's schema never goes
      upstream: the call ends with an error naming the fields (a tool error for
      ``tools/call``), and the upstream's call is given up.
    - ``url_verdicts``: attach each link's safety verdict (:data:`VERDICT_META`). Only
      push-era clients receive it: the SDK's server drops ``_meta`` from a 2026-07-28 input
      request (docs/gateway.md, "URL mode").
    - ``block_links``: a link whose verdict is *block* never reaches the person; the call
      ends with an error saying the gateway blocked it, and why.
    - ``audit``: a JSON-lines record of every question and what became of it (answers
      redacted, links redacted: ``mcp_elicit.client.audit``).
    """

    validate_answers: bool = True
    url_verdicts: bool = True
    block_links: bool = True
    url_policy: UrlPolicy = DEFAULT_POLICY
    audit: AuditLog | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Carried:
    """An answer on its way upstream: ``answer`` as the client gave it, checked (what the
    audit log records), and ``sent`` as the server's revision reads it."""

    answer: ElicitResult
    sent: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Bridge:
    """The safeguards and the limits, applied between an upstream and a downstream
    revision."""

    safeguards: Safeguards = Safeguards()
    limits: Limits = field(default_factory=Limits)

    def asked(self, count: int) -> None:
        """The ``count``-th question of one call (or ``count`` in one round): ``OverLimit``
        past ``questions_per_call``."""
        self.limits.questions(count)

    def links(self, requests: list[ElicitationRequest]) -> None:
        """The links of an upstream's -32042 / -32604, all asked in one go: ``OverLimit``
        for too many, or one too large."""
        self.limits.questions(len(requests))
        for request in requests:
            self.limits.question_size(_as_json(request))

    def responses(self, responses: Mapping[str, Any]) -> None:
        """The answers one retry carries, before any is read: ``OverLimit`` for too many, or
        one too large."""
        self.limits.answers(len(responses))
        for response in responses.values():
            self.limits.answer_size(response)

    def question(self, request: ElicitationRequest, client: Peer) -> dict[str, Any]:
        """``request`` as ``elicitation/create`` params for ``client``. ``LinkBlocked`` for a
        link the policy blocks (audited as cancelled: the caller ends the call with it);
        ``Refused`` when that client cannot be asked it."""
        if client.revision is None:
            raise Refused(INVALID_REQUEST, "The client has no elicitation")
        blocked = self._blocked(request)
        if blocked is not None:
            self._record(
                {
                    "mode": "url",
                    "message": request.message,
                    "url": request.url,
                    "action": "cancel",
                    "why": "url-blocked",
                    "url_reasons": [str(code) for code in blocked.codes],
                }
            )
            # One line, no traceback: blocking is the policy working, not a failure.
            logger.warning(
                "blocked a link the server asked to open (%s): %s",
                ", ".join(str(code) for code in blocked.codes),
                "; ".join(clean(reason.message, newlines=False) for reason in blocked.reasons),
            )
            raise LinkBlocked(request, blocked)
        return self.written(request, client.revision, client.modes)

    def passed_on(self, requests: list[ElicitationRequest]) -> None:
        """Audit the links of an upstream's -32042 / -32604 passed on to a client that answers
        the server itself (its retry goes upstream, not through this bridge)."""
        for request in requests:
            self._record(
                {
                    "mode": request.mode,
                    "message": request.message,
                    "url": request.url,
                    "action": "passed-on",
                    "required": True,
                }
            )

    def written(
        self, request: ElicitationRequest, revision: Revision, modes: ElicitationModes
    ) -> dict[str, Any]:
        """``request`` as ``elicitation/create`` params for a client of ``revision`` that
        declared ``modes``, with no policy applied to its link. ``Refused`` when that client
        cannot be asked it, ``OverLimit`` when it is too large to pass on."""
        self.limits.question_size(_as_json(request))
        if not modes.allows(request.mode):
            raise Refused(
                INVALID_REQUEST,
                f"The server asked a {request.mode}-mode question and the client "
                f"did not declare {request.mode} mode",
            )
        if request.mode == "url" and not rules_for(revision).has_url_mode:
            raise Refused(INVALID_REQUEST, f"{revision} has no URL mode")
        try:
            if request.mode == "form" and request.requested_schema is not None:
                schema = convert(request.requested_schema, to=revision.value)
                request = replace(request, requested_schema=schema)
            params = request.to_params(revision)
        except (ConversionError, InvalidSchema, ValueError) as cannot:
            raise Refused(
                INVALID_REQUEST, f"The server's question cannot be asked on {revision}: {cannot}"
            ) from None
        if request.mode == "url" and request.url is not None and self.safeguards.url_verdicts:
            verdict = _verdict(request.url, self.safeguards.url_policy)
            params["_meta"] = {**(request.meta or {}), VERDICT_META: verdict.to_json()}
        elif request.meta:
            params["_meta"] = dict(request.meta)
        return params

    def answer(
        self,
        raw: Any,
        request: ElicitationRequest,
        *,
        read_in: Revision,
        write_in: Revision,
        required: bool = False,
    ) -> Carried:
        """The client's answer to ``request``, read in ``read_in``, checked against the
        question's schema, audited, and written for a server of ``write_in``. ``BadAnswer``
        (audited as ``invalid``) when it does not fit; ``OverLimit`` when it is too large to
        read. ``required``: the link is one of an upstream's -32042 / -32604 (so marked in
        the audit line)."""
        self.limits.answer_size(raw)
        marked = {"required": True} if required else {}
        try:
            answer = self._read_answer(raw, request, read_in)
        except BadAnswer as bad:
            self._record(
                {
                    "mode": request.mode,
                    "message": request.message,
                    "action": "invalid",
                    "why": str(bad),
                    **marked,
                }
            )
            raise
        if self.safeguards.audit is not None:
            self._record(
                {
                    "mode": request.mode,
                    "message": request.message,
                    "url": request.url,
                    "action": answer.action,
                    "content": self.safeguards.audit.content(answer.content),
                    **marked,
                }
            )
        content = answer.content if answer.action == "accept" and request.mode == "form" else None
        sent = elicit_result(answer.action, content, revision=write_in, mode=request.mode)
        return Carried(answer, sent)

    def _blocked(self, request: ElicitationRequest) -> UrlVerdict | None:
        """The verdict of a link the policy blocks; ``None`` for anything else."""
        if request.mode != "url" or request.url is None or not self.safeguards.block_links:
            return None
        verdict = _verdict(request.url, self.safeguards.url_policy)
        return verdict if verdict.blocked else None

    def _read_answer(
        self, raw: Any, request: ElicitationRequest, revision: Revision
    ) -> ElicitResult:
        parsed = parse_elicit_result(raw, revision=revision, mode=request.mode)
        if isinstance(parsed, list):
            raise BadAnswer(request, parsed)
        if (
            self.safeguards.validate_answers
            and parsed.action == "accept"
            and request.mode == "form"
            and request.requested_schema is not None
        ):
            problems = Form.from_schema(request.requested_schema).validate(parsed.content or {})
            if problems:
                raise BadAnswer(request, problems)
        return parsed

    def _record(self, event: Mapping[str, Any]) -> None:
        if self.safeguards.audit is not None:
            self.safeguards.audit.record({"by": "gateway", **event})


def _as_json(request: ElicitationRequest) -> dict[str, Any]:
    """What of ``request`` is passed on, as JSON, to be measured before it is converted."""
    return {
        "message": request.message,
        "requestedSchema": request.requested_schema,
        "url": request.url,
        "elicitationId": request.elicitation_id,
        "_meta": request.meta,
    }


# A link is judged when the gateway decides whether to block it and again when it attaches
# the verdict; the same links come back round after round. A verdict's reasons are worded in
# the language in effect, which is part of the key.
@functools.lru_cache(maxsize=1024)
def _verdict_in(url: str, policy: UrlPolicy, language: str) -> UrlVerdict:
    return check_url(url, policy)


def _verdict(url: str, policy: UrlPolicy) -> UrlVerdict:
    return _verdict_in(url, policy, current_language())
