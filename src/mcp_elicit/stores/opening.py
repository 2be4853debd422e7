"""``open_store(url)``: the engine is chosen by the URL's scheme, so deployments switch
engines by configuration alone."""

from __future__ import annotations

from mcp_elicit.stores.contract import Store, StoreError
from mcp_elicit.stores.memory import MemoryStore
from mcp_elicit.stores.sqlite import SQLiteStore

SUPPORTED = (
    "memory://",
    "sqlite:///relative/path.db",
    "sqlite:////absolute/path.db",
    "redis://host:port/db",
    "postgresql://host/database",
)


def open_store(url: str) -> Store:
    """Open the store ``url`` names: ``memory://``, ``sqlite:///relative/path.db``,
    ``sqlite:////absolute/path.db``, ``redis://[user:password@]host[:port][/db][?prefix=]``
    (``rediss://`` with TLS; the ``redis`` extra) or
    ``postgresql://[user[:password]@]host[:port]/database[?schema=&table_prefix=]`` (the
    ``postgres`` extra). Raises :class:`StoreError` for anything else."""
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
    if scheme in ("redis", "rediss"):
        # Imported here: redis-py is an extra, and only a Redis URL needs it.
        from mcp_elicit.stores.redis import RedisStore

        return RedisStore.from_url(url)
    if scheme in ("postgresql", "postgres"):
        from mcp_elicit.stores.postgres import PostgresStore  # asyncpg is an extra

        return PostgresStore.from_url(url)
    raise StoreError(f"unknown store scheme {scheme!r}; supported: {supported}")
