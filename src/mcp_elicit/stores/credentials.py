"""Store URLs of the engines with a server (Redis, PostgreSQL): reading one, and showing it
without its password (what such an engine keeps as its ``url``, so that a connection secret
never reaches a log or an error)."""

from __future__ import annotations

from urllib.parse import SplitResult, parse_qsl, urlsplit, urlunsplit

from mcp_elicit.stores.contract import StoreError


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


def read_server_url(
    url: str, *, engine: str, schemes: tuple[str, ...], form: str, options: frozenset[str]
) -> tuple[SplitResult, dict[str, str]]:
    """``url`` split, and its query as options; :class:`StoreError` (naming ``engine`` and the
    expected ``form``, never the password) for a wrong scheme, no host, a bad port, or an
    option not in ``options``."""
    shown = without_password(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError as error:
        raise StoreError(f"not a {engine} URL: {shown}: {error}") from None
    if parts.scheme not in schemes or not parts.hostname:
        raise StoreError(f"not a {engine} URL ({form}): {shown}")
    found = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(found) - options)
    if unknown:
        allowed = ", ".join(sorted(options))
        raise StoreError(f"unknown {engine} store option {unknown[0]!r} (allowed: {allowed})")
    return parts, found
