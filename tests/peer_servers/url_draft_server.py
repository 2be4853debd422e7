"""A server from the URL-mode draft (SEP-1036) era, for the client tests: no SDK speaks it.

Newline-delimited JSON-RPC on stdio. ``sync`` fails with -32604 naming one URL elicitation (in
the draft's ``elicitionId`` spelling) until the client has tracked it to completion with
``elicitation/track``, which sends a progress notification and then returns complete.

With ``--backwards`` the track breaks the progress rule (the value MUST increase with each
notification): 1 ("one"), 1 ("one again"), 0.5 ("back"), then 2 ("two").
"""

from __future__ import annotations

import json
import sys
from typing import Any

tracked: set[str] = set()
BACKWARDS = "--backwards" in sys.argv[1:]
STEPS = [(1, "one"), (1, "one again"), (0.5, "back"), (2, "two")] if BACKWARDS else [(1, None)]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def answer(request: dict[str, Any]) -> None:
    method, ident = request.get("method"), request.get("id")
    params = request.get("params") or {}
    if method == "initialize":
        send(
            {
                "id": ident,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "url-draft-server", "version": "0"},
                },
            }
        )
    elif method == "tools/list":
        send(
            {
                "id": ident,
                "result": {
                    "tools": [
                        {"name": "sync", "inputSchema": {"type": "object", "properties": {}}},
                    ]
                },
            }
        )
    elif method == "tools/call":
        if "d1" in tracked:
            send({"id": ident, "result": {"content": [{"type": "text", "text": "synced"}]}})
        else:
            send(
                {
                    "id": ident,
                    "error": {
                        "code": -32604,
                        "message": "Elicitation required",
                        "data": {
                            "elicitations": [
                                {
                                    "mode": "url",
                                    "elicitionId": "d1",
                                    "url": "https://auth.example.com/start",
                                    "message": "Authorize the sync.",
                                }
                            ]
                        },
                    },
                }
            )
    elif method == "elicitation/track":
        token = (params.get("_meta") or {}).get("progressToken")
        for value, text in STEPS:
            notice: dict[str, Any] = {"progressToken": token, "progress": value}
            notice.update({"message": text} if text else {"total": 1})
            send({"method": "notifications/progress", "params": notice})
        tracked.add(params.get("elicitationId", ""))
        send({"id": ident, "result": {"status": "complete"}})
    elif ident is not None:
        send({"id": ident, "error": {"code": -32601, "message": "Method not found"}})


for line in sys.stdin:
    if line.strip():
        answer(json.loads(line))
