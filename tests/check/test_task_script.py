"""The scripted task of the ``client-task-*`` checks, without I/O: what each poll shows, what an
update counts as, and how each judge reads the traffic (the end-to-end runs, against our client
and the broken ones, are in test_client_checks.py)."""

from __future__ import annotations

from typing import Any

from mcp_elicit.check.report import Status
from mcp_elicit.check.task_script import (
    PLANS,
    Plan,
    TaskRequest,
    TaskScript,
    TaskTraffic,
    judge_declares,
    judge_dedup,
    judge_input_checks,
    judge_mcp_name,
    judge_poll_interval,
    judge_unsolicited,
    judge_update_keys,
)

FORM = {"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}


def script(plan: Plan) -> tuple[TaskScript, TaskTraffic]:
    traffic = TaskTraffic(call_declared=True, task_id="t1")
    return TaskScript(plan, traffic, lambda kind: {**FORM, "kind": kind}, "t1"), traffic


def request(method: str, at: float = 0.0, **over: Any) -> TaskRequest:
    fields: dict[str, Any] = {
        "at": at,
        "method": method,
        "task_id": "t1",
        "declared": True,
        "mcp_name": "t1",
        "params": {},
    }
    fields.update(over)
    return TaskRequest(**fields)


def test_a_question_stays_shown_until_answered_then_the_next_comes_then_the_result() -> None:
    task, traffic = script(Plan(questions=("form", "form")))
    assert task.created_result()["resultType"] == "task"
    assert task.get()["status"] == "working"
    first, again = task.get(), task.get()
    assert first["status"] == again["status"] == "input_required"
    assert list(first["inputRequests"]) == list(again["inputRequests"]) == ["q-1"]
    task.update({"q-1": {"action": "accept", "content": {}}})
    assert list(task.get()["inputRequests"]) == ["q-2"]
    task.update({"q-1": {"action": "accept"}, "q-2": {"action": "decline"}})
    assert [(a.key, a.outstanding) for a in traffic.answers] == [
        ("q-1", True),
        ("q-1", False),  # answered before: not outstanding any more
        ("q-2", True),
    ]
    done = task.get()
    assert done["status"] == "completed" and done["result"]["isError"] is False


def test_an_answered_key_lingers_for_the_plans_polls_and_is_not_outstanding_then() -> None:
    task, traffic = script(PLANS["client-task-dedup"])
    task.get()
    assert list(task.get()["inputRequests"]) == ["q-1"]
    task.update({"q-1": {"action": "accept"}})
    assert list(task.get()["inputRequests"]) == ["q-1"]  # eventually consistent
    task.update({"q-1": {"action": "accept"}})
    assert list(task.get()["inputRequests"]) == ["q-1"]
    assert task.get()["status"] == "completed"
    assert [a.outstanding for a in traffic.answers] == [True, False]


def test_a_cancelled_task_shows_cancelled() -> None:
    task, traffic = script(Plan())
    task.get()
    task.cancel()
    assert task.get()["status"] == "cancelled"
    assert traffic.cancelled


def test_the_task_checks_do_not_apply_to_a_call_that_did_not_declare_the_extension() -> None:
    traffic = TaskTraffic(call_declared=False)
    for judge in (judge_declares, judge_poll_interval, judge_mcp_name, judge_dedup):
        assert judge(traffic, 0)[0] is Status.NOT_APPLICABLE
    assert judge_unsolicited(TaskTraffic(call_declared=True), 0)[0] is Status.NOT_APPLICABLE


def test_unsolicited_fails_once_the_task_is_polled() -> None:
    traffic = TaskTraffic(call_declared=False, task_id="t1")
    assert judge_unsolicited(traffic, 0)[0] is Status.PASSED
    traffic.requests.append(request("tasks/get"))
    status, seen = judge_unsolicited(traffic, 0)
    assert status is Status.FAILED and "tasks/get" in seen


def test_declares_names_the_request_without_the_extension() -> None:
    traffic = TaskTraffic(call_declared=True, task_id="t1")
    traffic.requests += [request("tasks/get"), request("tasks/update", declared=False)]
    assert judge_declares(traffic, 0) == (
        Status.FAILED,
        "without the extension in its _meta: tasks/update",
    )


def test_polls_closer_than_nine_tenths_of_the_interval_fail() -> None:
    interval = PLANS["client-task-poll-interval"].poll_ms / 1000
    traffic = TaskTraffic(call_declared=True, task_id="t1")
    traffic.requests += [request("tasks/get", at=0.0), request("tasks/get", at=0.9 * interval)]
    assert judge_poll_interval(traffic, 0)[0] is Status.PASSED
    traffic.requests.append(request("tasks/get", at=0.9 * interval + 0.88 * interval))
    assert judge_poll_interval(traffic, 0)[0] is Status.FAILED


def test_mcp_name_missing_or_another_task_fails() -> None:
    traffic = TaskTraffic(call_declared=True, task_id="t1")
    traffic.requests.append(request("tasks/get"))
    assert judge_mcp_name(traffic, 0)[0] is Status.PASSED
    traffic.requests += [request("tasks/update", mcp_name=None), request("tasks/get", mcp_name="x")]
    status, seen = judge_mcp_name(traffic, 0)
    assert status is Status.FAILED
    assert seen == "tasks/update with no Mcp-Name; tasks/get with Mcp-Name 'x'"


def test_update_keys_and_dedup_judge_the_answers_the_script_recorded() -> None:
    task, traffic = script(PLANS["client-task-update-keys"])
    task.get()
    task.get()
    task.update({"q-1": {"action": "accept"}})
    assert judge_update_keys(traffic, 0)[0] is Status.PASSED
    assert judge_dedup(traffic, 0)[0] is Status.PASSED
    task.get()
    task.update({"q-1": {"action": "accept"}, "q-2": {"action": "accept"}})
    assert judge_update_keys(traffic, 0) == (
        Status.FAILED,
        "tasks/update carried key(s) not outstanding: q-1",
    )
    assert judge_dedup(traffic, 0)[0] is Status.FAILED


def test_input_checks_want_the_defaults_kept_and_the_link_refused_and_unopened() -> None:
    def judged(form: dict[str, Any], link: dict[str, Any] | None, hits: int = 0) -> Status:
        traffic = TaskTraffic(call_declared=True, task_id="t1", modes=frozenset({"form", "url"}))
        task = TaskScript(PLANS["client-task-input-checks"], traffic, lambda kind: {}, "t1")
        task.get()
        task.get()
        task.update({"q-1": form})
        task.get()
        if link is None:
            task.cancel()
        else:
            task.update({"q-2": link})
        return judge_input_checks(traffic, hits)[0]

    kept = {"action": "accept", "content": {"enabled": False, "count": 0, "note": ""}}
    assert judged(kept, {"action": "cancel"}) is Status.PASSED
    assert judged(kept, None) is Status.PASSED  # refused by cancelling the task
    assert judged({"action": "accept", "content": {"count": 0}}, None) is Status.FAILED
    assert judged(kept, {"action": "accept"}) is Status.FAILED
    assert judged(kept, {"action": "decline"}, hits=1) is Status.FAILED
