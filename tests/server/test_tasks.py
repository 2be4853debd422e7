"""Task-augmented ``tools/call`` (2025-11-25, basic/utilities/tasks), ``Elicitation(tasks=...)``.

The spec row: "An elicitation that a task-augmented tool call depends on carries the same
``io.modelcontextprotocol/related-task`` id". A real client (ours, on the SDK's ``Client``,
sending the task requests raw) makes the call, opens ``tasks/result``, answers the question
the tool asks on it while the task shows ``input_required``, and reads the tool's result from
it. SEP-2260: the question waits in the task until a ``tasks/result`` carries it. Then the
attacks: another user's task, a forged id, cancelling, expiry; and that nothing changes for a
call without ``task`` or on a server with tasks off. Last, over Streamable HTTP: an
independent client (the TypeScript SDK v2, ``tests/peers_ts/task_client.ts``), and a raw probe
that records which stream each ``elicitation/create`` came on.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
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
from mcp_elicit.protocol.codes import META_RELATED_TASK as RELATED_TASK
from mcp_elicit.server import (
    Accepted,
    DeploymentKey,
    Elicitation,
    TaskSettings,
    UrlRequired,
    ask,
    ask_url,
)
from mcp_elicit.server import tasks as tasks_module
from mcp_elicit.testing import enter_secret
from tests.peer_servers import task_server
from tests.peers import typescript_peer
from tests.server.stream_probe import GET_STREAM, StreamProbe

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
    async def hurried(ctx: Context) -> str:
        answer = await ask(ctx, Who, WHO, timeout=0.2)
        made.got.append(answer)
        return "booked" if isinstance(answer, Accepted) else f"not booked: {answer}"

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
        self.related: list[str | None] = []
        self.statuses: list[dict[str, Any]] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            self.completed.append(message.params.elicitation_id)
            related = (message.params.meta or {}).get(RELATED_TASK) or {}
            self.related.append(related.get("taskId"))
        if isinstance(message, types.TaskStatusNotification):
            self.statuses.append(message.params.model_dump(by_alias=True, exclude_none=True))
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

    def results_of(self, group: anyio.abc.TaskGroup, task_id: str) -> list[Any]:
        """Start a ``tasks/result`` (the questions of the task come on it); its result lands in
        the list returned."""
        results: list[Any] = []

        async def wait_for_result() -> None:
            with anyio.fail_after(10):
                results.append(await self.request("tasks/result", {"taskId": task_id}))

        group.start_soon(wait_for_result)
        return results

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


async def the_question(alice: Caller) -> dict[str, Any]:
    """The one question (form or link) the person was asked, once it came (5 s at most)."""
    with anyio.fail_after(5):
        await alice.person.asked.wait()
    (question,) = alice.person.seen
    return question


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
        # The question waits in the task for the client's tasks/result (SEP-2260): nothing
        # reaches the client before it asks.
        await alice.until(task_id, "input_required")
        assert alice.person.seen == []

        async with anyio.create_task_group() as group:
            results = alice.results_of(group, task_id)
            question = await the_question(alice)
            assert question["message"] == WHO
            assert question["mode"] == "form"
            assert question["_meta"][RELATED_TASK] == {"taskId": task_id}
            assert await alice.status(task_id) == "input_required"
            await alice.person.send.send({"action": "accept", "content": {"name": "Ada"}})
        (result,) = results
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
        async with anyio.create_task_group() as group:
            results = alice.results_of(group, task_id)
            link = await the_question(alice)
            assert link["mode"] == "url"
            assert link["url"] == PAY_URL
            assert link["_meta"][RELATED_TASK] == {"taskId": task_id}
            await alice.person.send.send({"action": "accept"})
            # The person is on the bank's page now: nothing is asked of the client, so the
            # task is working, and says what it waits for (design A10).
            with anyio.fail_after(5):
                while (got := await alice.request("tasks/get", {"taskId": task_id}))[
                    "status"
                ] != "working":
                    await anyio.sleep(0.01)
            assert got["statusMessage"] == "Waiting for the page on bank.example to be completed"
            await made.elicitation.flows.complete(made.flows[0], user="alice")
        (result,) = results
        assert result["content"][0]["text"] == "paid"
        # The completion notice names the task (T25 §Associating Task-Related Messages).
        assert alice.notices.completed == [link["elicitationId"]]
        assert alice.notices.related == [task_id]


async def test_a_question_nobody_fetched_times_out_and_is_withdrawn() -> None:
    """A client that only polls ``tasks/get`` never sees the question (design R4): it times
    out as an unanswered pushed one does, and its key is withdrawn, never sent later."""
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("hurried"))["taskId"]
        with anyio.fail_after(5):
            while await alice.status(task_id) != "completed":
                await anyio.sleep(0.02)
        result = await alice.request("tasks/result", {"taskId": task_id})
        assert result["content"][0]["text"].startswith("not booked: Cancelled")
        assert alice.person.seen == []
        tasks = made.elicitation.runtime.tasks
        assert tasks is not None
        record = tasks.book.get(task_id)
        assert record is not None and record.withdrawn == {"q-1": "timeout"}


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
        name: {"taskSupport": "optional"}
        for name in ("book", "hurried", "slow", "pay", "needs_key", "needs_payment", "broken")
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


async def test_a_link_the_tool_requires_is_asked_in_the_task_and_the_body_runs_again() -> None:
    """Design A12: inside a task ``UrlRequired`` becomes an in-task link question (the call was
    answered with its task, so -32042 could reach no one); once the page is completed the body
    runs again in the same task."""
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("needs_payment"))["taskId"]
        async with anyio.create_task_group() as group:
            results = alice.results_of(group, task_id)
            link = await the_question(alice)
            assert link["mode"] == "url"
            assert link["url"] == PAY_URL
            assert link["elicitationId"] == made.flows[0]
            assert link["_meta"][RELATED_TASK] == {"taskId": task_id}
            await alice.person.send.send({"action": "accept"})
            await alice.until(task_id, "working")
            await made.elicitation.flows.complete(made.flows[0], user="alice")
        (result,) = results
        assert result["content"][0]["text"] == "room paid"
        assert len(made.flows) == 1  # the body ran twice, the link was asked once
        assert alice.notices.completed == [made.flows[0]]
        assert alice.notices.related == [task_id]


async def test_a_declined_link_ends_the_task_saying_so() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("needs_payment"))["taskId"]
        await alice.person.send.send({"action": "decline"})
        async with anyio.create_task_group() as group:
            results = alice.results_of(group, task_id)
        (result,) = results
        assert result["isError"] is True
        assert result["content"][0]["text"] == (
            "The person declined the link this tool needs: Pay for the room on the bank's "
            "page first"
        )
        assert await alice.status(task_id) == "failed"  # isError, on 2025-11-25


async def test_a_link_asked_again_and_again_ends_with_the_error_the_call_would_have_had() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task_id = (await alice.call_as_task("needs_key"))["taskId"]
        for _ in range(3):
            await alice.person.send.send({"action": "accept"})
        with pytest.raises(MCPError) as caught, anyio.fail_after(5):
            await alice.request("tasks/result", {"taskId": task_id})
        assert len(alice.person.seen) == 3  # MAX_LINKS_IN_TASK links, then no more
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
        await alice.until(task_id, "input_required")
        await alice.request("tasks/cancel", {"taskId": task_id})
        assert await alice.status(task_id) == "cancelled"
        # The question was taken back with the task: a tasks/result now carries none.
        with pytest.raises(MCPError) as caught:
            await alice.request("tasks/result", {"taskId": task_id})
        assert caught.value.error.code == types.INVALID_REQUEST
        assert alice.person.seen == []
        assert made.got == []


async def test_an_expired_task_fails_its_tool_is_cancelled_and_it_is_forgotten_later() -> None:
    made = tools_server()
    async with running(made), caller(made) as alice:
        task = await alice.call_as_task("slow", ttl=1)
        task_id = task["taskId"]
        assert task["ttl"] == tasks_module.MIN_TTL_MS  # held to the minimum
        with anyio.fail_after(5):
            await made.started.wait()
        tasks = made.elicitation.runtime.tasks
        assert tasks is not None
        now = tasks.clock()
        tasks.clock = lambda: now + 2
        with anyio.fail_after(5):  # the sweeper cancels it, unasked
            await made.stopped.wait()
        # Failed, and still readable: the client learns why (design §4).
        failed = await alice.request("tasks/get", {"taskId": task_id})
        assert failed["status"] == "failed"
        assert failed["statusMessage"] == "The task's ttl of 1000 ms ran out"
        with pytest.raises(MCPError) as caught:
            await alice.request("tasks/result", {"taskId": task_id})
        assert caught.value.error.code == types.INTERNAL_ERROR
        assert caught.value.error.message == "The task's ttl of 1000 ms ran out"
        # Past the ttl and the grace after it, the task is forgotten.
        tasks.clock = lambda: now + 2 + tasks_module.PURGE_AFTER
        await not_found(alice.request("tasks/get", {"taskId": task_id}))


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


@pytest.mark.node
@pytest.mark.slow
async def test_the_typescript_client_gets_the_question_of_its_task_over_http(
    tmp_path: Path,
) -> None:
    """The TypeScript SDK v2 client (``tests/peers_ts/task_client.ts``): over Streamable HTTP
    the question reaches it while its ``tasks/result`` is open, naming the task (which stream it
    came on is the raw probe's to see, below)."""
    served = task_server.served(tmp_path / "server.log", "--tools", "book")
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


# -- SEP-2260 on the wire: which stream each question comes on --------------------------------


@contextlib.asynccontextmanager
async def probed(tmp_path: Path) -> AsyncIterator[tuple[StreamProbe, anyio.abc.TaskGroup]]:
    served = task_server.served(
        tmp_path / "server.log",
        *("--tools", "book,sign,only_as_task,never_as_task"),
        *("--required", "only_as_task", "--forbidden", "never_as_task"),
    )
    try:
        probe = StreamProbe(served.url())
        async with anyio.create_task_group() as group:
            await probe.start(group)
            try:
                yield probe, group
            finally:
                group.cancel_scope.cancel()
                with anyio.CancelScope(shield=True):
                    await probe.aclose()
    finally:
        served.stop()


async def task_of(probe: StreamProbe, tool: str) -> str:
    created = await probe.request(
        "tools/call", {"name": tool, "arguments": {}, "task": {"ttl": 60_000}}
    )
    task_id: str = created["result"]["task"]["taskId"]
    with anyio.fail_after(10):
        while True:
            got = await probe.request("tasks/get", {"taskId": task_id})
            if got["result"]["status"] != "working":
                return task_id
            await anyio.sleep(0.02)


@pytest.mark.slow
async def test_a_form_in_a_task_comes_on_the_tasks_result_stream_never_the_get_stream(
    tmp_path: Path,
) -> None:
    async with probed(tmp_path) as (probe, _):
        task_id = await task_of(probe, "book")

        async def person(request: dict[str, Any]) -> dict[str, Any]:
            return {"action": "accept", "content": {"name": "Ada"}}

        answer = await probe.request("tasks/result", {"taskId": task_id}, person)
        result = answer["result"]
        assert result["content"][0]["text"] == "booked Ada"
        assert result["_meta"][RELATED_TASK] == {"taskId": task_id}

        (asked,) = probe.requests_on("", "elicitation/create")
        assert asked.stream.startswith("POST tasks/result #")
        assert asked.message["params"]["message"] == WHO
        assert asked.message["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}
        assert probe.requests_on(GET_STREAM) == []

        # Every status change was told, as the full Task with no related-task _meta.
        with anyio.fail_after(5):
            while "completed" not in [
                n.message["params"]["status"] for n in probe.notices("notifications/tasks/status")
            ]:
                await anyio.sleep(0.02)
        told = probe.notices("notifications/tasks/status")
        assert [n.message["params"]["status"] for n in told] == [
            "input_required",
            "working",
            "completed",
        ]
        for notice in told:
            assert notice.message["params"]["taskId"] == task_id
            assert notice.message["params"]["ttl"] == 60_000
            assert RELATED_TASK not in notice.message["params"].get("_meta", {})


@pytest.mark.slow
async def test_a_secret_in_a_task_comes_on_tasks_result_and_its_notice_names_the_task(
    tmp_path: Path,
) -> None:
    async with probed(tmp_path) as (probe, group):
        task_id = await task_of(probe, "sign")

        async def person(request: dict[str, Any]) -> dict[str, Any]:
            # They agree, and type the key on the server's page (after the consent is sent).
            async def on_the_page() -> None:
                await anyio.sleep(0.2)
                await enter_secret("sk-bank-6789")(request["params"]["url"])

            group.start_soon(on_the_page)
            return {"action": "accept"}

        answer = await probe.request("tasks/result", {"taskId": task_id}, person)
        result = answer["result"]
        assert result["content"][0]["text"] == "signed with a key ending 6789"
        assert result["_meta"][RELATED_TASK] == {"taskId": task_id}

        (asked,) = probe.requests_on("", "elicitation/create")
        assert asked.stream.startswith("POST tasks/result #")
        link = asked.message["params"]
        assert link["mode"] == "url"
        assert link["_meta"][RELATED_TASK] == {"taskId": task_id}
        assert probe.requests_on(GET_STREAM) == []
        # The completion notice came on the open tasks/result stream, naming the task.
        (notice,) = probe.notices("notifications/elicitation/complete")
        assert notice.stream == asked.stream
        assert notice.message["params"]["elicitationId"] == link["elicitationId"]
        assert notice.message["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}


@pytest.mark.slow
async def test_a_dropped_tasks_result_stream_leaves_the_question_and_the_next_one_sends_it(
    tmp_path: Path,
) -> None:
    async with probed(tmp_path) as (probe, _):
        task_id = await task_of(probe, "book")

        async def walks_away(request: dict[str, Any]) -> None:
            return None

        dropped = await probe.request("tasks/result", {"taskId": task_id}, walks_away)
        assert "dropped" in dropped
        # Still waiting for the person: the question stays outstanding.
        got = await probe.request("tasks/get", {"taskId": task_id})
        assert got["result"]["status"] == "input_required"

        async def person(request: dict[str, Any]) -> dict[str, Any]:
            return {"action": "accept", "content": {"name": "Ada"}}

        answer = await probe.request("tasks/result", {"taskId": task_id}, person)
        assert answer["result"]["content"][0]["text"] == "booked Ada"
        first, again = probe.requests_on("", "elicitation/create")
        assert first.stream != again.stream
        assert {first.stream[:19], again.stream[:19]} == {"POST tasks/result #"}
        assert first.message["params"] == again.message["params"]  # the same question
        assert probe.requests_on(GET_STREAM) == []


@pytest.mark.slow
async def test_task_support_is_listed_and_enforced_over_http(tmp_path: Path) -> None:
    async with probed(tmp_path) as (probe, _):
        listed = await probe.request("tools/list", {})
        assert {t["name"]: t["execution"]["taskSupport"] for t in listed["result"]["tools"]} == {
            "book": "optional",
            "sign": "optional",
            "only_as_task": "required",
            "never_as_task": "forbidden",
        }
        plain = await probe.request("tools/call", {"name": "only_as_task", "arguments": {}})
        assert plain["error"]["code"] == types.METHOD_NOT_FOUND
        assert "only as a task" in plain["error"]["message"]
        as_task = await probe.request(
            "tools/call", {"name": "never_as_task", "arguments": {}, "task": {}}
        )
        assert as_task["error"]["code"] == types.METHOD_NOT_FOUND
        assert "does not run as a task" in as_task["error"]["message"]
        task_id = (
            await probe.request("tools/call", {"name": "only_as_task", "arguments": {}, "task": {}})
        )["result"]["task"]["taskId"]
        done = await probe.request("tasks/result", {"taskId": task_id})
        assert done["result"]["content"][0]["text"] == "ran as a task"
        ran = await probe.request("tools/call", {"name": "never_as_task", "arguments": {}})
        assert ran["result"]["content"][0]["text"] == "ran plainly"


def test_task_settings_name_the_tool_whose_task_support_is_wrong() -> None:
    assert TaskSettings.of(True) == TaskSettings(default="optional")
    assert TaskSettings.of(False) is None
    with pytest.raises(ValueError, match="taskSupport of book is 'always'"):
        TaskSettings(tools={"book": "always"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="taskSupport of default"):
        TaskSettings(default="sometimes")  # type: ignore[arg-type]
    settings = TaskSettings(default="forbidden", tools={"book": "required"})
    assert (settings.support("book"), settings.support("other")) == ("required", "forbidden")
