"""One store contract (flows, sealed secrets, sealed task records) with several engines; the
same contract tests run against each.

``open_store(url)`` picks the engine: ``memory://`` (in-process, for tests) or
``sqlite:///relative/path.db`` / ``sqlite:////absolute/path.db`` (the embedded default, safe
for several processes on one file), or ``redis://host:port/db?prefix=...`` (several server
instances, with a :class:`FinishFeed` and a :class:`TaskFeed`; the ``redis`` extra), or
``postgresql://host/database?schema=...`` (the same, the ``postgres`` extra).
"""

from mcp_elicit.stores.contract import (
    FinishFeed,
    FlowExists,
    Store,
    StoreError,
    TaskExists,
    TaskFeed,
    TooManyFlows,
    TooManyTasks,
)
from mcp_elicit.stores.memory import MemoryStore
from mcp_elicit.stores.opening import open_store
from mcp_elicit.stores.records import LIVE, FlowRecord, FlowStatus, SealedSecret, TaskRecord
from mcp_elicit.stores.sqlite import SQLiteStore

__all__ = [
    "LIVE",
    "FinishFeed",
    "FlowExists",
    "FlowRecord",
    "FlowStatus",
    "MemoryStore",
    "SQLiteStore",
    "SealedSecret",
    "Store",
    "StoreError",
    "TaskExists",
    "TaskFeed",
    "TaskRecord",
    "TooManyFlows",
    "TooManyTasks",
    "open_store",
]
