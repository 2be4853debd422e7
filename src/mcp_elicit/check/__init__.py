"""``mcp-elicit check``: test an MCP server (and, soon, a client) on what the official
conformance suite leaves out: URL mode, the completion notice, -32042, the URL-mode draft,
capability gating, answer validation, ``requestState``.

    report = await check_server("http://127.0.0.1:3001/mcp")
    print(report.text())

Every check, its spec reference and the tools it needs: :data:`CHECKS`, docs/check.md.
"""

from mcp_elicit.check.catalog import CHECKS, REVISIONS, Check, SpecRef
from mcp_elicit.check.report import Outcome, Report, Status
from mcp_elicit.check.running import (
    ServerRefused,
    UnknownCheck,
    check_client,
    check_server,
    select,
)

__all__ = [
    "CHECKS",
    "REVISIONS",
    "Check",
    "Outcome",
    "Report",
    "ServerRefused",
    "SpecRef",
    "Status",
    "UnknownCheck",
    "check_client",
    "check_server",
    "select",
]
