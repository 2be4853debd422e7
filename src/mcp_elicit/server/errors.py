"""Errors the server side raises, each with the wire shape it becomes.

- :class:`CannotAsk`, :class:`InvalidAnswer` and :class:`SecretInForm` are ``ToolError``\\ s:
  the SDK turns them into a tool result with ``isError: true`` whose text is ours (after the
  SDK's ``Error executing tool NAME:`` prefix), so the model and the person learn what went
  wrong. Any other exception reaches the client only as ``Error executing tool NAME``.
- :class:`UrlRequired` is a protocol error: -32042 (2025-11-25) or -32604 (the URL-mode
  draft) with ``data.elicitations``.
- A client that lacks a capability on 2026-07-28 gets -32021: :class:`CapabilityRequired`
  is an ``MCPError`` too, which the SDK passes through as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from mcp_elicit.forms import Problem
from mcp_elicit.protocol import missing_capability_error
from mcp_elicit.protocol.messages import Mode
from mcp_elicit.revisions import Revision


class CannotAsk(ToolError):
    """The question cannot reach this client. Two kinds a tool may tell apart:

    - :class:`ModeUnavailable` — the client cannot answer in this mode at all (it did not
      declare it, or its revision lacks it): asking again in that mode will not help;
    - :class:`NotExpressible` — the client's revision cannot express this question (a
      multi-select on 2025-06-18, say): a simpler question may work.

    A plain ``CannotAsk`` is anything else: the client refused the request, or answered a
    link with a malformed result, or the request carries no user to bind a secret to.
    """


class ModeUnavailable(CannotAsk):
    """The client cannot answer in ``mode`` (``"form"`` or ``"url"``): it did not declare it,
    or its revision (``revision``, ``None`` when it has no elicitation at all) lacks it.

    On 2026-07-28 it is a :class:`CapabilityRequired`: left uncaught, the client gets -32021
    naming the capability and may retry with it declared."""

    def __init__(self, message: str, *, mode: Mode, revision: str | None) -> None:
        super().__init__(message)
        self.mode: Mode = mode
        self.revision = revision


class CapabilityRequired(ModeUnavailable, MCPError):
    """2026-07-28: the request did not declare the elicitation capability for ``mode``.

    Catch it as :class:`ModeUnavailable` to go on without; left uncaught, the SDK passes it
    through as the JSON-RPC error -32021 with ``data.requiredCapabilities``, which the
    revision requires (a tool error would hide from the client what to declare)."""

    def __init__(self, mode: Mode, message: str) -> None:
        error = missing_capability_error({"elicitation": {mode: {}}}, message=message)
        MCPError.__init__(self, error["code"], error["message"], error["data"])
        self.mode = mode
        self.revision = Revision.V2026_07_28.value

    def __str__(self) -> str:
        return self.error.message


class NotExpressible(CannotAsk):
    """The client's revision (``revision``) cannot express this question; a simpler one
    (single choice instead of several, a text field instead of ...) may work."""

    def __init__(self, message: str, *, revision: str) -> None:
        super().__init__(message)
        self.revision = revision


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


class LinkInText(ToolError, ValueError):
    """A URL where only a URL-mode request's ``url`` field may carry one: a question's
    message, a field's title or description, an option, a default, or the message of a link.
    An authoring error, raised by ``ask``/``confirm``/``choose`` (and ``ask_url``, ``secret``,
    ``UrlRequired``) before anything is sent; its text names the place and the URL.

    The URL-mode draft says MUST NOT, 2025-11-25 and 2026-07-28 SHOULD NOT: a link in text
    reaches the person without the checks and the consent a client applies to ``url``, and a
    renderer may make it clickable. A tool error like :class:`SecretInForm`, for the same
    reason (whoever sees the failed call can pass it on); a ``ValueError`` (a bad argument).
    """


class UnsafeLink(ToolError, ValueError):
    """A link ``ask_url`` or ``UrlRequired`` was given breaks a rule the hosted pages are held
    to (:mod:`mcp_elicit.server.link_rules`): plain http on a host that is not loopback, or
    what looks like sensitive information about the user (a password, a token, an email
    address) in the URL. An authoring error, raised before anything is sent; its text names
    the rule, the offending part (never its value) and the opt-out (``allow_insecure_http``,
    ``allow_sensitive_data``). A tool error like :class:`LinkInText`, for the same reason; a
    ``ValueError`` (a bad argument).
    """


def describe_problems(message: str, problems: Sequence[Problem]) -> str:
    """``The answer to "Book a table?" is invalid: guests: must be 8 or less (it is 12)``."""
    details = "; ".join(f"{p.field}: {p.message}" if p.field else p.message for p in problems)
    return f"The answer to {message!r} is invalid: {details}"
