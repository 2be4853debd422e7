"""``open_store(url)``: the engine is chosen by the URL's scheme, so deployments switch
engines by configuration alone."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from mcp_elicit.stores.contract import Store, StoreError
from mcp_elicit.stores.memory import MemoryStore
from mcp_elicit.stores.sqlite import SQLiteStore

SUPPORTED = ("memory://", "sqlite:///relative/path.db", "sqlite:////absolute/path.db")
# Engines the design names that a later issue adds; a URL for one of them is valid, just early.
NOT_BUILT = {
    "redis": "Redis",
    "rediss": "Redis",
    "postgresql": "PostgreSQL",
    "postgres": "PostgreSQL",
}


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


def open_store(url: str) -> Store:
    """Open the store ``url`` names: ``memory://``, ``sqlite:///relative/path.db`` or
    ``sqlite:////absolute/path.db``. Raises :class:`StoreError` for anything else."""
    scheme, sep, _ = url.partition("://")
    scheme = scheme.lower()
    supported = ", ".join(SUPPORTED)
    if not sep or not scheme:
        # Not echoed: what is not a URL cannot be cleaned of a password reliably.
        raise StoreError(f"not a store URL (no scheme://); supported: {supported}")
    if scheme == "memory":
        if url.lower() != "memory://":
            raise StoreError("the memory store takes no path or options: use 'memory://'")
        return MemoryStore()
    if scheme == "sqlite":
        return SQLiteStore.from_url(url)
    if scheme in NOT_BUILT:
        raise StoreError(
            f"the {NOT_BUILT[scheme]} engine ({scheme}://) is not built yet; supported: {supported}"
        )
    raise StoreError(f"unknown store scheme {scheme!r}; supported: {supported}")
