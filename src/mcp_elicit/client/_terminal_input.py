"""One line of input from the person, with Esc, Ctrl-C and Ctrl-D turned into :class:`Dismissed`.

Each question gets a fresh ``PromptSession``: answers to one server's form must not come back
through the up-arrow history of the next server's question. Keys typed ahead of a prompt are
not lost in between; prompt_toolkit keeps them per input.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer
from prompt_toolkit.document import Document
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.key_binding.key_processor import KeyPressEvent
from prompt_toolkit.output import Output
from prompt_toolkit.validation import ValidationError, Validator

LineCheck = Callable[[str], str | None]
"""What was typed → the error to show (``Error: …``), or None when it may be entered."""

ESC = "the person pressed Esc"
CTRL_C = "the person pressed Ctrl-C"
EOF = "input ended (Ctrl-D)"


class Dismissed(Exception):
    """The person left the question without answering it; ``reason`` says how."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Escaped(Exception):
    """Raised out of ``prompt_async`` by the Esc binding."""


class CheckValidator(Validator):
    """Runs a :data:`LineCheck` on every change, so the error shows while the person types."""

    def __init__(self, check: LineCheck) -> None:
        self._check = check

    def validate(self, document: Document) -> None:
        error = self._check(document.text)
        if error is not None:
            # Keep the cursor where it is (the end), not at the start of the line. A position
            # in characters, not screen cells: prompt_toolkit measures the cells itself
            # (get_cwidth), so wide characters typed through an input method keep it right.
            raise ValidationError(cursor_position=len(document.text), message=error)


def _bindings() -> KeyBindings:
    bindings = KeyBindings()

    # eager: without it prompt_toolkit waits to see whether Esc starts an Alt-key chord.
    @bindings.add("escape", eager=True)
    def _escape(event: KeyPressEvent) -> None:
        event.app.exit(exception=_Escaped())

    return bindings


_BINDINGS = _bindings()


async def read_line(
    message: str,
    check: LineCheck | None,
    *,
    input: Input | None,
    output: Output | None,
    while_typing: bool = True,
    completer: Completer | None = None,
) -> str:
    """Ask one question; raise :class:`Dismissed` on Esc, Ctrl-C or end of input.

    ``while_typing=False`` runs ``check`` only on Enter (a file path, which would be wrong at
    every keystroke until it is whole); the error then shows under the line, which keeps what
    was typed to fix. ``completer`` completes on Tab only, as a shell does.
    """
    session: PromptSession[str] = PromptSession(
        input=input,
        output=output,
        key_bindings=_BINDINGS,
        validator=None if check is None else CheckValidator(check),
        validate_while_typing=while_typing,
        completer=completer,
        complete_while_typing=False,
    )
    try:
        return await session.prompt_async(message)
    except _Escaped:
        raise Dismissed(ESC) from None
    except KeyboardInterrupt:
        raise Dismissed(CTRL_C) from None
    except EOFError:
        raise Dismissed(EOF) from None
