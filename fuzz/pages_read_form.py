"""Fuzz target: the hosted pages' form reader (``mcp_elicit.server.pages.body.read_form``), on
Starlette requests built from bytes: any headers, any body, in any chunks.

Contract:

- it returns the fields, ``dict[str, str]``, at most 16 of them, or raises ``FormRefused``
  (400, 413 or 415), nothing else; the one other way out is Starlette's ``ClientDisconnect``
  when the client went away mid-body;
- a body that is not ``application/x-www-form-urlencoded`` is refused (415), and one longer
  than the limit is never read into fields;
- a refusal carries no exception chain (the parser's message could quote the secret).

Input: bytes the ``FuzzedDataProvider`` turns into headers, body chunks and the limit.
"""

from __future__ import annotations

import sys
from typing import Any
from urllib.parse import quote

import atheris
from _harness import expect, main
from starlette.requests import ClientDisconnect, Request

with atheris.instrument_imports(include=["mcp_elicit.server.pages.body"]):
    from mcp_elicit.server.pages.body import MAX_BODY_BYTES, FormRefused, read_form

FORM = "application/x-www-form-urlencoded"
CONTENT_TYPES = (
    FORM,
    "Application/X-WWW-Form-Urlencoded; charset=UTF-8",
    f"  {FORM}  ;",
    f"{FORM}x",
    "multipart/form-data; boundary=x",
    "text/plain",
    "",
)
NAMES = ("csrf", "action", "value", "submit", "decline", "", "a b", "é", "%", "&", "=")


def request_from(fdp: atheris.FuzzedDataProvider) -> tuple[Request, int, bytes, bool]:
    """A request, its limit, its whole body, and whether it ends in a disconnect."""
    limit = MAX_BODY_BYTES if fdp.ConsumeBool() else fdp.ConsumeIntInRange(0, 64)
    if fdp.ConsumeIntInRange(0, 3) == 0:
        body = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 200))
    else:
        pairs = []
        for _ in range(fdp.ConsumeIntInRange(0, 20)):
            name = NAMES[fdp.ConsumeIntInRange(0, len(NAMES) - 1)]
            value = fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 12))
            if fdp.ConsumeBool():
                name, value = quote(name), quote(value, errors="surrogatepass")
            pairs.append(f"{name}={value}" if fdp.ConsumeIntInRange(0, 9) else name)
        body = "&".join(pairs).encode("utf-8", "surrogatepass")
    headers: list[tuple[bytes, bytes]] = []
    kind = fdp.ConsumeIntInRange(0, len(CONTENT_TYPES))
    if kind < len(CONTENT_TYPES):
        headers.append((b"content-type", CONTENT_TYPES[kind].encode()))
    else:
        headers.append((b"content-type", fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 40))))
    length = fdp.ConsumeIntInRange(0, 5)
    if length in (1, 5):  # the true length (5: twice, the second one false)
        headers.append((b"content-length", str(len(body)).encode()))
    if length in (2, 5):
        headers.append((b"content-length", str(fdp.ConsumeIntInRange(0, 2**20)).encode()))
    elif length == 3:  # any bytes: a server passes them on, Starlette reads them as Latin-1
        headers.append((b"content-length", fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 8))))
    elif length == 4:  # digits, up to thousands of them
        digit = bytes([ord("0") + fdp.ConsumeIntInRange(0, 9)])
        headers.append((b"content-length", digit * fdp.ConsumeIntInRange(1, 6000)))
    chunks = []
    rest = body
    while rest and len(chunks) < 8:
        size = fdp.ConsumeIntInRange(1, len(rest))
        chunks.append(rest[:size])
        rest = rest[size:]
    if rest:
        chunks.append(rest)
    disconnect = fdp.ConsumeIntInRange(0, 19) == 0
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": chunk, "more_body": True} for chunk in chunks
    ]
    if disconnect:
        messages.append({"type": "http.disconnect"})
    else:
        messages.append({"type": "http.request", "body": b"", "more_body": False})

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "https",
        "path": "/pages/flows/x",
        "raw_path": b"/pages/flows/x",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 443),
    }
    return Request(scope, receive), limit, body, disconnect


def check(data: bytes) -> None:
    request, limit, body, disconnect = request_from(atheris.FuzzedDataProvider(data))
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    coroutine = read_form(request, limit=limit)
    try:
        coroutine.send(None)  # nothing in it waits: the body is all there
    except StopIteration as done:
        fields = done.value
    except FormRefused as refused:
        expect(refused.status_code in (400, 413, 415), f"status {refused.status_code}")
        expect(refused.__cause__ is None, "a refusal chained to another exception")
        expect(
            refused.__context__ is None or refused.__suppress_context__,
            f"a refusal that shows its context: {refused.__context__!r}",
        )
        if kind != FORM:
            expect(refused.status_code == 415, f"{kind!r} refused with {refused.status_code}")
        return
    except ClientDisconnect:
        expect(disconnect, "ClientDisconnect without a disconnect")
        return
    else:
        coroutine.close()
        expect(False, "read_form waited for something")
    expect(kind == FORM, f"a {kind!r} body was read as a form")
    expect(len(body) <= limit, f"a {len(body)}-byte body read with a limit of {limit}")
    expect(isinstance(fields, dict) and len(fields) <= 16, f"fields: {fields!r}")
    for name, value in fields.items():
        expect(isinstance(name, str) and isinstance(value, str), f"field {name!r}: {value!r}")


if __name__ == "__main__":
    main(check, "pages_read_form")
    sys.exit(0)
