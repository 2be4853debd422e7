"""The pages' side of downstream OAuth (the ``oauth`` extra): the connect page and the
provider's callback. Imported only when a server has providers (``Elicitation``), which hands
them to the hosted pages (``hosted_pages(connect=..., extra_routes=...)``): the pages know
nothing of OAuth, so this lives here, above them.

- **Connect** (a flow's own page, ``/elicit/flows/<id>``, for an ``oauth`` flow): the pages
  have already checked that the browser is the flow's user (the same-user rule, before
  anything about the flow is shown). It marks the flow opened and sends the browser to the
  provider with PKCE S256 and a ``state`` sealed for this purpose, holding the flow id, the
  user, the provider and the PKCE verifier, valid until the flow expires. A HEAD, a prefetch
  or a link-preview bot gets a page with the link to go on, and changes nothing.
- **Callback** (``/elicit/oauth/callback/<provider>``, one per provider, the redirect URI the
  connect page sends): the provider must be one of ours (else 404), the ``state`` must open
  (else 400: it was changed, or made by someone else's key), the browser must be the user it
  names (else 403: a foreign ``state``). A ``state`` made for another provider is an OAuth
  mix-up (``response.py``): refused (400), its code sent nowhere. Its flow must be live (a
  replayed ``state`` finds it finished: the status page, or, for a flow that ended with an
  error or a refusal, a page saying nothing was connected; nothing stored; an expired one:
  410). The response's ``iss`` must then pass RFC 9207 (refused, 400, otherwise). Then
  ``error=access_denied`` declines the flow; any other error, or a code the provider will not
  exchange, completes it with the error for the tool to report; a code exchanged completes it
  with the tokens, in one step of the store with the vault entry (``Flows.complete``).
- **Refused answers end the flow**: a mix-up or an ``iss`` that fails completes the flow
  with the refusal (the tool gets an ``AuthorizationFailed`` naming the rule; nothing goes
  into the vault), since only the flow's own provider, or the browser it sent, could have
  carried its ``state`` there. The tool may ask again; the same answer is refused again.
- **The retired shared callback** (``/elicit/oauth/callback``, before each provider had its
  own) is a page saying to open the link again, and a warning to the operator; it reads
  nothing it is sent.

Nothing about the tokens reaches a page, a log line or the flow's details; nothing of a
provider's free text reaches a page or the tool (the log gets it cleaned).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx2
from authlib.common.errors import AuthlibBaseError
from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.errors import OAuth2Error
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from mcp_elicit.flows import FlowError, FlowFinished, Flows
from mcp_elicit.i18n import _
from mcp_elicit.server.identity import Identity
from mcp_elicit.server.oauth.downstream import (
    Endpoints,
    OAuthProvider,
    dump_error,
    dump_refusal,
    dump_token,
    holds_token,
)
from mcp_elicit.server.oauth.metadata import MetadataError
from mcp_elicit.server.oauth.response import issuer_refusal, provider_words, registered_error
from mcp_elicit.server.oauth.sealed import Sealer
from mcp_elicit.server.pages import html
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores.records import FlowRecord, FlowStatus

logger = logging.getLogger(__name__)

CALLBACK_PATH = "/oauth/callback"  # and "/<provider name>": one redirect URI per provider
_STATE_PURPOSE = "oauth-state"
_STATE_GRACE = 3600.0


class Connector:
    """Connect pages and the callback for ``providers``, sharing the pages' flows, vault and
    identity. ``key``: the pages' key (the ``state`` is sealed under a key derived from it,
    the same on every instance, so a callback reaching another instance, or this one after a
    restart, still opens it)."""

    def __init__(
        self,
        *,
        providers: Mapping[str, OAuthProvider],
        flows: Flows,
        vault: Vault,
        identity: Identity,
        key: bytes | Sequence[bytes],
        server_name: str,
    ) -> None:
        self._providers = dict(providers)
        self._flows = flows
        self._vault = vault
        self._identity = identity
        self._state = Sealer(key, _STATE_PURPOSE)
        self._server_name = server_name

    def routes(self) -> list[BaseRoute]:
        return [
            Route(CALLBACK_PATH + "/{provider}", self.callback, methods=["GET"]),
            Route(CALLBACK_PATH, self.retired_callback, methods=["GET"]),
        ]

    # -- connect -------------------------------------------------------------------------------

    def _no_provider(self, request: Request, flow: FlowRecord) -> Response:
        """A flow whose provider this server no longer has (taken out of its settings)."""
        logger.warning("flow %s names a provider this server does not have", flow.id)
        return self._problem(
            request,
            _("Nothing to connect"),
            _("This server no longer connects to that service."),
            404,
        )

    async def connect(
        self, request: Request, user: str, flow: FlowRecord, *, only_looking: bool
    ) -> Response:
        """The flow's page, for its user (already checked): on to the provider."""
        provider = self._providers.get(str(flow.details.get("provider")))
        if provider is None:
            return self._no_provider(request, flow)
        if only_looking:
            # A preview or a prefetch: show where the link goes, move nothing.
            page = html.problem_page(
                base=_base(request),
                server_name=self._server_name,
                title=_("Connect {provider}").format(provider=provider.shown_name),
                message=_("Open this link in your browser to connect {provider}.").format(
                    provider=provider.shown_name
                ),
            )
            return HTMLResponse(page)
        scopes = flow.details.get("scopes")
        wanted = [str(s) for s in scopes] if isinstance(scopes, list) else list(provider.scopes)
        verifier = generate_token(48)  # RFC 7636: 43 to 128 characters
        state = self._state.seal(
            {"flow": flow.id, "user": user, "provider": provider.name, "verifier": verifier},
            # Longer than the flow: a callback after the flow expired must still open, to be
            # told so (the flow's own expiry is what refuses it).
            ttl=max(0.0, flow.expires_at - time.time()) + _STATE_GRACE,
        )
        try:
            endpoints = await provider.endpoints()
        except (MetadataError, httpx2.HTTPError) as error:
            logger.warning("%s: metadata unavailable (%s)", provider.name, type(error).__name__)
            return self._problem(
                request,
                _("{provider} is unavailable").format(provider=provider.shown_name),
                _("{provider} did not answer. Try the link again in a moment.").format(
                    provider=provider.shown_name
                ),
                502,
            )
        extra: dict[str, Any] = {"scope": " ".join(wanted)} if wanted else {}
        if "offline_access" in wanted:
            # OpenID Connect Core 11: offline_access (a refresh token) needs prompt=consent;
            # providers drop the scope otherwise, and the token could not be refreshed.
            extra["prompt"] = "consent"
        if provider.resource:
            extra["resource"] = provider.resource
        async with provider.client(redirect_uri=self.redirect_uri(request, provider)) as oauth:
            url, _sent_state = oauth.create_authorization_url(
                endpoints.authorization, state=state, code_verifier=verifier, **extra
            )
        try:
            await self._flows.open(flow.id, user=user)
        except FlowError as error:
            return self._after(request, flow, error)
        logger.info("flow %s: sent the browser to %s", flow.id, provider.name)
        return RedirectResponse(url, status_code=303)

    async def finished(self, request: Request, user: str, flow: FlowRecord) -> Response:
        """A finished flow's page, for its user (already checked), however the browser got
        there: the callback's redirect to the status page, that page reloaded, the flow's link
        opened again, on any instance. "Connected" only if a token was kept."""
        provider = self._providers.get(str(flow.details.get("provider")))
        if provider is None:
            return self._no_provider(request, flow)
        return await self._replayed(request, flow, provider, user)

    def redirect_uri(self, request: Request, provider: OAuthProvider) -> str:
        # The Host was checked against the pages' allow-list before any route ran. The name
        # is URL-safe (OAuthProvider checks it).
        origin = f"{request.url.scheme}://{request.url.netloc}"
        return f"{origin}{_base(request)}{CALLBACK_PATH}/{provider.name}"

    # -- the provider's callback ---------------------------------------------------------------

    async def callback(self, request: Request) -> Response:
        at = self._providers.get(request.path_params["provider"])
        if at is None:
            return HTMLResponse(
                html.not_found_page(base=_base(request), server_name=self._server_name),
                status_code=404,
            )
        state = self._state.open(request.query_params.get("state"))
        if state is None:
            logger.info("oauth callback: refused a state that does not open")
            return self._problem(
                request,
                _("This sign-in could not be used"),
                _(
                    "The link that brought you here was changed, is too old, or was not made "
                    "by this server. Nothing was saved."
                ),
                400,
            )
        user = await self._identity.user_of_browser(request)
        if not user or user != state.get("user"):
            logger.info("oauth callback: refused a state made for another browser's user")
            page = html.refused_page(
                base=_base(request),
                server_name=self._server_name,
                login_url=self._identity.login_url(request),
            )
            return HTMLResponse(page, status_code=403)
        flow = await self._flows.get(str(state.get("flow")))
        provider = self._providers.get(str(state.get("provider")))
        if (
            flow is None
            or provider is None
            or flow.user != user
            or flow.details.get("provider") != provider.name
        ):
            return HTMLResponse(
                html.not_found_page(base=_base(request), server_name=self._server_name),
                status_code=404,
            )
        if provider.name != at.name:
            # The mix-up: this answer is from the provider whose callback this is, to a
            # request made to another. Its code goes to no token endpoint.
            return await self._refuse(request, flow, provider, user, "mix_up", came_to=at)
        if flow.status.finished:
            # A replay (or a second tab): this flow has its answer already.
            return await self._replayed(request, flow, provider, user)
        try:
            endpoints = await provider.endpoints()
            refused = issuer_refusal(
                request.query_params.get("iss"),
                expected=endpoints.issuer,
                required=endpoints.iss_required,
            )
            if refused is not None:
                return await self._refuse(request, flow, provider, user, refused, came_to=at)
            if "error" in request.query_params:
                return await self._provider_said_no(request, flow, provider, user)
            token = await self._exchange(request, provider, endpoints, state)
        except AuthlibBaseError as error:
            code = getattr(error, "error", None)
            logger.warning(
                "flow %s: %s refused the code (%s)",
                flow.id,
                provider.name,
                registered_error(code) or "an error OAuth does not define",
            )
            return await self._complete(request, flow, provider, user, dump_error(code))
        except (MetadataError, httpx2.HTTPError) as error:
            logger.warning(
                "flow %s: %s unreachable (%s)", flow.id, provider.name, type(error).__name__
            )
            kept = dump_refusal("unreachable")
            return await self._complete(request, flow, provider, user, kept)
        except FlowError as error:
            return self._after(request, flow, error)
        if token is None:
            kept = dump_refusal("no_access_token")
            return await self._complete(request, flow, provider, user, kept)
        return await self._complete(request, flow, provider, user, dump_token(token), ok=True)

    async def retired_callback(self, request: Request) -> Response:
        """The one callback every provider shared before each had its own. What it is sent
        is not read: a code here could be any provider's."""
        retired = f"{request.url.scheme}://{request.url.netloc}{_base(request)}{CALLBACK_PATH}"
        logger.warning(
            "a provider sent a browser to %s, which no longer takes answers: register "
            "%s/<provider name> at each provider instead (docs/oauth.md)",
            retired,
            retired,
        )
        return self._problem(
            request,
            _("This link is out of date"),
            _(
                "This server now takes each service's answer at an address of its own. Nothing "
                "was saved: open the link from the app again."
            ),
            410,
        )

    async def _provider_said_no(
        self, request: Request, flow: FlowRecord, provider: OAuthProvider, user: str
    ) -> Response:
        error = request.query_params["error"][:100]
        if error == "access_denied":
            try:
                await self._flows.decline(flow.id, user=user)
            except FlowError as failed:
                return self._after(request, flow, failed)
            logger.info("flow %s: consent denied at %s", flow.id, provider.name)
            return RedirectResponse(html.status_url(_base(request), flow.id), status_code=303)
        # The description is the provider's free text (anyone's, if the provider is hostile):
        # the operator's log gets it cleaned and marked as its words; the tool and the page
        # never see it.
        logger.info(
            "flow %s: %s answered %s; its own words, cleaned: %r",
            flow.id,
            provider.name,
            registered_error(error) or f"an error OAuth does not define ({provider_words(error)})",
            provider_words(request.query_params.get("error_description")),
        )
        return await self._complete(request, flow, provider, user, dump_error(error))

    async def _exchange(
        self,
        request: Request,
        provider: OAuthProvider,
        endpoints: Endpoints,
        state: Mapping[str, Any],
    ) -> dict[str, Any] | None:
        """The token for the code, from ``provider``'s own token endpoint (the one the
        ``state`` was made for: the caller checked); ``None`` without an access token."""
        code = request.query_params.get("code")
        if not code:
            raise OAuth2Error(error="invalid_request", description="no code")
        extra = {"resource": provider.resource} if provider.resource else {}
        async with provider.client(redirect_uri=self.redirect_uri(request, provider)) as oauth:
            token = await oauth.fetch_token(
                endpoints.token, code=code, code_verifier=str(state["verifier"]), **extra
            )
        return dict(token) if isinstance(token.get("access_token"), str) else None

    async def _refuse(
        self,
        request: Request,
        flow: FlowRecord,
        provider: OAuthProvider,
        user: str,
        refused: str,
        *,
        came_to: OAuthProvider,
    ) -> Response:
        """This server refuses the answer (``refused``, a key of ``response.REFUSALS``): the
        flow ends with the refusal for the tool, nothing goes into the vault, and the person
        is told. A flow that has its answer already keeps it (a replay changes nothing)."""
        logger.warning(
            "flow %s: refused the answer for %s that came to %s's callback: %s",
            flow.id,
            provider.name,
            came_to.name,
            refused,
        )
        name = provider.vault_name
        try:
            await self._flows.complete(
                flow.id,
                user=user,
                result=self._vault.seal_for_flow(flow.id, user, name, dump_refusal(refused)),
                secret=None,
            )
        except FlowFinished:
            pass
        except FlowError as error:
            return self._after(request, flow, error)
        if refused == "mix_up":
            return self._problem(
                request,
                _("The answer came from another service"),
                _(
                    "You were connecting {provider}, but the answer came back from {other}. "
                    "That is how one service tries to take another's access, so the answer "
                    "was refused and nothing was saved. The app you came from has been told; "
                    "you can close this tab."
                ).format(provider=provider.shown_name, other=came_to.shown_name),
                400,
            )
        return self._problem(
            request,
            _("The answer could not be trusted"),
            _(
                "The answer did not show that it came from {provider} (its issuer was wrong "
                "or missing), so it was refused and nothing was saved. The app you came from "
                "has been told; you can close this tab."
            ).format(provider=provider.shown_name),
            400,
        )

    async def _complete(
        self,
        request: Request,
        flow: FlowRecord,
        provider: OAuthProvider,
        user: str,
        kept: str,
        *,
        ok: bool = False,
    ) -> Response:
        name = provider.vault_name
        try:
            await self._flows.complete(
                flow.id,
                user=user,
                result=self._vault.seal_for_flow(flow.id, user, name, kept),
                # An error is for this call's tool only; tokens are kept for later calls too.
                secret=self._vault.seal(user, name, kept) if ok else None,
            )
        except FlowError as error:
            return self._after(request, flow, error)
        if not ok:
            return self._problem(
                request,
                _("{provider} did not connect").format(provider=provider.shown_name),
                _(
                    "{provider} answered with an error, so nothing was connected. The app you "
                    "came from has been told; you can close this tab."
                ).format(provider=provider.shown_name),
                502,
            )
        logger.info("flow %s completed: %s connected", flow.id, provider.name)
        return RedirectResponse(html.status_url(_base(request), flow.id), status_code=303)

    # -- pages -------------------------------------------------------------------------------

    async def _replayed(
        self, request: Request, flow: FlowRecord, provider: OAuthProvider, user: str
    ) -> Response:
        """Where a finished flow stands, said truthfully: one that ended with an error or a
        refusal connected nothing, though its status is "completed". The callback replayed
        and the pages (``finished``) both say it here."""
        if flow.status is FlowStatus.COMPLETED:
            kept = await self._vault.of_flow(flow.id, user, provider.vault_name)
            if kept is None or not holds_token(kept.get_secret_value()):
                return self._problem(
                    request,
                    _("{provider} did not connect").format(provider=provider.shown_name),
                    _(
                        "This answer has been dealt with already: {provider} was not connected "
                        "and nothing was saved. The app you came from has been told; you can "
                        "close this tab."
                    ).format(provider=provider.shown_name),
                    200,
                )
        return self._status(request, flow, flow.status)

    def _status(self, request: Request, flow: FlowRecord, status: FlowStatus) -> Response:
        page = html.status_page(
            base=_base(request),
            server_name=self._server_name,
            flow_id=flow.id,
            status=status,
            # The provider's name, which every oauth flow's details carry.
            label=str(flow.details.get("title") or "") or None,
            client=None,
            connected=True,
        )
        return HTMLResponse(page, status_code=410 if status is FlowStatus.EXPIRED else 200)

    def _after(self, request: Request, flow: FlowRecord, error: FlowError) -> Response:
        if isinstance(error, FlowFinished):
            return self._status(request, flow, error.status)
        return HTMLResponse(
            html.not_found_page(base=_base(request), server_name=self._server_name),
            status_code=404,
        )

    def _problem(self, request: Request, title: str, message: str, status: int) -> Response:
        page = html.problem_page(
            base=_base(request), server_name=self._server_name, title=title, message=message
        )
        return HTMLResponse(page, status_code=status)


def _base(request: Request) -> str:
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/")
