"""Why a flow operation was refused. Messages name the flow id only: never its owner, and
never a status to someone who does not own the flow."""

from __future__ import annotations

from mcp_elicit.stores.records import FlowStatus


class FlowError(Exception):
    """A flow operation was refused."""


class FlowNotFound(FlowError):
    """No such flow: never created, or purged after it finished."""

    def __init__(self, flow_id: str) -> None:
        super().__init__(f"no flow {flow_id!r}")
        self.flow_id = flow_id


class FlowOfAnotherUser(FlowError):
    """The flow exists but was started by someone else: the anti-phishing check. An attacker
    who sends a victim their own flow link must learn nothing from the refusal."""

    def __init__(self, flow_id: str) -> None:
        super().__init__(f"flow {flow_id!r} belongs to another user")
        self.flow_id = flow_id


class FlowFinished(FlowError):
    """The flow is already completed, declined or expired; it cannot change again."""

    def __init__(self, flow_id: str, status: FlowStatus) -> None:
        super().__init__(f"flow {flow_id!r} is already {status.value}")
        self.flow_id = flow_id
        self.status = status


class TooManyOpenFlows(FlowError):
    """The user already has ``limit`` open (``pending`` or ``opened``) flows on this server,
    the most allowed: a tool that starts flows in a loop must not fill the store, nor the
    person's screen, with links. Finished and expired flows make room again."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"{limit} open flows of this user wait on this server already, the most allowed"
        )
        self.limit = limit
