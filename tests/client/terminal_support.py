"""A terminal the tests type into and read, the way a person at a keyboard would
(tests/client/test_terminal.py, tests/client/test_terminal_languages.py): keys, a form schema with
every field kind, a captured screen, a script played against it, and small real image and sound
files to attach."""

from __future__ import annotations

import io
import re
import struct
import wave
import zlib
from collections.abc import Awaitable
from io import StringIO
from typing import Any, TypeVar

import anyio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput
from prompt_toolkit.output.vt100 import Vt100_Output

from mcp_elicit.client.prompts import FormPrompt
from mcp_elicit.forms import Form

T = TypeVar("T")

ESC = "\x1b"
CTRL_C = "\x03"
CTRL_D = "\x04"
BACKSPACE = "\x7f"

_TOKENS = re.compile(
    r"\x1b\[([0-?]*)[ -/]*([@-~])"  # CSI: cursor moves, erasing, colours
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: the window title
    r"|\x1b[()][0-9A-Za-z]|\x1b."  # charsets, other escapes
    r"|[\r\n\b]|[^\x1b\r\n\b]+"
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Name",
            "description": "Your full name",
            "minLength": 2,
            "maxLength": 20,
        },
        "email": {"type": "string", "format": "email", "title": "Email"},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150, "default": 30},
        "height": {"type": "number", "title": "Height", "minimum": 0.5, "maximum": 2.5},
        "subscribe": {"type": "boolean", "title": "Subscribe", "default": False},
        "colour": {
            "type": "string",
            "title": "Colour",
            "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}],
        },
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "minItems": 1,
            "maxItems": 2,
            "items": {
                "anyOf": [
                    {"const": "cheese", "title": "Cheese"},
                    {"const": "ham", "title": "Ham"},
                    {"const": "olives", "title": "Olives"},
                ]
            },
        },
    },
    "required": ["name", "colour", "toppings"],
}


class Screen:
    """A captured terminal, read the way tmux capture-pane reads one.

    prompt_toolkit redraws a prompt by moving the cursor and writing only the cells that
    changed, so the raw output is not the text on screen; a small VT100 model (relative cursor
    moves, erasing, newlines as a terminal's ``onlcr`` treats them) turns it back into lines.
    """

    def __init__(self, pipe: PipeInput) -> None:
        self.pipe = pipe
        self.buffer = StringIO()
        self.output = Vt100_Output(self.buffer, lambda: Size(rows=60, columns=240), term="xterm")
        self._fed = 0
        self._lines: list[list[str]] = [[]]
        self._row = 0
        self._col = 0
        self._last: tuple[int, int] = (0, 0)  # where the previous expected text began

    @property
    def text(self) -> str:
        self._feed()
        return "\n".join("".join(line).rstrip() for line in self._lines)

    def _feed(self) -> None:
        data = self.buffer.getvalue()[self._fed :]
        self._fed += len(data)
        for token in _TOKENS.finditer(data):
            chunk, params, final = token.group(0), token.group(1), token.group(2)
            if final is not None:
                self._control(final, int(params) if params.isdigit() else None)
            elif chunk == "\r":
                self._col = 0
            elif chunk == "\n":
                self._row, self._col = self._row + 1, 0
            elif chunk == "\b":
                self._col = max(0, self._col - 1)
            elif not chunk.startswith("\x1b"):
                for char in chunk:
                    self._put(char)

    def _control(self, final: str, count: int | None) -> None:
        moves = {"A": (-1, 0), "B": (1, 0), "C": (0, 1), "D": (0, -1)}
        if final in moves:
            down, right = moves[final]
            self._row = max(0, self._row + down * (count or 1))
            self._col = max(0, self._col + right * (count or 1))
        elif final == "G":
            self._col = (count or 1) - 1
        elif final == "K":
            del self._line()[self._col :]
        elif final == "J":
            del self._line()[self._col :]
            del self._lines[self._row + 1 :]

    def _line(self) -> list[str]:
        while len(self._lines) <= self._row:
            self._lines.append([])
        return self._lines[self._row]

    def _put(self, char: str) -> None:
        line = self._line()
        line.extend(" " * (self._col + 1 - len(line)))
        line[self._col] = char
        self._col += 1

    def _find(self, needle: str) -> tuple[int, int] | None:
        text = self.text
        starts = [0]
        for line in text.split("\n"):
            starts.append(starts[-1] + len(line) + 1)
        row, col = self._last
        found = text.find(needle, starts[row] + col if row < len(starts) else len(text))
        if found < 0:
            return None
        row = max(r for r, start in enumerate(starts) if start <= found)
        return row, found - starts[row]

    async def expect(self, needle: str, timeout: float = 5) -> None:
        """Wait until ``needle`` is on screen, at or after where the previous one began."""
        with anyio.move_on_after(timeout):
            while (where := self._find(needle)) is None:
                await anyio.sleep(0.01)
            self._last = where
            return
        raise AssertionError(f"{needle!r} not on screen:\n{self.text}")

    def type(self, keys: str) -> None:
        self.pipe.send_text(keys)


async def play(screen: Screen, call: Awaitable[T], script: list[tuple[str, str]]) -> T:
    """Run ``call`` while typing each ``keys`` once ``wait_for`` is on screen."""
    results: list[T] = []

    async def run() -> None:
        results.append(await call)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(run)
            for wait_for, keys in script:
                await screen.expect(wait_for)
                screen.type(keys)
    return results[0]


def form_prompt(schema: dict[str, Any] = SCHEMA, **kwargs: Any) -> FormPrompt:
    return FormPrompt(
        server="weather", message="Tell us about you", form=Form.from_schema(schema), **kwargs
    )


def png_bytes(width: int = 4, height: int = 3) -> bytes:
    """A real PNG: RGB, 8 bits, a grey image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def wav_bytes(frames: int = 800) -> bytes:
    """A real WAV: 8 kHz, mono, 16 bits, silence."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(b"\x00\x00" * frames)
    return buffer.getvalue()
