"""Cross-site request forgery defence for the secret form: a double-submit cookie whose
token is bound to one flow, plus the browser's own word on where a request came from.

Why each part:

- The cookie is random, ``HttpOnly`` and ``SameSite=Strict``: another site cannot read it,
  and a browser does not send it with a request another site starts. On https it is a
  ``__Host-`` cookie, which no sibling domain and no plain-http answer can plant
  (``cookies.py``).
- The form carries ``HMAC(key, cookie | flow id)``, not the cookie itself: a token seen for
  one flow is useless for any other, and without the server's key nobody can mint one for a
  cookie they managed to plant (say, from a sibling subdomain).
- ``Sec-Fetch-Site`` and ``Origin`` are set by the browser, not by page script; when present
  they say plainly whether the form was posted from this origin. They are checked only when
  present, because older browsers and non-browser clients leave them out, and the token
  above already stands on its own.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from mcp_elicit.server.pages.cookies import read_cookie, set_cookie

COOKIE_NAME = "mcp_elicit_csrf"  # ``__Host-mcp_elicit_csrf`` on https (cookies.py)
FIELD_NAME = "csrf"
MIN_KEY_BYTES = 32
_COOKIE_BYTES = 32
# token_urlsafe(32) is 43 characters of the URL-safe alphabet; anything else was not ours.
_COOKIE_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Csrf:
    """Issues and checks the cookie and the per-flow form token."""

    def __init__(self, key: bytes | Sequence[bytes]) -> None:
        # Several keys: a rotation (newest first). Tokens are made with the first, and one
        # made with any of them is accepted.
        keys = [key] if isinstance(key, bytes | bytearray) else list(key)
        if not keys or any(len(k) < MIN_KEY_BYTES for k in keys):
            raise ValueError(
                f"csrf_key needs at least {MIN_KEY_BYTES} bytes; use DeploymentKey.derive('csrf')"
            )
        self._keys = [bytes(k) for k in keys]
        self._key = self._keys[0]

    def cookie_of(self, request: Request) -> str | None:
        """The browser's CSRF cookie, if it sent one of the right shape."""
        cookie = read_cookie(request, COOKIE_NAME)
        return cookie if cookie is not None and _COOKIE_SHAPE.fullmatch(cookie) else None

    def new_cookie(self) -> str:
        return secrets.token_urlsafe(_COOKIE_BYTES)

    def set_cookie(self, response: Response, cookie: str, request: Request) -> None:
        # On https a __Host- cookie (Path=/, Secure: cookies.py says why); on http the
        # mount point the request came through (``/elicit`` by default).
        set_cookie(response, request, COOKIE_NAME, cookie, samesite="strict")

    def token(self, cookie: str, flow_id: str, *, key: bytes | None = None) -> str:
        message = f"{cookie}|{flow_id}".encode()
        mac = hmac.new(key or self._key, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")

    def token_is_valid(self, request: Request, flow_id: str, token: str | None) -> bool:
        cookie = self.cookie_of(request)
        if cookie is None or not token:
            return False
        # Bytes, not str: compare_digest refuses a str with non-ASCII characters, and the
        # token field is whatever the request sent.
        given = token.encode()
        return any(
            hmac.compare_digest(self.token(cookie, flow_id, key=key).encode(), given)
            for key in self._keys
        )


def came_from_this_origin(request: Request) -> bool:
    """``False`` when the browser says the request was started by another site."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = f"{request.url.scheme}://{request.url.netloc}"
    theirs = _origin_key(origin)
    # "null" (an opaque origin: a sandboxed frame, a data: URL) never equals ours.
    return theirs is not None and theirs == _origin_key(own)


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    """scheme, host, port with the default port filled in: ``https://x`` and
    ``https://x:443`` are the same origin. ``None`` for anything that is not an origin."""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path or parts.query:
        return None
    return scheme, parts.hostname, _DEFAULT_PORTS[scheme] if port is None else port
