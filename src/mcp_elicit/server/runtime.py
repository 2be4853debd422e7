"""What request-time code needs from the server it runs in: the flows, the vault, who the user
is, the settings and completion signalling. ``Elicitation`` (the wiring) makes one
:class:`Runtime`; the middleware hands it to every request through its scope
(:mod:`mcp_elicit.server.scope`). Nothing here knows a web framework or a transport.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext

from mcp_elicit.flows import Flows
from mcp_elicit.server.completions import DEFAULT_URL_RESUME_WAIT, Completions
from mcp_elicit.server.errors import CannotAsk
from mcp_elicit.server.identity import Identity
from mcp_elicit.server.keys import DeploymentKey, state_directory
from mcp_elicit.server.links import flow_path
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import Store, open_store

DEFAULT_FLOW_TTL = 600.0


@dataclass(frozen=True, slots=True)
class Settings:
    url_draft: bool = False
    # 2026-07-28: how long a retry after "I opened the link" is held while the person is
    # still on the page, before the link is asked for again (see completions).
    url_resume_wait: float = DEFAULT_URL_RESUME_WAIT


DEFAULT_SETTINGS = Settings()


class Runtime:
    """The parts of one server's elicitation, made on first use (a server that only asks
    never opens a store)."""

    def __init__(
        self,
        *,
        key: Callable[[], DeploymentKey],
        store: Store | str | None,
        identity: Identity,
        settings: Settings,
        flow_ttl: float = DEFAULT_FLOW_TTL,
    ) -> None:
        self._key = key  # read on first use: see Elicitation
        self.identity = identity
        self.settings = settings
        self.public_url: str | None = None  # where the hosted pages are reached
        self._store_spec = store
        self._store: Store | None = store if not isinstance(store, str | None) else None
        self._flows: Flows | None = None
        self._vault: Vault | None = None
        self._flow_ttl = flow_ttl
        self.completions = Completions(
            lambda: self.flows,
            url_resume_wait=settings.url_resume_wait,
            user_of=identity.user_of_request,
        )

    @property
    def store(self) -> Store:
        if self._store is None:
            spec = self._store_spec
            self._store = open_store(spec if isinstance(spec, str) else default_store_url())
        return self._store

    @property
    def store_opened(self) -> bool:
        return self._store is not None

    @property
    def flows(self) -> Flows:
        if self._flows is None:
            self._flows = Flows(self.store, default_ttl=self._flow_ttl)
        return self._flows

    @property
    def vault(self) -> Vault:
        if self._vault is None:
            self._vault = Vault(self.store, self._key().derive("vault"))
        return self._vault

    def user_of(self, request: ServerRequestContext[Any, Any]) -> str:
        """The authenticated user of a request; flows and secrets are bound to it."""
        user = self.identity.user_of_request(request)
        if not user:
            raise CannotAsk(
                "no authenticated user: a secret or a flow is bound to the user who asked "
                "for it, and this request carries no identity"
            )
        return user

    def flow_url(self, flow_id: str) -> str:
        if self.public_url is None:
            raise RuntimeError(
                "the hosted pages are not being served: run the server with "
                "Elicitation.run(...), or mount pages_app() and pass public_url"
            )
        return self.public_url + flow_path(flow_id)


def default_store_url() -> str:
    """``sqlite:///`` in the user's state directory (beside the key file)."""
    return f"sqlite:///{state_directory() / 'flows.db'}"
