"""What the fuzz targets share: JSON values made from the fuzzer's bytes, and findings.

A target is a function ``check(data: bytes) -> None`` that runs the code under test on one
input and raises :class:`ContractViolation` (or lets the code's own exception through) when
the layer's contract does not hold. :func:`main` hands it to atheris.

Run by hand (``.venv/bin/python fuzz/schema_check.py``), a target behaves as any atheris
fuzzer: it stops at the first finding and writes the input to ``crash-<sha1>``; given files
instead of folders, it runs just those inputs (a reproducer). Under ``fuzz/run.py``
(``FUZZ_KEEP_GOING=1``) it keeps going instead: each *new* finding, told apart by the
exception's type and the lines it came from, is printed as a ``FUZZ-FINDING`` line with its
traceback and its input saved under ``FUZZ_ARTIFACTS``, and the fuzzing goes on, so one run
reports every distinct finding rather than the first.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import atheris

KEEP_GOING = os.environ.get("FUZZ_KEEP_GOING") == "1"
ARTIFACTS = Path(os.environ.get("FUZZ_ARTIFACTS", "."))

# Deeper inputs are skipped: the SDK reads messages with pydantic's JSON parser, which refuses
# anything nested more than 200 deep, so no peer can send them.
MAX_DEPTH = 200


class ContractViolation(AssertionError):
    """The code under test returned, but not what its contract promises."""


def expect(condition: object, message: str) -> None:
    """``assert`` that survives ``python -O``."""
    if not condition:
        raise ContractViolation(message)


# -- JSON from bytes ---------------------------------------------------------------------------


def json_from_bytes(data: bytes, words: Sequence[str]) -> Any:
    """A JSON value: the bytes parsed as JSON text when they are some (the seeds are), else
    one built from them with ``FuzzedDataProvider``, taking object keys and strings mostly
    from ``words`` (the layer's vocabulary) so random bytes still reach past the first check.
    """
    value = _parse_json_text(data)
    if value is not _NOT_JSON:
        return value
    return JsonBuilder(atheris.FuzzedDataProvider(data), words).value()


_NOT_JSON = object()


def _parse_json_text(data: bytes) -> Any:
    if not data or data[:1] not in b'{["-0123456789tfn \t\r\n':
        return _NOT_JSON
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _NOT_JSON


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests more than ``limit`` containers deep (without recursing)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class JsonBuilder:
    """Builds JSON values (``None``, bool, int, float, str, list, dict) from fuzzer bytes."""

    def __init__(self, fdp: atheris.FuzzedDataProvider, words: Sequence[str], max_depth: int = 6):
        self.fdp = fdp
        self.words = list(words) or [""]
        self.max_depth = max_depth

    def value(self, depth: int = 0) -> Any:
        fdp = self.fdp
        kind = fdp.ConsumeIntInRange(0, 10 if depth < self.max_depth else 6)
        if kind == 0:
            return None
        if kind == 1:
            return fdp.ConsumeBool()
        if kind == 2:
            return fdp.ConsumeIntInRange(-3, 100)
        if kind == 3:
            # Up to ~1,200 digits: JSON has no limit, pydantic's parser takes up to 4,300.
            return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 512))
        if kind == 4:
            # Any double, nan and the infinities included: Python's json module and pydantic's
            # parser both read NaN and Infinity.
            return fdp.ConsumeFloat()
        if kind in (5, 6):
            return self.text()
        if kind in (7, 8):
            return [self.value(depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 5))]
        return self.object(depth)

    def object(self, depth: int = 0) -> dict[str, Any]:
        count = self.fdp.ConsumeIntInRange(0, 6)
        return {self.text(): self.value(depth + 1) for _ in range(count)}

    def text(self) -> str:
        fdp = self.fdp
        choice = fdp.ConsumeIntInRange(0, 3)
        if choice <= 1:
            return self.words[fdp.ConsumeIntInRange(0, len(self.words) - 1)]
        if choice == 2:
            return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 24))
        # Lone surrogates too: "\ud800" is valid JSON text, and Python's json reads it.
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 24))


# -- running -----------------------------------------------------------------------------------


def main(check: Callable[[bytes], None], name: str) -> None:
    """Fuzz ``check`` with the command line's libFuzzer options, corpus folders or inputs."""
    seen: set[tuple[str, ...]] = set()

    def one_input(data: bytes) -> None:
        try:
            check(data)
        except Exception as exc:
            if not KEEP_GOING:
                raise
            signature = _signature(exc)
            if signature in seen:
                return
            seen.add(signature)
            _report(name, exc, data, signature, len(seen))

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


def _signature(exc: BaseException) -> tuple[str, ...]:
    """Where a finding comes from: its type, the innermost line of the project's code, and the
    line of the target that was running (one check, one contract)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}mcp_elicit{os.sep}" in f.filename]
    target = [
        f
        for f in frames
        if f"{os.sep}fuzz{os.sep}" in f.filename and not f.filename.endswith("_harness.py")
    ]
    where = [f"{Path(f.filename).name}:{f.lineno}" for f in (ours[-1:] + target[-1:])]
    return (type(exc).__name__, *where)


def _report(name: str, exc: BaseException, data: bytes, signature: tuple[str, ...], n: int) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"finding-{hashlib.sha1(data).hexdigest()}"
    path.write_bytes(data)
    lines = "".join(traceback.format_exception(exc)).rstrip()
    # The traceback first, then one line the driver reads.
    print(f"\n{lines}", file=sys.stderr)
    print(
        f"FUZZ-FINDING {name} #{n} {' '.join(signature)} input={path}",
        file=sys.stderr,
        flush=True,
    )


# -- requestedSchema-shaped values -------------------------------------------------------------

SCHEMA_WORDS = (
    "type",
    "object",
    "properties",
    "required",
    "$schema",
    "title",
    "description",
    "$comment",
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "const",
    "items",
    "minLength",
    "maxLength",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "default",
    "email",
    "uri",
    "date",
    "date-time",
    "name",
    "a",
    "b",
    "",
    "https://json-schema.org/draft/2020-12/schema",
    "null",
    "true",
    "0",
    "-1",
    "1.5",
)
FORMATS = ("email", "uri", "date", "date-time", "ipv4", "", "EMAIL")
PATTERNS = (
    "^[a-z]+$",
    "[0-9]{3}",
    "(a+)+$",
    "(a)\\1",
    "(?=x)",
    "[",
    "\\",
    "",
    "a{1,1001}",
    "\\p{L}+",
    "(?P<n>x)",
    "\\d",
    "^.*$",
    "x*" * 20,
)
# What a person might type into a field (Form.coerce): numbers in many spellings, words, and
# digits that are not ASCII (str.isdigit() is true for some that int() refuses).
TYPED = (
    "",
    " ",
    "yes",
    "no",
    "Y",
    "off",
    "42",
    "-7",
    "+3",
    "1_000",
    "3.5",
    ".5",
    "1e3",
    "1e400",
    "-0",
    "nan",
    "inf",
    "0x1f",
    "1,2",
    "a, b",
    "2",
    "0",
    "٣",
    "²",
    "①",
    "߂",
    "12²",
    "2025-03-31",
    "2025-03-31 14:30:00Z",
    "2025-03-31T14:30:00+02:00",
    "a@b.co",
    "https://x.y/",
)


class SchemaBuilder(JsonBuilder):
    """Builds ``requestedSchema``-shaped objects: mostly the shapes of the revisions, each piece
    now and then (``junk`` percent of the time) replaced by an arbitrary JSON value."""

    junk = 4

    def chance(self, percent: int) -> bool:
        # Out of bytes the provider gives 0: then nothing optional happens.
        return self.fdp.ConsumeIntInRange(0, 99) >= 100 - percent

    def or_junk(self, value: Any) -> Any:
        return self.value(self.max_depth - 2) if self.chance(self.junk) else value

    def word(self, words: Sequence[str]) -> str:
        return words[self.fdp.ConsumeIntInRange(0, len(words) - 1)]

    def count(self, high: int) -> Any:
        fdp = self.fdp
        pick = fdp.ConsumeIntInRange(0, 9)
        if pick <= 5:
            return fdp.ConsumeIntInRange(0, high)
        if pick == 6:
            return float(fdp.ConsumeIntInRange(0, high))
        if pick == 7:
            return fdp.ConsumeIntInRange(-2, 2)
        return self.value(self.max_depth - 1)

    def bound(self) -> Any:
        fdp = self.fdp
        pick = fdp.ConsumeIntInRange(0, 9)
        if pick <= 4:
            return fdp.ConsumeIntInRange(-100, 100)
        if pick <= 6:
            return fdp.ConsumeRegularFloat()
        if pick == 7:
            return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 200))  # past a float's range too
        return self.value(self.max_depth - 1)

    def how_many(self) -> int:
        """How many options: now and then none, which no revision allows."""
        return self.fdp.ConsumeIntInRange(0 if self.chance(5 * self.junk) else 1, 4)

    def options(self, count: int) -> list[str]:
        return [self.or_junk(self.short_text()) for _ in range(count)]

    def short_text(self) -> str:
        if self.chance(70):
            return self.word(("a", "b", "c", "red", "Green", "1", "2", "", " a ", "é"))
        return self.fdp.ConsumeUnicode(self.fdp.ConsumeIntInRange(0, 8))

    def schema(self) -> Any:
        fdp = self.fdp
        if self.chance(self.junk):
            return self.value()
        schema: dict[str, Any] = {}
        schema["type"] = self.or_junk("object")
        names: list[str] = []
        properties: dict[str, Any] = {}
        for _ in range(fdp.ConsumeIntInRange(0, 5)):
            name = self.short_text() if self.chance(30) else self.word(("name", "age", "x", "y"))
            if name not in properties:
                names.append(name)
            properties[name] = self.prop()
        schema["properties"] = self.or_junk(properties)
        if self.chance(60):
            schema["required"] = self.or_junk(
                [n for n in names if self.chance(60)]
                + ([self.short_text()] if self.chance(5) else [])
            )
        if self.chance(10):
            schema["$schema"] = self.or_junk("https://json-schema.org/draft/2020-12/schema")
        if self.chance(10):
            schema[self.word(("title", "description", "$comment", "additionalProperties"))] = (
                self.or_junk("Some text")
            )
        return schema

    def prop(self) -> Any:
        fdp = self.fdp
        shape = fdp.ConsumeIntInRange(0, 8 if self.chance(10 * self.junk) else 6)
        prop: dict[str, Any]
        if shape == 0:
            prop = {"type": "string"}
            if self.chance(30):
                prop["minLength"] = self.count(5)
            if self.chance(30):
                prop["maxLength"] = self.count(20)
            if self.chance(30):
                prop["format"] = self.or_junk(self.word(FORMATS))
            if self.chance(15):
                prop["pattern"] = self.or_junk(self.word(PATTERNS))
        elif shape in (1, 2):
            prop = {"type": "integer" if shape == 1 else "number"}
            if self.chance(40):
                prop["minimum"] = self.bound()
            if self.chance(40):
                prop["maximum"] = self.bound()
        elif shape == 3:
            prop = {"type": "boolean"}
        elif shape == 4:
            values = self.options(self.how_many())
            prop = {"type": "string", "enum": values}
            if self.chance(25):
                prop["enumNames"] = self.options(len(values) + fdp.ConsumeIntInRange(-1, 1))
        elif shape == 5:
            prop = {"type": "string", "oneOf": self.titled(self.how_many())}
        elif shape == 6:
            prop = {"type": "array"}
            if self.chance(50):
                prop["items"] = {
                    "type": "string",
                    "enum": self.options(self.how_many()),
                }
            else:
                prop["items"] = {"anyOf": self.titled(self.how_many())}
            if self.chance(3 * self.junk):  # "items" holds one of two shapes and nothing else
                prop["items"][self.word(SCHEMA_WORDS)] = self.value(self.max_depth - 2)
            if self.chance(30):
                prop["minItems"] = self.count(4)
            if self.chance(30):
                prop["maxItems"] = self.count(5)
        elif shape == 7:
            prop = {"type": self.word(("object", "null", "date", "String", "integer"))}
        else:
            return self.value(2)
        if self.chance(30):
            prop["title"] = self.or_junk(self.short_text())
        if self.chance(20):
            prop["description"] = self.or_junk(self.short_text())
        if self.chance(25):
            prop["default"] = self.default_for(prop)
        if self.chance(self.junk):
            prop[self.word(SCHEMA_WORDS)] = self.value(self.max_depth - 2)
        return prop

    def titled(self, count: int) -> list[Any]:
        return [
            self.or_junk({"const": self.short_text(), "title": self.short_text()})
            for _ in range(count)
        ]

    def default_for(self, prop: dict[str, Any]) -> Any:
        if self.chance(10 * self.junk):
            return self.value(self.max_depth - 1)
        kind = prop.get("type")
        options = prop.get("enum") or [
            o.get("const") for o in prop.get("oneOf", []) if isinstance(o, dict)
        ]
        if kind == "boolean":
            return self.fdp.ConsumeBool()
        if kind in ("integer", "number"):
            return self.bound()
        if kind == "array":
            items = prop.get("items", {})
            pool = items.get("enum") or [
                o.get("const") for o in items.get("anyOf", []) if isinstance(o, dict)
            ]
            return [o for o in pool if self.chance(50)]
        if options and self.chance(70):
            return options[self.fdp.ConsumeIntInRange(0, len(options) - 1)]
        return self.short_text()
