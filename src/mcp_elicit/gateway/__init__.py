"""A proxy that lets any client reach any server across protocol eras, with elicitation and
URL mode intact (docs/gateway.md).

- :class:`Gateway` — one upstream server, served to downstream clients over stdio or
  Streamable HTTP; push (2025) and multi-round-trip (2026-07-28) bridged both ways.
- :class:`Upstream` — the connections to the upstream (pinned revision, headers).
- :class:`Safeguards` — what is checked and recorded on the way: answers, link verdicts,
  blocked links, audit.
- :class:`Instance` — this gateway as one of several behind a load balancer: a 2026-07-28
  retry reaches the instance holding its call.
- :class:`Limits` — the caps on held calls and upstream sessions (in all, per client), when
  idle sessions close, the size and count of questions; :class:`BearerTokens` — the tokens
  Streamable HTTP may require.
"""

from mcp_elicit.gateway.bridge import VERDICT_META, Safeguards
from mcp_elicit.gateway.held import DEFAULT_HOLD_LIMIT
from mcp_elicit.gateway.instances import Instance
from mcp_elicit.gateway.limits import Limits
from mcp_elicit.gateway.push_to_rounds import LINK_WAIT
from mcp_elicit.gateway.serving import Gateway
from mcp_elicit.gateway.tokens import BearerTokens
from mcp_elicit.gateway.upstream import Upstream

__all__ = [
    "DEFAULT_HOLD_LIMIT",
    "LINK_WAIT",
    "VERDICT_META",
    "BearerTokens",
    "Gateway",
    "Instance",
    "Limits",
    "Safeguards",
    "Upstream",
]
