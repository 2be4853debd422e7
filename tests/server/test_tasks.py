"""Task-augmented ``tools/call`` (2025-11-25, basic/utilities/tasks), ``Elicitation(tasks=True)``.

The spec row: "An elicitation that a task-augmented tool call depends on carries the same
``io.modelcontextprotocol/related-task`` id". A real client (ours, on the SDK's ``Client``,
sending the task requests raw) makes the call, answers the question the tool asks while the
task shows ``input_required``, and reads the tool's result from ``tasks/result``. Then the
attacks: another user's task, a forged id, cancelling, expiry; and that nothing changes for a
call without ``task`` or on a server with tasks off. Last, an independent client (the
TypeScript SDK v2, ``tests/peers_ts/task_client.ts``) does the same over Streamable HTTP, where
the question travels on the session's GET stream.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
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
from mcp_elicit.server import Accepted, DeploymentKey, Elicitation, UrlRequired, ask, ask_url
from mcp_elicit.server import tasks as tasks_module
from mcp_elicit.server.tasks import RELATED_TASK
from tests.peers import typescript_peer
from tests.served import Served

pytestmark = pytest.mark.anyio

WHO = "Who travels?"
PAY_URL = "https://bank.example/pay"


class ClientNamed:
    """FOR TESTS ONLY: the user is the name the client gives in ``initialize``, so that one
    in-process server can be called by two people."""

    def user_of_request(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        params = ctx.session.client_params
        return params.client_info.name if params is not None else None

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
    got: list[Any] = field(default_factory=list)
    flows: list[str] = field(default_factory=list)


def tools_server(*, tasks: bool = True) -> Tools:
    server = MCPServer("tasks-test")
    elicitation = Elicitation(
        server, key=DeploymentKey.generate(), store="memory://", identity=ClientNamed(), tasks=tasks
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
    async def slow(ctx: Context) -> str:
        made.started.set()
        try:
            await anyio.sleep_forever()
        finally:
            made.stopped.set()
        return "never"

    @server.tool()
    async def pay(ctx: Context) -> str:
        flow = await elicitation.flows.start(user=elicitation.user_of(ctx), purpose="pay")
        made.flows.append(flow.id)
        answer = await ask_url(ctx, PAY_URL, "Pay for the room on the bank's page", flow=flow)
        made.got.append(answer)
        return "paid" if isinstance(answer, Accepted) else "not paid"

    @server.tool()
    async def needs_key(ctx: Context) -> str:
        raise UrlRequired(PAY_URL, "Pay for the room on the bank's page first")

    @server.tool()
    async def broken(ctx: Context) -> str:
        raise ToolError("the room is gone")

    return made


class Person(ElicitationHandler):
    """Answers each question with the next answer put in ``answers``; records what came."""

    def __init__(self) -> None:
        super().__init__(None, opener=None)
        self.seen: list[dict[str, Any]] = []
        self.asked = anyio.Event()
        self.send, self.answers = anyio.create_memory_object_stream[dict[str, Any]](10)

    @property
    def modes(self) -> ElicitationModes:
        return ElicitationModes(form=True, url=True)

    async def handle(self, params: Any, asking: Asking) -> dict[str, Any]:
        self.seen.append(dict(params))
        self.asked.set()
        return await self.answers.receive()


class Notices:
    def __init__(self) -> None:
        self.completed: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            self.completed.append(message.params.elicitation_id)
        await anyio.lowlevel.checkpoint()


class Caller:
    def __init__(self, client: ElicitingClient, person: Person, notices: Notices) -> None:
        self.client = client
        self.person = person
        self.notices = notices
        sdk = client.sdk
        assert isinstance(sdk, _sdk.ElicitingSdkClient)
        self._dispatcher = sdk.dispatcher

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self._dispatcher.send_raw_request(method, params or {}, {})

    async def call_as_task(self, name: str, ttl: int | None = 60_000) -> dict[str, Any]:
        task = {} if ttl is None else {"ttl": ttl}
        created = await self.request("tools/call", {"name": name, "arguments": {}, "task": task})
        assert set(created) == {"task"}, created
        return created["task"]  # type: ignore[no-any-return]

    async def status(self, task_id: str) -> str:
        got = await self.request("tasks/get", {"taskId": task_id})
        return got["status"]  # type: ignore[no-any-return]

    async def until(self, task_id: str, status: str) -> None:
        with anyio.fail_after(5):
            while await self.status(task_id) != status:
                await anyio.sleep(0.01)


@contextlib.asynccontextmanager
async def caller(
    made: Tools, user: str = "alice", protocol: str = "2025-11-25"
) -> AsyncIterator[Caller]:
    person = Person()
    notices = Notices()
    client = ElicitingClient(
        made.server,
        person,
        protocol=protocol,
        client_info=types.Implementation(name=user, version="1"),
        message_handler=notices,
    )
    with person.send, person.answers:
        async with client:
            yield Caller(client, person, notices)


@contextlib.asynccontextmanager
async def running(made: Tools) -> AsyncIterator[None]:
    async with made.elicitation.running(close_store=False):
        yield


async def not_found(call: Any) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await call
    assert caught.value.error.code == types.INVALID_PARAMS
    assert caught.value.error.message == "task not found"
    return caught.value


# -- the spec row --------------------------------------------------------------------------------


async def test_a_question_asked_in_a_task_carries_its_id_and_the_answer_reaches_the_tool() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        caps = alice.client.sdk.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert caps["tasks"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}

        task = await alice.call_as_task("book")
        task_id = task["taskId"]
        assert task["status"] == "working"
        assert task["ttl"] == 60_000
        assert len(task_id) >= 32

        with anyio.fail_after(5):
            await alice.person.asked.wait()
        (question,) = alice.person.seen
        assert question["message"] == WHO
        assert question["mode"] == "form"
        assert question["_meta"][RELATED_TASK] == {"taskId": task_id}
        assert await alice.status(task_id) == "input_required"

        await alice.person.send.send({"action": "accept", "content": {"name": "Ada"}})
        with anyio.fail_after(5):
            result = await alice.request("tasks/result", {"taskId": task_id})
        assert result["content"] == [{"type": "text", "text": "booked Ada"}]
        assert result.get("isError") is not True
        assert result["_meta"][RELATED_TASK] == {"taskId": task_id}
        assert made.got == [Accepted(made.got[0].value)]

        done = await alice.request("tasks/get", {"taskId": task_id})
        assert done["status"] == "completed"
        listed = await alice.request("tasks/list")
        assert [t["taskId"] for t in listed["tasks"]] == [task_id]


async def test_a_link_asked_in_a_task_carries_its_id_and_the_task_waits_for_the_page() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("pay"))["taskId"]
        with anyio.fail_after(5):
            await alice.person.asked.wait()
        (link,) = alice.person.seen
        assert link["mode"] == "url"
        assert link["url"] == PAY_URL
        assert link["_meta"][RELATED_TASK] == {"taskId": task_id}
        await alice.person.send.send({"action": "accept"})
        # The person is on the bank's page now: still waiting for them.
        await anyio.sleep(0.05)
        assert await alice.status(task_id) == "input_required"
        await made.elicitation.flows.complete(made.flows[0], user="alice")
        with anyio.fail_after(5):
            result = await alice.request("tasks/result", {"taskId": task_id})
        assert result["content"][0]["text"] == "paid"
        # The completion notice came on the session's channel (the call was answered).
        assert alice.notices.completed == [link["elicitationId"]]


async def test_tasks_result_waits_until_the_task_ends() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("book"))["taskId"]
        results: list[Any] = []

        async def wait_for_result() -> None:
            results.append(await alice.request("tasks/result", {"taskId": task_id}))

        async with anyio.create_task_group() as group:
            group.start_soon(wait_for_result)
            with anyio.fail_after(5):
                await alice.person.asked.wait()
            await anyio.sleep(0.05)
            assert results == []
            await alice.person.send.send({"action": "decline"})
        assert results[0]["content"][0]["text"] == "not booked"


async def test_tools_list_offers_every_tool_as_a_task() -> None:
    made = tools_server()
    async with caller(made) as alice:
        listed = await alice.request("tools/list")
    assert {t["name"]: t["execution"] for t in listed["tools"]} == {
        name: {"taskSupport": "optional"} for name in ("book", "slow", "pay", "needs_key", "broken")
    }


async def test_a_tool_error_fails_the_task_and_its_result_says_why() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("broken"))["taskId"]
        with anyio.fail_after(5):
            result = await alice.request("tasks/result", {"taskId": task_id})
        assert result["isError"] is True
        assert "the room is gone" in result["content"][0]["text"]
        assert await alice.status(task_id) == "failed"


async def test_the_error_the_call_would_have_answered_is_what_tasks_result_answers() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("needs_key"))["taskId"]
        with pytest.raises(MCPError) as caught, anyio.fail_after(5):
            await alice.request("tasks/result", {"taskId": task_id})
        assert caught.value.error.code == -32042
        (link,) = caught.value.error.data["elicitations"]
        assert link["url"] == PAY_URL
        failed = await alice.request("tasks/get", {"taskId": task_id})
        assert failed["status"] == "failed"
        assert failed["statusMessage"] == caught.value.error.message


# -- attacks ---------------------------------------------------------------------------------------


async def test_another_users_task_is_not_found_by_any_method() -> None:
    made = tools_server()
    async with running(made), caller(made, "alice") as alice, caller(made, "mallory") as mallory:
        task_id = (await alice.call_as_task("slow"))["taskId"]
        with anyio.fail_after(5):
            await made.started.wait()
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            await not_found(mallory.request(method, {"taskId": task_id}))
        assert (await mallory.request("tasks/list"))["tasks"] == []
        # Nothing Mallory did touched it.
        assert await alice.status(task_id) == "working"
        assert not made.stopped.is_set()
        # The same user on another session sees it: tasks are bound to the user.
        async with caller(made, "alice") as alice_again:
            assert await alice_again.status(task_id) == "working"
        await alice.request("tasks/cancel", {"taskId": task_id})


async def test_a_forged_id_is_not_found_like_another_users() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        await alice.call_as_task("slow")
        forged = secrets.token_urlsafe(24)
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            await not_found(alice.request(method, {"taskId": forged}))
        with pytest.raises(MCPError) as caught:
            await alice.request("tasks/get", {})
        assert caught.value.error.code == types.INVALID_PARAMS
        with pytest.raises(MCPError) as caught:
            await alice.request("tasks/list", {"cursor": forged})
        assert caught.value.error.code == types.INVALID_PARAMS


async def test_cancel_stops_the_tool_and_the_task_stays_cancelled() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("slow"))["taskId"]
        with anyio.fail_after(5):
            await made.started.wait()
        cancelled = await alice.request("tasks/cancel", {"taskId": task_id})
        assert cancelled["taskId"] == task_id
        assert cancelled["status"] == "cancelled"
        with anyio.fail_after(5):
            await made.stopped.wait()
        assert await alice.status(task_id) == "cancelled"
        with pytest.raises(MCPError) as caught:
            await alice.request("tasks/result", {"taskId": task_id})
        assert caught.value.error.code == types.INVALID_REQUEST
        with pytest.raises(MCPError) as caught:  # terminal: -32602
            await alice.request("tasks/cancel", {"taskId": task_id})
        assert caught.value.error.code == types.INVALID_PARAMS


async def test_cancel_while_a_question_waits_takes_the_question_back() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("book"))["taskId"]
        with anyio.fail_after(5):
            await alice.person.asked.wait()
        await alice.request("tasks/cancel", {"taskId": task_id})
        assert await alice.status(task_id) == "cancelled"
        assert made.got == []


async def test_an_expired_task_is_forgotten_and_its_tool_cancelled() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task = await alice.call_as_task("slow", ttl=1)
        assert task["ttl"] == tasks_module.MIN_TTL_MS  # held to the minimum
        with anyio.fail_after(5):
            await made.started.wait()
        tasks = made.elicitation.runtime.tasks
        assert tasks is not None
        now = tasks.clock()
        tasks.clock = lambda: now + 2
        with anyio.fail_after(5):  # the sweeper cancels it, unasked
            await made.stopped.wait()
        await not_found(alice.request("tasks/get", {"taskId": task["taskId"]}))


async def test_a_user_has_at_most_so_many_tasks() -> None:
    made = tools_server()
    tasks = made.elicitation.runtime.tasks
    assert tasks is not None
    tasks.max_per_user = 2
    async with running(made), caller(made) as alice, caller(made, "bob") as bob:
        await alice.call_as_task("slow")
        await alice.call_as_task("slow")
        with pytest.raises(MCPError) as caught:
            await alice.call_as_task("slow")
        assert caught.value.error.code == types.INVALID_REQUEST
        assert "at most 2" in caught.value.error.message
        await bob.call_as_task("slow")  # the limit is per user


# -- nothing changes otherwise -------------------------------------------------------------------


async def test_a_call_without_task_asks_as_before() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        await alice.person.send.send({"action": "accept", "content": {"name": "Ada"}})
        with anyio.fail_after(5):
            result = await alice.request("tools/call", {"name": "book", "arguments": {}})
        assert result["content"][0]["text"] == "booked Ada"
        assert "task" not in result
        (question,) = alice.person.seen
        assert "_meta" not in question
        assert (await alice.request("tasks/list"))["tasks"] == []


async def test_with_tasks_off_task_is_ignored_and_not_declared() -> None:
    made = tools_server(tasks=False)
    async with running(made), caller(made) as alice:
        caps = alice.client.sdk.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert "tasks" not in caps
        listed = await alice.request("tools/list")
        assert all("execution" not in t for t in listed["tools"])
        await alice.person.send.send({"action": "accept", "content": {"name": "Ada"}})
        with anyio.fail_after(5):
            result = await alice.request(
                "tools/call", {"name": "book", "arguments": {}, "task": {"ttl": 60_000}}
            )
        assert result["content"][0]["text"] == "booked Ada"
        assert "task" not in result
        (question,) = alice.person.seen
        assert "_meta" not in question
        with pytest.raises(MCPError) as caught:
            await alice.request("tasks/get", {"taskId": "anything"})
        assert caught.value.error.code == types.METHOD_NOT_FOUND


async def test_tasks_are_not_declared_on_other_revisions() -> None:
    made = tools_server()
    async with running(made), caller(made, protocol="2025-06-18") as alice:
        caps = alice.client.sdk.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert "tasks" not in caps
        with pytest.raises(MCPError) as caught:
            await alice.request("tasks/list")
        assert caught.value.error.code == types.METHOD_NOT_FOUND


async def test_a_task_needs_the_server_running() -> None:
    made = tools_server()
    async with caller(made) as alice:
        with pytest.raises(MCPError) as caught:
            await alice.call_as_task("book")
    assert caught.value.error.code == types.INVALID_REQUEST
    assert "running()" in caught.value.error.message
    assert alice.person.seen == []


def test_tasks_are_not_offered_on_fastmcp() -> None:
    from fastmcp import FastMCP

    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://", tasks=True)
    with pytest.raises(ValueError, match="tasks"):
        elicitation.fastmcp_options()
    with pytest.raises(ValueError, match="tasks"):
        elicitation.install(FastMCP("no-tasks"))


# -- an independent client over Streamable HTTP ------------------------------------------------

TASK_SERVER = """
import sys
from dataclasses import dataclass
from mcp.server.mcpserver import Context, MCPServer
from mcp_elicit.server import Accepted, Elicitation, ask

server = MCPServer("tasks-http")
elicitation = Elicitation(server, store="memory://", tasks=True)

@dataclass
class Who:
    name: str

@server.tool()
async def book(ctx: Context) -> str:
    answer = await ask(ctx, Who, "Who travels?")
    return f"booked {answer.value.name}" if isinstance(answer, Accepted) else "not booked"

elicitation.run("streamable-http", port=int(sys.argv[1]))
"""


@pytest.mark.node
@pytest.mark.slow
async def test_the_typescript_client_gets_the_question_of_its_task_over_http(
    tmp_path: Path,
) -> None:
    """The TypeScript SDK v2 client (``tests/peers_ts/task_client.ts``): over Streamable HTTP
    the question reaches it on the session's own stream (the GET stream), naming the task."""
    served = Served(
        lambda port: [sys.executable, "-c", TASK_SERVER, str(port)],
        log=tmp_path / "server.log",
        env={"MCP_ELICIT_KEY": secrets.token_urlsafe(32)},
    )
    try:
        url = served.url()
        answer = json.dumps({"action": "accept", "content": {"name": "Ada"}})
        with anyio.fail_after(90):
            ran = await anyio.run_process(
                [*typescript_peer("task_client.ts"), "book", url, answer], check=False
            )
    finally:
        served.stop()
    report = json.loads(ran.stdout)
    assert ran.returncode == 0, (report.get("error"), ran.stderr.decode()[-3000:])
    assert report["protocolVersion"] == "2025-11-25"
    assert report["capabilities"]["tasks"] == {
        "list": {},
        "cancel": {},
        "requests": {"tools": {"call": {}}},
    }
    task_id = report["created"]["task"]["taskId"]
    (asked,) = report["elicitations"]
    assert asked["params"]["message"] == WHO
    assert asked["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}
    assert asked["statusWhileOpen"] == "input_required"
    assert report["result"]["content"][0]["text"] == "booked Ada"
    assert report["result"]["_meta"][RELATED_TASK] == {"taskId": task_id}
    assert report["final"]["status"] == "completed"
