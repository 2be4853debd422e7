"""An SDK client that answers elicitations through a handler, on every revision.

:class:`ElicitingClient` wraps the official ``mcp.Client`` and extends it where it falls short
for elicitation (each extension is marked "SDK:" below; the private SDK names they need are
in ``mcp_elicit._sdk``):

- capabilities declare exactly the handler's modes (the SDK declares form and URL whenever a
  callback is set), and ``--protocol 2025-06-18`` can be proposed at all;
- ``elicitation/create`` is read liberally (the url-draft spelling, the early draft) and a bad
  request gets -32602 with every problem (the SDK validates strictly before any callback);
- request timeouts pause while a person is answering;
- a 2026-07-28 final result without ``resultType`` is read as complete, as the specification
  has clients do for older servers, and recorded in ``accepted_quirks`` (a 2026-07-28 server
  must send it: ``mcp_elicit.testing`` fails such a reply);
- the multi-round-trip loop is limited in time, not rounds (people take minutes, not 2 s),
  and stops when a server keeps asking after the person said no;
- -32042 / -32604 ("open this URL first") go through consent and completion, then the call
  is retried, with loop detection;
- 2026-07-28: while the server holds the retry that carries a link's accept (it waits for
  the page to be finished), the person sees that it waits and can say they are done (it is
  asked again at once) or cancel (the server is told ``cancel`` for that link);
- over Streamable HTTP the connection pool is unbounded, so pending elicitations cannot
  starve the requests that answer them (the SDK's pool of 100 deadlocks at 99).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AsyncExitStack, contextmanager
from contextvars import ContextVar
from typing import Any, Literal

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import (
    ClientRequestContext,
    ClientSession,
    IncomingMessage,
    MessageHandlerFnT,
)
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_NAME_HEADER, encode_header_value
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict

from mcp_elicit import _sdk
from mcp_elicit.client.call_round import MAX_REFUSED_ROUNDS, CallRound
from mcp_elicit.client.handler import ElicitationHandler, answer_for_sdk, asking_of
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.prompts import Accept, Decision, Notice, UrlPrompt
from mcp_elicit.client.required_links import call_after_links
from mcp_elicit.client.server_log import LoggedStdioServer
from mcp_elicit.client.sign_in import RefuseSignIn, SignIn, sign_in_auth
from mcp_elicit.client.steps import ElicitationRefused
from mcp_elicit.client.task_follow import (
    DEFAULT_TASK_TIME_LIMIT,
    TaskError,
    TaskStatus,
    follow_task,
    parsed_task,
)
from mcp_elicit.i18n import _
from mcp_elicit.protocol import (
    ElicitationModes,
    ElicitationRequest,
    track_request_params,
)
from mcp_elicit.protocol.codes import ELICITATION_TRACK, TASKS_EXTENSION
from mcp_elicit.protocol.mrtr import ASKING_METHODS
from mcp_elicit.protocol.tasks import (
    TASK_RESULT_TYPE,
    Task,
    declares_tasks,
    parse_create_task_result,
)
from mcp_elicit.revisions import PROPOSED_BY_HAND, PROTOCOL_CHOICES, Revision, sdk_client_mode

logger = logging.getLogger(__name__)


# ASKING_METHODS: those whose 2026-07-28 results carry `resultType`; absent means complete
# (SEP-2322).

DEFAULT_INPUT_TIME_LIMIT = 30 * 60.0
"""How long a 2026-07-28 call may keep asking for input: long enough for a person to find a
password or finish a sign-in in a browser."""


class RefusedInputLoop(RuntimeError):
    """2026-07-28: the server kept asking for input the person had declined or cancelled
    (more than :data:`~mcp_elicit.client.call_round.MAX_REFUSED_ROUNDS` retries in a row)."""


_CALL_ROUND: ContextVar[CallRound | None] = ContextVar("mcp_elicit_call_round", default=None)
"""The round state of the 2026-07-28 tool call being made: set by
:meth:`ElicitingClient._call_once`, which says why it travels this way."""


class ProtocolMismatch(RuntimeError):
    """The server did not agree to the protocol revision that was asked for."""


class _CreateTaskResult(types.Result):
    """The extension's ``CreateTaskResult`` as the SDK hands it over: only its discriminator
    is typed here; the rest is kept as sent and read by ``parse_create_task_result``."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]


class _TaskCreated(Exception):
    """Raised from the SDK's claim resolver to carry the task out of ``call_tool``: it is
    followed by :meth:`ElicitingClient._follow`, outside the SDK's call and its round limit."""

    def __init__(self, raw: dict[str, Any]) -> None:
        super().__init__("a task was created")
        self.raw = raw


async def _task_created(result: _CreateTaskResult, context: ClaimContext) -> types.CallToolResult:
    raise _TaskCreated(result.model_dump(by_alias=True, mode="json", exclude_none=True))


class _TasksExtension(ClientExtension):
    """``io.modelcontextprotocol/tasks``: the SDK advertises it in the ``_meta`` capabilities of
    every 2026-07-28 request (its claim is active only there), and routes a ``resultType:
    "task"`` answer to ``tools/call`` to the claim's resolver."""

    identifier = TASKS_EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [
            ResultClaim(
                result_type=TASK_RESULT_TYPE, model=_CreateTaskResult, resolve=_task_created
            )
        ]


class ElicitingClient:
    """Connect to a server and answer its elicitations with ``handler``.

    ``server`` is what ``mcp.Client`` takes: an ``http(s)://`` URL (Streamable HTTP), a
    ``StdioServerParameters``, a transport, or an in-process server. ``protocol`` pins a
    revision (``"2025-06-18"``, ``"2025-11-25"``, ``"2026-07-28"``) or lets the SDK negotiate
    (``"auto"``); a server that will not speak the pinned one is an error.

    A server given by URL may require MCP authorization (HTTP 401). With ``sign_in=True`` (or
    a :class:`~mcp_elicit.client.sign_in.SignIn` with settings) the client signs the person
    in: consent screen, browser, loopback redirect, tokens kept per server and refreshed
    (docs/identity.md). Without it such a server raises
    :class:`~mcp_elicit.client.sign_in.SignInRequired`. ``headers`` are sent with every
    request (a static ``Authorization: Bearer ...`` token, for instance). Both are for a URL
    only, and not with your own ``http_client``.

    On 2026-07-28, with ``tasks=True`` (the default), every request declares the tasks
    extension (``io.modelcontextprotocol/tasks``) and a call the server runs as a task is
    followed to its end (mcp_elicit.client.task_follow): its questions are answered through
    ``handler``, and ``task_time_limit`` bounds it. Its status reaches the person as renderer
    notices (``Task 1a2b3c…: working… 12 s``), or, when ``task_status`` is given, goes to that
    coroutine instead (a :class:`~mcp_elicit.client.task_follow.TaskStatus`; the first one of
    a task carries its id, which the caller may keep to :meth:`resume_task` it later).

    Every other ``mcp.Client`` argument passes through (``sampling_callback``,
    ``list_roots_callback``, ``logging_callback``, ``log_level``, ``extensions``, ...): this
    client answers elicitations and leaves the rest of the SDK client as it is. Those it sets
    itself are refused: ``elicitation_callback`` (the ``handler``), ``mode`` (``protocol``),
    ``read_timeout_seconds`` (``read_timeout``), ``input_required_max_rounds``
    (``input_time_limit``).
    """

    def __init__(
        self,
        server: Any,
        handler: ElicitationHandler,
        *,
        protocol: str = "auto",
        read_timeout: float | None = None,
        input_time_limit: float = DEFAULT_INPUT_TIME_LIMIT,
        max_url_retries: int = 3,
        client_info: types.Implementation | None = None,
        message_handler: MessageHandlerFnT | None = None,
        http_client: httpx2.AsyncClient | None = None,
        sign_in: SignIn | bool = False,
        headers: Mapping[str, str] | None = None,
        tasks: bool = True,
        task_time_limit: float = DEFAULT_TASK_TIME_LIMIT,
        task_status: Callable[[TaskStatus], Awaitable[None]] | None = None,
        **client_options: Any,
    ) -> None:
        ours = set(client_options) & _SET_BY_US
        if ours:
            raise TypeError(
                f"ElicitingClient sets {', '.join(sorted(ours))} itself: see its docstring"
            )
        if protocol not in PROTOCOL_CHOICES:
            raise ValueError(
                f"protocol must be one of {', '.join(PROTOCOL_CHOICES)}, not {protocol!r}"
            )
        if protocol in PROPOSED_BY_HAND and not handler.modes.form:
            raise ValueError(f"{protocol} has form mode only, and this handler does not offer it")
        if (sign_in or headers) and not isinstance(server, str):
            raise ValueError("sign_in and headers are for a server given by its http(s):// URL")
        if (sign_in or headers) and http_client is not None:
            raise ValueError(
                "give sign_in and headers, or your own http_client (with its own auth), not both"
            )
        if sign_in and headers and any(k.lower() == "authorization" for k in headers):
            raise ValueError(
                "an Authorization header is a token already: give it, or sign_in, not both"
            )
        self.server = server
        self.handler = handler
        # A server started here over stdio runs on this machine as this user (Policy).
        self.local = isinstance(server, (StdioServerParameters, LoggedStdioServer))
        self.protocol = protocol
        self.read_timeout = read_timeout
        self.input_time_limit = input_time_limit
        self.max_url_retries = max_url_retries
        self.client_info = client_info
        self.accepted_quirks: list[str] = []
        self._message_handler = message_handler
        self._http_client = http_client
        self.sign_in: SignIn | None = SignIn() if sign_in is True else sign_in or None
        self.headers = dict(headers or {})
        # Time, not rounds, limits the loop (call_tool); responses are not cached unless asked.
        self._client_options = {"cache": None, **client_options}
        self.tasks = tasks
        self.task_time_limit = task_time_limit
        self.task_status = task_status
        if tasks:
            # Declared through the SDK, so it rides every 2026-07-28 request's `_meta`,
            # tools/call and tasks/* alike (EXT §Capability Negotiation: per request).
            theirs = list(client_options.get("extensions") or ())
            self._client_options["extensions"] = [*theirs, _TasksExtension()]
        self._client: _sdk.ElicitingSdkClient | None = None
        self._stack: AsyncExitStack | None = None

    # -- lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> ElicitingClient:
        with _unwrapped():
            return await self._connect()

    async def _connect(self) -> ElicitingClient:
        async with AsyncExitStack() as stack:
            server = self.server
            if isinstance(server, str):
                http = self._http_client
                if http is None:
                    auth = await self._auth(server)
                    http = unpooled_http_client(headers=self.headers, auth=auth)
                    await stack.enter_async_context(http)
                server = streamable_http_client(server, http_client=http)
            client = _sdk.ElicitingSdkClient(
                server,
                mode=sdk_client_mode(self.protocol),
                read_timeout_seconds=self.read_timeout,
                elicitation_callback=self._on_input_request,
                message_handler=self._on_message,
                client_info=self.client_info,
                input_required_max_rounds=2**31,
                **self._client_options,
            )
            client.hooks = _Hooks(self)
            await stack.enter_async_context(client)
            self._client = client
            if self.protocol != "auto" and client.protocol_version != self.protocol:
                raise ProtocolMismatch(
                    f"asked for protocol {self.protocol}, the server chose "
                    f"{client.protocol_version}"
                )
            self._stack = stack.pop_all()
        return self

    async def _auth(self, url: str) -> httpx2.Auth:
        if self.sign_in is not None:
            return await sign_in_auth(url, self.sign_in, self.handler)
        if any(k.lower() == "authorization" for k in self.headers):
            why = "it refused the Authorization header given"
        else:
            why = "signing in is off (ElicitingClient(sign_in=True); mcp-elicit: --sign-in)"
        return RefuseSignIn(url, why)

    async def __aexit__(self, *exc_info: Any) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            with _unwrapped():
                await stack.__aexit__(*exc_info)

    @property
    def sdk(self) -> Client:
        """The underlying ``mcp.Client``, for everything this class does not wrap."""
        if self._client is None:
            raise RuntimeError("ElicitingClient must be used within 'async with'")
        return self._client

    @property
    def protocol_version(self) -> str:
        """The protocol version the session negotiated."""
        return self.sdk.protocol_version

    @property
    def server_name(self) -> str:
        """The server's ``serverInfo.name`` (``"server"`` when it gave none)."""
        info = self.sdk.server_info
        return info.name if info is not None else "server"

    async def list_tools(self) -> list[types.Tool]:
        """Every tool the server lists, all pages followed."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await self.sdk.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    # -- calls ------------------------------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        read_timeout: float | None = None,
    ) -> types.CallToolResult:
        """Call a tool, answering whatever it asks on the way.

        Raises ``MCPError`` for an error response (-32021 when the server needs a capability
        this client did not declare; after a required-URL error the person declined, that
        error). Raises :class:`UrlElicitationLoop` when the server asks again for what was
        already completed, or for more than ``max_url_retries`` links in one call;
        :class:`RefusedInputLoop` (2026-07-28) when it keeps asking for what the person
        declined or cancelled; ``TimeoutError`` (2026-07-28) past ``input_time_limit``.
        """
        asking = asking_of(self.sdk.session, required_by=name, local=self.local)
        return await call_after_links(
            lambda: self._call_once(name, arguments, read_timeout),
            self.handler,
            asking,
            max_retries=self.max_url_retries,
            tracker=self._track,
        )

    async def _call_once(
        self, name: str, arguments: Mapping[str, Any] | None, read_timeout: float | None
    ) -> types.CallToolResult:
        args = dict(arguments) if arguments is not None else None
        if self.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return await self.sdk.call_tool(name, args, read_timeout_seconds=read_timeout)
        # SDK: the multi-round-trip loop gives up after 10 rounds (~2 s). Rounds are unlimited
        # above; this bounds the whole exchange in time instead, and a server that keeps
        # asking after the person said no is stopped by _Hooks.send.
        #
        # The call's round state (mcp_elicit.client.call_round) travels in a ContextVar, the
        # one that carries it: inside `call_tool` the SDK calls our elicitation callback (for
        # each input request) and our send hook (for each retry) without passing anything of
        # ours, and the context is what it carries from here to them. Its tasks copy the
        # context, so they share this one CallRound object.
        token = _CALL_ROUND.set(CallRound())
        try:
            try:
                with anyio.fail_after(self.input_time_limit):
                    return await self.sdk.call_tool(name, args, read_timeout_seconds=read_timeout)
            except TimeoutError:
                raise TimeoutError(
                    f"{name} was still asking for input after {self.input_time_limit:g} s"
                ) from None
            except _TaskCreated as created:
                # A task runs under its own limit (task_time_limit), not the rounds' one.
                task = parse_create_task_result(created.raw, revision=Revision.V2026_07_28)
                if not isinstance(task, Task):
                    problems = "; ".join(f"{p.field or 'result'}: {p.message}" for p in task or [])
                    raise TaskError(
                        f"{name} answered a malformed CreateTaskResult: {problems}"
                    ) from None
                return await self._follow(task, name)
        finally:
            _CALL_ROUND.reset(token)

    async def resume_task(self, task_id: str, *, tool: str | None = None) -> types.CallToolResult:
        """Follow the task ``task_id`` to its end, as :meth:`call_tool` follows the task it
        creates, and return its result: its questions are asked through the handler, its
        status is told, ``task_time_limit`` bounds it (counted from now).

        The task may have been started by an earlier call, in this process or another one
        that stopped (the extension has clients keep task ids for this: the first
        ``task_status`` report of a call carries its id). It must belong to the same user on
        the same server. ``tool`` names the tool that started it, for the person (the server
        does not say). Raises :class:`TaskError` when the server does not know the id (its
        -32602, in ``error``), when tasks are off (``tasks=False``), or when the session does
        not speak 2026-07-28; then as :meth:`call_tool`."""
        if not self.tasks:
            raise TaskError(
                f"cannot resume task {task_id!r}: this client does not take tasks (tasks=False)",
                task_id=task_id,
            )
        if self.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            raise TaskError(
                f"cannot resume task {task_id!r}: the session speaks {self.protocol_version}, "
                f"and a task is resumed only on {Revision.V2026_07_28.value} (the tasks "
                "extension)",
                task_id=task_id,
            )
        try:
            raw = await self._task_request(task_id, "tasks/get", {})
        except MCPError as error:
            if error.code != types.INVALID_PARAMS:
                raise
            # EXT §Protocol Errors: an unknown, foreign or purged id is -32602.
            raise TaskError(
                f"{self.server_name} has no task {task_id!r} to resume (an unknown id, "
                f"another user's, or one past its ttl): {clean(error.message)} "
                f"(code {error.code})",
                task_id=task_id,
                error={"code": error.code, "message": error.message},
            ) from None
        token = _CALL_ROUND.set(CallRound())
        try:
            return await self._follow(parsed_task(raw, task_id).task, tool)
        finally:
            _CALL_ROUND.reset(token)

    async def _task_request(self, task_id: str, method: str, params: dict[str, Any]) -> Any:
        """One ``tasks/*`` request about ``task_id``, declared (stamped as the SDK stamps its
        own requests) and with ``Mcp-Name``; its raw result."""
        header = {MCP_NAME_HEADER: encode_header_value(task_id)}
        return await _sdk.send_stamped_request(
            self.sdk.session, method, {"taskId": task_id, **params}, headers=header
        )

    async def _follow(self, task: Task, name: str | None) -> types.CallToolResult:
        """Follow ``task`` (created by a call of the tool ``name``, or resumed) with
        mcp_elicit.client.task_follow, and return its result."""
        session = self.sdk.session
        call_round = _CALL_ROUND.get()

        async def send(method: str, params: dict[str, Any]) -> Any:
            return await self._task_request(task.task_id, method, params)

        async def ask(key: str, request: Mapping[str, Any]) -> dict[str, Any]:
            if request.get("method") != "elicitation/create":
                raise TaskError(
                    f"task {task.task_id} asked {request.get('method')!r} under {key!r}; this "
                    "client answers only elicitation/create inside a task",
                    task_id=task.task_id,
                )
            # The same pipeline as a pushed or round request (EXT: the same trust model).
            asking = asking_of(
                session, required_by=name, local=self.local, input_key=key, call_round=call_round
            )
            try:
                return await self.handler.handle(request.get("params"), asking)
            except ElicitationRefused as refused:
                error = refused.error
                raise MCPError(error["code"], error["message"], error.get("data")) from None

        async def tell(report: TaskStatus) -> None:
            if self.task_status is not None:
                await self.task_status(report)
            elif self.handler.renderer is not None:
                # The id, short: it names the task among others; the person needs no more.
                short = clean(report.task_id[:6], newlines=False)
                text = _("Task {task}…: {status}").format(task=short, status=report.line())
                await self.handler.renderer.notify(Notice(self.server_name, text, "info"))

        def answered(key: str, response: dict[str, Any]) -> None:
            if call_round is None:
                return
            call_round.retrying({key: response})
            if call_round.given_up:
                raise RefusedInputLoop(
                    f"{self.server_name} kept asking for input the person declined or "
                    f"cancelled ({MAX_REFUSED_ROUNDS} times in a row); task {task.task_id} "
                    "given up"
                )

        outcome = await follow_task(
            task, send=send, ask=ask, tell=tell, answered=answered, time_limit=self.task_time_limit
        )
        return types.CallToolResult.model_validate(outcome)

    # -- elicitations, of every era: one way in -----------------------------------------------

    async def _elicited(
        self, session: ClientSession, params: Any, input_key: str | None = None
    ) -> dict[str, Any]:
        """Every elicitation this client is asked reaches the handler here: pushed
        (``elicitation/create``, through :meth:`_Hooks.on_elicitation`) or in a 2026-07-28
        round (an input request under ``input_key``, through :meth:`_on_input_request`)."""
        asking = asking_of(
            session, local=self.local, input_key=input_key, call_round=_CALL_ROUND.get()
        )
        return await self.handler.handle(params, asking)

    async def _on_input_request(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        # The SDK's elicitation callback, which its multi-round-trip loop calls with the input
        # request's key as the request id.
        key = str(context.request_id) if context.request_id is not None else None
        return await answer_for_sdk(params, lambda raw: self._elicited(context.session, raw, key))

    async def _track(self, request: ElicitationRequest) -> None:
        """url-draft completion: ``elicitation/track`` returns when the elicitation is done."""
        assert request.elicitation_id is not None
        client = self.sdk
        assert isinstance(client, _sdk.ElicitingSdkClient)

        shown: list[float] = []  # the last progress value shown

        async def progress(value: float, total: float | None, message: str | None) -> None:
            # "The progress value MUST increase with each notification" is the server's rule;
            # one that goes back, stands still or is not a number is not shown (a hostile or
            # broken server cannot make the person read "50%" after "90%").
            if not math.isfinite(value) or (shown and value <= shown[-1]):
                logger.debug(
                    "elicitation %s: progress %r ignored (not above %r)",
                    request.elicitation_id,
                    value,
                    shown[-1] if shown else None,
                )
                return
            shown[:] = [value]
            text = message or (f"{value:g}/{total:g}" if total else f"{value:g}")
            if self.handler.renderer is not None:
                notice = Notice(self.server_name, _("Progress: {text}").format(text=text), "info")
                await self.handler.renderer.notify(notice)

        params = track_request_params(
            request.elicitation_id,
            f"track-{request.elicitation_id}",
            revision=Revision.URL_DRAFT,
        )
        await client.dispatcher.send_raw_request(
            ELICITATION_TRACK, params, {"on_progress": progress}
        )

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            self.handler.completions.complete(message.params.elicitation_id)
        if self._message_handler is not None:
            await self._message_handler(message)
        else:
            await anyio.lowlevel.checkpoint()


@contextmanager
def _unwrapped() -> Iterator[None]:
    """The SDK's task groups wrap one error (a refused connection, a timeout, the caller's own
    exception coming back out) in groups of one, nested; raise that one error instead."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        if len({id(leaf) for leaf in leaves}) == 1:
            raise leaves[0] from None
        raise


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for error in group.exceptions:
        found.extend(_leaves(error) if isinstance(error, BaseExceptionGroup) else [error])
    return found


def unpooled_http_client(
    *, headers: Mapping[str, str] | None = None, auth: httpx2.Auth | None = None
) -> httpx2.AsyncClient:
    # SDK: its default pool holds 100 connections. Each tool call pending on an elicitation
    # holds one open (its response stream), and the answer needs another: at 99 pending calls
    # the answers wait for a connection that never frees. Unbounded, they cannot starve.
    # No read timeout either: a response stream may stay quiet while a person answers; the
    # request's own (pausable) timeout is the one that counts.
    return httpx2.AsyncClient(
        headers=headers,
        auth=auth,
        timeout=httpx2.Timeout(30.0, read=None),
        limits=httpx2.Limits(max_connections=None, max_keepalive_connections=64),
    )


_SET_BY_US = frozenset(
    {"elicitation_callback", "mode", "read_timeout_seconds", "input_required_max_rounds"}
)


class _Hooks:
    """Where :class:`ElicitingClient` extends the SDK client (``mcp_elicit._sdk`` says why
    each has no public seam)."""

    def __init__(self, owner: ElicitingClient) -> None:
        self._owner = owner

    @property
    def proposed_version(self) -> str | None:
        # SDK: `initialize` always proposes its newest handshake version.
        protocol = self._owner.protocol
        return protocol if protocol in PROPOSED_BY_HAND else None

    def capabilities(
        self, version: str, declared: types.ClientCapabilities
    ) -> types.ElicitationCapability | None:
        # SDK: any elicitation callback declares form and URL. Declare what the handler does.
        return _capability(self._owner.handler.modes, self.proposed_version)

    async def on_elicitation(self, session: ClientSession, params: Any) -> dict[str, Any]:
        # SDK: it validates the request strictly before any callback sees it, and a callback
        # that raises reaches the server as code 0. Read it ourselves; answer -32602 with the
        # problems, or -32603 if the handler itself fails.
        try:
            return await self._owner._elicited(session, params)
        except ElicitationRefused as refused:
            error = refused.error
            raise MCPError(error["code"], error["message"], error.get("data")) from None
        except Exception:
            logger.exception("the elicitation handler failed")
            raise MCPError(
                types.INTERNAL_ERROR, "The client failed to handle the elicitation"
            ) from None

    async def send(
        self,
        send: Callable[[str, Mapping[str, Any] | None, dict[str, Any]], Awaitable[Any]],
        method: str,
        params: Mapping[str, Any] | None,
        options: dict[str, Any],
        version: str | None,
    ) -> Any:
        call_round = _CALL_ROUND.get()
        if call_round is not None and method in ASKING_METHODS and isinstance(params, Mapping):
            links = self._retrying(call_round, method, params.get("inputResponses"))
            if links:

                async def resend(again: Mapping[str, Any]) -> Any:
                    return await self._send_once(send, method, again, options, version)

                return await self._send_held(call_round, method, params, links, resend)
        return await self._send_once(send, method, params, options, version)

    def _retrying(self, call_round: CallRound, method: str, responses: Any) -> dict[str, UrlPrompt]:
        """A retry of the call leaves: the links it carries, unless the call is given up."""
        links = call_round.retrying(responses)
        if call_round.given_up:
            raise RefusedInputLoop(
                f"{self._owner.server_name} kept asking for input the person declined or "
                f"cancelled ({MAX_REFUSED_ROUNDS} times in a row); {method} given up"
            )
        return links

    async def _send_held(
        self,
        call_round: CallRound,
        method: str,
        params: Mapping[str, Any],
        links: dict[str, UrlPrompt],
        resend: Callable[[Mapping[str, Any]], Awaitable[Any]],
    ) -> Any:
        """2026-07-28: the retry that carries the person's accept of ``links``. The server
        may hold it until the page is finished (``url_resume_wait``); meanwhile the person
        sees that it waits, and can say they are done (the retry is sent again at once) or
        cancel (it is sent again with ``cancel`` for those links)."""
        prompt = next(iter(links.values()))
        while True:
            sent, answer = await self._held_once(params, prompt, resend)
            if sent:
                return sent[0]
            if isinstance(answer, Accept):
                continue  # done: ask the server again now
            refused = dict(params.get("inputResponses") or {})
            refused.update({key: {"action": "cancel"} for key in links})
            self._retrying(call_round, method, refused)
            return await resend({**params, "inputResponses": refused})

    async def _held_once(
        self,
        params: Mapping[str, Any],
        prompt: UrlPrompt,
        resend: Callable[[Mapping[str, Any]], Awaitable[Any]],
    ) -> tuple[list[Any], Decision | None]:
        """Send the retry once, with the waiting screen up meanwhile: ``([result], None)``
        when the server answered first, ``([], answer)`` when the person did (the retry is
        given up)."""
        handler = self._owner.handler
        finished = anyio.Event()
        sent: list[Any] = []
        failed: list[Exception] = []
        answer: Decision | None = None
        async with anyio.create_task_group() as tasks:

            async def retry() -> None:
                try:
                    sent.append(await resend(params))
                except Exception as error:  # raised below, not inside an exception group
                    failed.append(error)
                    tasks.cancel_scope.cancel()
                    return
                if _asks_again(sent[0]):
                    tasks.cancel_scope.cancel()  # the next round's screens take over
                else:
                    finished.set()  # the result: the waiting screen ends by itself

            async def wait() -> None:
                nonlocal answer
                answer = await handler.wait_while_held(
                    prompt, finished, server=self._owner.server_name
                )
                if not finished.is_set():
                    tasks.cancel_scope.cancel()  # the person spoke first: stop waiting

            tasks.start_soon(retry)
            tasks.start_soon(wait)
        if failed:
            raise failed[0]
        return sent, None if sent else answer

    async def _send_once(
        self,
        send: Callable[[str, Mapping[str, Any] | None, dict[str, Any]], Awaitable[Any]],
        method: str,
        params: Mapping[str, Any] | None,
        options: dict[str, Any],
        version: str | None,
    ) -> Any:
        options = dict(options)  # sent again after a held retry: the caller's stays whole
        timeout = options.pop("timeout", None)
        if timeout is None:
            raw = await send(method, params, options)
        else:
            # SDK: its timeout runs while the person answers; ours stops.
            with self._owner.handler.attention.deadline(timeout) as scope:
                raw = await send(method, params, options)
            if scope.cancelled_caught:
                raise MCPError(
                    types.REQUEST_TIMEOUT,
                    f"{method} timed out after {timeout:g} s (time spent answering not counted)",
                )
        if (
            method == "tools/call"
            and isinstance(raw, Mapping)
            and raw.get("resultType") == TASK_RESULT_TYPE
            and not declares_tasks(params)
        ):
            # EXT §Capability Negotiation: no CreateTaskResult to a request that did not
            # declare the extension. Nothing is polled: the call fails here.
            raise TaskError(
                f"{self._owner.server_name} answered {method} with a task "
                f"({raw.get('taskId')!r}), which this request did not declare it takes "
                "(an invalid response)",
                task_id=raw.get("taskId") if isinstance(raw.get("taskId"), str) else None,
            )
        if (
            method in ASKING_METHODS
            and isinstance(raw, dict)
            and "resultType" not in raw
            and version in MODERN_PROTOCOL_VERSIONS
        ):
            # SDK: a final result without `resultType` fails validation. The specification
            # has clients read it as complete (for servers of earlier revisions); a server
            # that negotiated 2026-07-28 must send it, so this is said as a quirk.
            quirk = f"{method}: result without resultType read as complete"
            self._owner.accepted_quirks.append(quirk)
            logger.warning("%s: %s", self._owner.server_name, quirk)
            return {**raw, "resultType": "complete"}
        return raw


def _asks_again(raw: Any) -> bool:
    """A retry answered with another round of input requests, not with the result."""
    return isinstance(raw, Mapping) and raw.get("resultType") == "input_required"


def _capability(
    modes: ElicitationModes, proposed: str | None
) -> types.ElicitationCapability | None:
    if not (modes.form or modes.url):
        return None
    if proposed in PROPOSED_BY_HAND:
        return types.ElicitationCapability()  # `elicitation: {}`: those revisions have no modes
    return types.ElicitationCapability(
        form=types.FormElicitationCapability() if modes.form else None,
        url=types.UrlElicitationCapability() if modes.url else None,
    )
