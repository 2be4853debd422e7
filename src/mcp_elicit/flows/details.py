"""Flow details are stored as JSON by every engine; check them when a flow starts, where the
mistake is made, rather than when a store fails to write them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def json_details(details: Mapping[str, Any] | None) -> dict[str, Any]:
    """A plain JSON copy of ``details``, as a durable store would return it (tuples become
    lists), so a flow reads back the same from every engine. ``ValueError`` names the key
    whose value is not JSON."""
    if details is None:
        return {}
    copied: dict[str, Any] = {}
    for key, value in details.items():
        if not isinstance(key, str):
            raise ValueError(f"flow details keys must be strings, not {key!r}")
        try:
            copied[key] = json.loads(json.dumps(value, allow_nan=False))
        except (TypeError, ValueError) as error:
            raise ValueError(f"flow details[{key!r}] is not JSON-serialisable: {error}") from None
    return copied
