"""An authorization server's metadata (OpenID discovery or RFC 8414), fetched and checked.

The issuer a deployment names is the one trust decision; everything else (the authorize,
token, revocation and JWKS endpoints) is read from that issuer's own metadata, whose
``issuer`` must equal it exactly (RFC 8414 §3.3, OpenID Discovery §4.3): a metadata document
that names another issuer is refused, so a mix-up cannot send people or tokens to it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from mcp_elicit.server.oauth import _extra  # noqa: F401  (the extra is installed)

_WELL_KNOWN = (
    "/.well-known/openid-configuration",
    "/.well-known/oauth-authorization-server",
)


class MetadataError(RuntimeError):
    """The provider's metadata could not be fetched, or does not describe that issuer."""


@dataclass(frozen=True, slots=True)
class ProviderMetadata:
    """What the deployment needs of an authorization server."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str | None = None
    revocation_endpoint: str | None = None
    end_session_endpoint: str | None = None
    # RFC 9207 §3: the provider puts ``iss`` in every authorization response, so a response
    # without it is not the provider's.
    iss_parameter_supported: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, issuer: str, document: Mapping[str, Any]) -> ProviderMetadata:
        found = document.get("issuer")
        if found != issuer:
            raise MetadataError(
                f"the metadata of {issuer} names issuer {found!r}: refused (they must be equal)"
            )
        missing = [k for k in ("authorization_endpoint", "token_endpoint") if not document.get(k)]
        if missing:
            raise MetadataError(f"the metadata of {issuer} has no {', '.join(missing)}")

        def optional(key: str) -> str | None:
            value = document.get(key)
            return value if isinstance(value, str) and value else None

        return cls(
            issuer=issuer,
            authorization_endpoint=str(document["authorization_endpoint"]),
            token_endpoint=str(document["token_endpoint"]),
            jwks_uri=optional("jwks_uri"),
            revocation_endpoint=optional("revocation_endpoint"),
            end_session_endpoint=optional("end_session_endpoint"),
            iss_parameter_supported=(
                document.get("authorization_response_iss_parameter_supported") is True
            ),
            raw=dict(document),
        )


_CACHE: dict[str, tuple[float, ProviderMetadata]] = {}
_LOCK = anyio.Lock()
CACHE_SECONDS = 3600.0


async def discover(issuer: str, *, http: httpx2.AsyncClient | None = None) -> ProviderMetadata:
    """``issuer``'s metadata, from OpenID discovery or else RFC 8414; cached for an hour."""
    now = time.monotonic()
    cached = _CACHE.get(issuer)
    if cached is not None and now - cached[0] < CACHE_SECONDS:
        return cached[1]
    async with _LOCK:
        problems: list[str] = []
        async with _client(http) as client:
            for suffix in _WELL_KNOWN:
                url = issuer.rstrip("/") + suffix
                try:
                    response = await client.get(url, headers={"Accept": "application/json"})
                except httpx2.HTTPError as error:
                    problems.append(f"{url}: {error}")
                    continue
                if response.status_code != 200:
                    problems.append(f"{url}: HTTP {response.status_code}")
                    continue
                try:
                    document = response.json()
                except ValueError:
                    problems.append(f"{url}: not JSON")
                    continue
                if not isinstance(document, Mapping):
                    problems.append(f"{url}: not a JSON object")
                    continue
                metadata = ProviderMetadata.from_json(issuer, document)
                _CACHE[issuer] = (now, metadata)
                return metadata
    raise MetadataError(f"no metadata for issuer {issuer}: " + "; ".join(problems))


class _client:
    """The caller's client, or one of our own for this call."""

    def __init__(self, http: httpx2.AsyncClient | None) -> None:
        self._given = http
        self._own: httpx2.AsyncClient | None = None

    async def __aenter__(self) -> httpx2.AsyncClient:
        if self._given is not None:
            return self._given
        self._own = httpx2.AsyncClient(timeout=10.0, follow_redirects=False)
        return self._own

    async def __aexit__(self, *exc: object) -> None:
        if self._own is not None:
            await self._own.aclose()


class KeyCache:
    """An issuer's signing keys (JWKS): fetched on first use, kept for an hour, fetched again
    for a key id not seen before (the issuer rotated its keys), but not more than once a
    minute whatever arrives."""

    REFETCH_AFTER = 60.0
    KEEP_FOR = 3600.0

    def __init__(
        self, issuer: str, *, jwks_uri: str | None = None, http: httpx2.AsyncClient | None = None
    ) -> None:
        self.issuer = issuer
        self._jwks_uri = jwks_uri
        self._http = http
        self._keys: KeySet | None = None
        self.fetched_at = 0.0
        self._lock = anyio.Lock()

    async def keys(self, *, refresh: bool = False) -> KeySet:
        async with self._lock:
            stale = time.monotonic() - self.fetched_at > self.KEEP_FOR
            if self._keys is None or stale or refresh:
                uri = self._jwks_uri
                if uri is None:
                    uri = (await discover(self.issuer, http=self._http)).jwks_uri
                    if uri is None:
                        raise MetadataError(f"the metadata of {self.issuer} names no jwks_uri")
                    self._jwks_uri = uri
                async with _client(self._http) as client:
                    response = await client.get(uri)
                response.raise_for_status()
                self._keys = KeySet.import_key_set(response.json())
                self.fetched_at = time.monotonic()
            return self._keys

    def may_refetch(self) -> bool:
        return time.monotonic() - self.fetched_at > self.REFETCH_AFTER

    async def decode(self, token: str, algorithms: list[str]) -> dict[str, Any]:
        """The claims of ``token`` once its signature checks out against these keys (the
        claims themselves are the caller's to check)."""
        try:
            decoded = jwt.decode(token, await self.keys(), algorithms=algorithms)
        except JoseError as error:
            if "key" not in type(error).__name__.lower() or not self.may_refetch():
                raise
            decoded = jwt.decode(token, await self.keys(refresh=True), algorithms=algorithms)
        return dict(decoded.claims)


def forget_cached() -> None:
    """Drop cached metadata (tests start providers on new ports)."""
    _CACHE.clear()
