"""Error codes, method names and ``_meta`` keys that elicitation uses, in every revision."""

from __future__ import annotations

from typing import Final

# JSON-RPC's own codes.
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602  # also: a client got a mode it did not declare (2025-11-25)
INTERNAL_ERROR: Final = -32603  # also: a task failed by its ttl or its owner's death (no own code)

# "Elicitation required before this request can proceed".
ELICITATION_REQUIRED_DRAFT: Final = -32604  # the URL-mode draft (SEP-1036, 2025-07)
URL_ELICITATION_REQUIRED: Final = -32042  # 2025-11-25; 2026-07-28 MUST NOT emit it

# 2026-07-28.
HEADER_MISMATCH: Final = -32020  # e.g. ``Mcp-Name`` is not the ``taskId`` of a ``tasks/*``
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

ELICITATION_CREATE: Final = "elicitation/create"
ELICITATION_TRACK: Final = "elicitation/track"  # the URL-mode draft only
ELICITATION_COMPLETE: Final = "notifications/elicitation/complete"  # 2025-11-25 only
PROGRESS: Final = "notifications/progress"

# Tasks: 2025-11-25's core ones, and the 2026-07-28 extension ``io.modelcontextprotocol/tasks``
# (the two are not wire-compatible; ``mcp_elicit.protocol.tasks`` builds both).
TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"
TASKS_GET: Final = "tasks/get"
TASKS_CANCEL: Final = "tasks/cancel"
TASKS_UPDATE: Final = "tasks/update"  # the extension only
TASKS_RESULT: Final = "tasks/result"  # 2025-11-25 only (the extension inlines the result)
TASKS_LIST: Final = "tasks/list"  # 2025-11-25 only
TASK_STATUS_NOTIFICATION: Final = "notifications/tasks/status"  # 2025-11-25
TASKS_NOTIFICATION: Final = "notifications/tasks"  # the extension, over subscriptions/listen

# Request ``_meta`` keys of 2026-07-28 (every request carries them).
META_CLIENT_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_PROTOCOL_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
# 2025-11-25 tasks: an elicitation raised inside a task names that task.
META_RELATED_TASK: Final = "io.modelcontextprotocol/related-task"

# A result's ``_meta`` key (mcp-elicit's own, in its namespace): on a cancel the person did not
# choose, why the client cancelled on its own ("no-person", "answers-exhausted", ...).
META_OUTCOME: Final = "mcp-elicit/outcome"
# A ``tasks/update`` ack's ``_meta`` key (ours): the keys not applied, each with its verdict
# ("answered", "unknown", ...). The spec says to ignore them silently; naming them costs the
# client nothing and tells its author why an answer did not land (design A1).
META_IGNORED: Final = "mcp-elicit/ignored"
