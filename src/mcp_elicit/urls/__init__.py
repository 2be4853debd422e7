"""URL safety: a verdict with reasons for a URL a server wants a person to open.

No I/O unless DNS resolution is asked for (``check_url(url, resolve=True)``).
See ``docs/urls.md`` for what the check guarantees and every reason code.
"""

from mcp_elicit.urls.check import check_url, check_url_async
from mcp_elicit.urls.codes import ReasonCode
from mcp_elicit.urls.policy import DEFAULT_POLICY, UrlPolicy
from mcp_elicit.urls.verdict import DisplayHost, Reason, Severity, UrlVerdict, Verdict

__all__ = [
    "DEFAULT_POLICY",
    "DisplayHost",
    "Reason",
    "ReasonCode",
    "Severity",
    "UrlPolicy",
    "UrlVerdict",
    "Verdict",
    "check_url",
    "check_url_async",
]
