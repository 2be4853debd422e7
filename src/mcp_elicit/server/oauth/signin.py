"""Browser sign-in on the hosted pages: :class:`OidcIdentity`, an ``Identity`` for servers
with many people.

The MCP side is :class:`~mcp_elicit.server.identity.AccessTokenIdentity`'s: the user is
(issuer, subject) of the verified access token. The browser side signs the person in at the
same issuer with OpenID Connect (authorization code + PKCE, through authlib), so that one
person is one user on both sides, and the same-user rule of the pages can hold.

The rules, and why:

- **A browser that is not signed in is sent to sign in** and comes back to the page it
  wanted (``next``, normalised and followed only while it stays under the pages:
  :func:`safe_next`; never an open redirect, never elsewhere on the server).
- **What the browser carries is sealed** (``sealed.Sealer``: AES-GCM, a key per purpose,
  an expiry inside): the session cookie (``mcp_elicit_session``: the user and the session's
  id, 8 hours by default) and, while the person is at the provider, the sign-in's state cookie
  (``mcp_elicit_signin``: ``state``, ``nonce``, the PKCE verifier, ``next``, and a hash of the
  browser's binding; 10 minutes). The binding (``mcp_elicit_browser``) is a random cookie of
  the browser's own, set before its first sign-in and kept for a year. All are ``HttpOnly``
  and ``SameSite=Lax`` (the provider's redirect back is a top-level GET from another site);
  on https they are ``__Host-`` cookies (``Secure``, ``Path=/``, no ``Domain``), on http
  scoped to the pages' path (``pages/cookies.py`` says why).
- **The callback trusts nothing it is sent**: ``state`` must equal the state cookie's
  (constant-time), and the state cookie must name this browser's binding (a sign-in cookie
  planted in another browser finishes nothing: login CSRF); the code is exchanged with the
  verifier; the ID token must be signed by the issuer's keys and name the issuer, this client
  (``aud``), the nonce, and be unexpired. Anything else: a page saying sign-in failed, and no
  session.
- **Switching account** ("this link was made for another account") starts a new sign-in with
  ``prompt=login``; the session changes only when that sign-in completes. Signing out is a
  POST with a CSRF token (a GET would let any page sign the person out).
- **Signing out ends the session, not only the cookie.** Each session has an id of its own,
  sealed in the cookie; signing out (and switching account) records that id as ended in the
  store the flows are kept in (``Store.end_session``) until the session would have expired,
  and every page request asks the store (``Store.session_ended``): a copy of the cookie taken
  before is refused on every instance that shares the store.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlencode, urlsplit

import httpx2
from authlib.common.errors import AuthlibBaseError
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import AsyncOAuth2Client
from joserfc import jwt
from joserfc.errors import JoseError
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from mcp_elicit.i18n import _
from mcp_elicit.server.identity import AccessTokenIdentity
from mcp_elicit.server.oauth.metadata import KeyCache, MetadataError, discover
from mcp_elicit.server.oauth.sealed import Sealer
from mcp_elicit.server.oauth.verifier import ALGORITHMS
from mcp_elicit.server.pages import html
from mcp_elicit.server.pages.body import FormRefused, read_form
from mcp_elicit.server.pages.cookies import clear_cookie, read_cookie, set_cookie
from mcp_elicit.server.pages.csrf import FIELD_NAME, Csrf, came_from_this_origin
from mcp_elicit.stores import Store
from mcp_elicit.stores.records import is_session_id

logger = logging.getLogger(__name__)

# The cookies' names; on https each is the name with the __Host- prefix (pages/cookies.py).
SESSION_COOKIE = "mcp_elicit_session"
SIGNIN_COOKIE = "mcp_elicit_signin"
BROWSER_COOKIE = "mcp_elicit_browser"
SIGNIN_PATH = "/signin"
CALLBACK_PATH = "/signin/callback"
SIGNOUT_PATH = "/signout"
_SIGNIN_SECONDS = 600.0
_SIGNOUT_BINDING = "signout"  # what the sign-out form's CSRF token is bound to
_SESSION_ID_BYTES = 32
_BROWSER_SECONDS = 365 * 86400  # the browser's binding outlives sign-ins, so it is there first
_BROWSER_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")  # token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class _Session:
    """What a session cookie holds: the user, the session's own id (what signing out ends),
    and when it expires."""

    user: str
    id: str
    until: float


def user_id(issuer: str, subject: str) -> str:
    """One person's user id, the same as ``AccessTokenIdentity`` makes from a token."""
    return json.dumps([issuer, subject], separators=(",", ":"))


class OidcIdentity(AccessTokenIdentity):
    """Users are the accounts of one OpenID provider, ``issuer``: on the MCP side through the
    access tokens it issued (``protected_resource``), in the browser through signing in there.

    ``client_id`` / ``client_secret``: this server's registration at the provider, with the
    redirect URI ``<public_url>/elicit/signin/callback``. ``scopes``: what sign-in asks for
    (``openid`` always). ``session_seconds``: how long a browser stays signed in."""

    def __init__(
        self,
        issuer: str,
        client_id: str,
        client_secret: str | None = None,
        *,
        scopes: Sequence[str] = ("openid", "profile"),
        session_seconds: float = 8 * 3600.0,
        http: httpx2.AsyncClient | None = None,
    ) -> None:
        if not client_id:
            raise ValueError("OidcIdentity needs the client_id this server has at the provider")
        self.issuer = issuer
        self.client_id = client_id
        self._client_secret = client_secret
        self.scopes = tuple(dict.fromkeys(["openid", *scopes]))
        self.session_seconds = session_seconds
        self._http = http
        self._keys = KeyCache(issuer, http=http)
        self._session: Sealer | None = None
        self._signin: Sealer | None = None
        self._csrf: Csrf | None = None
        self._store: Store | None = None

    def __repr__(self) -> str:  # never the client secret
        return f"OidcIdentity(issuer={self.issuer!r}, client_id={self.client_id!r})"

    # -- the Identity protocol -------------------------------------------------------------

    async def user_of_browser(self, request: Request) -> str | None:
        session = self._session_of(request)
        if session is None or self._store is None:
            return None  # the pages have not been built: nobody can have signed in
        if await self._store.session_ended(session.id, now=time.time()):
            logger.info("sign-in: refused a session that was signed out")
            return None
        return session.user

    def login_url(self, request: Request) -> str | None:
        """The sign-in page, coming back to this page; with ``prompt=login`` when someone is
        signed in already (they are switching account)."""
        query = {"next": _here(request)}
        if read_cookie(request, SESSION_COOKIE):
            query["prompt"] = "login"
        return f"{_base(request)}{SIGNIN_PATH}?{urlencode(query)}"

    # -- the pages' routes ------------------------------------------------------------------

    def sign_in_routes(
        self, *, key: bytes | Sequence[bytes], csrf: Csrf, store: Store
    ) -> list[BaseRoute]:
        """The routes the hosted pages add for this identity, the keys it seals with, and the
        store (the flows') where a signed-out session is kept for every instance to refuse."""
        self._session = Sealer(key, "browser-session")
        self._signin = Sealer(key, "browser-signin")
        self._csrf = csrf
        self._store = store
        return [
            Route(SIGNIN_PATH, self._start, methods=["GET"]),
            Route(CALLBACK_PATH, self._callback, methods=["GET"]),
            Route(SIGNOUT_PATH, self._signout_page, methods=["GET"]),
            Route(SIGNOUT_PATH, self._signout, methods=["POST"]),
        ]

    async def _start(self, request: Request) -> Response:
        assert self._signin is not None
        next_path = _safe_next(request, request.query_params.get("next"))
        state, nonce, verifier = (generate_token(48) for _i in range(3))
        try:
            metadata = await discover(self.issuer, http=self._http)
        except (MetadataError, httpx2.HTTPError) as error:
            logger.warning("sign-in: the provider's metadata is unavailable: %s", error)
            return _problem(
                request,
                _("Sign-in is unavailable"),
                _("The sign-in service did not answer. Try again in a moment."),
                502,
            )
        extra: dict[str, str] = {"nonce": nonce}
        if request.query_params.get("prompt") == "login":
            extra["prompt"] = "login"
        async with self._oauth(request) as oauth:
            url, _sent_state = oauth.create_authorization_url(
                metadata.authorization_endpoint, state=state, code_verifier=verifier, **extra
            )
        response = RedirectResponse(url, status_code=303)
        browser = _browser_of(request)
        fresh = browser is None
        if browser is None:
            browser = secrets.token_urlsafe(32)
        sealed = self._signin.seal(
            {
                "state": state,
                "nonce": nonce,
                "verifier": verifier,
                "next": next_path,
                "browser": _binding(browser),
            },
            ttl=_SIGNIN_SECONDS,
        )
        _set_cookie(response, request, SIGNIN_COOKIE, sealed, max_age=int(_SIGNIN_SECONDS))
        if fresh:
            _set_cookie(response, request, BROWSER_COOKIE, browser, max_age=_BROWSER_SECONDS)
        return response

    async def _callback(self, request: Request) -> Response:
        assert self._signin is not None and self._session is not None
        pending = self._signin.open(read_cookie(request, SIGNIN_COOKIE))
        given = request.query_params.get("state", "")
        browser = _browser_of(request)
        if (
            pending is None
            or not hmac.compare_digest(str(pending["state"]).encode(), given.encode())
            # The sign-in must have been started by this browser: its binding, not only a
            # sign-in cookie that may have been planted in it (pages/cookies.py).
            or browser is None
            or not hmac.compare_digest(
                str(pending.get("browser")).encode(), _binding(browser).encode()
            )
        ):
            logger.info("sign-in: refused a callback whose state is not this browser's")
            return _problem(
                request,
                _("Sign-in did not complete"),
                _(
                    "This sign-in was not started in this browser, or took too long. Start "
                    "again from the link you were given."
                ),
                400,
            )
        if "error" in request.query_params:
            error = request.query_params["error"]
            logger.info("sign-in: the provider answered %s", error)
            response: Response = _problem(
                request,
                _("Sign-in was cancelled") if error == "access_denied" else _("Sign-in failed"),
                _("Nothing was changed. Open the link again to try once more."),
                403 if error == "access_denied" else 502,
            )
            _clear_cookie(response, request, SIGNIN_COOKIE)
            return response
        try:
            user = await self._finish(request, pending)
        except (AuthlibBaseError, JoseError, ValueError, MetadataError, httpx2.HTTPError) as error:
            logger.warning("sign-in failed: %s", type(error).__name__)
            response = _problem(
                request, _("Sign-in failed"), _("The sign-in could not be checked. Try again."), 400
            )
            _clear_cookie(response, request, SIGNIN_COOKIE)
            return response
        previous = self._session_of(request)
        if previous is not None:
            # Switching account: the session this browser had ends here, not only its cookie.
            await self._end(previous)
        response = RedirectResponse(_safe_next(request, pending.get("next")), status_code=303)
        session = self._session.seal(
            {
                "user": user,
                "sid": secrets.token_urlsafe(_SESSION_ID_BYTES),
                "until": time.time() + self.session_seconds,
            },
            ttl=self.session_seconds,
        )
        _set_cookie(response, request, SESSION_COOKIE, session, max_age=int(self.session_seconds))
        _clear_cookie(response, request, SIGNIN_COOKIE)
        logger.info("sign-in: a browser signed in")
        return response

    def _session_of(self, request: Request) -> _Session | None:
        """The session this browser's cookie holds, whether or not it was ended since."""
        if self._session is None:
            return None
        sealed = self._session.open(read_cookie(request, SESSION_COOKIE))
        if sealed is None:
            return None
        user, sid, until = sealed.get("user"), sealed.get("sid"), sealed.get("until")
        if not (isinstance(user, str) and user and isinstance(sid, str) and is_session_id(sid)):
            return None  # sealed before sessions had ids (or not by us): sign in again
        if not isinstance(until, int | float) or isinstance(until, bool):
            return None
        return _Session(user, sid, float(until))

    async def _end(self, session: _Session) -> None:
        """End ``session`` for every instance sharing the store, until it would have expired."""
        assert self._store is not None
        await self._store.end_session(session.id, until=session.until, now=time.time())

    async def _finish(self, request: Request, pending: dict[str, Any]) -> str:
        code = request.query_params.get("code")
        if not code:
            raise ValueError("no code")
        metadata = await discover(self.issuer, http=self._http)
        async with self._oauth(request) as oauth:
            token = await oauth.fetch_token(
                metadata.token_endpoint, code=code, code_verifier=pending["verifier"]
            )
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise ValueError("the provider sent no ID token")
        claims = await self._keys.decode(id_token, list(ALGORITHMS))
        jwt.JWTClaimsRegistry(
            leeway=30,
            iss={"essential": True, "value": self.issuer},
            aud={"essential": True, "value": self.client_id},
            sub={"essential": True},
            exp={"essential": True},
            nonce={"essential": True, "value": pending["nonce"]},
        ).validate(claims)
        return user_id(self.issuer, str(claims["sub"]))

    async def _signout_page(self, request: Request) -> Response:
        assert self._csrf is not None
        cookie = self._csrf.cookie_of(request) or self._csrf.new_cookie()
        page = html.signout_page(
            base=_base(request),
            server_name=_server_name(request),
            token=self._csrf.token(cookie, _SIGNOUT_BINDING),
            next_path=_safe_next(request, request.query_params.get("next")),
        )
        response = HTMLResponse(page)
        self._csrf.set_cookie(response, cookie, request)
        return response

    async def _signout(self, request: Request) -> Response:
        assert self._csrf is not None
        try:
            form = await read_form(request)
        except FormRefused as refused:
            return _problem(request, refused.title, refused.message, refused.status_code)
        if not came_from_this_origin(request) or not self._csrf.token_is_valid(
            request, _SIGNOUT_BINDING, form.get(FIELD_NAME)
        ):
            return _problem(
                request, _("Not signed out"), _("This form was not sent from this page."), 403
            )
        next_path = _safe_next(request, form.get("next"))
        session = self._session_of(request)
        if session is not None:
            # The session itself ends, not only this browser's copy of it: a copy of the cookie
            # taken before (another browser, a proxy's log) opens nothing either, on any
            # instance sharing the store.
            await self._end(session)
        # A page of our own, not a redirect on to the provider: the pages' CSP allows forms
        # to post only here (form-action 'self'), and browsers hold a form's redirects to it.
        query = urlencode({"next": next_path, "prompt": "login"})
        page = html.signed_out_page(
            base=_base(request),
            server_name=_server_name(request),
            signin_url=f"{_base(request)}{SIGNIN_PATH}?{query}",
        )
        response: Response = HTMLResponse(page)
        _clear_cookie(response, request, SESSION_COOKIE)
        logger.info("sign-in: a browser signed out")
        return response

    def _oauth(self, request: Request) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self._client_secret,
            token_endpoint_auth_method="client_secret_basic" if self._client_secret else "none",
            scope=" ".join(self.scopes),
            redirect_uri=f"{_origin(request)}{_base(request)}{CALLBACK_PATH}",
            code_challenge_method="S256",
            timeout=10.0,
        )


# -- helpers -------------------------------------------------------------------------------


def _base(request: Request) -> str:
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/")


def _origin(request: Request) -> str:
    # The Host was checked against the pages' allow-list before any route ran.
    return f"{request.url.scheme}://{request.url.netloc}"


def _here(request: Request) -> str:
    # request.url.path is the whole path as the browser asked for it (mount point included).
    path = request.url.path
    query = request.url.query
    return f"{path}?{query}" if query else path


def _safe_next(request: Request, wanted: object) -> str:
    return safe_next(_base(request), wanted)


_MAX_NEXT = 2048
_DECODINGS = 4  # percent-decoding rounds before a path that keeps changing is refused


def safe_next(base: str, wanted: object) -> str:
    """Where to go after signing in (or out): ``wanted`` normalised, when it is a path that
    stays under the pages (``base``, their mount point: ``/elicit``); otherwise the pages'
    start (``base + "/"``). Never another host, never elsewhere on this server.

    Normalised as a browser would read it, and then some: percent-decoded until it stops
    changing (``%2e%2e`` is ``..``, ``%252e`` too), dot segments resolved (``/elicit/../evil``
    is ``/evil``, outside), empty segments dropped (so it can never become ``//host``). A
    backslash, a control character or white space anywhere, decoded or not, is refused
    outright: browsers read ``\\`` as ``/`` and drop tabs and newlines, so such a path could
    mean something else to them than to us. What is returned is the normalised path
    (re-encoded) and the query: what the browser is sent to is what was checked."""
    start = f"{base}/" if base else "/"
    if not isinstance(wanted, str) or not wanted.startswith("/") or len(wanted) > _MAX_NEXT:
        return start
    if _unsafe_characters(wanted):
        return start
    parts = urlsplit(wanted)
    if parts.scheme or parts.netloc:
        return start
    path = parts.path
    for _round in range(_DECODINGS):
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    else:
        return start  # still encoded after several rounds: nothing of ours looks like that
    if _unsafe_characters(path) or not path.startswith("/"):
        return start
    segments: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    trailing = path.endswith(("/", "/.", "/..")) and bool(segments)
    normal = "/" + "/".join(segments) + ("/" if trailing else "")
    if base and not (normal == base or normal.startswith(base + "/")):
        return start
    query = f"?{parts.query}" if parts.query else ""
    return quote(normal, safe="/!$&'()*+,;=:@-._~") + query


def _unsafe_characters(text: str) -> bool:
    return any(c == "\\" or c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in text)


def _set_cookie(
    response: Response, request: Request, name: str, value: str, *, max_age: int
) -> None:
    # SameSite=Lax: the provider's redirect back is a top-level GET from another site.
    set_cookie(response, request, name, value, samesite="lax", max_age=max_age)


def _clear_cookie(response: Response, request: Request, name: str) -> None:
    clear_cookie(response, request, name, samesite="lax")


def _browser_of(request: Request) -> str | None:
    """This browser's own binding (its ``mcp_elicit_browser`` cookie), if of our shape."""
    browser = read_cookie(request, BROWSER_COOKIE)
    return browser if browser is not None and _BROWSER_SHAPE.fullmatch(browser) else None


def _binding(browser: str) -> str:
    """What a sign-in cookie keeps of the browser that started it: a hash, so that the
    sealed cookie never carries the binding itself."""
    return hashlib.sha256(b"mcp-elicit/browser|" + browser.encode()).hexdigest()


def _server_name(request: Request) -> str:
    name = getattr(request.app.state, "server_name", None)
    return name if isinstance(name, str) else _("This server")


def _problem(request: Request, title: str, message: str, status: int) -> HTMLResponse:
    page = html.problem_page(
        base=_base(request), server_name=_server_name(request), title=title, message=message
    )
    return HTMLResponse(page, status_code=status)
