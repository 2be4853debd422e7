"""The server checks: each drives the server under test through :class:`Probe` on one
revision and judges what came over the wire.

A check needs the tools the catalog names for it (the official suite's ``test_*`` tools,
and ours in the same style, docs/check.md "Tools a server lists for the checks"); a server
that lacks one gets "skipped", never a pass. Each check returns one :class:`Outcome`; an
exception inside a check is a failure that says what broke, never a crash of the run.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import anyio
from mcp_types import REQUEST_TIMEOUT

from mcp_elicit.check.catalog import (
    CHECKS,
    CORE_TASK_CHECKS,
    ENUMS_TOOL,
    FORM_TOOL,
    FORM_TOOLS,
    ROUND_TOOL,
    SERVER_CHECKS,
    STATE_TOOL,
    TASK_ASK_TOOL,
    TASK_BOTH_TOOL,
    TASK_PROTOCOL_ERROR_TOOL,
    TASK_REQUIRED_TOOL,
    TASK_SLOW_TOOL,
    TASK_TOOL_ERROR_TOOL,
    TASK_TWO_TOOL,
    URL_REQUIRED_TOOL,
    URL_TOOL,
)
from mcp_elicit.check.probe import EndlessList, Probe, ProbeReply, Target, text_of
from mcp_elicit.check.report import NO_TOOL, Outcome, Status
from mcp_elicit.check.streams import GET, StreamProbe
from mcp_elicit.forms.linting import find_url, secret_term
from mcp_elicit.protocol.codes import (
    ELICITATION_COMPLETE as NOTICE,
)
from mcp_elicit.protocol.codes import (
    ELICITATION_REQUIRED_DRAFT,
    INVALID_PARAMS,
    META_RELATED_TASK,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    TASKS_EXTENSION,
    URL_ELICITATION_REQUIRED,
)
from mcp_elicit.protocol.codes import (
    ELICITATION_TRACK as TRACK,
)
from mcp_elicit.protocol.tasks import Task, parse_create_task_result
from mcp_elicit.revisions import Revision
from mcp_elicit.server.link_rules import is_loopback_host

NOTICE_WAIT = 10.0
"""Seconds a check waits for a completion notice (the check tools complete within one)."""
QUIET = 1.0
"""Seconds a session must stay quiet to show it was not sent something."""
REFUSAL_WAIT = 5.0
"""Seconds within which a request that must be refused gets its error."""
RETRY_WAIT = 30.0
"""Seconds a check keeps calling again after -32042 while no completion notice came and the
server still answers -32042 ("not yet"), before it concludes the call never succeeds."""
RETRY_FIRST_PAUSE = 0.5
RETRY_MAX_PAUSE = 4.0
"""The pause between those calls: doubling from the first to the most."""

_LINK = re.compile(r"\b(?:https?|ftp)://|\bwww\.", re.IGNORECASE)

FORM_MODES = frozenset({"form"})
BOTH = frozenset({"form", "url"})


class Finding(Exception):
    """A check's verdict, raised from deep inside it: ``status`` and what was seen."""

    def __init__(self, status: Status, seen: str) -> None:
        super().__init__(seen)
        self.status = status
        self.seen = seen


def failed(seen: str) -> Finding:
    return Finding(Status.FAILED, seen)


@dataclass
class ServerRun:
    """The server under test, and how to reach it as one user (``headers``) or as another
    (``other_headers``: the checks that need a second user)."""

    target: Target
    headers: Mapping[str, str] = field(default_factory=dict)
    other_headers: Mapping[str, str] | None = None
    _tools: dict[str, set[str]] = field(default_factory=dict)
    _endless: dict[str, EndlessList] = field(default_factory=dict)
    _forms: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _speaks_draft: bool | None = None
    _no_core_tasks: str | None = None
    _asked_core_tasks: bool = False

    @property
    def over_http(self) -> bool:
        return isinstance(self.target, str)

    def probe(
        self,
        revision: str,
        *,
        modes: frozenset[str] | None = BOTH,
        answer: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
        other_user: bool = False,
    ) -> Probe:
        headers = self.other_headers if other_user and self.other_headers else self.headers
        options: dict[str, Any] = {"modes": modes, "headers": headers}
        if answer is not None:
            options["answer"] = answer
        return Probe(self.target, revision, **options)

    async def speaks_draft(self) -> bool:
        """Whether the server implements the URL-mode draft at all: a server that answers
        ``elicitation/track`` with -32601 (method not found) never did, and its checks on
        the draft are not applicable (a 2025-06-18 client is then checked as one)."""
        if self._speaks_draft is None:
            async with self.probe(Revision.URL_DRAFT) as probe:
                reply = await probe.request(
                    TRACK, {"elicitationId": "mcp-elicit-check", "_meta": {"progressToken": 0}}
                )
            self._speaks_draft = reply.code != METHOD_NOT_FOUND
        return self._speaks_draft

    async def why_no_core_tasks(self) -> str | None:
        """Why 2025-11-25's task checks do not apply to the server (``None``: they do): its
        ``initialize`` result declares no ``capabilities.tasks.requests.tools.call``, and a
        client MUST NOT then make a task-augmented call (basic/utilities/tasks § Tool-Level
        Negotiation, rule 1). Asked once."""
        if not self._asked_core_tasks:
            async with self.probe(Revision.V2025_11_25) as probe:
                initialized = [
                    message["result"]
                    for message in probe.wire.received()
                    if isinstance(message.get("result"), Mapping)
                    and "protocolVersion" in message["result"]
                ]
            capabilities = (initialized[0] if initialized else {}).get("capabilities") or {}
            tasks = capabilities.get("tasks") if isinstance(capabilities, Mapping) else None
            requests = tasks.get("requests") if isinstance(tasks, Mapping) else None
            tools = requests.get("tools") if isinstance(requests, Mapping) else None
            if not isinstance(tasks, Mapping):
                self._no_core_tasks = "the server declares no capabilities.tasks in initialize"
            elif not isinstance(tools, Mapping) or "call" not in tools:
                self._no_core_tasks = (
                    "the server declares no capabilities.tasks.requests.tools.call: no tool "
                    "call may be made a task"
                )
            self._asked_core_tasks = True
        return self._no_core_tasks

    async def tools(self, revision: str) -> set[str]:
        """The tools the server lists to a client that declares every mode."""
        if revision in self._endless:
            raise self._endless[revision]  # once is enough: it takes MAX_PAGES requests
        if revision not in self._tools:
            async with self.probe(revision) as probe:
                try:
                    self._tools[revision] = set(await probe.tools())
                except EndlessList as error:
                    self._endless[revision] = error
                    raise
        return self._tools[revision]


CheckFn = Callable[[ServerRun, str], Awaitable[str]]
"""A check's body: returns what it saw when it passed; raises :class:`Finding` otherwise."""

_BODIES: dict[str, CheckFn] = {}


def _body(check_id: str) -> Callable[[CheckFn], CheckFn]:
    if check_id not in CHECKS:
        raise KeyError(f"no check {check_id!r} in the catalog")

    def register(fn: CheckFn) -> CheckFn:
        _BODIES[check_id] = fn
        return fn

    return register


async def run_check(run: ServerRun, check_id: str, revision: str) -> Outcome:
    check = CHECKS[check_id]
    if revision not in check.revisions:
        return Outcome(check_id, revision, Status.NOT_APPLICABLE, f"not in {revision}")
    if check_id in CORE_TASK_CHECKS:
        # Before the tools: a server without tasks lacks the task tools for that reason.
        try:
            why_not = await run.why_no_core_tasks()
        except Exception as error:
            return Outcome(
                check_id, revision, Status.FAILED, f"could not initialize: {_why(error)}"
            )
        if why_not is not None:
            return Outcome(check_id, revision, Status.NOT_APPLICABLE, why_not)
    try:
        listed = await run.tools(revision)
    except Exception as error:
        return Outcome(check_id, revision, Status.FAILED, f"could not list tools: {_why(error)}")
    missing = [tool for tool in check.tools_on(revision) if tool not in listed]
    if missing:
        return Outcome(check_id, revision, Status.SKIPPED, NO_TOOL + ", ".join(missing))
    try:
        if revision == Revision.URL_DRAFT and not await run.speaks_draft():
            said = "the server does not implement the URL-mode draft (elicitation/track: -32601)"
            return Outcome(check_id, revision, Status.NOT_APPLICABLE, said)
    except Exception as error:
        return Outcome(check_id, revision, Status.FAILED, f"the exchange broke: {_why(error)}")
    try:
        seen = await _BODIES[check_id](run, revision)
    except Exception as error:
        # A verdict raised inside a probe's block may come out wrapped by the SDK's tasks.
        leaf = _leaf(error)
        if isinstance(leaf, Finding):
            return Outcome(check_id, revision, leaf.status, leaf.seen)
        return Outcome(check_id, revision, Status.FAILED, f"the exchange broke: {_why(leaf)}")
    return Outcome(check_id, revision, Status.PASSED, seen)


def _leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _why(error: BaseException) -> str:
    error = _leaf(error)
    return f"{type(error).__name__}: {error}"


def _required_call() -> dict[str, str]:
    """The arguments of a ``URL_REQUIRED_TOOL`` call and its retry: a key of their own, so
    that the server tells this exchange from any earlier one."""
    return {"key": secrets.token_hex(8)}


# -- what a URL-mode request must look like ---------------------------------------------------


def url_request_problems(params: Mapping[str, Any], revision: str) -> list[str]:
    """What is wrong with a URL-mode ``elicitation/create`` params on ``revision``."""
    problems: list[str] = []
    if params.get("mode") != "url":
        problems.append(f"mode is {params.get('mode')!r}, not 'url'")
    message = params.get("message")
    if not isinstance(message, str) or not message.strip():
        problems.append("no message")
    elif _LINK.search(message):
        problems.append("the message holds a URL (a URL belongs in the url field only)")
    url = params.get("url")
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        problems.append(f"url {url!r} is not a valid http(s) URL")
    has_id = isinstance(params.get("elicitationId"), str) and bool(params.get("elicitationId"))
    if revision in (Revision.URL_DRAFT, Revision.V2025_11_25) and not has_id:
        problems.append("no elicitationId")
    if revision == Revision.V2026_07_28 and "elicitationId" in params:
        problems.append(f"an elicitationId, which {Revision.V2026_07_28} does not have")
    if "requestedSchema" in params:
        problems.append("a requestedSchema on a URL-mode request")
    return problems


def _url_requests_in(result: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The URL-mode elicitation requests of an InputRequiredResult."""
    found = []
    for request in ((result or {}).get("inputRequests") or {}).values():
        if isinstance(request, Mapping) and request.get("method") == "elicitation/create":
            params = request.get("params") or {}
            if params.get("mode") == "url" or "url" in params:
                found.append(dict(params))
    return found


def _asks_for_input(reply: ProbeReply) -> bool:
    return reply.result is not None and reply.result.get("resultType") == "input_required"


def _pushed_links(probe: Probe) -> list[dict[str, Any]]:
    return [p for p in probe.asked if p.get("mode") == "url" or "url" in p]


# -- URL mode -------------------------------------------------------------------------------


@_body("server-url-request-shape")
async def _url_request_shape(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        reply = await probe.call(URL_TOOL)
        links = (
            _url_requests_in(reply.result)
            if revision == Revision.V2026_07_28
            else _pushed_links(probe)
        )
    if not links:
        raise failed(f"{URL_TOOL} sent no URL-mode request; it answered {reply.describe()}")
    problems = [p for link in links for p in url_request_problems(link, revision)]
    if problems:
        raise failed("; ".join(problems))
    return f"{len(links)} URL-mode request(s), well formed: url {links[0].get('url')!r}"


@_body("server-url-https")
async def _url_https(run: ServerRun, revision: str) -> str:
    links: list[dict[str, Any]] = []
    async with run.probe(revision) as probe:
        reply = await probe.call(URL_TOOL)
        links += _links_of(probe, reply, revision)
        if URL_REQUIRED_TOOL in await run.tools(revision):
            required = await probe.call(URL_REQUIRED_TOOL, _required_call())
            links += _links_of(probe, required, revision)
    urls = list(dict.fromkeys(str(link.get("url")) for link in links))
    if not urls:
        raise Finding(
            Status.SKIPPED,
            f"no link to judge: {URL_TOOL} sent no URL-mode request; it answered "
            f"{reply.describe()}",
        )
    plain = [url for url in urls if _plain_http_off_loopback(url)]
    if plain:
        shown = ", ".join(map(repr, plain))
        raise failed(f"plain http on a public host (HTTPS outside development): {shown}")
    return f"{len(urls)} link(s), each https or on loopback: {urls[0]!r}"


def _links_of(probe: Probe, reply: ProbeReply, revision: str) -> list[dict[str, Any]]:
    """The URL-mode requests a call led to: pushed, in an InputRequiredResult, or listed by a
    -32042 (-32604)."""
    found = _pushed_links(probe) + _url_requests_in(reply.result)
    data = (reply.error or {}).get("data")
    items = data.get("elicitations") if isinstance(data, Mapping) else None
    if reply.code in (URL_ELICITATION_REQUIRED, ELICITATION_REQUIRED_DRAFT) and isinstance(
        items, list
    ):
        found += [dict(item) for item in items if isinstance(item, Mapping)]
    return found


def _plain_http_off_loopback(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme.lower() == "http" and not is_loopback_host(parts.hostname or "")


@_body("server-complete-notice")
async def _complete_notice(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        reply = await probe.call(URL_TOOL)
        links = _pushed_links(probe)
        if not links:
            raise failed(f"{URL_TOOL} sent no URL-mode request; it answered {reply.describe()}")
        notices = await probe.wire.until(NOTICE, timeout=NOTICE_WAIT)
    if not notices:
        raise Finding(
            Status.SKIPPED,
            f"no completion notice within {NOTICE_WAIT:g} s (the notice is optional: MAY)",
        )
    sent = links[0].get("elicitationId")
    ids = [n.get("params", {}).get("elicitationId") for n in notices]
    if sent not in ids:
        raise failed(f"the notice names {ids}, the request's elicitationId was {sent!r}")
    return f"notice for elicitationId {sent!r}"


@_body("server-complete-notice-origin-only")
async def _notice_origin_only(run: ServerRun, revision: str) -> str:
    if not run.over_http:
        raise Finding(Status.NOT_APPLICABLE, "one session per server process over stdio")
    async with run.probe(revision) as origin, run.probe(revision) as bystander:
        # Both sessions make the call, the bystander first: a server that keeps sessions
        # knows it, and its own notice shows it is listening.
        await bystander.call(URL_TOOL)
        await origin.call(URL_TOOL)
        links = _pushed_links(origin)
        if not links:
            raise failed(f"{URL_TOOL} sent no URL-mode request")
        sent = links[0].get("elicitationId")
        await origin.wire.until(NOTICE, timeout=NOTICE_WAIT)
        await anyio.sleep(QUIET)
        own = _notices_for(origin, sent)
        strays = _notices_for(bystander, sent)
    if strays:
        raise failed(f"another session got {len(strays)} completion notice(s) for {sent!r}")
    if not own:
        raise Finding(Status.SKIPPED, "no completion notice was sent at all")
    return "only the session that made the call got the notice"


@_body("server-requests-associated")
async def _requests_associated(run: ServerRun, revision: str) -> str:
    """Two form calls at once (each with a mark of its own in the message it asks the server
    to show), then a URL-mode call, over a session whose GET stream is open: each question
    must come on its own call's stream. Two at once, so that a question sent on the other
    call's stream is seen; a message without either mark is judged by its stream alone."""
    if not run.over_http:
        raise Finding(Status.NOT_APPLICABLE, "one stream over stdio: no stream to tell apart")
    assert isinstance(run.target, str)
    # Fixed marks (the report, and the compatibility matrix, quote them): one session's
    # questions are all this check's own.
    marks = {call: f"mcp-elicit check: call {call}" for call in "AB"}
    tools = [FORM_TOOL]
    if revision != Revision.V2025_06_18 and URL_TOOL in await run.tools(revision):
        tools.append(URL_TOOL)
    async with StreamProbe(run.target, revision, headers=run.headers) as probe:
        posted: dict[str, Any] = {}

        async def form_call(call: str) -> None:
            posted[call] = await probe.call(FORM_TOOL, {"message": marks[call]})

        async with anyio.create_task_group() as group:
            for call in marks:
                group.start_soon(form_call, call)
        if URL_TOOL in tools:
            await probe.call(URL_TOOL)
        arrivals = probe.associated()
        calls = {
            id(arrival): call
            for arrival in arrivals
            for call, mark in marks.items()
            if mark in str(arrival.params.get("message", ""))
        }
    if not arrivals:
        raise failed(f"{FORM_TOOL} asked nothing; it answered {posted['A'].describe()}")
    problems = []
    for arrival in arrivals:
        if arrival.stream == GET:
            problems.append(f"{arrival.describe()} came on {arrival.where()}")
            continue
        post = arrival.post or {}
        owner = calls.get(id(arrival))
        if post.get("method") != "tools/call":
            problems.append(f"{arrival.describe()} came on {arrival.where()}, not a tool call's")
        elif owner is not None and marks[owner] not in json.dumps(post.get("params")):
            problems.append(
                f"{arrival.describe()} belongs to call {owner}, and came on {arrival.where()}: "
                "another call's"
            )
    if problems:
        raise failed(
            # Sorted: the two calls run at once, and the report must not depend on which won.
            "; ".join(sorted(problems)) + " (a server request goes on the stream of the request it "
            "belongs to)"
        )
    return (
        f"{len(arrivals)} request(s) ({', '.join(tools)}), each on the response stream of "
        "its own tools/call"
    )


def _notices_for(probe: Probe, elicitation_id: Any) -> list[dict[str, Any]]:
    return [
        notice
        for notice in probe.wire.received(NOTICE)
        if notice.get("params", {}).get("elicitationId") == elicitation_id
    ]


@_body("server-url-required-error")
async def _url_required_error(run: ServerRun, revision: str) -> str:
    expected = (
        URL_ELICITATION_REQUIRED if revision == Revision.V2025_11_25 else ELICITATION_REQUIRED_DRAFT
    )
    async with run.probe(revision) as probe:
        reply = await probe.call(URL_REQUIRED_TOOL, _required_call())
    items = _required_items(reply, expected)
    problems = [p for item in items for p in url_request_problems(item, revision)]
    if problems:
        raise failed("data.elicitations: " + "; ".join(problems))
    return f"{expected} with {len(items)} URL-mode elicitation(s)"


def _required_items(reply: ProbeReply, expected: int) -> list[dict[str, Any]]:
    if reply.code != expected:
        raise failed(f"expected error {expected}, got {reply.describe()}")
    data = (reply.error or {}).get("data")
    items = data.get("elicitations") if isinstance(data, Mapping) else None
    if not isinstance(items, list) or not items:
        raise failed(f"error {expected} without a non-empty data.elicitations: data={data!r}")
    return [dict(item) if isinstance(item, Mapping) else {"item": item} for item in items]


@_body("server-url-required-retry")
async def _url_required_retry(run: ServerRun, revision: str) -> str:
    """-32042, then the same call again once the interaction completed. Only the completion
    notice says when that is, and it is optional (and may be late, or lost over HTTP on a busy
    machine): without it, a -32042 again means "not yet", never a failure. The call is made
    again, later each time, until the notice has come or :data:`RETRY_WAIT` has passed."""
    async with run.probe(revision) as probe:
        arguments = _required_call()
        first = await probe.call(URL_REQUIRED_TOOL, arguments)
        wanted = {
            item.get("elicitationId") for item in _required_items(first, URL_ELICITATION_REQUIRED)
        }
        told = await _notice_for(probe, wanted, timeout=NOTICE_WAIT)
        again = await probe.call(URL_REQUIRED_TOOL, arguments)
        give_up = anyio.current_time() + RETRY_WAIT
        pause = RETRY_FIRST_PAUSE
        while not told and again.code == URL_ELICITATION_REQUIRED:
            left = give_up - anyio.current_time()
            if left <= 0:
                break
            wanted |= {
                item.get("elicitationId")
                for item in _required_items(again, URL_ELICITATION_REQUIRED)
            }
            told = await _notice_for(probe, wanted, timeout=min(pause, left))
            again = await probe.call(URL_REQUIRED_TOOL, arguments)
            pause = min(pause * 2, RETRY_MAX_PAUSE)
    if again.error is not None or (again.result or {}).get("isError"):
        when = (
            "after the completion notice"
            if told
            else f"for {RETRY_WAIT:g} s after -32042, with no completion notice,"
        )
        raise failed(f"the call again {when} got {again.describe()}")
    said = "the notice came" if told else "no notice came (optional)"
    return f"-32042, {said}, then the call again returned a result"


async def _notice_for(probe: Probe, wanted: set[Any], *, timeout: float) -> bool:
    """Whether a completion notice for one of ``wanted`` came (waiting up to ``timeout``); a
    notice for another elicitation is not the go-ahead."""

    def named() -> bool:
        return any(
            (notice.get("params") or {}).get("elicitationId") in wanted
            for notice in probe.wire.received(NOTICE)
        )

    with anyio.move_on_after(timeout):
        while not named():
            await probe.wire.until_any(timeout=timeout)
    return named()


@_body("server-no-32042")
async def _no_32042(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        reply = await probe.call(URL_REQUIRED_TOOL, _required_call())
    if reply.code == URL_ELICITATION_REQUIRED:
        raise failed(f"error -32042, which {Revision.V2026_07_28} retired")
    links = _url_requests_in(reply.result)
    if not _asks_for_input(reply) or not links:
        raise failed(
            f"expected an InputRequiredResult with a URL-mode request, got {reply.describe()}"
        )
    return "an InputRequiredResult with a URL-mode request"


# -- the URL-mode draft: elicitation/track --------------------------------------------------


@_body("server-track")
async def _track(run: ServerRun, revision: str) -> str:
    steps: list[float] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        steps.append(value)

    async with run.probe(revision) as probe:
        first = await probe.call(URL_REQUIRED_TOOL, _required_call())
        [item, *_] = _required_items(first, ELICITATION_REQUIRED_DRAFT)
        tracked = await probe.request(
            TRACK,
            {"elicitationId": item.get("elicitationId"), "_meta": {"progressToken": "check"}},
            on_progress=progress,
        )
    if tracked.error is not None or (tracked.result or {}).get("status") != "complete":
        raise failed(f"elicitation/track answered {tracked.describe()}: {tracked.result}")
    if any(b <= a for a, b in itertools.pairwise(steps)):
        raise failed(f"progress did not increase: {steps}")
    return f"{len(steps)} progress notification(s), then {{status: complete}}"


async def _refused_track(probe: Probe, elicitation_id: Any, whose: str) -> str:
    """Track an id that is not the prober's to track: an error must come back, promptly; a
    track the server holds open (waiting on it) or answers is a failure."""
    tracked: ProbeReply | None = None
    with anyio.move_on_after(REFUSAL_WAIT):
        tracked = await probe.request(
            TRACK, {"elicitationId": elicitation_id, "_meta": {"progressToken": 1}}
        )
    if tracked is None or tracked.code == REQUEST_TIMEOUT:
        raise failed(f"{whose} was tracked: the server held the request open")
    if tracked.error is None:
        raise failed(f"{whose} was tracked: {tracked.result}")
    return f"refused: {tracked.describe()}"


@_body("server-track-unknown-id")
async def _track_unknown(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        return await _refused_track(
            probe, f"never-issued-{secrets.token_hex(8)}", "an id never issued"
        )


@_body("server-track-foreign-id")
async def _track_foreign(run: ServerRun, revision: str) -> str:
    if run.other_headers is None:
        raise Finding(Status.SKIPPED, "needs a second user's credentials (--other-header)")
    async with run.probe(revision) as owner:
        first = await owner.call(URL_REQUIRED_TOOL, _required_call())
        [item, *_] = _required_items(first, ELICITATION_REQUIRED_DRAFT)
        async with run.probe(revision, other_user=True) as other:
            return await _refused_track(
                other, item.get("elicitationId"), "another user's elicitation"
            )


# -- capability gating ----------------------------------------------------------------------


@_body("server-gate-url-mode")
async def _gate_url_mode(run: ServerRun, revision: str) -> str:
    async with run.probe(revision, modes=FORM_MODES) as probe:
        reply = await probe.call(URL_TOOL)
        pushed = _pushed_links(probe)
    if pushed:
        raise failed(f"sent URL mode to a form-only client: {pushed[0].get('url')!r}")
    if revision != Revision.V2026_07_28:
        return f"no URL-mode request; the call got {reply.describe()}"
    if _url_requests_in(reply.result):
        raise failed("an InputRequiredResult with a URL-mode request, to a form-only client")
    required = _required_capabilities(reply)
    elicitation = required.get("elicitation") if required is not None else None
    if not isinstance(elicitation, Mapping) or "url" not in elicitation:
        raise failed(
            f"expected -32021 with requiredCapabilities.elicitation.url, got {reply.describe()} "
            f"(requiredCapabilities={required!r})"
        )
    return "-32021 with requiredCapabilities.elicitation.url"


def _required_capabilities(reply: ProbeReply) -> Mapping[str, Any] | None:
    if reply.code != MISSING_REQUIRED_CLIENT_CAPABILITY:
        return None
    data = (reply.error or {}).get("data")
    found = data.get("requiredCapabilities") if isinstance(data, Mapping) else None
    return found if isinstance(found, Mapping) else None


@_body(f"server-gate-{Revision.V2025_06_18}")
async def _gate_2025_06_18(run: ServerRun, revision: str) -> str:
    async def decline(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "decline"}

    tools = [URL_TOOL, ENUMS_TOOL] if URL_TOOL in await run.tools(revision) else [ENUMS_TOOL]
    async with run.probe(revision, answer=decline) as probe:
        replies = [await probe.call(tool) for tool in tools]
        asked = list(probe.asked)
    problems: list[str] = []
    for params in asked:
        if params.get("mode") == "url" or "url" in params:
            problems.append("a URL-mode request")
        if "mode" in params:
            problems.append(f"a mode field ({params['mode']!r})")
        properties = (params.get("requestedSchema") or {}).get("properties") or {}
        for name, schema in properties.items():
            if isinstance(schema, Mapping) and ({"oneOf", "anyOf"} & schema.keys()):
                problems.append(f"{name}: a titled enum (oneOf/anyOf)")
            if isinstance(schema, Mapping) and schema.get("type") == "array":
                problems.append(f"{name}: a multi-select (array)")
    if problems:
        raise failed("; ".join(dict.fromkeys(problems)))
    if not asked:
        # Refusing what 2025-06-18 cannot express is right too: nothing unknown was sent.
        return f"nothing asked; {ENUMS_TOOL} got {replies[-1].describe()}"
    return f"{len(asked)} request(s), all in {Revision.V2025_06_18}'s shapes"


@_body("server-gate-capability")
async def _gate_capability(run: ServerRun, revision: str) -> str:
    async with run.probe(revision, modes=None) as probe:
        reply = await probe.call(ROUND_TOOL)
    required = _required_capabilities(reply)
    if required is None or "elicitation" not in required:
        raise failed(
            f"expected -32021 with requiredCapabilities.elicitation, got {reply.describe()}"
        )
    return "-32021 with requiredCapabilities.elicitation"


# -- results and answers --------------------------------------------------------------------


@_body("server-result-type")
async def _result_type(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        listed = await probe.list_tools_raw()
        asked = await probe.call(ROUND_TOOL)
        seen = [("tools/list", listed), ("tools/call", asked)]
        if _asks_for_input(asked):
            assert asked.result is not None
            answers = answers_for(asked.result)
            done = await probe.call(
                ROUND_TOOL,
                input_responses=answers,
                request_state=asked.result.get("requestState"),
            )
            seen.append(("tools/call retry", done))
    problems = []
    for what, reply in seen:
        if reply.result is None:
            problems.append(f"{what}: {reply.describe()}")
        elif reply.result.get("resultType") not in ("complete", "input_required"):
            problems.append(f"{what}: resultType {reply.result.get('resultType')!r}")
    if problems:
        raise failed("; ".join(problems))
    kinds = ", ".join(
        f"{what}: {reply.result.get('resultType')}" for what, reply in seen if reply.result
    )
    return kinds


def valid_answer(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A valid answer to a form: every required field (and no other) given a value."""
    content: dict[str, Any] = {}
    properties = schema.get("properties") or {}
    for name in schema.get("required") or list(properties):
        prop = properties.get(name) or {}
        content[name] = _value_for(prop)
    return content


def _value_for(prop: Mapping[str, Any]) -> Any:
    if "default" in prop:
        return prop["default"]
    if prop.get("enum"):
        return prop["enum"][0]
    if prop.get("oneOf"):
        return prop["oneOf"][0].get("const")
    kind = prop.get("type")
    if kind == "boolean":
        return True
    if kind in ("number", "integer"):
        return max(1, int(prop.get("minimum", 1)))
    if kind == "array":
        items = prop.get("items") or {}
        choices = items.get("enum") or [c.get("const") for c in items.get("anyOf") or []]
        return choices[:1]
    formats = {"email": "check@example.com", "uri": "https://example.com/", "date": "2026-01-02"}
    if prop.get("format") in formats:
        return formats[prop["format"]]
    if prop.get("format") == "date-time":
        return "2026-01-02T03:04:05Z"
    return "check".ljust(int(prop.get("minLength", 0)), "x")


def answers_for(result: Mapping[str, Any]) -> dict[str, Any]:
    """Valid ``inputResponses`` for every elicitation of an InputRequiredResult (URL mode:
    accepted)."""
    answers: dict[str, Any] = {}
    for key, request in (result.get("inputRequests") or {}).items():
        params = (request or {}).get("params") or {}
        if params.get("mode") == "url" or "url" in params:
            answers[key] = {"action": "accept"}
        else:
            answers[key] = {
                "action": "accept",
                "content": valid_answer(params.get("requestedSchema") or {}),
            }
    return answers


def broken_answer(schema: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """An answer valid but for one field, and that field's name."""
    content = valid_answer(schema)
    properties = schema.get("properties") or {}
    for name, prop in properties.items():
        if prop.get("format") == "email":
            return name, {**content, name: "not-an-email"}
    for name, prop in properties.items():
        if prop.get("enum") or prop.get("oneOf"):
            return name, {**content, name: "none-of-the-choices"}
    for name, prop in properties.items():
        kind = prop.get("type")
        wrong: Any = {"string": 12345, "number": "many", "integer": "many", "boolean": "maybe"}
        if kind in wrong:
            return name, {**content, name: wrong[kind]}
    raise Finding(Status.SKIPPED, "the form has no field an answer could break")


@_body("server-validates-answer")
async def _validates_answer(run: ServerRun, revision: str) -> str:
    if revision == Revision.V2026_07_28:
        return await _validates_in_rounds(run, revision)
    broken: list[str] = []

    async def break_it(params: dict[str, Any]) -> dict[str, Any]:
        name, content = broken_answer(params.get("requestedSchema") or {})
        broken.append(name)
        return {"action": "accept", "content": content}

    async with run.probe(revision, answer=break_it) as probe:
        reply = await probe.call(FORM_TOOL, {"message": "mcp-elicit check: please answer"})
    if not broken:
        raise failed(f"{FORM_TOOL} asked nothing; it answered {reply.describe()}")
    return _judge_broken(reply, broken[0])


async def _validates_in_rounds(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        first = await probe.call(ROUND_TOOL)
        if not _asks_for_input(first):
            raise failed(f"{ROUND_TOOL} asked nothing; it answered {first.describe()}")
        assert first.result is not None
        answers = answers_for(first.result)
        name = ""
        for key, request in (first.result.get("inputRequests") or {}).items():
            params = (request or {}).get("params") or {}
            if "requestedSchema" in params:
                name, content = broken_answer(params["requestedSchema"])
                answers[key] = {"action": "accept", "content": content}
                break
        if not name:
            raise Finding(Status.SKIPPED, f"{ROUND_TOOL} asked no form question")
        reply = await probe.call(
            ROUND_TOOL, input_responses=answers, request_state=first.result.get("requestState")
        )
    if _asks_for_input(reply):
        return f"the bad answer to {name!r} was not used: asked again"
    return _judge_broken(reply, name)


def _judge_broken(reply: ProbeReply, name: str) -> str:
    if reply.error is not None:
        said = f"{reply.error.get('message', '')} {reply.error.get('data') or ''}"
    elif reply.result is not None and reply.result.get("isError"):
        said = text_of(reply.result)
    else:
        raise failed(f"an answer breaking {name!r} was taken: {reply.describe()}")
    if name not in said:
        raise failed(f"the error does not name the field {name!r}: {said.strip()!r}")
    return f"refused, naming {name!r}: {said.strip()[:120]!r}"


# -- what a form may hold ------------------------------------------------------------------


async def forms_asked(run: ServerRun, revision: str) -> list[dict[str, Any]]:
    """The form-mode requests (their params) the server's form tools send on ``revision``:
    pushed ones are declined; on 2026-07-28 the first round's input requests. Asked once per
    revision, for every form check."""
    if revision not in run._forms:
        listed = await run.tools(revision)
        forms: list[dict[str, Any]] = []
        if revision == Revision.V2026_07_28:
            async with run.probe(revision) as probe:
                for tool in (ROUND_TOOL, STATE_TOOL):
                    if tool in listed:
                        reply = await probe.call(tool)
                        forms += _form_requests_in(reply.result)
        else:

            async def decline(params: dict[str, Any]) -> dict[str, Any]:
                return {"action": "decline"}

            async with run.probe(revision, answer=decline) as probe:
                await probe.call(FORM_TOOL, {"message": "mcp-elicit check: please answer"})
                if ENUMS_TOOL in listed:
                    await probe.call(ENUMS_TOOL)
                forms = [p for p in probe.asked if p.get("mode") != "url" and "url" not in p]
        run._forms[revision] = forms
    if not run._forms[revision]:
        tools = " and ".join(FORM_TOOLS[revision])
        raise Finding(Status.SKIPPED, f"no form to judge: {tools} asked no form question")
    return run._forms[revision]


def _form_requests_in(result: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    found = []
    for request in ((result or {}).get("inputRequests") or {}).values():
        if isinstance(request, Mapping) and request.get("method") == "elicitation/create":
            params = request.get("params") or {}
            if isinstance(params, Mapping) and params.get("mode") != "url" and "url" not in params:
                found.append(dict(params))
    return found


def _properties(form: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    schema = form.get("requestedSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return []
    return [(str(name), prop) for name, prop in properties.items() if isinstance(prop, Mapping)]


def _is_object(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("type") == "object" or "properties" in schema
    )


@_body("server-form-schema-flat")
async def _form_schema_flat(run: ServerRun, revision: str) -> str:
    forms = await forms_asked(run, revision)
    problems = []
    for form in forms:
        for name, prop in _properties(form):
            if _is_object(prop):
                problems.append(f"property {name!r} is an object (nested properties)")
            elif prop.get("type") == "array" and _is_object(prop.get("items")):
                problems.append(f"property {name!r} is an array of objects")
    if problems:
        raise failed("; ".join(dict.fromkeys(problems)))
    return f"{len(forms)} form(s), each flat with primitive properties"


@_body("server-form-no-url")
async def _form_no_url(run: ServerRun, revision: str) -> str:
    forms = await forms_asked(run, revision)
    problems = []
    for form in forms:
        message = form.get("message")
        if isinstance(message, str) and (url := find_url(message)):
            problems.append(f"the message holds a URL: {_trimmed(url)!r}")
        for name, prop in _properties(form):
            for where, text in _texts_of(prop):
                if url := find_url(text):
                    problems.append(
                        f"property {name!r}: its {where} holds a URL: {_trimmed(url)!r}"
                    )
    if problems:
        raise failed("; ".join(dict.fromkeys(problems)) + " (a URL belongs in URL mode)")
    return f"{len(forms)} form(s), no URL in any of their words"


def _trimmed(url: str) -> str:
    return url.rstrip(".,;:!?)]'\"")  # the sentence's, not the URL's


def _texts_of(prop: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A property's words a person reads: title, description, default, options."""
    texts = [(key, prop[key]) for key in ("title", "description", "default") if key in prop]
    items = prop.get("items")
    for holder in (prop, items if isinstance(items, Mapping) else {}):
        for key in ("enum", "enumNames", "oneOf", "anyOf"):
            options = holder.get(key)
            for option in options if isinstance(options, list) else []:
                values = option.values() if isinstance(option, Mapping) else [option]
                texts += [("option", value) for value in values]
    return [(where, text) for where, text in texts if isinstance(text, str)]


@_body("server-form-no-secrets")
async def _form_no_secrets(run: ServerRun, revision: str) -> str:
    forms = await forms_asked(run, revision)
    problems = []
    for form in forms:
        for name, prop in _properties(form):
            title, description = prop.get("title"), prop.get("description")
            term = secret_term(
                name,
                title if isinstance(title, str) else None,
                description if isinstance(description, str) else None,
            )
            if term:
                problems.append(f"property {name!r} asks for a secret ({term!r})")
    if problems:
        raise failed(
            "; ".join(dict.fromkeys(problems)) + " (sensitive information goes through URL mode)"
        )
    return f"{len(forms)} form(s), none asking for a password, a key, a token or card details"


@_body("server-request-state-tampered")
async def _state_tampered(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        first = await probe.call(STATE_TOOL)
        state = (first.result or {}).get("requestState")
        if not _asks_for_input(first) or not isinstance(state, str) or not state:
            raise Finding(Status.SKIPPED, f"{STATE_TOOL} gave no requestState: {first.describe()}")
        assert first.result is not None
        middle = len(state) // 2
        flipped = "A" if state[middle] != "A" else "B"
        tampered = state[:middle] + flipped + state[middle + 1 :]
        reply = await probe.call(
            STATE_TOOL, input_responses=answers_for(first.result), request_state=tampered
        )
    if reply.error is None:
        raise failed(f"a tampered requestState was taken: {reply.describe()}")
    return f"refused: {reply.describe()}"


@_body("server-request-state-foreign")
async def _state_foreign(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        other = await probe.call(STATE_TOOL)
        foreign = (other.result or {}).get("requestState")
        own = await probe.call(ROUND_TOOL)
        if not isinstance(foreign, str) or not foreign:
            raise Finding(Status.SKIPPED, f"{STATE_TOOL} gave no requestState to replay")
        if not _asks_for_input(own) or not (own.result or {}).get("requestState"):
            raise Finding(
                Status.NOT_APPLICABLE,
                f"{ROUND_TOOL}'s own round carries no requestState: nothing to bind",
            )
        assert own.result is not None
        reply = await probe.call(
            ROUND_TOOL, input_responses=answers_for(own.result), request_state=foreign
        )
    if reply.result is not None and not _asks_for_input(reply) and not reply.result.get("isError"):
        raise failed(f"{ROUND_TOOL} completed on {STATE_TOOL}'s requestState")
    return f"not taken: {reply.describe()}"


# -- the tasks extension (2026-07-28) -------------------------------------------------------

TASK_WAIT = 10.0
"""Seconds a task check polls for a status to come (the check tools ask at once)."""
TASK_POLL = 0.05
"""Seconds between two polls of a task check (faster than a client would: the checks' own
tools, and a server MAY only rate-limit)."""
_ACK = {"resultType": "complete"}


def _task_id_of(reply: ProbeReply, tool: str) -> str:
    """The id of the task a declaring call was answered with, else the check fails."""
    result = reply.result or {}
    if result.get("resultType") != "task":
        raise failed(f"{tool}, called declaring the extension, was not a task: {reply.describe()}")
    task_id = result.get("taskId")
    if not isinstance(task_id, str) or not task_id:
        raise failed(f"{tool}'s CreateTaskResult has no taskId: {result!r}")
    return task_id


async def _new_task(probe: Probe, tool: str, arguments: Mapping[str, Any] | None = None) -> str:
    params = {"name": tool, "arguments": dict(arguments or {})}
    return _task_id_of(await probe.task_request("tools/call", params), tool)


async def _task_get(probe: Probe, task_id: str) -> dict[str, Any]:
    reply = await probe.task_request("tasks/get", {"taskId": task_id})
    if reply.result is None:
        raise failed(f"tasks/get of the task just created: {reply.describe()}")
    return reply.result


async def _task_until(
    probe: Probe, task_id: str, done: Callable[[dict[str, Any]], bool], what: str
) -> dict[str, Any]:
    """Poll ``tasks/get`` until ``done`` says so; the check fails after :data:`TASK_WAIT`."""
    got = await _task_get(probe, task_id)
    with anyio.move_on_after(TASK_WAIT):
        while not done(got):
            await anyio.sleep(TASK_POLL)
            got = await _task_get(probe, task_id)
        return got
    raise failed(f"no {what} within {TASK_WAIT:g} s: the task is {_task_said(got)}")


def _task_said(got: Mapping[str, Any]) -> str:
    keys = sorted(got.get("inputRequests") or {})
    return f"{got.get('status')!r}" + (f" with inputRequests {keys}" if keys else "")


def _asking(got: Mapping[str, Any]) -> bool:
    return got.get("status") == "input_required" or got.get("status") in TERMINAL_TASK


TERMINAL_TASK = frozenset({"completed", "failed", "cancelled"})


def _questions(got: Mapping[str, Any]) -> dict[str, Any]:
    requests = got.get("inputRequests")
    return dict(requests) if isinstance(requests, Mapping) else {}


def _answers_to(requests: Mapping[str, Any]) -> dict[str, Any]:
    """An accepting, valid answer to each form question in ``requests``."""
    answers: dict[str, Any] = {}
    for key, request in requests.items():
        params = request.get("params") if isinstance(request, Mapping) else None
        schema = params.get("requestedSchema") if isinstance(params, Mapping) else None
        answers[key] = {"action": "accept", "content": valid_answer(schema or {})}
    return answers


async def _update(probe: Probe, task_id: str, responses: Mapping[str, Any]) -> ProbeReply:
    return await probe.task_request(
        "tasks/update", {"taskId": task_id, "inputResponses": dict(responses)}
    )


def _is_ack(reply: ProbeReply) -> bool:
    result = reply.result
    return result is not None and {k: v for k, v in result.items() if k != "_meta"} == _ACK


def _not_ack(reply: ProbeReply) -> str:
    """What came instead of the empty acknowledgement."""
    if reply.result is None:
        return reply.describe()
    extra = sorted(set(reply.result) - {"_meta", *_ACK})
    return f"a result with {', '.join(extra)}" if extra else f"{reply.result!r}"


async def _cancel_quietly(probe: Probe, task_id: str) -> None:
    """Leave no task of the check running on the server under test."""
    with contextlib.suppress(Exception):
        await probe.task_request("tasks/cancel", {"taskId": task_id})


@_body("server-task-declared")
async def _task_declared(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        reply = await probe.task_request("server/discover", {})
    capabilities = (reply.result or {}).get("capabilities")
    if not isinstance(capabilities, Mapping):
        raise failed(f"server/discover: {reply.describe()}")
    extensions = capabilities.get("extensions")
    if not isinstance(extensions, Mapping) or TASKS_EXTENSION not in extensions:
        raise failed(
            f"server/discover declares no capabilities.extensions[{TASKS_EXTENSION!r}], yet "
            f"the server lists {TASK_SLOW_TOOL}"
        )
    if "tasks" in capabilities:
        raise failed(f"capabilities.tasks, which {Revision.V2026_07_28} does not have")
    return f"capabilities.extensions[{TASKS_EXTENSION!r}] = {extensions[TASKS_EXTENSION]!r}"


@_body("server-task-undeclared")
async def _task_undeclared(run: ServerRun, revision: str) -> str:
    seen = []
    async with run.probe(revision) as probe:
        reply = await probe.task_request(
            "tools/call", {"name": TASK_SLOW_TOOL, "arguments": {"seconds": 0}}, declare=False
        )
        if (reply.result or {}).get("resultType") == "task":
            await _cancel_quietly(probe, str((reply.result or {}).get("taskId")))
            raise failed(f"a CreateTaskResult to a call that did not declare {TASKS_EXTENSION}")
        seen.append(f"{TASK_SLOW_TOOL}: {reply.describe()}")
        if TASK_REQUIRED_TOOL in await run.tools(revision):
            required = await probe.task_request(
                "tools/call", {"name": TASK_REQUIRED_TOOL, "arguments": {}}, declare=False
            )
            if (required.result or {}).get("resultType") == "task":
                await _cancel_quietly(probe, str((required.result or {}).get("taskId")))
                raise failed(f"{TASK_REQUIRED_TOOL}: a CreateTaskResult to an undeclared call")
            named = _required_capabilities(required) or {}
            if TASKS_EXTENSION not in (named.get("extensions") or {}):
                raise failed(
                    f"{TASK_REQUIRED_TOOL} without the extension: expected -32021 naming it in "
                    f"requiredCapabilities.extensions, got {required.describe()}"
                )
            seen.append(f"{TASK_REQUIRED_TOOL}: -32021 naming the extension")
    return "; ".join(seen)


@_body("server-task-methods-gated")
async def _task_methods_gated(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_SLOW_TOOL, {"seconds": 0})
        wrong = []
        for method, params in (
            ("tasks/get", {"taskId": task_id}),
            ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
            ("tasks/cancel", {"taskId": task_id}),
        ):
            reply = await probe.task_request(method, params, declare=False)
            if reply.code != MISSING_REQUIRED_CLIENT_CAPABILITY:
                wrong.append(f"{method}: {reply.describe()}")
        await _cancel_quietly(probe, task_id)
    if wrong:
        raise failed("without the extension declared, expected -32021; " + "; ".join(wrong))
    return "tasks/get, tasks/update, tasks/cancel: -32021 without the declaration"


@_body("server-task-created")
async def _task_created(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        reply = await probe.task_request(
            "tools/call", {"name": TASK_SLOW_TOOL, "arguments": {"seconds": 0.5}}
        )
        task_id = _task_id_of(reply, TASK_SLOW_TOOL)
        assert reply.result is not None
        parsed = parse_create_task_result(reply.result, revision=revision)
        got = await probe.task_request("tasks/get", {"taskId": task_id})
    if not isinstance(parsed, Task):
        problems = parsed if isinstance(parsed, list) else []
        raise failed("CreateTaskResult: " + "; ".join(f"{p.field}: {p.message}" for p in problems))
    carried = sorted({"result", "error", "inputRequests"} & set(reply.result))
    if carried:
        raise failed(f"the CreateTaskResult carries {', '.join(carried)}")
    if parsed.ttl_ms is not None and not isinstance(reply.result.get("ttlMs"), int):
        raise failed(f"ttlMs {reply.result.get('ttlMs')!r} is not an integer")
    if got.result is None:
        raise failed(f"a tasks/get right after the CreateTaskResult: {got.describe()}")
    return f"task {parsed.status}, ttlMs {parsed.ttl_ms}; tasks/get resolves at once"


@_body("server-task-input-requests")
async def _task_input_requests(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_ASK_TOOL)
        try:
            first = await _task_until(probe, task_id, _asking, "input_required")
            if first.get("status") != "input_required":
                raise failed(f"{TASK_ASK_TOOL} ended {_task_said(first)} without asking")
            again = await _task_get(probe, task_id)
        finally:
            await _cancel_quietly(probe, task_id)
    requests = _questions(first)
    if not requests:
        raise failed("input_required with no inputRequests (it MUST show every request)")
    problems = []
    for key, request in requests.items():
        params = request.get("params") if isinstance(request, Mapping) else None
        if not isinstance(request, Mapping) or request.get("method") != "elicitation/create":
            problems.append(f"{key}: not an elicitation/create request: {request!r}")
        elif not isinstance(params, Mapping) or not isinstance(params.get("message"), str):
            problems.append(f"{key}: params without a message")
    if problems:
        raise failed("; ".join(problems))
    if again.get("status") == "input_required" and set(_questions(again)) != set(requests):
        raise failed(
            f"the keys changed between two polls: {sorted(requests)}, then "
            f"{sorted(_questions(again))}"
        )
    return f"inputRequests {sorted(requests)}, the same on the next poll"


@_body("server-task-update-resumes")
async def _task_update_resumes(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_ASK_TOOL)
        try:
            asked = await _task_until(probe, task_id, _asking, "input_required")
            requests = _questions(asked)
            if not requests:
                raise Finding(Status.SKIPPED, f"{TASK_ASK_TOOL} asked nothing: {_task_said(asked)}")
            ack = await _update(probe, task_id, _answers_to(requests))
            if not _is_ack(ack):
                raise failed(f"tasks/update: expected {_ACK}, got {_not_ack(ack)}")
            done = await _task_until(
                probe,
                task_id,
                lambda got: (
                    got.get("status") in TERMINAL_TASK or not set(_questions(got)) & set(requests)
                ),
                "progress after the answer",
            )
            if done.get("status") not in TERMINAL_TASK:
                done = await _task_until(
                    probe, task_id, lambda got: got.get("status") in TERMINAL_TASK, "result"
                )
        finally:
            await _cancel_quietly(probe, task_id)
    if done.get("status") != "completed" or not isinstance(done.get("result"), Mapping):
        raise failed(f"after the answer the task ended {_task_said(done)}: {done!r}")
    return f"acknowledged; the task completed: {text_of(done['result'])!r}"


@_body("server-task-keys-unique")
async def _task_keys_unique(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_TWO_TOOL)
        try:
            first = _questions(await _task_until(probe, task_id, _asking, "a question"))
            if len(first) != 1:
                raise Finding(Status.SKIPPED, f"{TASK_TWO_TOOL} asked {sorted(first)}, not one")
            answers = _answers_to(first)
            await _update(probe, task_id, answers)
            second = await _task_until(
                probe,
                task_id,
                lambda got: (
                    got.get("status") in TERMINAL_TASK
                    or (bool(_questions(got)) and _questions(got) != first)
                ),
                "a second question",
            )
            reused = set(first) & set(_questions(second))
            if reused:
                raise failed(f"key {sorted(reused)[0]!r} was used again for the next question")
            if not _questions(second):
                raise failed(f"{TASK_TWO_TOOL} asked one question, then {_task_said(second)}")
            await _update(probe, task_id, answers)  # the first answer, replayed
            after = await _task_get(probe, task_id)
            if _questions(after) != _questions(second):
                raise failed(
                    f"replaying answered key(s) {sorted(first)} changed the task: "
                    f"{_task_said(second)}, then {_task_said(after)}"
                )
        finally:
            await _cancel_quietly(probe, task_id)
    return f"keys {sorted(first)} then {sorted(_questions(second))}; the replay changed nothing"


@_body("server-task-partial-update")
async def _task_partial_update(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_BOTH_TOOL)
        try:
            both = _questions(
                await _task_until(
                    probe,
                    task_id,
                    lambda got: len(_questions(got)) >= 2 or got.get("status") in TERMINAL_TASK,
                    "two questions at once",
                )
            )
            if len(both) < 2:
                raise Finding(Status.SKIPPED, f"{TASK_BOTH_TOOL} asked {sorted(both)}")
            one, *others = sorted(both)
            await _update(probe, task_id, _answers_to({one: both[one]}))
            after = await _task_until(
                probe,
                task_id,
                lambda got: one not in _questions(got) or got.get("status") in TERMINAL_TASK,
                f"progress after answering {one!r}",
            )
            if after.get("status") != "input_required" or set(_questions(after)) != set(others):
                raise failed(
                    f"after answering {one!r} of {sorted(both)} the task is {_task_said(after)}"
                )
        finally:
            await _cancel_quietly(probe, task_id)
    return f"answered {one!r} of {sorted(both)}: {sorted(others)} still outstanding"


@_body("server-task-outcome")
async def _task_outcome(run: ServerRun, revision: str) -> str:
    ended: dict[str, dict[str, Any]] = {}
    async with run.probe(revision) as probe:
        for tool in (TASK_TOOL_ERROR_TOOL, TASK_PROTOCOL_ERROR_TOOL):
            task_id = await _new_task(probe, tool)
            ended[tool] = await _task_until(
                probe, task_id, lambda got: got.get("status") in TERMINAL_TASK, "end"
            )
    problems = []
    tool_error, protocol_error = ended[TASK_TOOL_ERROR_TOOL], ended[TASK_PROTOCOL_ERROR_TOOL]
    for tool, got in ended.items():
        if got.get("resultType") != "complete":
            problems.append(f"{tool}: tasks/get resultType {got.get('resultType')!r}")
        result_meta = (got.get("result") or {}).get("_meta") or {}
        if META_RELATED_TASK in result_meta:
            problems.append(f"{tool}: related-task _meta on the inlined result")
    if tool_error.get("status") != "completed" or not isinstance(tool_error.get("result"), Mapping):
        problems.append(
            f"{TASK_TOOL_ERROR_TOOL} (isError) ended {_task_said(tool_error)}, not completed "
            "with its result"
        )
    error = protocol_error.get("error")
    if protocol_error.get("status") != "failed" or not (
        isinstance(error, Mapping) and isinstance(error.get("code"), int)
    ):
        problems.append(
            f"{TASK_PROTOCOL_ERROR_TOOL} (a JSON-RPC error) ended {_task_said(protocol_error)}, "
            "not failed with its error"
        )
    elif "result" in protocol_error:
        problems.append(f"{TASK_PROTOCOL_ERROR_TOOL} failed with a result too")
    if problems:
        raise failed("; ".join(problems))
    assert isinstance(error, Mapping)
    return f"isError: completed; JSON-RPC error: failed with {error.get('code')}"


@_body("server-task-unknown-id")
async def _task_unknown_id(run: ServerRun, revision: str) -> str:
    seen = []
    async with run.probe(revision) as probe:
        forged = secrets.token_urlsafe(24)
        reply = await probe.task_request("tasks/get", {"taskId": forged})
        if reply.code != INVALID_PARAMS:
            raise failed(f"tasks/get of an id never issued: {reply.describe()}")
        seen.append("an id never issued: -32602")
        if run.other_headers is not None:
            task_id = await _new_task(probe, TASK_SLOW_TOOL, {"seconds": 5})
            try:
                async with run.probe(revision, other_user=True) as other:
                    foreign = await other.task_request("tasks/get", {"taskId": task_id})
            finally:
                await _cancel_quietly(probe, task_id)
            if foreign.code != INVALID_PARAMS:
                raise failed(f"tasks/get of another user's task: {foreign.describe()}")
            seen.append("another user's: -32602")
    return "; ".join(seen)


@_body("server-task-removed-methods")
async def _task_removed_methods(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_SLOW_TOOL, {"seconds": 0})
        wrong = []
        for method, params in (("tasks/result", {"taskId": task_id}), ("tasks/list", {})):
            reply = await probe.task_request(method, params)
            if reply.code != METHOD_NOT_FOUND:
                wrong.append(f"{method}: {reply.describe()}")
    if wrong:
        raise failed("expected -32601 (gone with the extension); " + "; ".join(wrong))
    return "tasks/result and tasks/list: -32601"


@_body("server-task-cancel")
async def _task_cancel(run: ServerRun, revision: str) -> str:
    async with run.probe(revision) as probe:
        task_id = await _new_task(probe, TASK_SLOW_TOOL, {"seconds": 30})
        first = await probe.task_request("tasks/cancel", {"taskId": task_id})
        if not _is_ack(first):
            await _cancel_quietly(probe, task_id)
            raise failed(f"tasks/cancel: expected the empty ack {_ACK}, got {_not_ack(first)}")
        ended = await _task_until(
            probe, task_id, lambda got: got.get("status") in TERMINAL_TASK, "end after the cancel"
        )
        again = await probe.task_request("tasks/cancel", {"taskId": task_id})
    if not _is_ack(again):
        raise failed(f"tasks/cancel of an ended task: expected {_ACK}, got {_not_ack(again)}")
    return f"acknowledged; the task ended {ended.get('status')!r}; cancelled again: the same ack"


def server_check_ids() -> list[str]:
    return [check.id for check in SERVER_CHECKS]


def without_body() -> set[str]:
    """The server checks no module has registered a body for (once every module of bodies
    is imported, as :mod:`mcp_elicit.check.running` does: none)."""
    return set(server_check_ids()) - set(_BODIES)
