"""Error codes, method names and ``_meta`` keys that elicitation uses, in every revision."""

from __future__ import annotations

from typing import Final

# JSON-RPC's own codes.
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602  # also: a client got a mode it did not declare (2025-11-25)

# "Elicitation required before this request can proceed".
ELICITATION_REQUIRED_DRAFT: Final = -32604  # the URL-mode draft (SEP-1036, 2025-07)
URL_ELICITATION_REQUIRED: Final = -32042  # 2025-11-25; 2026-07-28 MUST NOT emit it

# 2026-07-28.
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022

ELICITATION_CREATE: Final = "elicitation/create"
ELICITATION_TRACK: Final = "elicitation/track"  # the URL-mode draft only
ELICITATION_COMPLETE: Final = "notifications/elicitation/complete"  # 2025-11-25 only
PROGRESS: Final = "notifications/progress"

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
