"""Downstream OAuth: a tool gets a third-party access token for the current user.

    token = await authorize(ctx, "example-files")        # Answer[ProviderToken]
    match token:
        case Accepted(token):
            files = httpx2.get(API, headers=token.authorization())

The rules, and why (URL mode's "URL elicitation for OAuth flows", 2025-11-25):

- **The third party's tokens never transit the client.** The person goes through URL mode to
  this server's own connect page, which sends their browser on to the provider; the provider
  sends the code back to this server's callback, which exchanges it (authlib, PKCE S256, the
  deployment's client secret) and keeps the tokens in the vault. The client sees a link and
  an accept; the tool gets the access token from the vault.
- **They are not the client's MCP token** (no token passthrough): they come from another
  authorization server, for another resource, and are never built from the MCP request.
- **They are bound to (server, user, provider)**: stored in the vault under
  ``oauth:<provider>`` for the user who asked, sealed with the server's keys. The connect
  page and the callback check that the browser is that user (the pages' same-user rule), and
  the ``state`` that travels through the provider is sealed with the flow, the user, the
  provider and the PKCE verifier inside: a changed, replayed or foreign ``state`` stores
  nothing.
- **The code goes only to the provider it is from** (the OAuth mix-up, RFC 9207): each
  provider has a callback of its own, a ``state`` made for one provider is refused at
  another's, and the response's ``iss`` must name the provider (``response.py``).
- **A provider's words are not the tool's**: the tool error names the provider and the OAuth
  error code (one OAuth defines, else "an error"), never the provider's free text.
- **Asked only when needed**: a stored token is returned while it is valid, refreshed when it
  has expired and a refresh token is there, and asked for again only when neither works.
  :func:`forget_authorization` revokes it at the provider (when the provider has a
  revocation endpoint) and deletes it.
"""

from __future__ import annotations

import json
import logging
import re
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.httpx_client import AsyncOAuth2Client
from pydantic import SecretStr

from mcp_elicit.flows import TooManyOpenFlows
from mcp_elicit.i18n import _
from mcp_elicit.server.answers import Accepted, Answer
from mcp_elicit.server.errors import CannotAsk
from mcp_elicit.server.links import OAUTH_PURPOSE
from mcp_elicit.server.oauth.metadata import MetadataError, discover
from mcp_elicit.server.oauth.response import REFUSALS, registered_error
from mcp_elicit.server.runtime import Services
from mcp_elicit.server.scope import RequestScope, current_scope
from mcp_elicit.server.url_mode import FlowLink, UrlRequired, ask_link, no_url_mode
from mcp_elicit.server.wording import refuse_links_in_text
from mcp_elicit.stores import FlowRecord, FlowStatus

logger = logging.getLogger(__name__)

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")
_EXPIRY_MARGIN = 30.0  # refresh a token this close to its expiry rather than hand it out
_NOT_API_SCOPES = frozenset({"offline_access", "openid"})


@dataclass(frozen=True)
class OAuthProvider:
    """A third-party authorization server this deployment is registered with.

    ``name`` names it in code and in the vault (``"example-files"``); ``title`` names it to
    people (``"Example Files"``). Endpoints come from ``issuer``'s metadata (OpenID discovery
    or RFC 8414) unless given; ``issuer`` is also what the ``iss`` of its authorization
    responses must equal (RFC 9207). ``client_id`` / ``client_secret``: this deployment's
    registration, with the redirect URI ``<public_url>/elicit/oauth/callback/<name>`` (one
    per provider: :mod:`.response` says why). ``scopes``: asked for by default;
    ``resource``: the RFC 8707 resource indicator to ask a token for."""

    name: str
    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    issuer: str | None = None
    title: str | None = None
    scopes: Sequence[str] = ()
    resource: str | None = None
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    revocation_endpoint: str | None = None

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(
                f"a provider's name is lower-case letters, digits, '.', '_' and '-', not "
                f"{self.name!r}"
            )
        if not self.client_id:
            raise ValueError(f"provider {self.name!r} needs the client_id it issued this server")
        if self.issuer is None and not (self.authorization_endpoint and self.token_endpoint):
            raise ValueError(
                f"provider {self.name!r} needs an issuer (for discovery) or both its "
                "authorization_endpoint and token_endpoint"
            )

    @property
    def shown_name(self) -> str:
        return self.title or self.name

    @property
    def vault_name(self) -> str:
        return f"oauth:{self.name}"

    async def endpoints(self, http: httpx2.AsyncClient | None = None) -> Endpoints:
        """The endpoints, given or discovered (the metadata must name this issuer), and
        whether its authorization responses must carry ``iss`` (its metadata says so)."""
        if self.issuer is None:
            assert self.authorization_endpoint and self.token_endpoint
            return Endpoints(
                self.authorization_endpoint, self.token_endpoint, self.revocation_endpoint
            )
        metadata = await discover(self.issuer, http=http)
        return Endpoints(
            self.authorization_endpoint or metadata.authorization_endpoint,
            self.token_endpoint or metadata.token_endpoint,
            self.revocation_endpoint or metadata.revocation_endpoint,
            issuer=self.issuer,
            iss_required=metadata.iss_parameter_supported,
        )

    def client(self, *, redirect_uri: str | None = None) -> AsyncOAuth2Client:
        """authlib's client for this provider (PKCE S256; the secret, when there is one, by
        HTTP Basic)."""
        return AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self.client_secret,
            token_endpoint_auth_method="client_secret_basic" if self.client_secret else "none",
            revocation_endpoint_auth_method="client_secret_basic" if self.client_secret else "none",
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
            timeout=10.0,
        )


@dataclass(frozen=True, slots=True)
class Endpoints:
    authorization: str
    token: str
    revocation: str | None
    issuer: str | None = None
    iss_required: bool = False


@dataclass(frozen=True)
class ProviderToken:
    """A third-party access token for the current user. The refresh token is never handed
    out: it stays in the vault."""

    provider: str
    access_token: SecretStr
    token_type: str = "Bearer"
    expires_at: float | None = None
    scopes: tuple[str, ...] = ()

    def authorization(self) -> dict[str, str]:
        """The ``Authorization`` header for a request to the provider's API."""
        return {"Authorization": f"Bearer {self.access_token.get_secret_value()}"}

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= time.time()


class AuthorizationFailed(CannotAsk):
    """The provider refused or failed (not the person), or this server refused its answer:
    the tool error names the provider and the OAuth error code, or "an error" for a code
    OAuth does not define, or the rule its answer broke; never the provider's own text.

    ``error``: that code (``"invalid_client"``), the refusal (``"mix_up"``, a key of
    ``response.REFUSALS``), or ``None`` for a code OAuth does not define."""

    def __init__(
        self, provider: OAuthProvider, error: str | None, *, refused: str | None = None
    ) -> None:
        self.provider = provider.name
        if refused is not None:
            self.error: str | None = refused
            why = REFUSALS.get(refused, "its answer was refused")
        else:
            self.error = registered_error(error)
            why = self.error or "an error"
        super().__init__(f"{provider.shown_name} did not authorize this server: {why}")


# -- the tool's side ---------------------------------------------------------------------------


async def authorize(
    ctx: Any,
    provider: str,
    *,
    scopes: Sequence[str] | None = None,
    message: str | None = None,
    timeout: float | None = None,
) -> Answer[ProviderToken]:
    """The current user's access token at ``provider`` (a name given to
    ``Elicitation(providers=...)``), asking them only when there is no valid one.

    ``Accepted(ProviderToken)``; ``Declined()`` when the person declined the link or denied
    consent at the provider; ``Cancelled(...)`` as for any link. A provider error is an
    :class:`AuthorizationFailed` (a tool error naming the provider and the error)."""
    scope = current_scope(ctx)
    asking = _Asking.of(scope, provider, scopes, message, where="authorize() message")
    services = asking.services
    stored = await stored_token(services, asking.provider, asking.scopes)
    if stored is not None:
        return Accepted(stored)

    async def flow_for(existing: str | None) -> FlowRecord | None:
        found = await services.own_flow(existing)
        return found or await asking.start_flow()

    answer = await ask_link(
        scope,
        asking.text,
        pin=f"oauth:{asking.provider.name}",
        url_of=lambda flow: services.flow_url(flow.id if flow is not None else ""),
        flow_link=FlowLink(flow_for, services.flows, services.completions),
        timeout=timeout,
    )
    if not isinstance(answer, Accepted):
        return answer
    return Accepted(await _token_of_flow(services, asking.provider, answer.value))


async def authorization_required(
    ctx: Any, provider: str, *, scopes: Sequence[str] | None = None, message: str | None = None
) -> UrlRequired:
    """A :class:`UrlRequired` that sends the person through ``provider``'s consent, for a tool
    that must not block (-32042 on 2025-11-25); call :func:`stored_authorization` first."""
    scope = current_scope(ctx)
    if scope.peer.revision is None or not scope.peer.modes.url:
        raise no_url_mode(scope.peer)  # no flow for a link that cannot be sent
    asking = _Asking.of(scope, provider, scopes, message, where="authorization_required() message")
    services = asking.services
    # 2026-07-28: the retry after the link runs the tool again; while the flow the link leads
    # to is still open, send the same link, not a new flow per retry.
    flow = await services.completions.linked_flow(scope.round)
    if (
        flow is None
        or flow.user != services.user
        or flow.details.get("provider") != asking.provider.name
    ):
        flow = await asking.start_flow()
    # Our own connect page: its public_url was held to https off loopback (check_transport).
    return UrlRequired(
        services.flow_url(flow.id), asking.text, flow_id=flow.id, allow_insecure_http=True
    )


async def stored_authorization(
    ctx: Any, provider: str, *, scopes: Sequence[str] | None = None
) -> ProviderToken | None:
    """The user's valid (or refreshed) token at ``provider``, or ``None``; never asks."""
    scope = current_scope(ctx)
    asking = _Asking.of(scope, provider, scopes, None, where="stored_authorization()")
    services = asking.services
    linked = scope.round.linked_flow() if scope.round is not None else None
    if linked is not None:
        flow = await services.own_flow(linked)
        if (
            flow is not None
            and flow.status is FlowStatus.COMPLETED
            and flow.details.get("provider") == asking.provider.name
        ):
            return await _token_of_flow(services, asking.provider, flow)
    return await stored_token(services, asking.provider, asking.scopes)


@dataclass(frozen=True)
class _Asking:
    """Who asks for which provider's token, with what scopes and words."""

    services: Services
    provider: OAuthProvider
    scopes: tuple[str, ...]
    text: str

    @classmethod
    def of(
        cls,
        scope: RequestScope,
        provider: str,
        scopes: Sequence[str] | None,
        message: str | None,
        *,
        where: str,
    ) -> _Asking:
        services = scope.services("downstream OAuth")
        chosen = provider_of(services.providers, provider)
        # The person reads it with the link, in the client: in the server's language.
        text = message or _(
            "Connect your {provider} account, so that this tool can use it."
        ).format(provider=chosen.shown_name)
        refuse_links_in_text(text, where=where)
        return cls(
            services=services,
            provider=chosen,
            scopes=tuple(scopes if scopes is not None else chosen.scopes),
            text=text,
        )

    async def start_flow(self) -> FlowRecord:
        return await _start_flow(self.services, self.provider, self.scopes, self.text)


async def forget_authorization(ctx: Any, provider: str) -> bool:
    """Revoke the user's tokens at ``provider`` (refresh token first, then the access token;
    when the provider has a revocation endpoint) and delete them here. ``True`` when there
    was something to forget. A revocation the provider refuses is logged; the tokens are
    deleted here all the same."""
    asking = _Asking.of(current_scope(ctx), provider, None, None, where="forget_authorization()")
    services, chosen = asking.services, asking.provider
    stored = await _stored(services, chosen)
    if stored is None:
        return False
    try:
        endpoints = await chosen.endpoints()
        if endpoints.revocation is not None:
            async with chosen.client() as oauth:
                for hint in ("refresh_token", "access_token"):
                    value = stored.get(hint)
                    if isinstance(value, str) and value:
                        await oauth.revoke_token(
                            endpoints.revocation, token=value, token_type_hint=hint
                        )
    except (AuthlibBaseError, MetadataError, httpx2.HTTPError) as error:
        logger.warning("%s: revoking a token failed (%s)", chosen.name, type(error).__name__)
    return await services.vault.forget(services.user, chosen.vault_name)


# -- tokens in the vault -----------------------------------------------------------------------

# One refresh at a time per (server, user, provider): a provider that rotates refresh tokens
# revokes the whole grant when a used one is presented again. Weak: a lock lives only while
# someone holds or waits for it, so many users do not grow this.
_REFRESHING: weakref.WeakValueDictionary[tuple[str, str, str], anyio.Lock] = (
    weakref.WeakValueDictionary()
)


def provider_of(providers: Mapping[str, OAuthProvider], name: str) -> OAuthProvider:
    found = providers.get(name)
    if found is None:
        known = ", ".join(sorted(providers)) or "none"
        raise ValueError(
            f"no OAuth provider named {name!r} (configured: {known}); pass it in "
            "Elicitation(providers=[OAuthProvider(...)])"
        )
    return found


async def stored_token(
    services: Services, provider: OAuthProvider, scopes: Sequence[str]
) -> ProviderToken | None:
    """A valid token from the vault, refreshed first when it has expired (one refresh at a
    time per user and provider in this process); ``None`` when there is none to use."""
    key = (services.vault.server, services.user, provider.name)
    lock = _REFRESHING.get(key)
    if lock is None:
        lock = _REFRESHING[key] = anyio.Lock()
    async with lock:
        stored = await _stored(services, provider)
        if stored is None or not _covers(stored, scopes):
            return None
        expires_at = stored.get("expires_at")
        fresh = not isinstance(expires_at, int | float) or expires_at > time.time() + _EXPIRY_MARGIN
        if fresh:
            return _token(provider, stored)
        refreshed = await _refresh(services, provider, stored)
        return _token(provider, refreshed) if refreshed is not None else None


async def _refresh(
    services: Services, provider: OAuthProvider, stored: dict[str, Any]
) -> dict[str, Any] | None:
    refresh_token = stored.get("refresh_token")
    if not isinstance(refresh_token, str) or not refresh_token:
        return None
    try:
        endpoints = await provider.endpoints()
        async with provider.client() as oauth:
            extra = {"resource": provider.resource} if provider.resource else {}
            token = dict(
                await oauth.refresh_token(endpoints.token, refresh_token=refresh_token, **extra)
            )
    except AuthlibBaseError as error:
        # invalid_grant: revoked or expired at the provider. Ask the person again.
        logger.info(
            "%s: the refresh token was refused (%s)", provider.name, getattr(error, "error", error)
        )
        await services.vault.forget(services.user, provider.vault_name)
        return None
    except (MetadataError, httpx2.HTTPError) as error:
        logger.warning("%s: refreshing failed (%s)", provider.name, type(error).__name__)
        raise AuthorizationFailed(provider, "temporarily_unavailable") from error
    token.setdefault("refresh_token", refresh_token)  # a provider that does not rotate it
    token.setdefault("scope", stored.get("scope"))
    await services.vault.put(services.user, provider.vault_name, dump_token(token))
    logger.info("%s: refreshed a token", provider.name)
    return token


async def _stored(services: Services, provider: OAuthProvider) -> dict[str, Any] | None:
    found = await services.vault.get(services.user, provider.vault_name)
    return _load(found.get_secret_value()) if found is not None else None


async def _token_of_flow(services: Services, provider: OAuthProvider, flow: Any) -> ProviderToken:
    """What the callback kept with this flow: the token, or the provider's error."""
    user = services.user
    if not isinstance(flow, FlowRecord) or flow.purpose != OAUTH_PURPOSE or flow.user != user:
        raise CannotAsk("the link that completed was not this authorization's")
    sealed = await services.vault.of_flow(flow.id, user, provider.vault_name)
    kept = _load(sealed.get_secret_value()) if sealed is not None else None
    if kept is None:
        raise CannotAsk(f"the {provider.shown_name} authorization is no longer stored")
    failure = _failure_of(provider, kept)
    if failure is not None:
        raise failure
    return _token(provider, kept)


def _failure_of(provider: OAuthProvider, kept: Mapping[str, Any]) -> AuthorizationFailed | None:
    """The tool error a flow's kept answer stands for (``dump_error``, ``dump_refusal``), or
    ``None`` when it holds a token."""
    if "refused" in kept:
        return AuthorizationFailed(provider, None, refused=str(kept["refused"]))
    if "error" in kept:
        return AuthorizationFailed(provider, kept["error"])
    return None


async def _start_flow(
    services: Services, provider: OAuthProvider, scopes: Sequence[str], message: str
) -> FlowRecord:
    try:
        return await services.flows.start(
            user=services.user,
            purpose=OAUTH_PURPOSE,
            details={
                "provider": provider.name,
                "title": provider.shown_name,
                "scopes": list(scopes),
                "message": message,
            },
        )
    except TooManyOpenFlows as full:
        raise CannotAsk(
            f"this tool cannot send another link: {full.limit} open links of this user are "
            "waiting on this server already"
        ) from full


def _token(provider: OAuthProvider, stored: Mapping[str, Any]) -> ProviderToken:
    expires_at = stored.get("expires_at")
    scope = stored.get("scope")
    return ProviderToken(
        provider=provider.name,
        access_token=SecretStr(str(stored["access_token"])),
        token_type=str(stored.get("token_type") or "Bearer"),
        expires_at=float(expires_at) if isinstance(expires_at, int | float) else None,
        scopes=tuple(scope.split()) if isinstance(scope, str) else (),
    )


def _covers(stored: Mapping[str, Any], wanted: Sequence[str]) -> bool:
    scope = stored.get("scope")
    granted = set(scope.split()) if isinstance(scope, str) else set()
    # A provider that does not say which scopes it granted granted what was asked. The
    # scopes that ask for a refresh token or an ID token are not the API's: a token response
    # for a resource commonly leaves them out.
    return not granted or set(wanted) - _NOT_API_SCOPES <= granted


def dump_token(token: Mapping[str, Any]) -> str:
    """What the vault keeps of a token response (never ``id_token`` or anything else)."""
    kept = {
        k: token[k]
        for k in ("access_token", "refresh_token", "token_type", "expires_at", "scope")
        if token.get(k) is not None
    }
    if "expires_at" not in kept and isinstance(token.get("expires_in"), int | float):
        kept["expires_at"] = time.time() + float(token["expires_in"])
    return json.dumps(kept, separators=(",", ":"))


def dump_error(error: str | None) -> str:
    """What a flow keeps when the provider failed, for the tool to report: the error code if
    OAuth defines it (``null`` otherwise), and nothing of the provider's free text."""
    return json.dumps({"error": registered_error(error)}, separators=(",", ":"))


def dump_refusal(refused: str) -> str:
    """What a flow keeps when this server refused the provider's answer (a key of
    ``response.REFUSALS``)."""
    return json.dumps({"refused": refused}, separators=(",", ":"))


def holds_token(kept: str) -> bool:
    """Whether what a flow kept is a token (not an error, not a refusal)."""
    value = _load(kept)
    # _load keeps nothing else: a record without either is one with an access token.
    return value is not None and value.keys().isdisjoint({"error", "refused"})


def _load(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    if value.keys().isdisjoint({"error", "refused"}) and not isinstance(
        value.get("access_token"), str
    ):
        return None
    return value
