"""The client checks: a scripted server on 127.0.0.1 asks the client under test what one
check needs, records everything the client does, and judges it once the client is done.

The client runs as the official suite runs clients: ``COMMAND args... SERVER_URL`` (the URL
last), with the check's ID in ``MCP_CONFORMANCE_SCENARIO``. It connects, calls every tool the
server lists (one per check: the catalog's ``test_client_*``) and answers as it would answer a
person's way. The server speaks whichever revision the client chooses; a check the chosen
revision does not have is "not applicable".

The scripted server is the official SDK's ``MCPServer`` on Streamable HTTP. Its questions go
out raw (``mcp_elicit._sdk.send_raw_request``), so that what is judged is the client's answer
as it came, not what the SDK made of it. The checks of the tasks extension
(``client-task-*``) are served by :mod:`mcp_elicit.check.task_script` in front of it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from mcp_elicit import _sdk
from mcp_elicit.check.catalog import CHECKS, CLIENT_CHECKS, RESULT_TYPE_TOOL
from mcp_elicit.check.client_process import run_client
from mcp_elicit.check.report import Outcome, Status
from mcp_elicit.check.task_script import DEFAULTS as TASK_DEFAULTS
from mcp_elicit.check.task_script import (
    TASK_CHECKS,
    TASK_JUDGES,
    TaskFront,
    TaskTraffic,
    TaskVerdict,
)
from mcp_elicit.forms import Form, InvalidSchema
from mcp_elicit.protocol.codes import INVALID_PARAMS, URL_ELICITATION_REQUIRED
from mcp_elicit.revisions import EARLY_DRAFT_VERSION, Revision

CLIENT_TIMEOUT = 60.0
"""Seconds the client under test has to finish one check."""
NOTICE_AFTER = 1.5
"""Seconds after -32042 that the interaction completes (and the notice is sent)."""
ANSWER_TIMEOUT = 30.0
BURST = 30
"""Questions of the rate-limit check, asked back to back."""


@dataclass
class Exchange:
    """One question and what came back: ``result`` (raw) or ``error``."""

    key: str
    params: dict[str, Any]
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    answered_at: float = 0.0

    @property
    def action(self) -> str | None:
        return None if self.result is None else self.result.get("action")


@dataclass
class Record:
    """What the client did, as the scripted server saw it."""

    protocol: str | None = None
    declared: dict[str, Any] | None = None
    """The ``elicitation`` capability declared (``None``: none)."""
    calls: list[tuple[float, str]] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    hits: list[tuple[float, str]] = field(default_factory=list)
    """Requests to the server's links: ``(time, path)``."""
    notices: list[float] = field(default_factory=list)
    stripped_at: float | None = None
    """When the final result went out without its resultType (client-result-type)."""
    exit_status: int | None = None
    """The client's, once it finished (``None``: it did not finish in time)."""
    last_words: str = ""
    """The last line the client wrote on stderr."""
    tasks: TaskTraffic = field(default_factory=TaskTraffic)
    """The task of a ``client-task-*`` check, as :class:`~.task_script.TaskFront` saw it."""

    def modes(self) -> set[str]:
        if self.declared is None:
            return set()
        declared = {mode for mode in ("form", "url") if self.declared.get(mode) is not None}
        return declared or {"form"}  # `elicitation: {}` is form mode


class _Asked(Exception):
    """2026-07-28: the questions go back as an InputRequiredResult."""

    def __init__(self, requests: dict[str, Any]) -> None:
        super().__init__("input required")
        self.requests = requests


class Scripted:
    """The scripted server of one check: its tools and what they recorded."""

    def __init__(self, check: str) -> None:
        self.check = check
        self.record = Record()
        self.port = _free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_urlsafe(8)
        self.server = MCPServer("mcp-elicit-check", log_level="WARNING")
        self._tasks: set[asyncio.Task[None]] = set()
        self._install()

    @property
    def url(self) -> str:
        return f"{self.origin}/mcp"

    def link(self, name: str, *, credentials: bool = False) -> str:
        userinfo = "user:secret@" if credentials else ""
        return f"http://{userinfo}127.0.0.1:{self.port}/link/{name}-{self.token}"

    # -- what a tool does ----------------------------------------------------------------------

    def _seen(self, ctx: Context, tool: str) -> None:
        self.record.calls.append((time.monotonic(), tool))
        self.record.protocol = ctx.protocol_version
        declared = ctx.client_capabilities
        elicitation = declared.elicitation if declared is not None else None
        self.record.declared = (
            None
            if elicitation is None
            else elicitation.model_dump(by_alias=True, mode="json", exclude_none=True)
        )

    async def _ask(self, ctx: Context, questions: Mapping[str, dict[str, Any]]) -> list[Exchange]:
        """Ask every question: pushed one by one on the 2025 revisions; on 2026-07-28 all at
        once as an InputRequiredResult (raised as :class:`_Asked`), answered on the retry."""
        if ctx.protocol_version == Revision.V2026_07_28:
            responses = ctx.input_responses
            if responses is None:
                raise _Asked(
                    {
                        key: {"method": "elicitation/create", "params": p}
                        for key, p in questions.items()
                    }
                )
            found = []
            for key, params in questions.items():
                raw: Any = responses.get(key)
                dumped = (
                    raw.model_dump(by_alias=True, mode="json", exclude_none=True)
                    if raw is not None
                    else None
                )
                exchange = Exchange(key, params, answered_at=time.monotonic())
                if isinstance(dumped, dict):
                    exchange.result = dumped
                else:
                    exchange.error = {"code": None, "message": "no answer in inputResponses"}
                found.append(exchange)
            self.record.exchanges.extend(found)
            return found
        found = []
        for key, params in questions.items():
            exchange = Exchange(key, params)
            try:
                raw = await _sdk.send_raw_request(
                    ctx.session, "elicitation/create", params, timeout=ANSWER_TIMEOUT
                )
                exchange.result = dict(raw) if isinstance(raw, Mapping) else {"value": raw}
            except MCPError as error:
                exchange.error = {"code": error.code, "message": error.message}
            exchange.answered_at = time.monotonic()
            self.record.exchanges.append(exchange)
            found.append(exchange)
        return found

    def _install(self) -> None:
        tools: dict[str, Callable[[Context], Awaitable[Any]]] = {
            "client-answers-declared-modes": self._modes,
            "client-refuses-undeclared-mode": self._undeclared,
            "client-fills-defaults": self._defaults,
            "client-valid-answers": self._valid_answer,
            "client-url-consent": self._consent,
            "client-refuses-blocked-link": self._blocked,
            "client-retry-after-completion": self._retry,
            "client-rate-limit": self._burst,
            "client-answers-message-only": self._message_only,
            "client-result-type": self._result_type,
            **dict.fromkeys(TASK_CHECKS, self._no_task),
        }
        [tool] = CHECKS[self.check].tools_on("*")
        body = tools[self.check]
        scripted = self

        async def run(ctx: Context) -> Any:
            scripted._seen(ctx, tool)
            try:
                return await body(ctx)
            except _Asked as asked:
                return types.InputRequiredResult(
                    input_requests=asked.requests, request_state="mcp-elicit-check"
                )

        run.__doc__ = CHECKS[self.check].title
        self.server.tool(name=tool)(run)

        async def link(request: Any) -> Any:
            self.record.hits.append((time.monotonic(), request.url.path))
            return _Text("nothing to see here: mcp-elicit check recorded this visit\n")

        self.server.custom_route("/link/{name}", methods=["GET", "HEAD", "POST"])(link)

    async def _modes(self, ctx: Context) -> str:
        questions: dict[str, dict[str, Any]] = {}
        modes = self.record.modes()
        if "form" in modes:
            questions["form"] = _form(ctx, {"name": {"type": "string", "default": "check"}})
        if "url" in modes and ctx.protocol_version != Revision.V2025_06_18:
            questions["url"] = _url(ctx, self.link("modes"))
        await self._ask(ctx, questions)
        return "asked"

    async def _undeclared(self, ctx: Context) -> str:
        modes = self.record.modes()
        if "url" not in modes:
            await self._ask(ctx, {"url": _url(ctx, self.link("undeclared"))})
        elif "form" not in modes:
            await self._ask(ctx, {"form": _form(ctx, {"name": {"type": "string"}})})
        return "asked"

    async def _defaults(self, ctx: Context) -> str:
        await self._ask(ctx, {"form": _form(ctx, DEFAULTS)})
        return "asked"

    async def _valid_answer(self, ctx: Context) -> str:
        await self._ask(ctx, {"form": _form(ctx, STRICT, required=list(STRICT))})
        return "asked"

    async def _consent(self, ctx: Context) -> str:
        await self._ask(ctx, {"url": _url(ctx, self.link("consent"))})
        return "asked"

    async def _blocked(self, ctx: Context) -> str:
        await self._ask(ctx, {"url": _url(ctx, self.link("blocked", credentials=True))})
        return "asked"

    async def _result_type(self, ctx: Context) -> str:
        # On 2026-07-28: one question, then the final result, whose resultType the server's
        # front (_WithoutResultType) takes out on the way to the client.
        if ctx.protocol_version != Revision.V2026_07_28:
            return f"resultType is {Revision.V2026_07_28}'s: nothing on {ctx.protocol_version}"
        await self._ask(ctx, {"form": _form(ctx, {"name": {"type": "string", "default": "x"}})})
        if self.record.stripped_at is None:  # the first final result: a call after it is a retry
            self.record.stripped_at = time.monotonic()
        return "done"

    async def _no_task(self, ctx: Context) -> str:
        # The call TaskFront leaves to the server: no task is scripted for it.
        if ctx.protocol_version != Revision.V2026_07_28:
            theirs = Revision.V2026_07_28
            return f"tasks are the {theirs} extension's: nothing on {ctx.protocol_version}"
        return "no task: the call did not declare the extension, or (unsolicited) it did"

    def _task_question(self, kind: str) -> dict[str, Any]:
        """An input request of a ``client-task-*`` task (2026-07-28: no elicitationId)."""
        message = "mcp-elicit check: please answer (inside a task)."
        if kind == "link":
            # Refused either way: a mode the client did not declare, or credentials in the link.
            undeclared = "url" not in self.record.tasks.modes
            link = self.link("task-link", credentials=not undeclared)
            return {"mode": "url", "message": message, "url": link}
        properties = (
            TASK_DEFAULTS
            if kind == "defaults"
            else {"name": {"type": "string", "default": "check"}}
        )
        schema = {"type": "object", "properties": dict(properties)}
        return {"mode": "form", "message": message, "requestedSchema": schema}

    def _task_call(self, revision: str) -> None:
        [tool] = CHECKS[self.check].tools_on("*")
        self.record.calls.append((time.monotonic(), tool))
        self.record.protocol = revision

    async def _message_only(self, ctx: Context) -> str:
        if ctx.protocol_version != EARLY_DRAFT_VERSION:
            return f"a message-only request is the early draft's: nothing on {ctx.protocol_version}"
        await self._ask(ctx, {"message": {"message": "mcp-elicit check: anything to add?"}})
        return "asked"

    async def _burst(self, ctx: Context) -> str:
        if ctx.protocol_version == Revision.V2026_07_28:  # the rule was dropped in 2026-07-28
            return f"no burst on {Revision.V2026_07_28}"
        for number in range(BURST):  # one after the other, as fast as they are answered
            question = _form(ctx, {"n": {"type": "integer", "default": number}})
            await self._ask(ctx, {f"q{number}": question})
        return "asked"

    async def _retry(self, ctx: Context) -> str:
        if ctx.protocol_version != Revision.V2025_11_25:
            return f"-32042 is a {Revision.V2025_11_25} error: nothing on {ctx.protocol_version}"
        if self.record.notices:
            return "done: the link was opened"
        if len(self.record.calls) > 1:
            return "called again before the interaction completed"
        elicitation_id = f"check-{self.token}"
        session = ctx.session

        async def complete() -> None:
            await asyncio.sleep(NOTICE_AFTER)
            self.record.notices.append(time.monotonic())
            await session.send_elicit_complete(elicitation_id)

        task = asyncio.create_task(complete())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        params = {**_url(ctx, self.link("required")), "elicitationId": elicitation_id}
        raise MCPError(
            URL_ELICITATION_REQUIRED, "Open the check page first.", {"elicitations": [params]}
        )

    # -- serving -------------------------------------------------------------------------------

    async def serve(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        # Stopped by cancellation, uvicorn logs its lifespan task's CancelledError as an
        # error, after the server is gone: nothing went wrong, so the record is dropped.
        quiet = logging.getLogger("uvicorn.error")
        if not any(isinstance(f, _DropCancelled) for f in quiet.filters):
            quiet.addFilter(_DropCancelled())
        import uvicorn

        app: Any = self.server.streamable_http_app(host="127.0.0.1")
        if self.check == "client-result-type":
            app = _WithoutResultType(app, RESULT_TYPE_TOOL)
        if self.check in TASK_CHECKS:
            [tool] = CHECKS[self.check].tools_on("*")
            app = TaskFront(
                app, self.check, tool, self.record.tasks, self._task_question, self._task_call
            )
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(uvicorn.Server(config).serve)
            deadline = time.monotonic() + 30
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    await anyio.sleep(0.05)
            task_status.started()


DEFAULTS: dict[str, Any] = {
    "enabled": {"type": "boolean", "title": "Enabled", "default": False},
    "count": {"type": "integer", "title": "Count", "default": 0},
    "ratio": {"type": "number", "title": "Ratio", "default": 0.0},
    "note": {"type": "string", "title": "Note", "default": ""},
    "color": {"type": "string", "title": "Color", "enum": ["red", "green"], "default": "red"},
}
"""A form whose every field has a default, most of them falsy."""

STRICT: dict[str, Any] = {
    "email": {"type": "string", "title": "Email", "format": "email"},
    "age": {"type": "integer", "title": "Age", "minimum": 18, "maximum": 130},
    "plan": {"type": "string", "title": "Plan", "enum": ["basic", "pro"]},
}
"""A form with nothing to fall back on: every field required, none with a default."""


def _form(
    ctx: Context, properties: dict[str, Any], *, required: Sequence[str] = ()
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    params: dict[str, Any] = {
        "message": "mcp-elicit check: please answer.",
        "requestedSchema": schema,
    }
    if ctx.protocol_version != Revision.V2025_06_18:
        params["mode"] = "form"
    return params


def _url(ctx: Context, link: str) -> dict[str, Any]:
    params = {"mode": "url", "message": "mcp-elicit check: the page to open.", "url": link}
    if (
        ctx.protocol_version != Revision.V2026_07_28
    ):  # 2026-07-28 correlates through requestState instead
        params["elicitationId"] = secrets.token_urlsafe(12)
    return params


class _DropCancelled(logging.Filter):
    """Drops a log record about a task cancelled on purpose (and only that)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, asyncio.CancelledError) and "CancelledError" not in str(
            record.getMessage()
        )


class _WithoutResultType:
    """ASGI: in front of the scripted server, takes ``resultType`` out of the final result
    of ``tool`` (a retry's answer: it carries ``inputResponses``). The SDK's server always
    writes it, as 2026-07-28 requires; the check is of a client that meets a server that
    does not."""

    def __init__(self, app: Any, tool: str) -> None:
        self.app, self.tool = app, tool

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message)
            if message.get("type") != "http.request" or not message.get("more_body"):
                break
        body = b"".join(m.get("body", b"") for m in chunks)
        replay = iter(chunks)

        async def again() -> Any:
            return next(replay, None) or await receive()

        if not self._is_final_retry(body):
            await self.app(scope, again, send)
            return
        started: dict[str, Any] = {}
        parts: list[bytes] = []

        async def hold(message: Any) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
                if not message.get("more_body"):
                    out = _strip_result_type(b"".join(parts))
                    headers = [
                        (k, str(len(out)).encode() if k.lower() == b"content-length" else v)
                        for k, v in started.get("headers", [])
                    ]
                    await send({**started, "headers": headers})
                    await send({"type": "http.response.body", "body": out})

        await self.app(scope, again, hold)

    def _is_final_retry(self, body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        params = message.get("params") if isinstance(message, dict) else None
        return (
            isinstance(params, dict)
            and message.get("method") == "tools/call"
            and params.get("name") == self.tool
            and bool(params.get("inputResponses"))
        )


def _strip_result_type(body: bytes) -> bytes:
    """The response (JSON, or an SSE stream of JSON events) without ``result.resultType``
    where the result is final (``complete``)."""

    def strip(text: str) -> str:
        try:
            message = json.loads(text)
        except ValueError:
            return text
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and result.get("resultType") == "complete":
            del result["resultType"]
            return json.dumps(message, separators=(",", ":"))
        return text

    text = body.decode("utf-8")
    if text.lstrip().startswith("{"):
        return strip(text).encode("utf-8")
    lines = [
        "data: " + strip(line[len("data: ") :]) if line.startswith("data: ") else line
        for line in text.split("\n")
    ]
    return "\n".join(lines).encode("utf-8")


class _Text:
    """A plain-text HTTP response, as an ASGI app (what the SDK's custom routes return):
    Starlette stays in the server modules that serve pages."""

    def __init__(self, text: str) -> None:
        self.body = text.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- judging --------------------------------------------------------------------------------


class Judgement(Exception):
    def __init__(self, status: Status, seen: str) -> None:
        super().__init__(seen)
        self.status = status
        self.seen = seen


def _judge(check: str, record: Record) -> tuple[Status, str]:
    revision = record.protocol
    if revision is None:
        return Status.FAILED, "the client never called the check's tool"
    if revision not in CHECKS[check].revisions:
        return Status.NOT_APPLICABLE, f"the client chose {revision}, which has no such rule"
    try:
        return Status.PASSED, JUDGES[check](record)
    except Judgement as verdict:
        return verdict.status, verdict.seen


def _answered(record: Record) -> list[Exchange]:
    if not record.exchanges:
        raise Judgement(Status.FAILED, "no question was answered (the client left first?)")
    return record.exchanges


def _judge_modes(record: Record) -> str:
    if record.declared is None:
        raise Judgement(Status.NOT_APPLICABLE, "the client declares no elicitation")
    failures = [f"{e.key}: error {e.error}" for e in _answered(record) if e.error is not None]
    failures += [
        f"{e.key}: action {e.action!r}"
        for e in record.exchanges
        if e.result is not None and e.action not in ("accept", "decline", "cancel")
    ]
    if failures:
        raise Judgement(
            Status.FAILED, f"declared {sorted(record.modes())}, then: {'; '.join(failures)}"
        )
    said = ", ".join(f"{e.key}: {e.action}" for e in record.exchanges)
    return f"declared {sorted(record.modes())}; answered {said}"


def _judge_undeclared(record: Record) -> str:
    if record.modes() >= {"form", "url"}:
        raise Judgement(Status.NOT_APPLICABLE, "the client declares both modes")
    [exchange] = _answered(record)
    if exchange.error is None:
        raise Judgement(
            Status.FAILED, f"a {exchange.key}-mode request it did not declare got {exchange.result}"
        )
    if exchange.error.get("code") != INVALID_PARAMS:
        raise Judgement(Status.FAILED, f"error {exchange.error.get('code')}, not -32602")
    return f"{exchange.key} mode (undeclared): error -32602"


def _judge_defaults(record: Record) -> str:
    [exchange] = _answered(record)
    if exchange.action != "accept":
        raise Judgement(
            Status.SKIPPED, f"the form was not accepted ({exchange.action or exchange.error})"
        )
    content = (exchange.result or {}).get("content") or {}
    missing = [name for name in DEFAULTS if name not in content]
    if missing:
        raise Judgement(
            Status.FAILED, f"accepted without the defaulted field(s) {', '.join(missing)}"
        )
    return f"accepted with every defaulted field: {content}"


def _judge_valid(record: Record) -> str:
    [exchange] = _answered(record)
    if exchange.action != "accept":
        return f"not accepted ({exchange.action or exchange.error}): nothing invalid was sent"
    content = (exchange.result or {}).get("content")
    schema = exchange.params["requestedSchema"]
    try:
        problems = Form.from_schema(schema).validate(content if isinstance(content, dict) else {})
    except InvalidSchema as error:  # pragma: no cover - the schema is ours
        raise RuntimeError(error) from None
    if problems or not isinstance(content, dict):
        said = "; ".join(str(p) for p in problems) or "no content"
        raise Judgement(Status.FAILED, f"accepted an answer that breaks the schema: {said}")
    return "accepted, with an answer the schema allows"


def _judge_consent(record: Record) -> str:
    [exchange] = _answered(record)
    if record.hits and exchange.action != "accept":
        raise Judgement(
            Status.FAILED,
            f"the link was fetched, and the answer was {exchange.action or exchange.error}",
        )
    opened = f"opened {len(record.hits)} time(s)" if record.hits else "not opened"
    return f"answer {exchange.action or exchange.error}; the link was {opened}"


def _judge_blocked(record: Record) -> str:
    [exchange] = _answered(record)
    if exchange.action == "accept":
        raise Judgement(Status.FAILED, "a link with credentials in it was accepted")
    if record.hits:
        raise Judgement(
            Status.FAILED, f"a link with credentials in it was fetched {len(record.hits)} time(s)"
        )
    return f"refused ({exchange.action or 'error ' + str(exchange.error)}), never fetched"


def _judge_retry(record: Record) -> str:
    first = record.calls[0][0]
    retries = [at for at, _ in record.calls[1:]]
    if not retries:
        return "no retry (the person did not go on)"
    if not record.notices or retries[0] < record.notices[0]:
        early = retries[0] - first
        raise Judgement(
            Status.FAILED,
            f"called again {early:.1f} s after -32042, before the interaction completed",
        )
    return f"called again {retries[0] - record.notices[0]:.1f} s after the completion notice"


def _last_words(stderr: str) -> str:
    """The last line that says something (not a traceback's frame of ``|``, ``+`` and ``-``)."""
    for line in reversed(stderr.splitlines()):
        said = line.strip(" |+-\t")
        if said:
            return said[:200]
    return ""


def _judge_result_type(record: Record) -> str:
    if record.stripped_at is None:
        raise Judgement(Status.FAILED, "the call never reached its final result")
    after = [at for at, _ in record.calls if at > record.stripped_at]
    if record.exit_status not in (0, None):
        raise Judgement(
            Status.FAILED,
            f"the client failed on the result (exit {record.exit_status}: {record.last_words})",
        )
    if after:
        raise Judgement(
            Status.FAILED,
            f"called again {len(after)} time(s) after a final result without resultType",
        )
    return "the final result without resultType ended the call"


def _judge_message_only(record: Record) -> str:
    [exchange] = _answered(record)
    if exchange.error is not None:
        raise Judgement(Status.FAILED, f"answered with error {exchange.error}")
    result = exchange.result or {}
    if "action" in result:
        return f"answered: action {result['action']!r}"
    if "content" in result or "cancelled" in result:
        return "answered in the early draft's shape (content, cancelled)"
    raise Judgement(Status.FAILED, f"answered with neither an action nor content: {result}")


def _judge_burst(record: Record) -> str:
    answered = _answered(record)
    accepted = [e for e in answered if e.action == "accept"]
    if len(accepted) == len(answered):
        took = answered[-1].answered_at - record.calls[0][0]
        raise Judgement(Status.FAILED, f"all {len(answered)} questions accepted, in {took:.1f} s")
    if not accepted:
        raise Judgement(Status.SKIPPED, "none accepted: a limit cannot be told from a person's no")
    first_refused = next(i for i, e in enumerate(answered) if e.action != "accept")
    return f"{len(accepted)} of {len(answered)} accepted; cut off from question {first_refused + 1}"


JUDGES: dict[str, Callable[[Record], str]] = {
    "client-answers-declared-modes": _judge_modes,
    "client-refuses-undeclared-mode": _judge_undeclared,
    "client-fills-defaults": _judge_defaults,
    "client-valid-answers": _judge_valid,
    "client-url-consent": _judge_consent,
    "client-refuses-blocked-link": _judge_blocked,
    "client-retry-after-completion": _judge_retry,
    "client-rate-limit": _judge_burst,
    "client-answers-message-only": _judge_message_only,
    "client-result-type": _judge_result_type,
}


def _judge_task(judge: Callable[[TaskTraffic, int], TaskVerdict]) -> Callable[[Record], str]:
    def run(record: Record) -> str:
        status, seen = judge(record.tasks, len(record.hits))
        if status is not Status.PASSED:
            raise Judgement(status, seen)
        return seen

    return run


JUDGES.update({check: _judge_task(judge) for check, judge in TASK_JUDGES.items()})
assert set(JUDGES) == {check.id for check in CLIENT_CHECKS}, "a client check without a judge"


async def run_client_check(
    command: Sequence[str], check: str, *, timeout: float = CLIENT_TIMEOUT
) -> Outcome:
    """Run the client under test against the scripted server of ``check``, then judge. The
    client has ``timeout`` seconds; then it and every process it started are ended
    (:mod:`mcp_elicit.check.client_process`). A client that crashed or timed out has the end
    of its output in the outcome."""
    scripted = Scripted(check)
    env = {**os.environ, "MCP_CONFORMANCE_SCENARIO": check}
    async with anyio.create_task_group() as tasks:
        await tasks.start(scripted.serve)
        finished = await run_client([*command, scripted.url], env=env, timeout=timeout)
        tasks.cancel_scope.cancel()
    if not finished.timed_out:
        scripted.record.exit_status = finished.returncode
        scripted.record.last_words = _last_words(finished.stderr)
    status, seen = _judge(check, scripted.record)
    if finished.timed_out:
        seen += f" (the client did not finish within {timeout:g} s, and was ended)"
    elif finished.returncode != 0 and status is not Status.PASSED and "(exit " not in seen:
        seen += f" (the client exited {finished.returncode}: {scripted.record.last_words})"
    failed = finished.timed_out or finished.returncode != 0
    return Outcome(
        check,
        scripted.record.protocol or "-",
        status,
        seen,
        output=finished.output if failed else "",
    )
