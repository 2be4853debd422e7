"""Several gateway instances behind one load balancer: a 2026-07-28 retry reaches the
instance that holds its call (docs/gateway.md, "Several instances").

Rules:

- **A held call stays where it was started.** Its upstream session is a live connection (a
  process, for a stdio upstream) that only that instance has, so the retry goes to the call,
  never the call to the retry: an *internal hop* from the instance the balancer chose to the
  one that holds the call. No store is involved: nothing of the call leaves its instance.
- **The state says where it was made.** Every instance is given the same secret
  (:class:`Instance`), so any instance opens any instance's ``requestState``; and each state
  the gateway mints carries, in front of the SDK's sealed token, its *route*: the URL at which
  the instance that minted it takes requests from the others. The route is MACed (under a key
  of its own, derived from the secret) over itself and the sealed token: a client can read it
  but can neither change it nor move it onto another state. Only routes made by an instance of
  this deployment are ever followed, so a client cannot point a hop anywhere else.
- **One hop at most.** :class:`HeldCallRouter`, in front of the gateway's ASGI app, passes a
  retry whose route names another instance on to it as it came (method, headers, body; the
  user's credentials with it, checked again there), marked with :data:`HOP_HEADER`, and
  streams the answer back. A request that carries the mark is never passed on again, whatever
  its route; the mark grants nothing else.
- **A lost instance is said at once.** When the instance named does not take the hop (it was
  killed, or stopped), the retry is answered at once with a JSON-RPC error saying the call was
  lost with that instance and must be made again: never a wait for a call that no longer
  exists anywhere.
- Anything else passes through untouched: other methods, first calls, a state that is not
  routed or whose route does not verify (the SDK's boundary then refuses it as any bad state,
  -32602), a body too large to look at.

2025-era clients hold a Streamable HTTP session on one instance; as for servers, the
balancer keeps them there by the instance's tag in ``Mcp-Session-Id`` (the command line's
``--instance-tag``; :class:`mcp_elicit.server.instances.SessionTag`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import httpx2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from mcp.server.request_state import AESGCMRequestStateCodec, InvalidRequestState
from mcp_types import INVALID_PARAMS
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_elicit.protocol.mrtr import ASKING_METHODS

logger = logging.getLogger(__name__)

HOP_HEADER: Final = "mcp-elicit-hop"
"""Marks a request one gateway instance passed on to another: it is never passed on again."""

_PREFIX: Final = "r1."
_MAC_BYTES: Final = 16
_LOOKED_AT: Final = 1 << 20  # bodies up to 1 MiB are read for a route; larger ones pass as is
_HOP_HEADERS: Final = frozenset(
    {b"host", b"content-length", b"connection", b"keep-alive", b"transfer-encoding", b"te"}
)


@dataclass(frozen=True, slots=True)
class Instance:
    """This gateway, one of several behind a load balancer.

    ``url``: where the other instances reach this one's MCP endpoint
    (``http://10.0.0.5:8000/mcp``: its own address as they see it, not the balancer's).
    ``keys``: the secret every instance shares, newest first; the ones after the first still
    open what they sealed (rotation). Each is at least 32 bytes of secret randomness
    (``mcp-elicit gateway`` derives it from ``MCP_ELICIT_KEY``).
    """

    url: str
    keys: Sequence[bytes]

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"an instance's URL is the http(s):// URL the others reach it at, not {self.url!r}"
            )
        if not self.keys:
            raise ValueError("an instance needs the key every instance shares")
        for key in self.keys:
            if len(key) < 32:
                raise ValueError("an instance's key is at least 32 bytes of secret randomness")

    def codec(self) -> RoutedStateCodec:
        return RoutedStateCodec(self)


def _derive(key: bytes, purpose: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(key)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class RoutedStateCodec:
    """The SDK's AES-GCM ``requestState`` codec under the shared key, each token led by its
    route: ``r1.<url>.<mac>.<sealed>`` (base64url; ``<sealed>`` is the SDK's token). A
    ``RequestStateCodec`` for ``RequestStateSecurity(codec=...)``."""

    def __init__(self, instance: Instance) -> None:
        self.route = instance.url
        # Distinct keys for sealing and for routes: neither use can be turned into the other.
        self._sealing = AESGCMRequestStateCodec(
            [_derive(key, b"mcp-elicit gateway request-state") for key in instance.keys]
        )
        self._macs = [_derive(key, b"mcp-elicit gateway route") for key in instance.keys]

    def seal(self, payload: bytes) -> str:
        sealed = self._sealing.seal(payload)
        route = _b64(self.route.encode())
        return f"{_PREFIX}{route}.{_b64(self._mac(self._macs[0], route, sealed))}.{sealed}"

    def unseal(self, token: str) -> bytes:
        _route, sealed = self.read(token)
        return self._sealing.unseal(sealed)

    def read(self, token: str) -> tuple[str, str]:
        """The route and the sealed token of ``token``; ``InvalidRequestState`` when it is not
        a routed state, or its route was not made by an instance of this deployment."""
        if not token.startswith(_PREFIX):
            raise InvalidRequestState("not routed")
        parts = token[len(_PREFIX) :].split(".", 2)
        if len(parts) != 3:
            raise InvalidRequestState("malformed route")
        route, mac, sealed = parts
        try:
            given = _unb64(mac)
            url = _unb64(route).decode()
        except (binascii.Error, ValueError, UnicodeDecodeError):
            raise InvalidRequestState("malformed route") from None
        if not any(hmac.compare_digest(given, self._mac(k, route, sealed)) for k in self._macs):
            raise InvalidRequestState("route")
        return url, sealed

    @staticmethod
    def _mac(key: bytes, route: str, sealed: str) -> bytes:
        message = f"{route}.{sealed}".encode()
        return hmac.new(key, message, hashlib.sha256).digest()[:_MAC_BYTES]


class HeldCallRouter:
    """ASGI middleware: a retry whose ``requestState`` was minted by another instance is
    passed on to that instance (the rules are at the top of this module)."""

    def __init__(self, app: ASGIApp, instance: Instance, *, connect_timeout: float = 3.0) -> None:
        self.app = app
        self.instance = instance
        self._codec = instance.codec()
        # No read timeout: a retry waits at the holding instance for as long as the server
        # computes (the hold limit bounds the person's side). Connecting is bounded: an
        # instance that is gone must be said at once. A connection per hop, none kept: a
        # kept one the holder closed while idle would fail the next hop, and a failed hop
        # must mean the holder is gone (one connect per retry costs nothing beside a person).
        self._client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(30.0, connect=connect_timeout, read=None),
            limits=httpx2.Limits(max_connections=None, max_keepalive_connections=0),
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST" or _hopped(scope):
            await self.app(scope, receive, send)
            return
        body, whole, more = await _read_body(receive)
        route = self._route(body) if whole else None
        if route is None or route == self.instance.url:
            await self.app(scope, _replaying(body, more, receive), send)
            return
        await self._pass_on(scope, receive, send, body, route)

    def _route(self, body: bytes) -> str | None:
        """The route of a retry minted by another instance, else ``None``."""
        try:
            message = json.loads(body)
        except ValueError:
            return None
        if not isinstance(message, dict) or message.get("method") not in ASKING_METHODS:
            return None
        params = message.get("params")
        state = params.get("requestState") if isinstance(params, dict) else None
        if not isinstance(state, str):
            return None
        try:
            route, _sealed = self._codec.read(state)
        except InvalidRequestState:
            return None  # not ours to route: the boundary refuses it as any bad state
        return route

    async def _pass_on(
        self, scope: Scope, receive: Receive, send: Send, body: bytes, route: str
    ) -> None:
        headers = [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in scope.get("headers", [])
            if name.lower() not in _HOP_HEADERS
        ]
        host = next((v for n, v in scope.get("headers", []) if n.lower() == b"host"), None)
        if host is not None:  # the holder checks the Host the client sent, as this one would
            headers.append(("host", host.decode("latin-1")))
        headers.append((HOP_HEADER, "1"))
        request = self._client.build_request("POST", route, headers=headers, content=body)
        try:
            response = await self._client.send(request, stream=True)
        except httpx2.TransportError as error:
            # Refused, timed out, or the connection closed before any answer (a process in
            # its last moments): whatever the holder did with the answer, its call is gone.
            logger.warning("the gateway instance holding a call did not answer: %s", error)
            await _lost(body, scope, receive, send)
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (name, value)
                        for name, value in response.headers.raw
                        if name.lower() not in _HOP_HEADERS
                    ],
                }
            )
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()


def _hopped(scope: Scope) -> bool:
    hop = HOP_HEADER.encode()
    return any(name.lower() == hop for name, _ in scope.get("headers", []))


async def _read_body(receive: Receive) -> tuple[bytes, bool, bool]:
    """The request's body as far as it is looked at: the bytes, whether they are the whole
    body, and whether more is still to be read (a body over :data:`_LOOKED_AT`)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: nothing to route
            return b"".join(chunks), False, False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True, False
        if size > _LOOKED_AT:
            return b"".join(chunks), False, True


def _replaying(body: bytes, more: bool, receive: Receive) -> Receive:
    """``receive`` for the app behind: what was read first, then the rest as it comes."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replay


async def _lost(body: bytes, scope: Scope, receive: Receive, send: Send) -> None:
    """The retry's answer when the instance holding its call is gone."""
    try:
        request_id = json.loads(body).get("id")
    except (ValueError, AttributeError):
        request_id = None
    payload = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": INVALID_PARAMS,
            "message": (
                "The gateway instance holding this call has stopped, and the call was lost "
                "with it: make the call again, without its requestState"
            ),
        },
    }
    await JSONResponse(payload)(scope, receive, send)
