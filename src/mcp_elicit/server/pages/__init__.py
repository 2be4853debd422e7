"""Hosted pages for URL-mode flows: where a person enters a secret (an API key) so that it
reaches the server's tool without ever passing through the MCP client.

    app = Starlette(routes=[
        Mount(PAGES_PREFIX, app=hosted_pages(flows=flows, vault=vault, identity=identity,
                                             csrf_key=key.derive("csrf"), server_name="Acme",
                                             allowed_hosts=page_hosts(public_url=public_origin,
                                                                      loopback_port=None))),
        ...
    ])
    url = public_origin + flow_path(flow.id)

The rules the pages enforce, and why, are written at the top of ``endpoints.py``. The pages
know nothing of OAuth: downstream OAuth's connect page plugs in from above
(``mcp_elicit.server.oauth.connect``).

Floors
------

As in ``mcp_elicit.server`` (``tests/test_layers.py`` reads this table too), top first:

    app                             the Starlette app: routes, middleware, error pages
    endpoints, headers              a flow's page, its form and its status; every response's
                                    security headers
    csrf                            CSRF tokens
    body, cookies, hosts, html, languages
                                    reading a form; the pages' cookies (__Host- on https);
                                    the Host allow-list and the https rule; the HTML; the
                                    page's language
"""

from mcp_elicit.server.links import PAGES_PREFIX, SECRET_PURPOSE, flow_path
from mcp_elicit.server.pages.app import hosted_pages
from mcp_elicit.server.pages.hosts import page_hosts

__all__ = ["PAGES_PREFIX", "SECRET_PURPOSE", "flow_path", "hosted_pages", "page_hosts"]
