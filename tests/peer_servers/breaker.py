"""A stdio relay that breaks one rule on purpose, in front of a good server: the broken servers
every ``mcp-elicit check server`` check is shown to fail against.

    python tests/peer_servers/breaker.py CHECK_ID -- COMMAND [ARGS...]

It starts COMMAND (a stdio MCP server that passes every check: examples/conformance_server.py
--stdio) and relays newline-delimited JSON-RPC both ways, rewriting the messages of the one
rule CHECK_ID rests on (:data:`BREAKS`): a URL in the message, a notice with the wrong id, a
-32042 on 2026-07-28, a client's tampered ``requestState`` put right again before the server
sees it, a task's questions all shown under one key, and so on. Everything else passes
through untouched, so each break fails its own check and, ideally, no other.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

# What a break needs of mcp_elicit.check is imported when the break first needs it: the
# package loads the SDK (about 1.5 s of CPU for a process on a slow core), and this relay
# starts once per session the checks open, most of them for breaks that need nothing of it.


def valid_answer(schema: Any) -> Any:
    from mcp_elicit.check.server_checks import valid_answer as made_valid

    return made_valid(schema)


def _url_required_tool() -> str:
    from mcp_elicit.check.catalog import URL_REQUIRED_TOOL

    return URL_REQUIRED_TOOL


Message = dict[str, Any]


class Relay:
    """What the relay remembers: requests in flight each way (to know what a response
    answers), the states the server issued, the questions it asked."""

    def __init__(self, check: str) -> None:
        self.check = check
        self.lock = threading.Lock()
        self.client_requests: dict[Any, Message] = {}  # id -> the client's request
        self.server_requests: dict[Any, Message] = {}  # id -> the server's request
        self.states: dict[str, str] = {}  # tool -> the last requestState the server issued
        self.rounds: dict[str, Message] = {}  # tool -> the last InputRequiredResult
        self.required_error: dict[str, Message] = {}  # tool -> its first "link first" error
        self.extra: list[Message] = []  # sent to the client after the message being relayed
        self.asked_in: dict[str, Message] = {}  # task id -> its last inputRequests shown
        self.shown_as: dict[str, str] = {}  # task id -> the real key shown as "q1"

    # -- client -> server -------------------------------------------------------------------

    def to_server(self, message: Message) -> Message:
        if "method" in message and "id" in message:
            self.client_requests[message["id"]] = copy.deepcopy(message)
        if self.check == "server-gate-url-mode":
            _declare(message, {"form": {}, "url": {}})
        if self.check == "server-gate-capability" and _is_call(message):
            _declare(message, {"form": {}}, only_if_missing=True)
        if self.check == "server-gate-2025-06-18" and message.get("method") == "initialize":
            message["params"]["protocolVersion"] = "2025-11-25"
        if self.check == "server-validates-answer":
            self._put_answers_right(message)
        if self.check == "server-task-undeclared" and _is_call(message):
            _declare_tasks(message)
        if self.check == "server-task-methods-gated" and _is_task_method(message):
            _declare_tasks(message)
        if message.get("method") == "tasks/update":
            self._break_update(message["params"])
        if self.check == "server-task-support" and _is_call(message):
            _ignore_task_support(message["params"])
        if self.check == "server-task-result" and message.get("method") == "tasks/result":
            message["method"] = "tasks/get"  # answered at once, with the task as it is now
        if self.check in ("server-request-state-tampered", "server-request-state-foreign"):
            params = message.get("params") or {}
            state = params.get("requestState")
            own = self.states.get(params.get("name"))
            # Changed by the client, or issued for another call: the call's own put back.
            if _is_call(message) and state is not None and own is not None and state != own:
                params["requestState"] = own
        return message

    def _break_update(self, params: Message) -> None:
        responses = params.get("inputResponses")
        if not isinstance(responses, dict):
            return
        task_id = str(params.get("taskId"))
        if self.check == "server-task-update-resumes":
            params["inputResponses"] = {}  # a no-op update (the SDK PR's), acknowledged
        elif self.check == "server-task-keys-unique" and "q1" in responses:
            params["inputResponses"] = {self.shown_as.get(task_id, "q1"): responses["q1"]}
        elif self.check == "server-task-partial-update":
            # A partial answer taken as an answer to every question outstanding.
            for key, request in (self.asked_in.get(task_id) or {}).items():
                schema = (request.get("params") or {}).get("requestedSchema") or {}
                responses.setdefault(key, {"action": "accept", "content": valid_answer(schema)})

    def _put_answers_right(self, message: Message) -> None:
        # A pushed question's answer: made valid before the server sees it.
        asked = self.server_requests.get(message.get("id")) if "method" not in message else None
        result = message.get("result")
        if asked is not None and isinstance(result, dict) and "content" in result:
            schema = asked.get("params", {}).get("requestedSchema") or {}
            result["content"] = valid_answer(schema)
        # A 2026-07-28 retry's answers: likewise.
        params = message.get("params") or {}
        if _is_call(message) and params.get("inputResponses"):
            round_ = self.rounds.get(params.get("name"), {})
            for key, request in (round_.get("inputRequests") or {}).items():
                answer = params["inputResponses"].get(key)
                schema = (request.get("params") or {}).get("requestedSchema")
                if isinstance(answer, dict) and "content" in answer and schema:
                    answer["content"] = valid_answer(schema)

    # -- server -> client -------------------------------------------------------------------

    def to_client(self, message: Message) -> Message:
        if "method" in message and "id" in message:
            self.server_requests[message["id"]] = copy.deepcopy(message)
        request = self.client_requests.get(message.get("id")) if "method" not in message else None
        tool = (request or {}).get("params", {}).get("name")
        result = message.get("result")
        if isinstance(result, dict) and result.get("resultType") == "input_required":
            state = result.get("requestState")
            if isinstance(state, str) and tool:
                self.states[tool] = state
            if tool:
                self.rounds[tool] = copy.deepcopy(result)
        if (request or {}).get("method") == "tasks/get" and isinstance(result, dict):
            task_id = str((request or {}).get("params", {}).get("taskId"))
            self.asked_in[task_id] = copy.deepcopy(result.get("inputRequests") or {})
        breaker = SERVER_SIDE.get(self.check) or VARIANTS.get(self.check, ("", None))[1]
        if breaker is not None:
            breaker(self, message, request, tool)
        return message

    def to_client_all(self, message: Message) -> list[Message]:
        """:meth:`to_client`, then whatever the break adds after it."""
        out = [self.to_client(message), *self.extra]
        self.extra.clear()
        return out


def _is_call(message: Message) -> bool:
    return message.get("method") == "tools/call"


def _declare(message: Message, elicitation: Message, *, only_if_missing: bool = False) -> None:
    params = message.get("params") or {}
    if message.get("method") == "initialize":
        capabilities = params.setdefault("capabilities", {})
        if not (only_if_missing and "elicitation" in capabilities):
            capabilities["elicitation"] = elicitation
    meta = params.get("_meta") or {}
    declared = meta.get("io.modelcontextprotocol/clientCapabilities")
    if isinstance(declared, dict) and not (only_if_missing and "elicitation" in declared):
        declared["elicitation"] = elicitation


def _url_requests(message: Message) -> list[Message]:
    found = []
    if message.get("method") == "elicitation/create":
        found.append(message["params"])
    result = message.get("result")
    if isinstance(result, dict):
        for request in (result.get("inputRequests") or {}).values():
            if request.get("method") == "elicitation/create":
                found.append(request["params"])
    return [params for params in found if params.get("mode") == "url"]


def _link_in_message(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    for params in _url_requests(message):
        params["message"] = f"{params['message']} Go to {params['url']}"
        params.pop("elicitationId", None)


def _wrong_notice(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if message.get("method") == "notifications/elicitation/complete":
        message["params"]["elicitationId"] = "not-" + str(message["params"]["elicitationId"])


def _empty_required(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    error = message.get("error")
    if isinstance(error, dict) and error.get("code") in (-32042, -32604):
        error["data"] = {}


def _required_forever(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    error = message.get("error")
    if tool != _url_required_tool():
        return
    if isinstance(error, dict) and error.get("code") == -32042:
        relay.required_error[tool] = copy.deepcopy(error)
    elif "result" in message and tool in relay.required_error:
        del message["result"]
        message["error"] = relay.required_error[tool]


def _required_as_error(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if tool != _url_required_tool():
        return
    links = _url_requests(message)
    if links:
        items = [{**params, "elicitationId": f"link-{i}"} for i, params in enumerate(links)]
        del message["result"]
        message["error"] = {
            "code": -32042,
            "message": "open this link first",
            "data": {"elicitations": items},
        }


def _track_never_done(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if (request or {}).get("method") == "elicitation/track" and "result" in message:
        message["result"] = {"status": "pending"}


def _track_anything(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if (request or {}).get("method") == "elicitation/track" and "error" in message:
        del message["error"]
        message["result"] = {"status": "complete"}


def _progress_again(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if message.get("method") == "notifications/progress":
        relay.extra.append(copy.deepcopy(message))  # the same value twice: no increase


def _titled_to_old_client(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if (request or {}).get("method") == "initialize" and isinstance(result, dict):
        result["protocolVersion"] = "2025-06-18"  # the client is told what it asked for


def _no_result_type(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if (request or {}).get("method") in ("tools/list", "tools/call") and isinstance(result, dict):
        result.pop("resultType", None)


# -- the tasks extension ----------------------------------------------------------------------

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


def _is_task_method(message: Message) -> bool:
    return str(message.get("method", "")).startswith("tasks/")


def _declare_tasks(message: Message) -> None:
    meta = (message.get("params") or {}).get("_meta") or {}
    declared = meta.get("io.modelcontextprotocol/clientCapabilities")
    if isinstance(declared, dict):
        declared.setdefault("extensions", {})[TASKS_EXTENSION] = {}


def _answers_to(request: Any, method: str) -> bool:
    return (request or {}).get("method") == method


def _task_extension_hidden(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if _answers_to(request, "server/discover") and isinstance(result, dict):
        extensions = (result.get("capabilities") or {}).get("extensions") or {}
        extensions.pop(TASKS_EXTENSION, None)


def _task_not_stored(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if isinstance(result, dict) and result.get("resultType") == "task":
        result["taskId"] = "not-yet-" + str(result.get("taskId"))  # tasks/get: not found


def _no_input_requests(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if not _answers_to(request, "tasks/get") or not isinstance(result, dict):
        return
    if result.get("status") == "input_required":
        result["inputRequests"] = {}


def _keys_reused(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if not _answers_to(request, "tasks/get") or not isinstance(result, dict):
        return
    requests = result.get("inputRequests")
    if isinstance(requests, dict) and len(requests) == 1:
        [(key, asked)] = requests.items()
        relay.shown_as[request["params"]["taskId"]] = key
        result["inputRequests"] = {"q1": asked}  # every question under one key


def _tool_error_failed(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if not _answers_to(request, "tasks/get") or not isinstance(result, dict):
        return
    if result.get("status") == "completed" and (result.get("result") or {}).get("isError"):
        result["status"] = "failed"


def _any_task_found(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    error = message.get("error")
    if _answers_to(request, "tasks/get") and isinstance(error, dict) and error["code"] == -32602:
        del message["error"]
        message["result"] = {
            "resultType": "complete",
            "taskId": request["params"].get("taskId"),
            "status": "working",
            "createdAt": "2026-07-28T00:00:00.000Z",
            "lastUpdatedAt": "2026-07-28T00:00:00.000Z",
            "ttlMs": 60000,
        }


def _tasks_listed(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if _answers_to(request, "tasks/list") and "error" in message:
        del message["error"]
        message["result"] = {"resultType": "complete", "tasks": []}


def _cancel_as_task(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if _answers_to(request, "tasks/cancel") and isinstance(result, dict):
        result.update(taskId=request["params"].get("taskId"), status="cancelled")


# -- 2025-11-25's core tasks --------------------------------------------------------------------


def _ignore_task_support(params: Message) -> None:
    """A server that runs every tool either way, whatever its taskSupport says: here, the
    server's refusals are avoided by turning a call with ``task`` into one without, and one
    without into one with."""
    if "task" in params:
        del params["task"]
    else:
        params["task"] = {}


def _notice_unrelated(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if message.get("method") == "notifications/elicitation/complete":
        (message["params"].get("_meta") or {}).pop("io.modelcontextprotocol/related-task", None)


def _terminal_cancel_acked(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    error = message.get("error")
    if _answers_to(request, "tasks/cancel") and isinstance(error, dict):
        del message["error"]
        message["result"] = {
            "taskId": request["params"].get("taskId"),
            "status": "cancelled",
            "createdAt": "2025-11-25T00:00:00Z",
            "lastUpdatedAt": "2025-11-25T00:00:00Z",
            "ttl": 60000,
        }


def _tasks_without_tool_calls(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if _answers_to(request, "initialize") and isinstance(result, dict):
        tasks = (result.get("capabilities") or {}).get("tasks")
        if isinstance(tasks, dict):
            tasks.pop("requests", None)  # tasks/list and tasks/cancel, but no task-augmented call


SERVER_SIDE: dict[str, Callable[[Relay, Message, Any, Any], None]] = {
    "server-url-request-shape": _link_in_message,
    "server-complete-notice": _wrong_notice,
    "server-url-required-error": _empty_required,
    "server-url-required-retry": _required_forever,
    "server-no-32042": _required_as_error,
    "server-track": _track_never_done,
    "server-track-unknown-id": _track_anything,
    "server-gate-2025-06-18": _titled_to_old_client,
    "server-result-type": _no_result_type,
    "server-task-declared": _task_extension_hidden,
    "server-task-created": _task_not_stored,
    "server-task-input-requests": _no_input_requests,
    "server-task-keys-unique": _keys_reused,  # with its update put right in to_server
    "server-task-outcome": _tool_error_failed,
    "server-task-unknown-id": _any_task_found,
    "server-task-removed-methods": _tasks_listed,
    "server-task-cancel": _cancel_as_task,
    "server-task-related-task": _notice_unrelated,
    "server-task-cancel-terminal": _terminal_cancel_acked,
}
CLIENT_SIDE = (
    "server-gate-url-mode",
    "server-gate-capability",
    "server-validates-answer",
    "server-request-state-tampered",
    "server-request-state-foreign",
    "server-task-undeclared",
    "server-task-methods-gated",
    "server-task-update-resumes",
    "server-task-partial-update",
    "server-task-support",
    "server-task-result",
)
BREAKS: tuple[str, ...] = (*SERVER_SIDE, *CLIENT_SIDE)
"""The checks this relay can break (the others need two sessions or two users: HTTP)."""
VARIANTS: dict[str, tuple[str, Callable[[Relay, Message, Any, Any], None]]] = {
    # each progress notification of elicitation/track sent twice, the track answered as it is
    "server-track-progress-again": ("server-track", _progress_again),
    # 2025-11-25: capabilities.tasks without requests.tools.call (no call may be a task)
    "server-task-no-tool-calls": ("server-task-support", _tasks_without_tool_calls),
}
"""A second way to break a check's rule: the name given to the relay -> (the check, the
break)."""


def pump(
    source: Any, sink: Any, rewrite: Callable[[Message], list[Message]], lock: threading.Lock
) -> None:
    for line in source:
        text = line.strip()
        if not text:
            continue
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            out = text
        else:
            with lock:
                out = "\n".join(json.dumps(m, separators=(",", ":")) for m in rewrite(message))
        sink.write(out + "\n")
        sink.flush()
    sink.close()


def main() -> None:
    words = sys.argv[1:]
    if len(words) < 3 or words[1] != "--" or words[0] not in (*BREAKS, *VARIANTS):
        sys.exit(
            "usage: breaker.py CHECK_ID -- COMMAND [ARGS...]; "
            f"CHECK_ID one of {(*BREAKS, *VARIANTS)}"
        )
    relay = Relay(words[0])
    server = subprocess.Popen(
        words[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert server.stdin is not None and server.stdout is not None
    upstream = threading.Thread(
        target=pump,
        args=(sys.stdin, server.stdin, lambda m: [relay.to_server(m)], relay.lock),
        daemon=True,
    )
    upstream.start()
    pump(server.stdout, sys.stdout, relay.to_client_all, relay.lock)
    server.wait()


if __name__ == "__main__":
    main()
