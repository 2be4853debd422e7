"""Links to the hosted pages, for the code that sends them (a URL-mode request's ``url``) and
the pages that serve them. No web framework here: sending a link needs none.

Inside the pages app, links are built from the mount point the request came through instead,
so the pages keep working when an operator mounts them elsewhere."""

from __future__ import annotations

from urllib.parse import quote

PAGES_PREFIX = "/elicit"

SECRET_PURPOSE = "secret"
"""The ``purpose`` of a flow whose page asks for a secret (``secret()``, ``secret_required``)."""


OAUTH_PURPOSE = "oauth"
"""The ``purpose`` of a flow whose page sends the person on to a third-party provider to
connect their account (downstream OAuth, ``mcp_elicit.server.oauth.authorize``)."""


def flow_path(flow_id: str) -> str:
    """The path of a flow's page under the default mount point: ``/elicit/flows/<id>``.

    Prefix it with the server's public origin to get the URL a person opens."""
    # Flow ids are URL-safe already (token_urlsafe); quoting keeps that true for any id.
    return f"{PAGES_PREFIX}/flows/{quote(flow_id, safe='')}"
