"""Server logs: the application's logging when it has set some up; otherwise, for a server
our command line starts, one line per record, plain text or JSON.

The rule: an application that configured logging (the root logger has handlers) decides
everything: mcp-elicit adds no handler and sets no level, and neither does uvicorn under
``Elicitation.run`` (:func:`uvicorn_logging`). The SDK's ``MCPServer`` installs a Rich
handler, wrapped at 80 columns, only on a root logger with none, so an application that
configures logging *before* it builds its server keeps its own records.

A server process started by ``mcp-elicit`` (the demo's servers, ``mcp-elicit gateway``) calls
:func:`configure` first: records as ``time level logger message`` on stderr, never wrapped,
a line break inside a record written as ``\\n`` so that each record stays one line (one grep
finds it across instances); with ``MCP_ELICIT_LOG_FORMAT=json``, one JSON object per line.

Nothing here redacts: a secret never reaches a log record in the first place (the vault, the
flows and the stores log ids and digests, never values; docs/security.md).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

LOG_FORMAT_VARIABLE = "MCP_ELICIT_LOG_FORMAT"
"""``text`` (the default) or ``json``: the records of a server our command line starts, or
of ``Elicitation.run`` in place of the SDK's default; ``rich`` keeps the SDK's default."""
LogFormat = Literal["text", "json", "rich"]
FORMATS: tuple[LogFormat, ...] = ("text", "json", "rich")


def application_configured() -> bool:
    """Whether the application has set up logging: the root logger has a handler that is
    neither ours (:func:`configure`) nor the SDK's default (:func:`sdk_default_handler`)."""
    handlers = logging.getLogger().handlers
    return any(not getattr(h, _OURS, False) for h in handlers) and sdk_default_handler() is None


_OURS = "_mcp_elicit_handler"


def sdk_default_handler() -> logging.Handler | None:
    """The handler the SDK's ``MCPServer(...)`` installs on a root logger that had none
    (``mcp.server.mcpserver.utilities.logging.configure_logging``: a Rich handler, message
    only, wrapped at the terminal's width or 80 columns), if it is the root's only one."""
    handlers = logging.getLogger().handlers
    if len(handlers) != 1:
        return None
    (handler,) = handlers
    kind = type(handler)
    fmt = handler.formatter._fmt if handler.formatter is not None else None
    if (kind.__module__, kind.__name__) == ("rich.logging", "RichHandler") and fmt == "%(message)s":
        return handler
    return None


def _time(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


class LineFormatter(logging.Formatter):
    """``2026-11-27T23:05:01.123Z WARNING mcp_elicit.flows the message``: one line, however
    long (no wrapping) and whatever the message holds (line breaks written as ``\\n``); a
    traceback follows the message on the same line."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            text += "\n" + self.formatStack(record.stack_info)
        return _one_line(f"{_time(record)} {record.levelname} {record.name} {text}")


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line: ``time``, ``level``, ``logger``,
    ``message``, and ``exception`` when the record carries one."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": _time(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def log_format(given: str | None = None) -> LogFormat:
    """``given``, else ``MCP_ELICIT_LOG_FORMAT``, else ``text``; a ``ValueError`` naming
    the setting for anything else."""
    chosen = given if given is not None else os.environ.get(LOG_FORMAT_VARIABLE) or "text"
    for known in FORMATS:
        if chosen == known:
            return known
    source = "log format" if given is not None else LOG_FORMAT_VARIABLE
    raise ValueError(f"{source} {chosen!r}: one of {', '.join(FORMATS)}")


def configure(
    format: str | None = None, *, level: int | str = logging.INFO, stream: TextIO | None = None
) -> bool:
    """One-line records (``format``: ``text`` or ``json``, default ``MCP_ELICIT_LOG_FORMAT``
    or ``text``) on ``stream`` (stderr) at ``level`` (uvicorn's at WARNING at least), for a
    server process of our command line; call it before building the server. Nothing is
    changed when the application has configured logging already: then ``False``."""
    chosen = log_format(format)
    if chosen == "rich" or logging.getLogger().handlers:
        return False
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    setattr(handler, _OURS, True)
    handler.setFormatter(JsonFormatter() if chosen == "json" else LineFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    # uvicorn's lifecycle lines ("Started server process") are not a server's news: its
    # problems are (what uvicorn's own log_level="warning" gave before).
    logging.getLogger("uvicorn").setLevel(max(root.level, logging.WARNING))
    return True


def take_over_sdk_default(format: str | None = None) -> bool:
    """Replace the SDK's default handler (:func:`sdk_default_handler`), when it is the root
    logger's only one, with :func:`configure`'s one-line records at the same level: what
    ``Elicitation.run`` does, so that a server whose author configured no logging writes
    searchable lines, not Rich's wrapped ones. ``MCP_ELICIT_LOG_FORMAT=rich`` (or
    ``format="rich"``) keeps the SDK's; an application's own handlers are never touched."""
    sdk = sdk_default_handler()
    if sdk is None or log_format(format) == "rich":
        return False
    root = logging.getLogger()
    root.removeHandler(sdk)
    return configure(format, level=root.level)


def uvicorn_logging(level: str = "warning") -> dict[str, Any]:
    """``uvicorn.Config`` settings for a server's records: uvicorn's go through the root
    logger's handlers, never handlers of its own (``log_config=None``); ``level`` is set on
    uvicorn's loggers only when the application has not configured logging (then its
    levels decide)."""
    return {"log_config": None, "log_level": None if application_configured() else level}
