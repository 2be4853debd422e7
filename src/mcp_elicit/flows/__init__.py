"""Out-of-band URL-mode flows: start one bound to a user, let that user open, complete or
decline it on a hosted page, wait for it to finish (across instances, through the store),
and sweep away the old ones.

    flows = Flows(store, server="weather")
    flow = await flows.start(user="alice", purpose="api-key", details={"name": "openai"})
    ...                                  # the page calls flows.open / flows.complete
    flow = await flows.wait(flow.id, timeout=30)
"""

from mcp_elicit.flows.errors import (
    FlowError,
    FlowFinished,
    FlowNotFound,
    FlowOfAnotherUser,
    TooManyOpenFlows,
)
from mcp_elicit.flows.lifecycle import DEFAULT_MAX_OPEN_FLOWS, Flows
from mcp_elicit.stores.records import FlowRecord, FlowStatus

__all__ = [
    "DEFAULT_MAX_OPEN_FLOWS",
    "FlowError",
    "FlowFinished",
    "FlowNotFound",
    "FlowOfAnotherUser",
    "FlowRecord",
    "FlowStatus",
    "Flows",
    "TooManyOpenFlows",
]
