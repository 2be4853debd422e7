"""The 10-field form both benchmarks use, as one pydantic model (the SDK takes nothing else),
and a valid answer to it (no email field)."""

from __future__ import annotations

import json
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

from mcp_elicit.forms import schema_of

REVISION = "2025-11-25"


def make_model() -> type[BaseModel]:
    """A NEW class on every call (so a first, uncached call can be timed again and again)."""

    class Profile(BaseModel):
        name: str = Field(min_length=1, max_length=50)
        age: int = Field(ge=0, le=150)
        score: float = Field(ge=0, le=10)
        subscribe: bool = False
        color: Literal["red", "green", "blue"] = "red"
        tags: list[Literal["a", "b", "c"]] = Field(default_factory=list)
        birthday: date
        nickname: str | None = None
        country: Literal["fr", "de", "it"]
        notes: str = ""

    return Profile


Model = make_model()

VALID_CONTENT: dict[str, Any] = {
    "name": "Ann",
    "age": 36,
    "score": 7.5,
    "subscribe": True,
    "color": "green",
    "tags": ["a", "c"],
    "birthday": "1990-05-17",
    "nickname": "annie",
    "country": "fr",
    "notes": "",
}


def plain_schema() -> dict[str, Any]:
    """``schema_of(Model)`` as a plain, mutable JSON dict (what arrives over the wire)."""
    schema: dict[str, Any] = json.loads(json.dumps(schema_of(Model, revision=REVISION)))
    return schema
