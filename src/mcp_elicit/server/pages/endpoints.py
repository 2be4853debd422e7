"""The secret-entry page, its form submission, and the status page.

The rules, and why:

- Only the user who started a flow may see or answer it (the design's same-user rule,
  the defence against phishing with a flow link). Who the browser is comes from
  ``Identity.user_of_browser``, never from anything in the URL or the form. A browser that is
  not signed in is sent to sign in, or refused; a browser signed in as someone else is
  refused with the same words, and before anything about the flow is looked at.
- A POST is checked in this order: where it came from and its CSRF token, then who sent it,
  then the flow's state, then the action. A forged or cross-site POST changes nothing and
  learns nothing, not even whether the flow exists.
- Only the flow's user's own visit marks it ``opened``. HEAD, a browser's prefetch and a
  link-preview bot (a chat app fetching a pasted link, see :data:`PREVIEW_AGENTS`) get the
  same answer without changing the flow, as does, before that, anyone refused.
- The secret's value goes to the vault, sealed, and nowhere else: not into a page (the form
  is re-shown empty after a mistake), not into a log line, not into flow details. Decline is
  a separate form, so a value already typed is not even sent when the person declines.
- Storing the value and completing the flow are one step of the store
  (``Flows.complete(result=, secret=)``): the value sealed for this flow alone (what the
  call waiting on it returns) and the vault entry for later reuse are written with the
  status, or not at all. A Save that loses to a Decline in another tab, or to the flow's
  expiry, stores nothing, which is what its page then says.
- A successful POST answers ``303 See Other`` to the status page (POST/redirect/GET):
  reloading the result, or going back and forward, never re-posts the secret, and the page
  left in the tab carries no form.
- Each outcome has its own status code, so that it is plain to a script as well as to a
  person: 200 the form and where a flow stands, 303 after a post, 403 another user's flow
  (or no user) and a forged post, 404 an unknown flow, 410 an expired one, 422 an empty
  answer, 400/413/415 a body that is not this page's form.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from mcp_elicit.flows import FlowError, FlowFinished, FlowNotFound, FlowOfAnotherUser, Flows
from mcp_elicit.i18n import N_, _
from mcp_elicit.server.identity import Identity
from mcp_elicit.server.links import OAUTH_PURPOSE, SECRET_PURPOSE
from mcp_elicit.server.pages import html
from mcp_elicit.server.pages.body import FormRefused, read_form
from mcp_elicit.server.pages.csrf import FIELD_NAME, Csrf, came_from_this_origin
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores.records import FlowRecord, FlowStatus, is_flow_id

logger = logging.getLogger(__name__)


class Connect(Protocol):
    """Sends the browser of a live ``oauth`` flow's own user on to the provider
    (``mcp_elicit.server.oauth.connect.Connector.connect``)."""

    async def __call__(
        self, request: Request, user: str, flow: FlowRecord, *, only_looking: bool
    ) -> Response: ...


class Finished(Protocol):
    """The page of a finished ``oauth`` flow, for its own user
    (``mcp_elicit.server.oauth.connect.Connector.finished``): "Connected" only when a token
    was kept. The pages cannot tell (what a flow kept is the oauth side's to read), so every
    way a browser reaches such a flow (the callback's redirect, the status page reloaded, the
    link opened again, on any instance) asks it."""

    async def __call__(self, request: Request, user: str, flow: FlowRecord) -> Response: ...


_STATUS_CODES = {FlowStatus.EXPIRED: 410}
_EMPTY = N_("Enter a value, or choose Decline.")
# An optional detail a flow may carry for its page, beside ``name``, ``label`` and ``message``:
# the name of the app the person came from, for "go back to ...". Shown escaped, like all.
_CLIENT_DETAIL = "client"

PREVIEW_AGENTS = (
    "slackbot",
    "facebookexternalhit",
    "twitterbot",
    "discordbot",
    "whatsapp",
    "telegrambot",
    "linkedinbot",
    "skypeuripreview",
    "mattermost",
    "iframely",
)
"""Link-preview bots, as their ``User-Agent`` names them (lower case, a part of it): chat
apps fetch a link pasted into them to show a preview. With ``LocalIdentity`` every browser
that reaches the page is the user, so without this list such a fetch would mark the flow
``opened`` as if the person had. Short on purpose: the common chat apps, not every crawler.
It is not a security boundary (a bot may call itself anything, and ``opened`` grants
nothing): what an unknown bot changes is only that word on the status page."""


def base_of(request: Request) -> str:
    """Where the pages are mounted, as this request reached them (``/elicit`` by default)."""
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/")


class Pages:
    """The endpoints, sharing the flows, the vault, who the user is, and the CSRF keys."""

    def __init__(
        self,
        *,
        flows: Flows,
        vault: Vault,
        identity: Identity,
        csrf: Csrf,
        server_name: str,
        connect: Connect | None = None,
        finished: Finished | None = None,
    ) -> None:
        self._connect = connect
        self._finished = finished
        self._flows = flows
        self._vault = vault
        self._identity = identity
        self._csrf = csrf
        self._server_name = server_name

    # -- endpoints ---------------------------------------------------------------------------

    async def entry(self, request: Request) -> Response:
        """GET: the form, for the flow's owner; for a flow that connects an account at a
        provider (downstream OAuth), on to that provider (``connect``)."""
        if self._connect is not None:
            live = await self._live_flow(request)
            if isinstance(live, Response):
                return live
            user, flow = live
            if flow.purpose == OAUTH_PURPOSE:
                return await self._connect(request, user, flow, only_looking=_only_looking(request))
        found = await self._live_secret_flow(request)
        if isinstance(found, Response):
            return found
        user, flow, secret = found
        if not _only_looking(request):
            try:
                await self._flows.open(flow.id, user=user)
            except FlowError as error:  # finished or gone since we read it
                return self._after_flow_error(request, flow, error)
        cookie = self._csrf.cookie_of(request)
        fresh = cookie is None
        if cookie is None:
            cookie = self._csrf.new_cookie()
        response = self._form(request, flow, secret, cookie)
        if fresh:
            # An existing cookie is kept, so a second tab does not void the first one's token.
            self._csrf.set_cookie(response, cookie, request)
        return response

    async def submit(self, request: Request) -> Response:
        """POST: the secret, or a decline."""
        flow_id = request.path_params["flow_id"]
        if not came_from_this_origin(request):
            logger.info("hosted page: refused a cross-site POST for flow %s", flow_id)
            return self._forged(request, flow_id)
        try:
            form = await read_form(request)
        except FormRefused as refused:
            page = self._problem(request, refused.title, refused.message)
            return HTMLResponse(page, status_code=refused.status_code)
        if not self._csrf.token_is_valid(request, flow_id, form.get(FIELD_NAME)):
            logger.info("hosted page: refused a POST without a valid CSRF token (flow %s)", flow_id)
            return self._forged(request, flow_id)
        found = await self._live_secret_flow(request)
        if isinstance(found, Response):
            return found
        user, flow, secret = found
        action = form.get("action")
        try:
            if action == "decline":
                await self._flows.decline(flow.id, user=user)
                logger.info("flow %s declined on its hosted page", flow.id)
            elif action == "submit":
                value = form.get("value", "")
                if not value.strip():
                    cookie = self._csrf.cookie_of(request)
                    assert cookie is not None  # the token check above needed it
                    return self._form(request, flow, secret, cookie, error=_(_EMPTY))
                await self._flows.complete(
                    flow.id,
                    user=user,
                    result=self._vault.seal_for_flow(flow.id, user, secret.name, value),
                    secret=self._vault.seal(user, secret.name, value),
                )
                logger.info("flow %s completed: secret %r stored", flow.id, secret.name)
            else:
                page = self._problem(
                    request, _("Bad request"), _("Choose Save or Decline on the form.")
                )
                return HTMLResponse(page, status_code=400)
        except FlowError as error:  # finished by another tab or instance meanwhile
            return self._after_flow_error(request, flow, error)
        return RedirectResponse(html.status_url(base_of(request), flow.id), status_code=303)

    async def status(self, request: Request) -> Response:
        """GET: where the flow stands, for its owner."""
        user = await self._user(request)
        if isinstance(user, Response):
            return user
        flow = await self._own_flow(request, user)
        if isinstance(flow, Response):
            return flow
        return await self._where_it_stands(request, user, flow)

    # -- who and which flow ------------------------------------------------------------------

    async def _user(self, request: Request) -> str | Response:
        """The signed-in user, or the response for a browser that is not signed in."""
        user = await self._identity.user_of_browser(request)
        if user:
            return user
        login = self._identity.login_url(request)
        if login is not None:
            return RedirectResponse(login, status_code=303)
        logger.info("hosted page: refused a browser that is not signed in")
        return self._refused(request, login=None)

    async def _live_flow(self, request: Request) -> tuple[str, FlowRecord] | Response:
        """The browser's user and their live flow, or the page to show instead (sign in,
        refused, not found, where a finished flow stands)."""
        user = await self._user(request)
        if isinstance(user, Response):
            return user
        flow = await self._own_flow(request, user)
        if isinstance(flow, Response):
            return flow
        if flow.status.finished:
            return await self._where_it_stands(request, user, flow)
        return user, flow

    async def _live_secret_flow(
        self, request: Request
    ) -> tuple[str, FlowRecord, _Secret] | Response:
        """The browser's user, and their live secret flow, or the page to show instead: the
        same checks in the same order for the form and for what is posted from it."""
        live = await self._live_flow(request)
        if isinstance(live, Response):
            return live
        user, flow = live
        secret = _secret_details(flow)
        if secret is None:
            return self._not_found(request)
        return user, flow, secret

    async def _own_flow(self, request: Request, user: str) -> FlowRecord | Response:
        flow_id = request.path_params["flow_id"]
        # An id of another shape (a NUL, a separator, a path, too long) was never ours: it is
        # not found, and never reaches the store, where it could be an error of its own
        # (PostgreSQL refuses a NUL in text) rather than "no such flow".
        flow = await self._flows.get(flow_id) if is_flow_id(flow_id) else None
        if flow is None:
            return self._not_found(request)
        if flow.user != user:
            logger.info("hosted page: refused flow %s to a browser of another user", flow_id)
            return self._refused(request, login=self._identity.login_url(request))
        return flow

    # -- responses ---------------------------------------------------------------------------

    def _form(
        self,
        request: Request,
        flow: FlowRecord,
        secret: _Secret,
        cookie: str,
        *,
        error: str | None = None,
    ) -> Response:
        page = html.entry_page(
            base=base_of(request),
            server_name=self._server_name,
            flow_id=flow.id,
            label=secret.label,
            message=secret.message,
            token=self._csrf.token(cookie, flow.id),
            client=_client_of(flow),
            error=error,
        )
        return HTMLResponse(page, status_code=422 if error else 200)

    async def _where_it_stands(self, request: Request, user: str, flow: FlowRecord) -> Response:
        """The status page of ``user``'s own flow; a finished ``oauth`` one's from the oauth
        side, which knows whether it connected anything (issue 31: this page said "Saved ...
        has your Example Calendar now" after a connection)."""
        if flow.purpose == OAUTH_PURPOSE and flow.status.finished and self._finished is not None:
            return await self._finished(request, user, flow)
        return self._status(request, flow, flow.status)

    def _status(self, request: Request, flow: FlowRecord, status: FlowStatus) -> Response:
        secret = _secret_details(flow, quiet=True)
        title = flow.details.get("title") if flow.purpose == OAUTH_PURPOSE else None
        page = html.status_page(
            base=base_of(request),
            server_name=self._server_name,
            flow_id=flow.id,
            status=status,
            label=secret.label if secret is not None else title if isinstance(title, str) else None,
            client=_client_of(flow),
        )
        return HTMLResponse(page, status_code=_STATUS_CODES.get(status, 200))

    def _after_flow_error(self, request: Request, flow: FlowRecord, error: FlowError) -> Response:
        if isinstance(error, FlowFinished):
            return self._status(request, flow, error.status)
        if isinstance(error, FlowOfAnotherUser):
            return self._refused(request, login=self._identity.login_url(request))
        if isinstance(error, FlowNotFound):
            return self._not_found(request)
        raise error  # "kept changing": a real failure, let the server report it

    def _refused(self, request: Request, *, login: str | None) -> Response:
        """403 for a browser that is not the flow's owner. ``login``: a sign-in page to
        offer, for a browser signed in as someone else (one that is signed in as nobody is
        sent straight there, see :meth:`_user`)."""
        page = html.refused_page(
            base=base_of(request), server_name=self._server_name, login_url=login
        )
        return HTMLResponse(page, status_code=403)

    def _not_found(self, request: Request) -> Response:
        page = html.not_found_page(base=base_of(request), server_name=self._server_name)
        return HTMLResponse(page, status_code=404)

    def _forged(self, request: Request, flow_id: str) -> Response:
        # The link back is only the address that was posted to; nothing was read about it.
        page = html.forged_page(
            base=base_of(request),
            server_name=self._server_name,
            flow_id=flow_id if is_flow_id(flow_id) else None,
        )
        return HTMLResponse(page, status_code=403)

    def _problem(self, request: Request, title: str, message: str) -> str:
        return html.problem_page(
            base=base_of(request), server_name=self._server_name, title=title, message=message
        )


@dataclass(frozen=True, slots=True)
class _Secret:
    """What a ``secret`` flow asks for, from its (non-secret) details."""

    name: str
    label: str
    message: str


def _secret_details(flow: FlowRecord, *, quiet: bool = False) -> _Secret | None:
    """``None`` when this page cannot ask for what the flow wants (another purpose, or
    details without a secret name), so that it is shown as nothing to answer here.
    ``quiet``: for the status page, which shows any flow and only borrows the label."""
    if flow.purpose != SECRET_PURPOSE:
        return None
    details = flow.details
    name = details.get("name")
    if not isinstance(name, str) or not name:
        if not quiet:
            logger.warning("flow %s asks for a secret without naming it; not shown", flow.id)
        return None
    label = details.get("label")
    message = details.get("message")
    return _Secret(
        name=name,
        label=label if isinstance(label, str) and label else name,
        message=message if isinstance(message, str) else "",
    )


def _only_looking(request: Request) -> bool:
    """A request that reads the page without being the person opening it: HEAD, a browser's
    prefetch (``Sec-Purpose``, or the older ``Purpose``), a link-preview bot."""
    if request.method == "HEAD":
        return True
    purpose = request.headers.get("sec-purpose") or request.headers.get("purpose") or ""
    if "prefetch" in purpose.lower():
        return True
    agent = request.headers.get("user-agent", "").lower()
    return any(bot in agent for bot in PREVIEW_AGENTS)


def _client_of(flow: FlowRecord) -> str | None:
    """The app the person came from, when the flow's details name it (``client``)."""
    client = flow.details.get(_CLIENT_DETAIL)
    return client if isinstance(client, str) and client.strip() else None
