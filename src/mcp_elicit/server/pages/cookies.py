"""The pages' cookies: named, scoped and read so that nobody but this host can plant one.

Why: a cookie is not bound to its origin the way a page is. A sibling domain
(``evil.example.com`` beside ``pages.example.com``) can set one for the parent domain
(``Domain=example.com``), and a network attacker can answer a plain-http request to this host
with a ``Set-Cookie`` of its own; the browser then sends those cookies here as if they were
ours. With the pages' cookies that is login CSRF (a browser made to carry the attacker's
session types its secret into the attacker's flow) or a planted sign-in in progress.

- **On https every cookie is named with the ``__Host-`` prefix**, ``Secure``, ``Path=/`` and
  without ``Domain``: a browser takes a ``__Host-`` cookie only from a secure page of this very
  host, so a sibling domain or a plain-http answer cannot set it; and the pages read only the
  prefixed name there (an unprefixed one is someone else's). ``Path=/`` is the prefix's rule:
  the cookies also reach the rest of this host (they are ``HttpOnly`` and sealed or random).
- **On plain http** (loopback, or development that opted in) the prefix is not available:
  the cookies keep their names and the pages' path. A name sent twice is read as absent: a
  planted cookie beside ours (another ``Domain`` or a longer ``Path``) shows up as a second
  value of the same name, and which of the two the browser lists first is not ours to choose.
  Plain http cannot stop an attacker who can plant cookies in a browser that holds none of
  ours yet: that is why the pages need https off loopback (``hosts.check_transport``).
"""

from __future__ import annotations

from typing import Literal

from starlette.requests import Request
from starlette.responses import Response

HOST_PREFIX = "__Host-"


def is_https(request: Request) -> bool:
    # The scheme the browser used (behind a TLS proxy: uvicorn's proxy headers set it).
    return bool(request.scope.get("scheme") == "https")


def cookie_name(request: Request, name: str) -> str:
    """``name`` as the pages set and read it for this request: ``__Host-name`` on https."""
    return f"{HOST_PREFIX}{name}" if is_https(request) else name


def read_cookie(request: Request, name: str) -> str | None:
    """The value of the pages' cookie ``name`` (under :func:`cookie_name`), or ``None`` when
    the browser sent none, or sent that name more than once (see the module docstring)."""
    wanted = cookie_name(request, name)
    seen = 0
    for header in request.headers.getlist("cookie"):
        for pair in header.split(";"):
            if pair.partition("=")[0].strip() == wanted:
                seen += 1
    if seen != 1:
        return None
    return request.cookies.get(wanted)


def set_cookie(
    response: Response,
    request: Request,
    name: str,
    value: str,
    *,
    samesite: Literal["lax", "strict"],
    max_age: int | None = None,
) -> None:
    """Set the pages' cookie ``name``: ``HttpOnly`` always; on https ``__Host-``, ``Secure``,
    ``Path=/``; on http the pages' path (the mount point the request came through)."""
    https = is_https(request)
    response.set_cookie(
        cookie_name(request, name),
        value,
        max_age=max_age,
        path="/" if https else request.scope.get("root_path") or "/",
        httponly=True,
        samesite=samesite,
        secure=https,
    )


def clear_cookie(
    response: Response, request: Request, name: str, *, samesite: Literal["lax", "strict"]
) -> None:
    """Remove the pages' cookie ``name`` (set with the same attributes, expired)."""
    https = is_https(request)
    response.delete_cookie(
        cookie_name(request, name),
        path="/" if https else request.scope.get("root_path") or "/",
        httponly=True,
        samesite=samesite,
        secure=https,
    )
