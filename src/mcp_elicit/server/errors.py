"""Errors the server side raises, each with the wire shape it becomes.

- :class:`CannotAsk`, :class:`InvalidAnswer` and :class:`SecretInForm` are ``ToolError``\\ s:
  the SDK turns them into a tool result with ``isError: true`` whose text is ours (after the
  SDK's ``Error executing tool NAME:`` prefix), so the model and the person learn what went
  wrong. Any other exception reaches the client only as ``Error executing tool NAME``.
- :class:`UrlRequired` is a protocol error: -32042 (2025-11-25) or -32604 (the URL-mode
  draft) with ``data.elicitations``.
- A client that lacks a capability on 2026-07-28 gets ``MCPError`` -32021 (built where it
  is raised, in ``asking``).
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.mcpserver.exceptions import ToolError

from mcp_elicit.forms import Problem


class CannotAsk(ToolError):
    """The question cannot reach this client: a mode it did not declare, or a schema its
    revision cannot express."""


class InvalidAnswer(ToolError):
    """The client sent an answer that breaks the form's rules; ``problems`` name each field."""

    def __init__(self, message: str, problems: Sequence[Problem]) -> None:
        super().__init__(describe_problems(message, problems))
        self.problems = tuple(problems)


class SecretInForm(ToolError, ValueError):
    """A form field looks like it asks for a secret: an authoring error, raised at ``ask``.

    A tool error, so that its text reaches the tool result: it names only the type and the
    field and says what to do instead (no value exists yet: the question was never sent),
    and whoever sees the failed call can pass it on to the server's author, who otherwise
    finds it only in the server log. Still a ``ValueError`` (a bad argument to ``ask``) for
    code that caught it as one.
    """


def describe_problems(message: str, problems: Sequence[Problem]) -> str:
    """``The answer to "Book a table?" is invalid: guests: must be 8 or less (it is 12)``."""
    details = "; ".join(f"{p.field}: {p.message}" if p.field else p.message for p in problems)
    return f"The answer to {message!r} is invalid: {details}"
