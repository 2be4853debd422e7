"""``hosted_pages(...)``: the Starlette app that serves the pages, to mount at
:data:`~mcp_elicit.server.pages.PAGES_PREFIX`."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from typing import Protocol, runtime_checkable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from mcp_elicit.flows import Flows
from mcp_elicit.i18n import _
from mcp_elicit.server.identity import Identity
from mcp_elicit.server.pages import html
from mcp_elicit.server.pages.csrf import Csrf
from mcp_elicit.server.pages.endpoints import Connect, Finished, Pages, base_of
from mcp_elicit.server.pages.headers import SecurityHeaders
from mcp_elicit.server.pages.hosts import AllowedHosts, HostCheck
from mcp_elicit.server.pages.languages import page_language, pages_language
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import Store

# Read once: these files are part of the package (the wheel takes the whole package
# directory), small, and never change while the server runs. The icon is there so that the
# tab shows whose page it is, and so that browsers do not ask the server's root for one.
_STATIC = {
    name: (files("mcp_elicit.server.pages").joinpath(f"static/{name}").read_bytes(), kind)
    for name, kind in (("pages.css", "text/css; charset=utf-8"), ("icon.svg", "image/svg+xml"))
}


@runtime_checkable
class BrowserSignIn(Protocol):
    """An identity that signs browsers in itself (``OidcIdentity``): the pages add its routes
    (sign-in, its callback, sign-out) and give it the key to seal its cookies with, and the
    store of their flows, where an ended session is kept for every instance to refuse."""

    def sign_in_routes(
        self, *, key: bytes | Sequence[bytes], csrf: Csrf, store: Store
    ) -> list[BaseRoute]: ...


def hosted_pages(
    *,
    flows: Flows,
    vault: Vault,
    identity: Identity,
    csrf_key: bytes | Sequence[bytes],
    server_name: str,
    allowed_hosts: AllowedHosts,
    connect: Connect | None = None,
    finished: Finished | None = None,
    extra_routes: Sequence[BaseRoute] = (),
    language: str | None = None,
) -> Starlette:
    """The pages for URL-mode flows. Routes are relative to where the app is mounted:

    - ``GET  /flows/{flow_id}``: the secret-entry page (opens the flow; HEAD does not)
    - ``POST /flows/{flow_id}``: submit the secret, or decline
    - ``GET  /flows/{flow_id}/status``: where the flow stands
    - ``GET  /static/pages.css``, ``GET /static/icon.svg``: the stylesheet and the tab's icon

    ``flows`` and ``vault`` belong to the same server (``Flows(server=)``,
    ``Vault(server=)``): the pages answer only that server's flows.

    ``csrf_key`` is a key of its own (``DeploymentKey.derive("csrf")``), the same on every
    instance, so that a form served by one instance can be posted to another.

    ``allowed_hosts``: the ``Host`` values the pages answer (``page_hosts(...)``), or a
    function returning them; any other ``Host`` is refused with 400 (``hosts.py`` says why).
    Required, so that no way of building the pages leaves them open to DNS rebinding.

    ``connect``, ``finished`` and ``extra_routes``: downstream OAuth
    (``mcp_elicit.server.oauth.connect.Connector``): an ``oauth`` flow's page sends its user on
    to the provider, whose callback is a route of its own; a finished one's page (its status
    page, its link opened again) is ``finished``'s, which says whether an account was
    connected. An identity that signs browsers in
    (:class:`BrowserSignIn`) adds its routes too.

    ``language``: the pages' language (a BCP 47 tag with a catalog, ``"zh-Hans"``), for a
    browser that asks for none the pages have, or for English; ``None``: the process's
    language when each request comes (``mcp_elicit.i18n.set_default_language``). A browser
    that asks for another language with a catalog gets it (``languages.py`` says how it is
    chosen). ValueError, naming the languages there are, for a tag with no catalog.
    """
    language = pages_language(language)
    if flows.server is not None and flows.server != vault.server:
        # The page would store, with a flow of one server, a value sealed for another.
        raise ValueError(
            f"the flows and the vault of the pages belong to different servers "
            f"({flows.server!r}, {vault.server!r})"
        )
    csrf = Csrf(csrf_key)
    pages = Pages(
        flows=flows,
        vault=vault,
        identity=identity,
        csrf=csrf,
        server_name=server_name,
        connect=connect,
        finished=finished,
    )
    routes: list[BaseRoute] = [
        Route("/flows/{flow_id}", pages.entry, methods=["GET"]),
        Route("/flows/{flow_id}", pages.submit, methods=["POST"]),
        Route("/flows/{flow_id}/status", pages.status, methods=["GET"]),
        Route("/static/{name}", _static, methods=["GET"]),
        # Every route added to this list gets the security headers and the error pages below.
        *extra_routes,
    ]
    if isinstance(identity, BrowserSignIn):
        # Sign-in, its callback and sign-out; its cookies sealed under a key of their own,
        # derived (HKDF, by purpose) from the pages' key, the same on every instance.
        routes.extend(identity.sign_in_routes(key=csrf_key, csrf=csrf, store=flows.store))
    errors = _ErrorPages(server_name)
    app = Starlette(
        routes=routes,
        # Outermost first: the Host refusal passes through SecurityHeaders like any page,
        # and every response, the error pages included, is in the request's language.
        middleware=[
            Middleware(page_language, language=language),
            Middleware(SecurityHeaders, server_name=server_name),
            Middleware(HostCheck, allowed=allowed_hosts),
        ],
        exception_handlers={HTTPException: errors.http_error},
    )
    app.state.server_name = server_name
    return app


async def _static(request: Request) -> Response:
    found = _STATIC.get(request.path_params["name"])
    if found is None:
        raise HTTPException(404)
    content, kind = found
    return Response(content, media_type=kind)


class _ErrorPages:
    def __init__(self, server_name: str) -> None:
        self._server_name = server_name

    async def http_error(self, request: Request, exc: Exception) -> Response:
        """The router's own refusals (no such page, wrong method) as pages, not bare text."""
        assert isinstance(exc, HTTPException)
        base, name = base_of(request), self._server_name
        if exc.status_code == 404:
            page = html.not_found_page(base=base, server_name=name)
        elif exc.status_code == 405:
            page = html.problem_page(
                base=base,
                server_name=name,
                title=_("Not allowed"),
                message=_("This address does not take that method."),
            )
        else:
            page = html.problem_page(
                base=base,
                server_name=name,
                title=_("Bad request"),
                message=_("This request could not be handled."),
            )
        return HTMLResponse(page, status_code=exc.status_code, headers=exc.headers)
