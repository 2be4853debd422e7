"""A store URL as it may be shown: what an engine with credentials (Redis, PostgreSQL) keeps
as its ``url``, so that a connection secret never reaches a log or an error."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def without_password(url: str) -> str:
    """``url`` with any password replaced by ``***``: what an engine with credentials (Redis,
    PostgreSQL) keeps as its ``url``, so that a connection secret never reaches a log."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<unparseable URL>"
    if password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{parts.username or ''}:***@{host}"
    return urlunsplit(parts._replace(netloc=netloc))
