"""The specification's example JSON, copied into tests/data/spec (the project stands alone)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SPEC = Path(__file__).parent / "data" / "spec"
VECTORS = SPEC / "vectors"
EXAMPLES = SPEC / "2026-07-28" / "examples"

# Which revision each vector's source tag belongs to (see the checklist's section 4).
TAG_REVISION = {
    "R0618": "2025-06-18",
    "R0618rel": "2025-06-18",
    "LC0618": "2025-06-18",
    "PROG": "2025-06-18",
    "SEED004": "url-draft",
    "R1125": "2025-11-25",
    "LC1125": "2025-11-25",
    "TASKS1125": "2025-11-25",
    "R0728": "2026-07-28",
    "MRTR": "2026-07-28",
    "TOOLS": "2026-07-28",
    "VERS": "2026-07-28",
    "EX0728": "2026-07-28",
    "SEED002": None,  # the early content-array draft: no schema at all
    "EARLY": None,
}
PROPERTY_TYPES = {"string", "number", "integer", "boolean", "array"}
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _strip_comments(text: str) -> str:
    """Drop // comments outside strings (JSONC as the specification's pages write it)."""
    out: list[str] = []
    in_string = escaped = False
    i = 0
    while i < len(text):
        char = text[i]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(char)
        i += 1
    return _TRAILING_COMMA.sub(r"\1", "".join(out))


def load_jsonc(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.name.endswith(".jsonc.txt"):
        text = _strip_comments(text).strip()
        if text.startswith('"'):  # a fragment such as `"requestedSchema": {...}`
            text = "{" + text + "}"
    return json.loads(text)


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def schemas_in(document: Any) -> Iterator[dict[str, Any]]:
    """Every requestedSchema in a document; a lone property schema is wrapped as one field."""
    if isinstance(document, dict) and document.get("type") in PROPERTY_TYPES:
        yield {"type": "object", "properties": {"example": document}}
        return
    for node in _walk(document):
        if isinstance(node, dict) and isinstance(node.get("requestedSchema"), dict):
            yield node["requestedSchema"]


def spec_schemas() -> list[tuple[str, str, dict[str, Any]]]:
    """(id, revision, schema) for every schema example in the copied specification data."""
    found = []
    for path in sorted(VECTORS.iterdir()):
        tag = path.name.split("_")[1]
        revision = TAG_REVISION[tag]
        if revision is None:
            continue
        for index, schema in enumerate(schemas_in(load_jsonc(path))):
            found.append((f"{path.name.split('_')[0]}-{index}", revision, schema))
    for path in sorted(EXAMPLES.rglob("*.json")):
        for index, schema in enumerate(schemas_in(load_jsonc(path))):
            found.append((f"{path.parent.name}/{path.stem}-{index}", "2026-07-28", schema))
    return found


def official_json_schema(revision: str) -> dict[str, Any]:
    return json.loads((SPEC / revision / "schema.json").read_text(encoding="utf-8"))
