"""What is wrong with a message we received."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProtocolProblem:
    """One thing wrong with an incoming message: a stable ``code`` and a readable ``message``.

    ``field`` names the offending member (``"mode"``, ``"url"``, ``"content.colors"``), if any.
    """

    code: str
    message: str
    field: str | None = None

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message
