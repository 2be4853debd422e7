"""The page server's routes, relative to ``/TOKEN/`` (see :mod:`guard`):

- ``GET  /`` — the page (one HTML document; everything else it draws from the state);
- ``GET  /static/renderer.js``, ``/static/renderer.css`` — its script and stylesheet, packaged
  with mcp-elicit: the page loads nothing from anywhere else;
- ``GET  /api/state?since=VERSION`` — the pending prompts and recent notices; waits (a long
  poll) until the version differs from ``since`` or ``hold`` seconds pass. The page always has
  one open: it is also how :class:`Presence` knows the page is still there;
- ``POST /api/validate`` — ``{"id", "values", "attachments"?}``: each field's message (the
  form model's, as at the terminal) and, when there is none, the review lines;
- ``POST /api/answer`` — ``{"id", "action", "values"?, "attachments"?}``; ``action`` is
  ``accept`` (a form's answer, or consent to open a link), ``decline``, ``cancel``, or ``done``
  (finished on the linked page). 409 when the prompt is no longer pending; 422 with the
  messages when a form's values are not valid (never sent to the server).

``attachments`` go only with a free-text question (:attr:`FormPrompt.free_text`), and only
with ``accept``: ``{"name", "mimeType", "size"}`` each while checking, ``{"name",
"mimeType", "data"}`` (base64) with the answer (see :mod:`answers`). Any other prompt, or
action, that sends them gets a 400. Only such an answer may be larger than :data:`MAX_BODY`.

Nothing here trusts a body: one that is not a JSON object in UTF-8, holds a lone surrogate
(``"\\ud800"``), ``NaN``, a number too long to read, nesting deeper than :data:`MAX_DEPTH`, or
an ``id``, ``action`` or ``key`` that is not text, gets a 400 whose ``error`` names the
problem (413 for a body too large), and answers nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from mcp_elicit.client.prompts import (
    MAX_ATTACHMENT_BYTES,
    Accept,
    Cancel,
    Decision,
    Decline,
    FormPrompt,
)
from mcp_elicit.client.web.answers import (
    ATTACHMENTS,
    Malformed,
    Submission,
    read_free_text,
    read_values,
    review,
)
from mcp_elicit.client.web.guard import Guard
from mcp_elicit.client.web.presence import Presence
from mcp_elicit.client.web.queue import Pending, Queue
from mcp_elicit.client.web.views import state_view
from mcp_elicit.client.web.words import in_language, page_html
from mcp_elicit.i18n import _

# Why a prompt was cancelled, as the handler's audit and the terminal word it.
CHOSE_CANCEL = "the person chose cancel"
PRESSED_ESC = "the person pressed Esc"

# A form's answer is small; anything bigger than this is not from our page.
MAX_BODY = 256 * 1024

# A free-text answer may carry files: MAX_ATTACHMENT_BYTES of them, in base64 (4 characters for
# every 3 bytes), and MAX_BODY more for the text and the files' names.
MAX_ANSWER_BODY = MAX_BODY + 4 * -(-MAX_ATTACHMENT_BYTES // 3)

_STATIC = files("mcp_elicit.client.web").joinpath("static")
_FILES = {
    "index.html": "text/html; charset=utf-8",
    "renderer.js": "text/javascript; charset=utf-8",
    "renderer.css": "text/css; charset=utf-8",
}
# Read once: small, part of the package (the wheel carries static/), never changed at run time.
_CONTENT = {name: _STATIC.joinpath(name).read_bytes() for name in _FILES}

_ACTIONS: dict[str, frozenset[str]] = {
    "form": frozenset({"accept", "decline", "cancel"}),
    "url": frozenset({"accept", "decline", "cancel"}),
    "wait": frozenset({"done", "cancel"}),
}


class _BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


_TOO_LARGE = "the request is too large"


def page_app(
    queue: Queue,
    presence: Presence,
    *,
    token: str,
    port: int,
    hold: float = 20.0,
    language: str | None = None,
) -> ASGIApp:
    """The ASGI app for one renderer, every route behind :class:`Guard`, each request in its
    language (``language``, else the browser's: :mod:`words`)."""

    async def page(request: Request) -> Response:
        return Response(page_html(), media_type=_FILES["index.html"])

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _FILES or name == "index.html":
            return JSONResponse({"error": "not found"}, status_code=404)
        return _file(name)

    async def state(request: Request) -> Response:
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            since = -1
        with presence.polling():
            if not await _wait_for_change(request, queue, since, hold):
                return Response(status_code=204)  # the page has gone; nobody reads this
            view = state_view(queue)
            for pending in queue.ordered():
                pending.seen = True
        return JSONResponse(view)

    async def validate(request: Request) -> Response:
        try:
            pending, body = await _pending_form(request, queue)
            if pending is None:
                return _gone()
            assert isinstance(pending.prompt, FormPrompt)
            form = pending.prompt.form
            reading = _reading(pending.prompt, body, with_data=False)
        except _BadRequest as bad:
            return _error(str(bad), bad.status)
        reply: dict[str, Any] = {"problems": reading.problems}
        if not reading.problems:
            reply["review"] = review(form, reading.content)
        return JSONResponse(reply)

    async def answer(request: Request) -> Response:
        try:
            # Room for files only while a free-text question waits; then only its answer.
            waiting = any(_free_text(p.prompt) for p in queue.ordered())
            raw = await _read_body(request, MAX_ANSWER_BODY if waiting else MAX_BODY)
            body = _parsed(raw)
            pending = queue.get(str(body.get("id")))
            action = body.get("action")
            if pending is None:
                return _gone()
            if len(raw) > MAX_BODY and not _free_text(pending.prompt):
                raise _BadRequest(_TOO_LARGE, 413)
            if action not in _ACTIONS[pending.kind]:
                raise _BadRequest(f"action must be one of {sorted(_ACTIONS[pending.kind])}")
            if "values" in body and not isinstance(pending.prompt, FormPrompt):
                raise _BadRequest("only a form's answer has values")
            if ATTACHMENTS in body and action != "accept":
                raise _BadRequest(f"only an answer has {ATTACHMENTS}")
            chosen: Decision
            if action == "decline":
                chosen = Decline()
            elif action == "cancel":
                chosen = Cancel(reason=PRESSED_ESC if body.get("key") == "Escape" else CHOSE_CANCEL)
            elif isinstance(pending.prompt, FormPrompt):
                reading = _reading(pending.prompt, body, with_data=True)
                if reading.problems:
                    return JSONResponse({"problems": reading.problems}, status_code=422)
                chosen = Accept(content=reading.content, attachments=tuple(reading.attachments))
            elif ATTACHMENTS in body:
                raise _BadRequest(f"only a free-text question takes {ATTACHMENTS}")
            else:
                chosen = Accept()  # consent to open the link, or done on the linked page
        except _BadRequest as bad:
            return _error(str(bad), bad.status)
        if not queue.resolve(pending, chosen):
            return _gone()
        return JSONResponse({"ok": True})

    app = Starlette(
        routes=[
            Route("/", page, methods=["GET"]),
            Route("/static/{name}", static, methods=["GET"]),
            Route("/api/state", state, methods=["GET"]),
            Route("/api/validate", validate, methods=["POST"]),
            Route("/api/answer", answer, methods=["POST"]),
        ]
    )
    # The language first, so that even a refusal is worded in it.
    return in_language(Guard(app, token=token, port=port), language)


async def _wait_for_change(request: Request, queue: Queue, since: int, hold: float) -> bool:
    """Wait until the queue changes after ``since`` or ``hold`` passes; ``False`` if the page
    hung up meanwhile (a closed tab: :class:`Presence` then starts counting)."""
    if queue.version != since or queue.closed:
        return True
    gone = False
    with anyio.move_on_after(hold):
        async with anyio.create_task_group() as tasks:

            async def watch_connection() -> None:
                nonlocal gone
                # A GET has no body: the next message the server gives is the disconnect.
                while (await request.receive())["type"] != "http.disconnect":
                    pass
                gone = True
                tasks.cancel_scope.cancel()

            tasks.start_soon(watch_connection)
            await queue.changed_since(since)
            tasks.cancel_scope.cancel()
    return not gone


async def _json_body(request: Request) -> Mapping[str, Any]:
    return _parsed(await _read_body(request, MAX_BODY))


async def _read_body(request: Request, limit: int) -> bytes:
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _BadRequest(_TOO_LARGE, 413)
    return bytes(body)


def _parsed(body: bytes) -> Mapping[str, Any]:
    """The body as the page sends it: a JSON object, in UTF-8, of valid Unicode, nested no
    deeper than :data:`MAX_DEPTH`, with ``id``, ``action`` and ``key`` as text when present.
    Anything else is a 400 naming what is wrong (never a 500: nothing here trusts the body)."""
    try:
        parsed = json.loads(body, parse_constant=_not_a_number)
    except RecursionError:
        raise _BadRequest(_DEEP) from None
    except UnicodeDecodeError:
        raise _BadRequest("the request is not JSON: it is not UTF-8") from None
    except json.JSONDecodeError as error:
        raise _BadRequest(f"the request is not JSON: {error.msg.lower()}") from None
    except ValueError:  # Python's limit on the digits of an integer
        raise _BadRequest("the request is not JSON this page sends: a number too long") from None
    if not isinstance(parsed, dict):
        raise _BadRequest("the request must be a JSON object")
    _check_text(parsed)
    for name in ("id", "action", "key"):
        if name in parsed and not isinstance(parsed[name], str):
            raise _BadRequest(f"{name} must be a string")
    return parsed


MAX_DEPTH = 16
"""How deeply a request may nest arrays and objects: the page's deepest is four levels (an
attachment in the list of them in the body); Python's own parser gives up near a thousand."""

_DEEP = f"the request is nested too deeply (more than {MAX_DEPTH} levels)"


def _not_a_number(constant: str) -> Any:
    raise _BadRequest(f"{constant} is not a JSON number")


def _check_text(parsed: object) -> None:
    """Every string (keys too) is valid Unicode: JSON's ``\\ud800`` escape makes a lone
    surrogate, which no UTF-8 can carry, and which would fail only later, far from here."""
    stack: list[tuple[object, int]] = [(parsed, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _BadRequest(_DEEP)
        if isinstance(item, dict):
            stack.extend((key, depth) for key in item)
            stack.extend((value, depth + 1) for value in item.values())
        elif isinstance(item, list):
            stack.extend((value, depth + 1) for value in item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as error:
                found = item[error.start]
                raise _BadRequest(
                    f"the request holds text that is not valid Unicode (a lone surrogate, "
                    f"\\u{ord(found):04x})"
                ) from None


async def _pending_form(request: Request, queue: Queue) -> tuple[Pending | None, Mapping[str, Any]]:
    body = await _json_body(request)
    pending = queue.get(str(body.get("id")))
    if pending is not None and not isinstance(pending.prompt, FormPrompt):
        raise _BadRequest("only a form has values to check")
    return pending, body


def _free_text(prompt: object) -> bool:
    return isinstance(prompt, FormPrompt) and prompt.free_text


def _reading(prompt: FormPrompt, body: Mapping[str, Any], *, with_data: bool) -> Submission:
    """The values (and, for a free-text question, the files) the page sent for ``prompt``."""
    if not prompt.free_text:
        if ATTACHMENTS in body:
            raise _BadRequest(f"only a free-text question takes {ATTACHMENTS}")
        return read_values(prompt.form, _values(body))
    try:
        return read_free_text(
            prompt.form, _values(body), body.get(ATTACHMENTS), with_data=with_data
        )
    except Malformed as bad:
        raise _BadRequest(str(bad)) from None


def _values(body: Mapping[str, Any]) -> Mapping[str, Any]:
    values = body.get("values", {})
    if not isinstance(values, dict):
        raise _BadRequest("values must be a JSON object")
    return values


def _file(name: str) -> Response:
    return Response(_CONTENT[name], media_type=_FILES[name])


def _gone() -> Response:
    return JSONResponse(
        {"gone": True, "message": _("This question is no longer waiting for an answer.")},
        status_code=409,
    )


def _error(message: str, status: int) -> Response:
    return JSONResponse({"error": message}, status_code=status)
