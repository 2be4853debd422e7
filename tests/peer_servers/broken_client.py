"""Deliberately broken clients: each breaks the one rule a ``mcp-elicit check client`` check
rests on, and otherwise behaves as a good client should.

    .venv/bin/python tests/peer_servers/broken_client.py CHECK_ID [--protocol R] SERVER_URL

Built on the official SDK client with mcp-elicit's SDK seams (``mcp_elicit._sdk``), so that
it declares exactly what it is told to and answers raw. Without a break (``none``) it is a
good client: it declares form and URL mode, fills every default, answers forms validly, agrees
to links without fetching them, and after -32042 calls again only once the completion notice
came. On 2026-07-28 it declares the tasks extension (``io.modelcontextprotocol/tasks``) on every
request and follows a task as a good client does (:meth:`Hooks.follow`): polls at the server's
interval with ``Mcp-Name``, answers each key once through the same checks as a pushed question,
with only outstanding keys; a task to a call that did not declare the extension is an error.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from mcp_elicit import _sdk
from mcp_elicit.protocol.codes import META_CLIENT_CAPABILITIES, TASKS_EXTENSION
from mcp_elicit.protocol.tasks import declares_tasks

BREAKS = (
    "none",
    "client-answers-declared-modes",
    "client-refuses-undeclared-mode",
    "client-fills-defaults",
    "client-valid-answers",
    "client-url-consent",
    "client-refuses-blocked-link",
    "client-retry-after-completion",
    "client-rate-limit",
    "client-answers-message-only",
    "client-result-type",
    "client-task-declares",
    "client-task-unsolicited",
    "client-task-poll-interval",
    "client-task-mcp-name",
    "client-task-dedup",
    "client-task-update-keys",
    "client-task-input-checks",
)
LIMIT = 20  # questions answered per run; a good client cuts a flood off
GOOD = {"email": "person@example.com", "age": 42, "plan": "basic"}
BAD = {"email": "not-an-email", "age": 5, "plan": "gold"}


class Hooks:
    def __init__(self, broken: str, http: httpx2.AsyncClient, protocol: str) -> None:
        self.broken = broken
        self.http = http
        # The early draft is spoken by proposing 2025-03-26 and declaring elicitation.
        self.proposed_version: str | None = protocol if protocol == "2025-03-26" else None
        self.asked = 0
        self.session: Any = None  # set once connected: a task's requests go through it

    def capabilities(self, version: str, declared: types.ClientCapabilities) -> Any:
        if self.proposed_version == "2025-03-26":
            return types.ElicitationCapability()  # `elicitation: {}`: the draft has no modes
        form_only = self.broken == "client-refuses-undeclared-mode"
        return types.ElicitationCapability(
            form=types.FormElicitationCapability(),
            url=None if form_only else types.UrlElicitationCapability(),
        )

    async def on_elicitation(self, session: Any, params: Any) -> dict[str, Any]:
        params = dict(params or {})
        self.asked += 1
        if self.asked > LIMIT and self.broken != "client-rate-limit":
            return {"action": "cancel"}
        if params.get("mode") == "url" or "url" in params:
            return await self._link(params)
        if "requestedSchema" not in params:  # the early draft's message-only request
            if self.broken == "client-answers-message-only":
                raise MCPError(types.INVALID_PARAMS, "requestedSchema is required")
            return {"action": "decline"}
        schema = params.get("requestedSchema") or {}
        properties: Mapping[str, Any] = schema.get("properties") or {}
        content: dict[str, Any] = {}
        for name, prop in properties.items():
            if "default" in prop:
                falsy = not prop["default"] and prop["default"] is not None
                if not (self.broken == "client-fills-defaults" and falsy):
                    content[name] = prop["default"]
            elif name in (schema.get("required") or []):
                source = BAD if self.broken == "client-valid-answers" else GOOD
                content[name] = source.get(name, "check")
        return {"action": "accept", "content": content}

    async def _link(self, params: dict[str, Any]) -> dict[str, Any]:
        url = str(params.get("url"))
        if self.broken == "client-answers-declared-modes":
            raise MCPError(types.INTERNAL_ERROR, "links are not handled here")
        if self.broken == "client-url-consent":
            await self.http.get(url)  # a "link preview", before anyone agreed
            return {"action": "decline"}
        if "@" in url.split("/")[2]:  # credentials in the link: a good client refuses it
            if self.broken == "client-refuses-blocked-link":
                await self.http.get(url)
                return {"action": "accept"}
            return {"action": "cancel"}
        return {"action": "accept"}

    async def send(
        self,
        send: Callable[[str, Mapping[str, Any] | None, dict[str, Any]], Awaitable[Any]],
        method: str,
        params: Mapping[str, Any] | None,
        options: dict[str, Any],
        version: str | None,
    ) -> Any:
        if method == "tasks/get" and self.broken == "client-task-declares":
            params = _undeclared(params)
        raw = await send(method, params, options)
        if method == "tools/call" and isinstance(raw, Mapping) and raw.get("resultType") == "task":
            if not declares_tasks(params) and self.broken != "client-task-unsolicited":
                raise MCPError(types.INVALID_PARAMS, "a task to a call that did not ask for one")
            return await self.follow(str(raw.get("taskId")), raw)
        return raw

    async def follow(self, task_id: str, task: Mapping[str, Any]) -> dict[str, Any]:
        """Poll the task to its end, answering its questions; its result, as ``tools/call``'s."""
        seen: set[str] = set()
        answered: dict[str, Any] = {}
        while True:
            interval = float(task.get("pollIntervalMs") or 1000) / 1000
            await anyio.sleep(0.01 if self.broken == "client-task-poll-interval" else interval)
            task = await self._task_request("tasks/get", task_id, {})
            status = task.get("status")
            if status == "completed":
                return {**task["result"], "resultType": "complete"}
            if status in ("failed", "cancelled"):
                raise MCPError(types.INTERNAL_ERROR, f"task {task_id} {status}")
            for key, request in (task.get("inputRequests") or {}).items():
                if key in seen and self.broken != "client-task-dedup":
                    continue
                seen.add(key)
                response = await self._answer_in_task(dict(request.get("params") or {}))
                responses = {key: response}
                if self.broken == "client-task-update-keys":
                    responses = {**answered, key: response}  # an answered key, sent again
                answered[key] = response
                await self._task_request("tasks/update", task_id, {"inputResponses": responses})

    async def _answer_in_task(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.broken == "client-task-input-checks":  # inside a task, anything goes
            return (
                {"action": "accept", "content": {}}
                if "requestedSchema" in params
                else {"action": "accept"}
            )
        return await self.on_elicitation(None, params)

    async def _task_request(
        self, method: str, task_id: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        omit = self.broken == "client-task-mcp-name"
        headers = {} if omit else {"Mcp-Name": task_id}
        raw = await _sdk.send_stamped_request(
            self.session, method, {"taskId": task_id, **params}, headers=headers
        )
        return dict(raw)


def _undeclared(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """``params`` without the tasks extension among its ``_meta`` capabilities."""
    params = dict(params or {})
    meta = dict(params.get("_meta") or {})
    capabilities = dict(meta.get(META_CLIENT_CAPABILITIES) or {})
    extensions = dict(capabilities.get("extensions") or {})
    extensions.pop(TASKS_EXTENSION, None)
    capabilities["extensions"] = extensions
    meta[META_CLIENT_CAPABILITIES] = capabilities
    return {**params, "_meta": meta}


async def main(broken: str, url: str, protocol: str) -> int:
    completed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ElicitCompleteNotification):
            completed.set()

    async with httpx2.AsyncClient(timeout=10) as http:
        hooks = Hooks(broken, http, protocol)

        async def answer(context: Any, params: Any) -> Any:
            # 2026-07-28's input requests come through the SDK's callback, not the hooks.
            raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
            try:
                return types.ElicitResult.model_validate(await hooks.on_elicitation(None, raw))
            except MCPError as error:
                return types.ErrorData(code=error.code, message=error.message)

        client = _sdk.ElicitingSdkClient(
            streamable_http_client(url, http_client=http),
            mode="auto" if protocol == "auto" else "legacy",
            elicitation_callback=answer,
            message_handler=on_message,
            cache=None,
            # Declared on 2026-07-28 (but by the break that must meet a task it did not ask for).
            extensions=[] if broken == "client-task-unsolicited" else [advertise(TASKS_EXTENSION)],
        )
        client.hooks = hooks
        async with client:
            hooks.session = client.session
            tools = await client.list_tools()
            for tool in tools.tools:
                try:
                    await client.call_tool(tool.name, {})
                except ValidationError:
                    # A final result the SDK refuses (no resultType): a good client goes
                    # on; this break reads it as unfinished and calls again.
                    if broken == "client-result-type":
                        with contextlib.suppress(ValidationError):
                            await client.call_tool(tool.name, {})
                except MCPError as error:
                    if error.code != -32042:
                        print(f"{tool.name}: error {error.code}", file=sys.stderr)
                        continue
                    if broken != "client-retry-after-completion":
                        with anyio.move_on_after(10):
                            await completed.wait()
                    await client.call_tool(tool.name, {})
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("broken", choices=BREAKS)
    parser.add_argument("--protocol", choices=("auto", "2025-11-25", "2025-03-26"), default="auto")
    parser.add_argument("url")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.broken, args.url, args.protocol))
