"""A stdio relay that breaks one rule on purpose, in front of a good server: the broken servers
every ``mcp-elicit check server`` check is shown to fail against.

    python tests/peer_servers/breaker.py CHECK_ID -- COMMAND [ARGS...]

It starts COMMAND (a stdio MCP server that passes every check: examples/conformance_server.py
--stdio) and relays newline-delimited JSON-RPC both ways, rewriting the messages of the one
rule CHECK_ID rests on (:data:`BREAKS`): a URL in the message, a notice with the wrong id, a
-32042 on 2026-07-28, a client's tampered ``requestState`` put right again before the server
sees it, and so on. Everything else passes through untouched, so each break fails its own
check and, ideally, no other.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from mcp_elicit.check.catalog import URL_REQUIRED_TOOL
from mcp_elicit.check.server_checks import valid_answer

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
        if self.check in ("server-request-state-tampered", "server-request-state-foreign"):
            params = message.get("params") or {}
            state = params.get("requestState")
            own = self.states.get(params.get("name"))
            # Changed by the client, or issued for another call: the call's own put back.
            if _is_call(message) and state is not None and own is not None and state != own:
                params["requestState"] = own
        return message

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
        breaker = SERVER_SIDE.get(self.check)
        if breaker is not None:
            breaker(self, message, request, tool)
        return message


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
    if tool != URL_REQUIRED_TOOL:
        return
    if isinstance(error, dict) and error.get("code") == -32042:
        relay.required_error[tool] = copy.deepcopy(error)
    elif "result" in message and tool in relay.required_error:
        del message["result"]
        message["error"] = relay.required_error[tool]


def _required_as_error(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    if tool != URL_REQUIRED_TOOL:
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


def _titled_to_old_client(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if (request or {}).get("method") == "initialize" and isinstance(result, dict):
        result["protocolVersion"] = "2025-06-18"  # the client is told what it asked for


def _no_result_type(relay: Relay, message: Message, request: Any, tool: Any) -> None:
    result = message.get("result")
    if (request or {}).get("method") in ("tools/list", "tools/call") and isinstance(result, dict):
        result.pop("resultType", None)


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
}
CLIENT_SIDE = (
    "server-gate-url-mode",
    "server-gate-capability",
    "server-validates-answer",
    "server-request-state-tampered",
    "server-request-state-foreign",
)
BREAKS: tuple[str, ...] = (*SERVER_SIDE, *CLIENT_SIDE)
"""The checks this relay can break (the others need two sessions or two users: HTTP)."""


def pump(
    source: Any, sink: Any, rewrite: Callable[[Message], Message], lock: threading.Lock
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
                out = json.dumps(rewrite(message), separators=(",", ":"))
        sink.write(out + "\n")
        sink.flush()
    sink.close()


def main() -> None:
    words = sys.argv[1:]
    if len(words) < 3 or words[1] != "--" or words[0] not in BREAKS:
        sys.exit(f"usage: breaker.py CHECK_ID -- COMMAND [ARGS...]; CHECK_ID one of {BREAKS}")
    relay = Relay(words[0])
    server = subprocess.Popen(
        words[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert server.stdin is not None and server.stdout is not None
    upstream = threading.Thread(
        target=pump, args=(sys.stdin, server.stdin, relay.to_server, relay.lock), daemon=True
    )
    upstream.start()
    pump(server.stdout, sys.stdout, relay.to_client, relay.lock)
    server.wait()


if __name__ == "__main__":
    main()
