"""Reading the posted form: bounded, and without a multipart parser.

The form is ours and holds three short fields, so a body over :data:`MAX_BODY_BYTES` is not
a person answering it. The body is counted as it streams (a missing or false
``Content-Length`` does not get past), and parsed with the standard library rather than
handed to a general form parser, which keeps the secret out of any code that might log or
spool what it parses.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request

from mcp_elicit.i18n import _

MAX_BODY_BYTES = 16 * 1024
_MAX_FIELDS = 16
_FORM_TYPE = "application/x-www-form-urlencoded"


class FormRefused(Exception):
    """The body is not a form we accept. Messages never quote the body; ``title`` and
    ``message`` are in the language in effect when it was raised (the request's)."""

    def __init__(self, status_code: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.title = title
        self.message = message


# Functions, not shared instances: re-raising one instance would chain every traceback
# onto it and keep each request's frames (and the body in them) alive.
def _too_large() -> FormRefused:
    return FormRefused(
        413,
        _("Too much data"),
        _("That is far more than this form takes: check what you pasted."),
    )


def _not_a_form() -> FormRefused:
    return FormRefused(415, _("Not a form"), _("Send this page's form as a web browser does."))


def _malformed() -> FormRefused:
    return FormRefused(400, _("Bad request"), _("This form arrived damaged; reload it and retry."))


async def read_form(request: Request, *, limit: int = MAX_BODY_BYTES) -> dict[str, str]:
    """The fields of a URL-encoded body, each given at most once."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != _FORM_TYPE:
        raise _not_a_form()
    declared = request.headers.get("content-length")
    # ASCII digits only, and few of them: str.isdigit() also takes "²", which int() refuses,
    # and int() refuses more than 4300 digits (found by fuzzing: a 500, not a 413).
    if declared is not None and not (
        declared.isascii() and declared.isdigit() and len(declared) <= 20
    ):
        raise _too_large()
    if declared is not None and int(declared) > limit:
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _too_large()
    try:
        # URL-encoded bodies are ASCII; a browser percent-encodes everything else.
        pairs = parse_qsl(
            body.decode("ascii"),
            keep_blank_values=True,
            strict_parsing=bool(body),
            encoding="utf-8",
            errors="strict",
            max_num_fields=_MAX_FIELDS,
        )
    except ValueError:
        # `from None`: the parser's message can quote a field, and that field may be the
        # secret; an exception chain is exactly what ends up in a log.
        raise _malformed() from None
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name in fields:
            raise _malformed()  # which copy would be the answer? Neither; ask again.
        fields[name] = value
    return fields
