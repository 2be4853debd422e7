"""The ``oauth`` extra's imports, in one place, with an error that names the extra."""

from __future__ import annotations

try:
    import authlib  # noqa: F401
    import joserfc  # noqa: F401
except ImportError as missing:  # pragma: no cover - exercised by installs without the extra
    raise ImportError(
        "mcp_elicit.server.oauth needs the oauth extra: pip install 'mcp-elicit[oauth]' "
        f"({missing.name} is not installed)"
    ) from missing
