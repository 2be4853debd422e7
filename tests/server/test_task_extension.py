"""The tasks extension ``io.modelcontextprotocol/tasks`` on 2026-07-28, server side
(``Elicitation(tasks=...)``; rules 9 to 12 in ``mcp_elicit.server.tasks``).

In process first: a client on the SDK's ``Client`` sends every request raw, with the
per-request ``_meta`` written by hand, so that what is declared on each request is exactly what
the test says. The same tool code as on 2025-11-25 asks a form; ``tasks/get`` shows it under a
key; ``tasks/update`` answers it; the result arrives inlined in ``tasks/get``. Then keys that
are not outstanding, other users, the gate (-32021), the removed methods (-32601), cancel, ttl
and ``task_status``. Last, over Streamable HTTP with a raw client: a URL-mode secret entered on
the hosted page inside a task, and the ``Mcp-Name`` routing header (-32020).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
import pytest
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from starlette.requests import Request

from mcp_elicit import _sdk
from mcp_elicit.client import Asking, ElicitationHandler, ElicitingClient
from mcp_elicit.protocol import ElicitationModes
from mcp_elicit.protocol.codes import META_IGNORED, META_RELATED_TASK, TASKS_EXTENSION
from mcp_elicit.server import (
    Accepted,
    DeploymentKey,
    Elicitation,
    TaskSettings,
    UrlRequired,
    ask,
    task_status,
)
from mcp_elicit.server import tasks as tasks_module
from mcp_elicit.testing import enter_secret
from tests.peer_servers import task_server
from tests.server.task_support import EXTENSION, MODERN, RawModern, meta

pytestmark = pytest.mark.anyio

WHO = "Who travels?"
PAY_URL = "https://bank.example/pay"


class MetaNamed:
    """FOR TESTS ONLY: the user is the ``clientInfo`` name the request's own ``_meta`` gives
    (2026-07-28 has no handshake; 2025-11-25: the one in ``initialize``), so that one
    in-process server can be called by two people."""

    def user_of_request(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        meta = (ctx.params or {}).get("_meta") or {}
        info = meta.get("io.modelcontextprotocol/clientInfo") or {}
        name = info.get("name")
        if isinstance(name, str):
            return name
        handshake = ctx.session.client_params  # 2025-11-25: the name given in initialize
        return handshake.client_info.name if handshake is not None else None

    async def user_of_browser(self, request: Request) -> str | None:
        return None

    def login_url(self, request: Request) -> str | None:
        return None


@dataclass
class Tools:
    server: MCPServer
    elicitation: Elicitation
    started: anyio.Event = field(default_factory=anyio.Event)
    stopped: anyio.Event = field(default_factory=anyio.Event)
    go_on: anyio.Event = field(default_factory=anyio.Event)
    got: list[Any] = field(default_factory=list)
    flows: list[str] = field(default_factory=list)


def tools_server(settings: bool | TaskSettings = True) -> Tools:
    server = MCPServer("task-extension-test")
    elicitation = Elicitation(
        server,
        key=DeploymentKey.generate(),
        store="memory://",
        identity=MetaNamed(),
        tasks=settings,
    )
    made = Tools(server, elicitation)

    @dataclass
    class Who:
        name: str

    @server.tool()
    async def book(ctx: Context) -> str:
        answer = await ask(ctx, Who, WHO)
        made.got.append(answer)
        return f"booked {answer.value.name}" if isinstance(answer, Accepted) else "not booked"

    @server.tool()
    async def book_two(ctx: Context) -> str:
        first = await ask(ctx, Who, WHO)
        second = await ask(ctx, Who, "And who else?")
        names = [a.value.name for a in (first, second) if isinstance(a, Accepted)]
        return "booked " + " and ".join(names)

    @server.tool()
    async def hurried(ctx: Context) -> str:
        answer = await ask(ctx, Who, WHO, timeout=0.2)
        made.got.append(answer)
        if isinstance(answer, Accepted):
            return "booked"
        await made.go_on.wait()  # the question is withdrawn; the task stays live
        return f"not booked: {answer}"

    @server.tool()
    async def slow(ctx: Context) -> str:
        made.started.set()
        try:
            await anyio.sleep_forever()
        finally:
            made.stopped.set()
        return "never"

    @server.tool()
    async def reporting(ctx: Context) -> str:
        task_status("Counting the rooms")
        made.started.set()
        await made.go_on.wait()
        task_status("x" * 500)  # within the second: written when it is over, cut short
        task_status("Almost done " * 40)
        await anyio.sleep(1.2)
        return "counted"

    @server.tool()
    async def needs_payment(ctx: Context) -> str:
        user = elicitation.user_of(ctx)
        for flow_id in made.flows:
            done = await elicitation.flows.get(flow_id)
            if done is not None and done.status.value == "completed":
                return "room paid"
        flow = await elicitation.flows.start(user=user, purpose="pay")
        made.flows.append(flow.id)
        raise UrlRequired(PAY_URL, "Pay for the room on the bank's page first", flow_id=flow.id)

    @server.tool()
    async def broken(ctx: Context) -> str:
        raise ToolError("the room is gone")

    @server.tool()
    async def refused(ctx: Context) -> str:
        raise MCPError(-32000, "the booking system said no", {"why": "closed"})

    return made


class Person(ElicitationHandler):
    """Never asked: on the extension, questions come through ``tasks/get``, not pushed."""

    def __init__(self) -> None:
        super().__init__(None, opener=None)
        self.seen: list[Any] = []

    @property
    def modes(self) -> ElicitationModes:
        return ElicitationModes(form=True, url=True)

    async def handle(self, params: Any, asking: Asking) -> dict[str, Any]:
        self.seen.append(params)
        return {"action": "cancel"}


class Caller:
    def __init__(self, client: ElicitingClient, user: str) -> None:
        self.client = client
        self.user = user
        sdk = client.sdk
        assert isinstance(sdk, _sdk.ElicitingSdkClient)
        self._dispatcher = sdk.dispatcher

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, tasks: bool = True
    ) -> Any:
        sent = {**(params or {}), "_meta": meta(self.user, tasks=tasks)}
        return await self._dispatcher.send_raw_request(method, sent, {})

    async def call(self, name: str, *, tasks: bool = True, **extra: Any) -> Any:
        params = {"name": name, "arguments": {}, **extra}
        return await self.request("tools/call", params, tasks=tasks)

    async def get(self, task_id: str) -> dict[str, Any]:
        got: dict[str, Any] = await self.request("tasks/get", {"taskId": task_id})
        return got

    async def until(self, task_id: str, status: str) -> dict[str, Any]:
        with anyio.fail_after(5):
            while (got := await self.get(task_id))["status"] != status:
                await anyio.sleep(0.01)
        return got

    async def update(self, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
        acked: dict[str, Any] = await self.request(
            "tasks/update", {"taskId": task_id, "inputResponses": responses}
        )
        return acked


@contextlib.asynccontextmanager
async def caller(made: Tools, user: str = "alice", protocol: str = MODERN) -> AsyncIterator[Caller]:
    client = ElicitingClient(
        made.server,
        Person(),
        protocol=protocol,
        client_info=types.Implementation(name=user, version="1"),
    )
    async with client:
        yield Caller(client, user)


@contextlib.asynccontextmanager
async def running(made: Tools) -> AsyncIterator[None]:
    async with made.elicitation.running(close_store=False):
        yield


async def error_of(call: Any) -> types.ErrorData:
    with pytest.raises(MCPError) as caught:
        await call
    return caught.value.error


ACCEPT_ADA = {"action": "accept", "content": {"name": "Ada"}}


# -- declaration and creation ----------------------------------------------------------------------


async def test_discover_declares_the_extension_and_no_core_tasks() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        found = await alice.request("server/discover")
    capabilities = found["capabilities"]
    assert capabilities["extensions"][TASKS_EXTENSION] == {}
    assert "tasks" not in capabilities


async def test_discover_declares_nothing_with_tasks_off() -> None:
    made = tools_server(False)
    async with running(made), caller(made) as alice:
        found = await alice.request("server/discover")
    assert TASKS_EXTENSION not in (found["capabilities"].get("extensions") or {})


async def test_a_form_asked_in_a_task_is_read_with_tasks_get_and_answered_with_tasks_update() -> (
    None
):
    made = tools_server()
    async with running(made), caller(made) as alice:
        created = await alice.call("book", task={"ttl": 5})  # params.task: ignored here
        assert created["resultType"] == "task"
        assert set(created) >= {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"}
        assert not set(created) & {"result", "error", "inputRequests", "task", "ttl"}
        assert created["ttlMs"] == tasks_module.DEFAULT_TTL_MS  # granted, not the 5 asked
        assert created["pollIntervalMs"] == tasks_module.POLL_INTERVAL_MS
        task_id = created["taskId"]
        assert len(task_id) >= 32

        waiting = await alice.until(task_id, "input_required")
        assert waiting["resultType"] == "complete"
        (key,) = waiting["inputRequests"]
        assert key == "q-1"
        request = waiting["inputRequests"][key]
        assert request["method"] == "elicitation/create"
        assert request["params"]["message"] == WHO
        assert request["params"]["mode"] == "form"
        assert "_meta" not in request["params"]  # no related-task _meta on the extension
        # The same key on the next poll, until it is answered (clients deduplicate by it).
        assert (await alice.get(task_id))["inputRequests"] == waiting["inputRequests"]

        acked = await alice.update(task_id, {key: ACCEPT_ADA})
        assert acked == {"resultType": "complete"}  # nothing ignored: no _meta

        done = await alice.until(task_id, "completed")
        assert done["resultType"] == "complete"
        assert done["result"]["content"] == [{"type": "text", "text": "booked Ada"}]
        assert META_RELATED_TASK not in (done["result"].get("_meta") or {})
        assert "inputRequests" not in done
        assert made.got == [Accepted(made.got[0].value)]
        assert alice.client.handler.seen == []  # type: ignore[attr-defined]  # never pushed


async def test_two_questions_get_two_keys_and_a_partial_answer_leaves_the_other() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("book_two"))["taskId"]
        first = await alice.until(task_id, "input_required")
        assert list(first["inputRequests"]) == ["q-1"]
        await alice.update(task_id, {"q-1": ACCEPT_ADA})
        with anyio.fail_after(5):
            while list((second := await alice.get(task_id)).get("inputRequests") or {}) != ["q-2"]:
                await anyio.sleep(0.01)
        assert second["inputRequests"]["q-2"]["params"]["message"] == "And who else?"
        # Replaying the first answer changes nothing: the key was answered.
        replayed = await alice.update(task_id, {"q-1": ACCEPT_ADA})
        assert replayed["_meta"][META_IGNORED] == {"q-1": "answered"}
        await alice.update(task_id, {"q-2": {"action": "accept", "content": {"name": "Bo"}}})
        done = await alice.until(task_id, "completed")
        assert done["result"]["content"][0]["text"] == "booked Ada and Bo"


async def test_keys_that_are_not_outstanding_are_ignored_with_their_verdicts() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        other = (await alice.call("book"))["taskId"]
        await alice.until(other, "input_required")
        stale_task = (await alice.call("hurried"))["taskId"]
        await alice.until(stale_task, "input_required")
        # Its question times out (0.2 s) and is withdrawn; the task stays live.
        with anyio.fail_after(5):
            while (await alice.get(stale_task))["status"] != "working":
                await anyio.sleep(0.02)
        task_id = (await alice.call("book"))["taskId"]
        waiting = await alice.until(task_id, "input_required")
        (key,) = waiting["inputRequests"]
        assert key == "q-1"  # keys are per task

        stale = await alice.update(stale_task, {"q-1": ACCEPT_ADA})
        assert stale["_meta"][META_IGNORED] == {"q-1": "withdrawn"}
        mixed = await alice.update(
            task_id,
            {
                "q-7": ACCEPT_ADA,  # never issued
                "q-1": {"action": "accept", "content": "not an object"},  # not an answer
            },
        )
        assert mixed["resultType"] == "complete"
        assert mixed["_meta"][META_IGNORED] == {"q-7": "unknown", "q-1": "malformed"}
        assert (await alice.get(task_id))["status"] == "input_required"  # still out

        await alice.update(task_id, {key: ACCEPT_ADA})
        await alice.until(task_id, "completed")
        # A key of this task, answered already; and the other task is untouched by it.
        again = await alice.update(task_id, {key: ACCEPT_ADA})
        assert again["_meta"][META_IGNORED] == {key: "finished"}
        assert (await alice.get(other))["status"] == "input_required"
        made.go_on.set()
        done = await alice.until(stale_task, "completed")
        assert done["result"]["content"][0]["text"] == "not booked: Cancelled(reason='timeout')"


async def test_malformed_update_params_are_invalid_params() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("book"))["taskId"]
        wrong = await error_of(alice.request("tasks/update", {"taskId": task_id}))
        assert wrong.code == types.INVALID_PARAMS
        assert "inputResponses" in wrong.message
        wrong = await error_of(alice.request("tasks/update", {"inputResponses": {}}))
        assert wrong.code == types.INVALID_PARAMS
        assert "taskId" in wrong.message
        await alice.request("tasks/cancel", {"taskId": task_id})


async def test_a_link_the_tool_requires_is_asked_in_the_task_and_the_body_runs_again() -> None:
    """Design A12 on the extension: ``UrlRequired`` inside a task is a link question under a
    ``link-n`` key (2026-07-28 has no -32042 and no elicitationId); once the page is completed
    the body runs again in the same task."""
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("needs_payment"))["taskId"]
        waiting = await alice.until(task_id, "input_required")
        assert list(waiting["inputRequests"]) == ["link-1"]
        link = waiting["inputRequests"]["link-1"]["params"]
        assert (link["mode"], link["url"]) == ("url", PAY_URL)
        assert "elicitationId" not in link
        await alice.update(task_id, {"link-1": {"action": "accept"}})
        on_page = await alice.until(task_id, "working")
        assert on_page["statusMessage"] == "Waiting for the page on bank.example to be completed"
        await made.elicitation.flows.complete(made.flows[0], user="alice")
        done = await alice.until(task_id, "completed")
        assert done["result"]["content"][0]["text"] == "room paid"
        assert len(made.flows) == 1  # the body ran twice, the link was asked once


async def test_a_declined_link_completes_the_task_with_a_tool_error() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("needs_payment"))["taskId"]
        await alice.until(task_id, "input_required")
        await alice.update(task_id, {"link-1": {"action": "decline"}})
        done = await alice.until(task_id, "completed")  # a tool error: completed (A4)
        assert done["result"]["isError"] is True
        assert done["result"]["content"][0]["text"] == (
            "The person declined the link this tool needs: Pay for the room on the bank's "
            "page first"
        )


# -- outcomes -----------------------------------------------------------------------------------


async def test_a_tool_error_completes_the_task_and_a_protocol_error_fails_it() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        tool_error = (await alice.call("broken"))["taskId"]
        done = await alice.until(tool_error, "completed")  # design A4: isError is completed
        assert done["result"]["isError"] is True
        assert "the room is gone" in done["result"]["content"][0]["text"]
        assert "error" not in done

        protocol_error = (await alice.call("refused"))["taskId"]
        failed = await alice.until(protocol_error, "failed")
        assert failed["error"] == {
            "code": -32000,
            "message": "the booking system said no",
            "data": {"why": "closed"},
        }
        assert failed["statusMessage"] == "the booking system said no"
        assert "result" not in failed


# -- the gate, and what is gone ------------------------------------------------------------------


async def test_tasks_requests_without_the_extension_are_refused_with_32021() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("slow"))["taskId"]
        for method, params in (
            ("tasks/get", {"taskId": task_id}),
            ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
            ("tasks/cancel", {"taskId": task_id}),
        ):
            error = await error_of(alice.request(method, params, tasks=False))
            assert error.code == -32021, method
            assert error.data == {"requiredCapabilities": EXTENSION}
        assert (await alice.get(task_id))["status"] == "working"  # the cancel did nothing
        await alice.request("tasks/cancel", {"taskId": task_id})


async def test_tasks_result_and_tasks_list_are_gone_on_2026_07_28() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("slow"))["taskId"]
        for method, params in (("tasks/result", {"taskId": task_id}), ("tasks/list", {})):
            error = await error_of(alice.request(method, params))
            assert error.code == types.METHOD_NOT_FOUND, method
        await alice.request("tasks/cancel", {"taskId": task_id})


async def test_a_call_without_the_extension_is_never_a_task() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        # Declared on an earlier request: not inferred for this one.
        await alice.request("server/discover")
        plain = await alice.call("broken", tasks=False, task={})
        assert plain.get("resultType") != "task"
        assert plain["isError"] is True
        asked = await alice.call("book", tasks=False)
        assert asked["resultType"] == "input_required"  # the rounds, as without tasks


async def test_a_tool_that_needs_a_task_is_32021_without_the_extension() -> None:
    made = tools_server(TaskSettings(tools={"slow": "required", "broken": "forbidden"}))
    async with running(made), caller(made) as alice:
        error = await error_of(alice.call("slow", tasks=False))
        assert error.code == -32021
        assert error.data == {"requiredCapabilities": EXTENSION}
        assert "'slow' runs only as a task" in error.message
        assert not made.started.is_set()
        # A forbidden tool runs plainly, declared or not.
        plain = await alice.call("broken")
        assert plain.get("resultType") != "task"
        assert plain["isError"] is True


# -- who may touch a task ------------------------------------------------------------------------


async def test_another_users_task_is_not_found_by_any_method() -> None:
    made = tools_server()
    async with running(made), caller(made, "alice") as alice, caller(made, "mallory") as mallory:
        task_id = (await alice.call("book"))["taskId"]
        await alice.until(task_id, "input_required")
        for method, params in (
            ("tasks/get", {"taskId": task_id}),
            ("tasks/update", {"taskId": task_id, "inputResponses": {"q-1": ACCEPT_ADA}}),
            ("tasks/cancel", {"taskId": task_id}),
        ):
            error = await error_of(mallory.request(method, params))
            assert (error.code, error.message) == (types.INVALID_PARAMS, "task not found")
        forged = secrets.token_urlsafe(24)
        error = await error_of(alice.request("tasks/get", {"taskId": forged}))
        assert (error.code, error.message) == (types.INVALID_PARAMS, "task not found")
        # Nothing Mallory did touched it.
        waiting = await alice.get(task_id)
        assert waiting["status"] == "input_required"
        assert list(waiting["inputRequests"]) == ["q-1"]
        assert made.got == []
        await alice.request("tasks/cancel", {"taskId": task_id})


async def test_a_2025_11_25_task_is_not_served_to_an_extension_request() -> None:
    made = tools_server()
    async with running(made), caller(made, protocol="2025-11-25") as old:
        sdk = old.client.sdk
        assert isinstance(sdk, _sdk.ElicitingSdkClient)
        created = await sdk.dispatcher.send_raw_request(
            "tools/call", {"name": "slow", "arguments": {}, "task": {}}, {}
        )
        task_id = created["task"]["taskId"]
    async with caller(made) as alice:
        error = await error_of(alice.get(task_id))
        assert (error.code, error.message) == (types.INVALID_PARAMS, "task not found")


async def test_a_2025_11_25_client_declaring_the_extension_gets_the_core_tasks() -> None:
    made = tools_server()
    async with running(made), caller(made, protocol="2025-11-25") as old:
        sdk = old.client.sdk
        assert isinstance(sdk, _sdk.ElicitingSdkClient)
        caps = sdk.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert caps["tasks"]["requests"] == {"tools": {"call": {}}}
        assert TASKS_EXTENSION not in (caps.get("extensions") or {})

        async def raw(method: str, params: dict[str, Any]) -> Any:
            declared = {"_meta": {"io.modelcontextprotocol/clientCapabilities": EXTENSION}}
            return await sdk.dispatcher.send_raw_request(method, {**params, **declared}, {})

        # The extension's declaration is nothing here: no task without params.task...
        plain = await raw("tools/call", {"name": "broken", "arguments": {}})
        assert "task" not in plain and plain.get("resultType") != "task"
        # ... and with it, the 2025-11-25 CreateTaskResult.
        created = await raw("tools/call", {"name": "slow", "arguments": {}, "task": {}})
        assert set(created) == {"task"}
        assert "ttl" in created["task"] and "ttlMs" not in created["task"]
        error = await error_of(
            raw("tasks/update", {"taskId": created["task"]["taskId"], "inputResponses": {}})
        )
        assert error.code == types.METHOD_NOT_FOUND
        await raw("tasks/cancel", {"taskId": created["task"]["taskId"]})


# -- cancel, ttl, status -------------------------------------------------------------------------


async def test_cancel_is_immediate_and_always_the_empty_ack() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("slow"))["taskId"]
        with anyio.fail_after(5):
            await made.started.wait()
        assert await alice.request("tasks/cancel", {"taskId": task_id}) == {
            "resultType": "complete"
        }
        with anyio.fail_after(5):
            await made.stopped.wait()
        assert (await alice.get(task_id))["status"] == "cancelled"
        # Terminal already: the same ack (design A3), and it stays cancelled.
        assert await alice.request("tasks/cancel", {"taskId": task_id}) == {
            "resultType": "complete"
        }
        assert (await alice.get(task_id))["status"] == "cancelled"


async def test_cancel_while_a_question_waits_takes_it_back() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("book"))["taskId"]
        await alice.until(task_id, "input_required")
        await alice.request("tasks/cancel", {"taskId": task_id})
        cancelled = await alice.get(task_id)
        assert cancelled["status"] == "cancelled"
        assert "inputRequests" not in cancelled
        late = await alice.update(task_id, {"q-1": ACCEPT_ADA})
        assert late["_meta"][META_IGNORED] == {"q-1": "finished"}
        assert made.got == []


async def test_an_expired_task_fails_and_its_tool_is_stopped() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("slow"))["taskId"]
        with anyio.fail_after(5):
            await made.started.wait()
        tasks = made.elicitation.runtime.tasks
        assert tasks is not None
        now = tasks.clock()
        tasks.clock = lambda: now + tasks_module.DEFAULT_TTL_MS / 1000 + 1
        failed = await alice.get(task_id)  # checked inline, before the sweeper's turn
        assert failed["status"] == "failed"
        assert failed["error"]["code"] == types.INTERNAL_ERROR
        assert failed["error"]["message"] == "The task's ttl of 3600000 ms ran out"
        with anyio.fail_after(5):
            await made.stopped.wait()


async def test_task_status_sets_the_status_message_once_a_second_at_most() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call("reporting"))["taskId"]
        with anyio.fail_after(5):
            await made.started.wait()
        assert (await alice.get(task_id))["statusMessage"] == "Counting the rooms"
        made.go_on.set()
        await anyio.sleep(0.3)
        # Two more calls within the second: neither written yet.
        assert (await alice.get(task_id))["statusMessage"] == "Counting the rooms"
        with anyio.fail_after(5):
            while (got := await alice.get(task_id))["statusMessage"] == "Counting the rooms":
                await anyio.sleep(0.05)
        message = got["statusMessage"]
        assert message.startswith("Almost done Almost done")  # the last text given wins
        assert len(message) == tasks_module.STATUS_MAX_CHARS
        assert message.endswith("\u2026")
        done = await alice.until(task_id, "completed")
        assert done["result"]["content"][0]["text"] == "counted"


async def test_task_status_outside_a_task_does_nothing() -> None:
    task_status("nobody reads this")  # outside any request
    made = tools_server()
    async with running(made), caller(made) as alice:
        made.go_on.set()
        with anyio.fail_after(5):
            plain = await alice.call("reporting", tasks=False)
    assert plain["content"][0]["text"] == "counted"


# -- over Streamable HTTP: a raw client ----------------------------------------------------------


@contextlib.asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[RawModern]:
    server = task_server.served(tmp_path / "server.log", "--tools", "book,progressing,sign")
    try:
        async with httpx2.AsyncClient(timeout=30) as http:
            yield RawModern(server.url(), http)
    finally:
        server.stop()


@pytest.mark.slow
async def test_a_form_in_a_task_over_http(tmp_path: Path) -> None:
    async with served(tmp_path) as raw:
        found = await raw.result("server/discover", {})
        assert found["capabilities"]["extensions"][TASKS_EXTENSION] == {}
        created = await raw.result("tools/call", {"name": "book", "arguments": {}})
        assert created["resultType"] == "task"
        task_id = created["taskId"]
        waiting = await raw.until(task_id, "input_required")
        assert waiting["inputRequests"]["q-1"]["params"]["message"] == WHO
        acked = await raw.result(
            "tasks/update", {"taskId": task_id, "inputResponses": {"q-1": ACCEPT_ADA}}
        )
        assert acked == {"resultType": "complete"}
        done = await raw.until(task_id, "completed")
        assert done["result"]["content"][0]["text"] == "booked Ada"


@pytest.mark.slow
async def test_a_secret_in_a_task_is_entered_on_the_page_and_the_task_goes_on(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as raw:
        task_id = (await raw.result("tools/call", {"name": "sign", "arguments": {}}))["taskId"]
        waiting = await raw.until(task_id, "input_required")
        (key,) = waiting["inputRequests"]
        assert key == "link-1"
        link = waiting["inputRequests"][key]["params"]
        assert link["mode"] == "url"
        assert "elicitationId" not in link  # none on 2026-07-28
        await raw.result(
            "tasks/update", {"taskId": task_id, "inputResponses": {key: {"action": "accept"}}}
        )
        # The person is on the page: nothing is asked of the client, the task says why.
        on_page = await raw.until(task_id, "working")
        assert on_page["statusMessage"].startswith("Waiting for the page on ")
        await enter_secret("sk-bank-6789")(link["url"])
        done = await raw.until(task_id, "completed")
        assert done["result"]["content"][0]["text"] == "signed with a key ending 6789"


@pytest.mark.slow
async def test_an_mcp_name_that_is_not_the_task_id_is_32020(tmp_path: Path) -> None:
    async with served(tmp_path) as raw:
        task_id = (await raw.result("tools/call", {"name": "book", "arguments": {}}))["taskId"]
        await raw.until(task_id, "input_required")  # the right header passes
        for method, params in (
            ("tasks/get", {"taskId": task_id}),
            ("tasks/update", {"taskId": task_id, "inputResponses": {"q-1": ACCEPT_ADA}}),
            ("tasks/cancel", {"taskId": task_id}),
        ):
            status, answer = await raw.send(method, params, name="another-task")
            assert status == 400, (method, answer)
            assert answer["error"]["code"] == -32020, (method, answer)
            assert "mcp-name" in answer["error"]["message"]
            assert answer["id"] == raw._next
        # Nothing went through: still waiting for its answer.
        waiting = await raw.result("tasks/get", {"taskId": task_id})
        assert waiting["status"] == "input_required"
        await raw.result("tasks/cancel", {"taskId": task_id})


@pytest.mark.slow
async def test_progress_in_a_task_does_not_fail_it(
    tmp_path: Path,
) -> None:
    """R1: the call was answered with the task, so the tool's progress notices have no request
    to ride on (and the extension does not carry them on tasks): they must not fail it."""
    async with served(tmp_path) as raw:
        created = await raw.result(
            "tools/call", {"name": "progressing", "arguments": {}, "_meta": {"progressToken": 7}}
        )
        done = await raw.until(created["taskId"], "completed")
        assert done["result"]["content"][0]["text"] == "progressed"
        assert "statusMessage" not in done  # a completed task's message is cleared
