"""The client half of the tasks extension (2026-07-28, ``io.modelcontextprotocol/tasks``):
declaring it, polling, asking through the handler, status notices, limits
(mcp_elicit.client.task_follow, ElicitingClient). The server is the hand-written one of
tests/client/task_server_support.py."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from mcp_elicit.client import (
    ElicitationHandler,
    ElicitingClient,
    RefusedInputLoop,
    TaskError,
    TaskStatus,
)
from mcp_elicit.client.call_round import MAX_REFUSED_ROUNDS
from mcp_elicit.client.task_follow import (
    DEFAULT_POLL,
    MAX_POLL,
    MAX_SHOWN,
    MIN_POLL,
    NOTICE_EVERY,
    REMIND_EVERY,
    TaskWatch,
    poll_interval,
)
from mcp_elicit.protocol import declares_tasks
from mcp_elicit.protocol.codes import TASKS_EXTENSION
from mcp_elicit.protocol.tasks import DetailedTask, Task
from tests.client.task_server_support import (
    TOOL,
    TaskScript,
    TaskServer,
    form_request,
    task_server,
    url_request,
)
from tests.client_support import RecordingRenderer

pytestmark = pytest.mark.anyio

CAPS = "io.modelcontextprotocol/clientCapabilities"


def handler(answers: list[dict[str, Any]], delay: float = 0.0) -> ElicitationHandler:
    opened: list[str] = []
    h = ElicitationHandler(RecordingRenderer(answers, delay=delay), opener=opened.append)
    h.opened = opened  # type: ignore[attr-defined]
    return h


def renderer(h: ElicitationHandler) -> RecordingRenderer:
    assert isinstance(h.renderer, RecordingRenderer)
    return h.renderer


def text_of(result: Any) -> str:
    return str(result.content[0].text)


# -- against the server: the whole exchange ----------------------------------------------------


async def test_a_form_is_answered_through_tasks_update_and_the_result_returned() -> None:
    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}))
    h = handler([{"action": "accept", "content": {"name": "Ada"}}])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        result = await client.call_tool(TOOL)
    assert json.loads(text_of(result)) == {"q-1": {"action": "accept", "content": {"name": "Ada"}}}
    updates = tasks.of("tasks/update")
    assert [u.params["inputResponses"] for u in updates] == [
        {"q-1": {"action": "accept", "content": {"name": "Ada"}}}
    ]
    assert all(u.params["taskId"] == tasks.task_id for u in updates)
    assert [p.message for p in renderer(h).prompts] == ["Your name?"]


async def test_the_call_and_every_tasks_request_declare_the_extension() -> None:
    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}))
    h = handler([{"action": "accept", "content": {"name": "Ada"}}])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        await client.call_tool(TOOL)
    methods = {r.method for r in tasks.received}
    assert methods == {"tools/call", "tasks/get", "tasks/update"}
    for request in tasks.received:
        assert declares_tasks(request.params), request.method
        extensions = request.params["_meta"][CAPS]["extensions"]
        assert extensions[TASKS_EXTENSION] == {}


async def test_without_tasks_the_call_declares_nothing_and_runs_plain() -> None:
    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}))
    async with ElicitingClient(server, handler([]), protocol="2026-07-28", tasks=False) as client:
        result = await client.call_tool(TOOL)
    assert text_of(result) == "ran without a task"
    assert not declares_tasks(tasks.of("tools/call")[0].params)


async def test_a_task_to_a_call_that_did_not_declare_it_fails_the_call_and_polls_nothing() -> None:
    server, tasks = task_server(TaskScript(always_task=True))
    async with ElicitingClient(server, handler([]), protocol="2026-07-28", tasks=False) as client:
        with pytest.raises(TaskError, match="did not declare"):
            await client.call_tool(TOOL)
    assert [r.method for r in tasks.received] == ["tools/call"]


async def test_a_blocked_link_is_cancelled_never_opened() -> None:
    # A link to a private address is blocked by the URL verdict, as in a pushed request.
    script = TaskScript(questions={"q-1": url_request("http://169.254.169.254/latest/meta-data")})
    server, tasks = task_server(script)
    h = handler([{"action": "accept"}])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        await client.call_tool(TOOL)
    assert h.opened == []  # type: ignore[attr-defined]
    (update,) = tasks.of("tasks/update")
    assert update.params["inputResponses"]["q-1"]["action"] == "cancel"
    assert renderer(h).prompts == []  # the person was told, not asked


async def test_an_accepted_link_is_opened_with_the_opener() -> None:
    link = "https://accounts.example.com/authorize"
    server, tasks = task_server(TaskScript(questions={"q-1": url_request(link)}))
    h = handler([{"action": "accept"}])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        await client.call_tool(TOOL)
    assert h.opened == [link]  # type: ignore[attr-defined]
    (update,) = tasks.of("tasks/update")
    assert update.params["inputResponses"]["q-1"]["action"] == "accept"


async def test_a_question_shown_by_several_polls_is_asked_once() -> None:
    # The person takes 1 s; the server polls every 250 ms and shows q-1 each time meanwhile.
    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}))
    h = handler([{"action": "accept", "content": {"name": "Ada"}}], delay=1.0)
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        await client.call_tool(TOOL)
    assert len(tasks.of("tasks/get")) >= 3
    assert len(renderer(h).prompts) == 1
    assert len(tasks.of("tasks/update")) == 1


async def test_a_hostile_status_message_reaches_the_renderer_cleaned() -> None:
    hostile = "Working\x1b[2J\x1b]8;;https://evil.example\x07 now\u202e"
    server, _ = task_server(TaskScript(status_message=hostile))
    h = handler([])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        await client.call_tool(TOOL)
    texts = [n.text for n in renderer(h).notices]
    assert texts, "no status notice"
    assert all("\x1b" not in t and "\x07" not in t and "\u202e" not in t for t in texts)
    assert "\\u{001b}[2J" in texts[0] and "working" in texts[0]


async def test_the_time_limit_cancels_the_task() -> None:
    server, tasks = task_server(TaskScript(finishes=False))
    h = handler([])
    async with ElicitingClient(server, h, protocol="2026-07-28", task_time_limit=0.6) as client:
        with pytest.raises(TimeoutError, match="cancelled"):
            await client.call_tool(TOOL)
    assert tasks.cancelled
    (cancel,) = tasks.of("tasks/cancel")
    assert cancel.params["taskId"] == tasks.task_id
    assert declares_tasks(cancel.params)


async def test_the_tasks_ttl_is_a_backstop() -> None:
    # A ttl of 300 ms: past it and two polls, the client stops, well before its own limit.
    server, tasks = task_server(TaskScript(finishes=False, ttl_ms=300, poll_ms=250))
    async with ElicitingClient(server, handler([]), protocol="2026-07-28") as client:
        with pytest.raises(TimeoutError):
            await client.call_tool(TOOL)
    assert tasks.cancelled


async def test_a_failed_task_raises_its_error() -> None:
    script = TaskScript(fail_with={"code": -32603, "message": "disk full"})
    server, _ = task_server(script)
    async with ElicitingClient(server, handler([]), protocol="2026-07-28") as client:
        with pytest.raises(TaskError, match="disk full") as raised:
            await client.call_tool(TOOL)
    assert raised.value.status == "failed"
    assert raised.value.error == {"code": -32603, "message": "disk full"}


# -- the rules, one by one (no server) ---------------------------------------------------------


def task(**changes: Any) -> Task:
    base: dict[str, Any] = {
        "task_id": "t",
        "status": "working",
        "created_at": 1000.0,
        "last_updated_at": 1000.0,
        "ttl_ms": None,
    }
    return Task(**(base | changes))


@pytest.mark.parametrize(
    ("ms", "seconds"),
    [(None, DEFAULT_POLL), (0, MIN_POLL), (10, MIN_POLL), (2000, 2.0), (10**9, MAX_POLL)],
)
def test_the_poll_interval_is_clamped(ms: int | None, seconds: float) -> None:
    assert poll_interval(task(poll_interval_ms=ms)) == seconds


def said(report: TaskStatus | None) -> tuple[str, str | None] | None:
    return None if report is None else (report.status, report.message)


def test_status_notices_come_at_most_every_two_seconds_latest_wins() -> None:
    watch = TaskWatch("t", 3600, 0.0)
    assert said(watch.report(task(status_message="a"), 0.0)) == ("working", "a")
    assert watch.report(task(status_message="b"), 0.5) is None
    assert watch.report(task(status_message="c"), 1.0) is None
    assert said(watch.report(task(status_message="c"), NOTICE_EVERY)) == ("working", "c")
    assert watch.report(task(status_message="c"), 5.0) is None  # no change


def test_the_end_is_told_at_once_however_soon_after_the_last_notice() -> None:
    """The last status must not wait for a poll that never comes (CI saw a resumed call
    end with "waiting for your input" as its last word)."""
    watch = TaskWatch("t", 3600, 0.0)
    assert said(watch.report(task(status="input_required"), 0.0)) == ("input_required", None)
    assert said(watch.report(task(status="completed"), 0.5)) == ("completed", None)


def test_a_long_working_task_is_told_again_with_the_time_it_has_run() -> None:
    watch = TaskWatch("t", 3600, 100.0)
    first = watch.report(task(status_message="Uploading"), 100.0)
    assert first is not None and first.first and first.line() == "working… 0 s: Uploading"
    assert watch.report(task(status_message="Uploading"), 100.0 + REMIND_EVERY - 1) is None
    again = watch.report(task(status_message="Uploading"), 100.0 + REMIND_EVERY)
    assert again is not None and not again.first
    assert again.line() == f"working… {REMIND_EVERY:.0f} s: Uploading"
    # Waiting for the person: the question is on screen, no reminder over it.
    waiting = task(status="input_required", status_message=None)
    assert said(watch.report(waiting, 200.0)) == ("input_required", None)
    assert watch.report(waiting, 200.0 + 10 * REMIND_EVERY) is None
    done = watch.report(task(status="completed", status_message=None), 400.0)
    assert done is not None and done.line() == "completed after 300 s"


def test_limits_on_keys() -> None:
    watch = TaskWatch("t", 3600, 0.0)
    many = {f"k{i}": {"method": "elicitation/create", "params": {}} for i in range(17)}
    with pytest.raises(TaskError, match="17 questions at once"):
        watch.new_requests(DetailedTask(task(status="input_required"), input_requests=many))
    for round_ in range(16):
        batch = {
            f"r{round_}-{i}": {"method": "elicitation/create", "params": {}} for i in range(16)
        }
        watch.new_requests(DetailedTask(task(status="input_required"), input_requests=batch))
    with pytest.raises(TaskError, match="more than 256"):
        watch.new_requests(
            DetailedTask(
                task(status="input_required"),
                input_requests={"last": {"method": "elicitation/create", "params": {}}},
            )
        )


def test_the_deadline_is_the_nearer_of_the_limit_and_the_ttl() -> None:
    watch = TaskWatch("t", 100.0, 50.0)
    assert watch.deadline(task()) == 150.0
    # ttl 10 s from the task's creation (its CreateTaskResult at 50), plus two 1 s polls.
    assert watch.deadline(task(ttl_ms=10_000)) == 62.0
    assert watch.deadline(task(ttl_ms=10**9)) == 150.0


async def test_a_server_clock_hours_off_does_not_end_the_task() -> None:
    # createdAt says three hours ago, ttl one minute: read against this machine's clock the
    # task would be long dead; it is read from when the task was created instead.
    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}, ttl_ms=60_000))
    tasks.clock_offset = -3 * 3600
    h = handler([{"action": "accept", "content": {"name": "Ada"}}])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        result = await client.call_tool(TOOL)
    assert "Ada" in text_of(result)
    assert not tasks.cancelled


async def test_on_2025_11_25_nothing_is_declared() -> None:
    server, tasks = task_server(TaskScript())
    async with ElicitingClient(server, handler([]), protocol="2025-11-25") as client:
        result = await client.call_tool(TOOL)
    assert text_of(result) == "ran without a task"
    assert not declares_tasks(tasks.of("tools/call")[0].params)


async def test_over_http_each_tasks_request_names_its_task_in_mcp_name() -> None:
    import httpx2

    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}))
    app = server.streamable_http_app(json_response=True, stateless_http=True)
    h = handler([{"action": "accept", "content": {"name": "Ada"}}])
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as http,
        ElicitingClient(
            "http://127.0.0.1:8000/mcp", h, protocol="2026-07-28", http_client=http
        ) as client,
    ):
        await client.call_tool(TOOL)
    sent = [r for r in tasks.received if r.method.startswith("tasks/")]
    assert {r.method for r in sent} == {"tasks/get", "tasks/update"}
    for request in sent:
        assert request.headers is not None, "no HTTP headers recorded"
        assert request.headers.get("mcp-name") == tasks.task_id, request.method


async def test_refused_task_questions_count_towards_the_refused_rounds_rule() -> None:
    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}, ask_again=True))
    h = handler([{"action": "decline"}] * 10)
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        with pytest.raises(RefusedInputLoop, match="given up"):
            await client.call_tool(TOOL)
    # Each "no" left as it was given, until one past the limit: that one is not sent.
    assert len(tasks.of("tasks/update")) == MAX_REFUSED_ROUNDS
    assert len(renderer(h).prompts) == MAX_REFUSED_ROUNDS + 1
    assert tasks.cancelled


class _CountingRenderer(RecordingRenderer):
    """Answers side by side (``concurrent``), counting how many questions are up at once."""

    concurrent = True

    def __post_init__(self) -> None:
        super().__post_init__()
        self.up = 0
        self.most = 0

    async def ask_form(self, prompt: Any) -> Any:
        self.up += 1
        self.most = max(self.most, self.up)
        try:
            return await super().ask_form(prompt)
        finally:
            self.up -= 1


async def test_at_most_four_questions_of_a_task_are_up_at_once() -> None:
    questions = {f"q-{i}": form_request(f"Question {i}?") for i in range(1, 8)}
    server, tasks = task_server(TaskScript(questions=questions))
    counting = _CountingRenderer([{"action": "accept", "content": {"name": "Ada"}}] * 7, delay=0.5)
    h = ElicitationHandler(counting, opener=None)
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        result = await client.call_tool(TOOL)
    assert counting.most == MAX_SHOWN
    assert len(json.loads(text_of(result))) == 7
    assert len(tasks.of("tasks/update")) == 7  # one update per answer, as each was given


async def test_a_caller_who_gives_up_the_call_cancels_the_task() -> None:
    server, tasks = task_server(TaskScript(finishes=False))
    async with ElicitingClient(server, handler([]), protocol="2026-07-28") as client:
        with anyio.move_on_after(0.6):
            await client.call_tool(TOOL)
    assert tasks.cancelled


async def test_a_malformed_question_fails_the_call_with_its_problems_and_cancels_the_task() -> None:
    bad = {"method": "elicitation/create", "params": {"mode": "form", "requestedSchema": 7}}
    server, tasks = task_server(TaskScript(questions={"q-1": bad}))
    h = handler([])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool(TOOL)
    assert raised.value.error.code == -32602
    assert renderer(h).prompts == []
    assert tasks.of("tasks/update") == []
    assert tasks.cancelled


async def test_a_question_other_than_an_elicitation_cancels_the_task_naming_it() -> None:
    sampling = {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}
    server, tasks = task_server(TaskScript(questions={"s-1": sampling}))
    async with ElicitingClient(server, handler([]), protocol="2026-07-28") as client:
        with pytest.raises(TaskError, match="sampling/createMessage"):
            await client.call_tool(TOOL)
    assert tasks.cancelled


# -- the status callback, and resuming a task --------------------------------------------------


async def test_task_status_gets_the_reports_instead_of_the_renderer_the_first_naming_the_task() -> (
    None
):
    server, tasks = task_server(TaskScript(status_message="Warming up"))
    h = handler([])
    reports: list[TaskStatus] = []

    async def keep(report: TaskStatus) -> None:
        reports.append(report)

    async with ElicitingClient(server, h, protocol="2026-07-28", task_status=keep) as client:
        await client.call_tool(TOOL)
    assert reports[0].first and reports[0].task_id == tasks.task_id
    assert reports[0].line() == "working… 0 s: Warming up"
    assert renderer(h).notices == []


def started_elsewhere(tasks: TaskServer) -> str:
    """A task the server created for an earlier call, by a client that is gone."""
    tasks.task_id = "task-earlier"
    tasks.created_at = time.time()
    return tasks.task_id


async def test_a_task_started_elsewhere_is_resumed_asked_and_its_result_returned() -> None:
    server, tasks = task_server(TaskScript(questions={"q-1": form_request()}))
    task_id = started_elsewhere(tasks)
    h = handler([{"action": "accept", "content": {"name": "Ada"}}])
    async with ElicitingClient(server, h, protocol="2026-07-28") as client:
        result = await client.resume_task(task_id, tool=TOOL)
    assert json.loads(text_of(result)) == {"q-1": {"action": "accept", "content": {"name": "Ada"}}}
    assert tasks.of("tools/call") == []  # nothing was run again
    assert [u.params["taskId"] for u in tasks.of("tasks/update")] == [task_id]
    assert [p.message for p in renderer(h).prompts] == ["Your name?"]
    assert all(declares_tasks(r.params) for r in tasks.received)


async def test_resuming_an_unknown_task_names_the_id_and_the_servers_error() -> None:
    server, tasks = task_server(TaskScript())
    started_elsewhere(tasks)
    async with ElicitingClient(server, handler([]), protocol="2026-07-28") as client:
        with pytest.raises(TaskError, match="no task 'nope' to resume") as raised:
            await client.resume_task("nope")
    assert raised.value.task_id == "nope"
    assert raised.value.error is not None and raised.value.error["code"] == -32602
    assert not tasks.cancelled  # nobody's task was touched


@pytest.mark.parametrize(
    ("options", "why"),
    [({"tasks": False}, "tasks=False"), ({"protocol": "2025-11-25"}, "only on 2026-07-28")],
)
async def test_resuming_needs_tasks_on_2026_07_28(options: dict[str, Any], why: str) -> None:
    server, tasks = task_server(TaskScript())
    task_id = started_elsewhere(tasks)
    async with ElicitingClient(server, handler([]), **{"protocol": "2026-07-28", **options}) as c:
        with pytest.raises(TaskError, match=why):
            await c.resume_task(task_id)
    assert tasks.received == []
