"""The server's parts, made once: the flows, the vault, who the user is, the settings,
completion signalling and tasks. ``Elicitation`` (the wiring) makes one :class:`Runtime`; the
middleware hands it to every request through its scope (:mod:`mcp_elicit.server.scope`), and
a request that sends a link gets the parts it needs, bound to its user, as one
:class:`Services` (read from the runtime once). Nothing here knows a web framework or a
transport.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.abc
from mcp.server.context import ServerRequestContext

from mcp_elicit.flows import DEFAULT_MAX_OPEN_FLOWS, Flows
from mcp_elicit.server.completions import DEFAULT_MAX_HELD, DEFAULT_URL_RESUME_WAIT, Completions
from mcp_elicit.server.errors import CannotAsk
from mcp_elicit.server.identity import Identity
from mcp_elicit.server.keys import KEY_VARIABLE, DeploymentKey, state_directory
from mcp_elicit.server.links import flow_path
from mcp_elicit.server.tasks import Tasks, TaskSettings
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import FinishFeed, FlowRecord, Store, TaskFeed, open_store
from mcp_elicit.stores.credentials import without_password
from mcp_elicit.tasks.storage import StoredTasks

DEFAULT_FLOW_TTL = 600.0

logger = logging.getLogger(__name__)

STORE_VARIABLE = "MCP_ELICIT_STORE"
"""The store's URL when ``Elicitation(store=...)`` is not given (else SQLite in the state
directory)."""


@dataclass(frozen=True, slots=True)
class Settings:
    url_draft: bool = False
    # 2026-07-28: how long a retry after "I opened the link" is held while the person is
    # still on the page, before the link is asked for again (see completions).
    url_resume_wait: float = DEFAULT_URL_RESUME_WAIT
    # 2026-07-28: how many such retries are held at once (see completions).
    max_held_retries: int = DEFAULT_MAX_HELD
    # 2025-11-25: run task-augmented tools/call as tasks, each tool's taskSupport as these say
    # (see tasks); None: tasks off.
    tasks: TaskSettings | None = None

    def __post_init__(self) -> None:
        if self.url_resume_wait < 0:
            raise ValueError(
                f"url_resume_wait must be 0 or more seconds, not {self.url_resume_wait}"
            )
        if self.max_held_retries < 0:
            raise ValueError(f"max_held_retries must be 0 or more, not {self.max_held_retries}")


@dataclass(frozen=True, slots=True)
class Services:
    """The runtime's parts a URL-mode question uses, bound to the user of one request: read
    from the runtime once, when the request first needs them (``RequestScope.services``). A
    request that only asks forms never does, so a server that only asks never opens a store.
    """

    user: str
    flows: Flows
    vault: Vault
    completions: Completions
    providers: Mapping[str, Any]  # downstream OAuth's, by name (oauth.OAuthProvider)
    public_url: str | None  # where the hosted pages are reached

    def flow_url(self, flow_id: str) -> str:
        """The URL of a flow's page, for the person to open."""
        return _flow_url(self.public_url, flow_id)

    async def own_flow(self, flow_id: str | None) -> FlowRecord | None:
        """The flow an earlier round sent (its id from the sealed state), when it is this
        user's: a 2026-07-28 retry goes on with the same flow instead of starting another."""
        if flow_id is None:
            return None
        found = await self.flows.get(flow_id)
        return found if found is not None and found.user == self.user else None


class Runtime:
    """The parts of one server's elicitation, made on first use (a server that only asks
    never opens a store, and one that does not seal reads no key file).

    ``server_id``: who this server is, for the flows and secrets bound to it; ``None`` for the
    default (:func:`default_server_id`), made on first use from ``server_name()``, the name
    of the server once it is known. ``max_open_flows``: live flows one user may have here.
    ``providers``: downstream OAuth's third parties (``OAuthProvider``), each by its name."""

    def __init__(
        self,
        *,
        key: DeploymentKey | None,
        store: Store | str | None,
        identity: Identity,
        settings: Settings,
        flow_ttl: float = DEFAULT_FLOW_TTL,
        server_id: str | None = None,
        server_name: Callable[[], str | None] = lambda: None,
        max_open_flows: int | None = DEFAULT_MAX_OPEN_FLOWS,
        providers: Sequence[Any] = (),
    ) -> None:
        if server_id is not None and (not isinstance(server_id, str) or not server_id.strip()):
            raise ValueError(f"server_id must be a non-empty string, not {server_id!r}")
        if max_open_flows is not None and max_open_flows < 1:
            raise ValueError(
                f"max_open_flows must be at least 1 (or None for no limit), not {max_open_flows!r}"
            )
        self._server_id = server_id
        self._server_id_given = server_id is not None
        self._server_name = server_name
        self._max_open_flows = max_open_flows
        # The key file is read (or made) when the key is first needed, not here: importing a
        # server module must not write to the person's state directory. A key in the
        # environment costs no I/O, so a bad one is still refused at once.
        if key is None and KEY_VARIABLE in os.environ:
            key = DeploymentKey.load(env=KEY_VARIABLE)
        self._key = key
        self.identity = identity
        self.settings = settings
        self.public_url: str | None = None  # where the hosted pages are reached
        # Downstream OAuth: the third parties a tool may get the user's token at, by name
        # (mcp_elicit.server.oauth.OAuthProvider).
        names = [p.name for p in providers]
        if len(set(names)) != len(names):
            raise ValueError(f"two OAuth providers share a name: {sorted(names)}")
        self.providers: Mapping[str, Any] = {p.name: p for p in providers}
        if store is None and os.environ.get(STORE_VARIABLE):
            store = os.environ[STORE_VARIABLE]
        self._store_spec = store
        self._store: Store | None = store if not isinstance(store, str | None) else None
        self._flows: Flows | None = None
        self._vault: Vault | None = None
        self._flow_ttl = flow_ttl
        self.completions = Completions(
            lambda: self.flows,
            url_resume_wait=settings.url_resume_wait,
            max_held=settings.max_held_retries,
            user_of=identity.user_of_request,
        )
        # Task-augmented tools/call (2025-11-25), only when asked for: None otherwise.
        self.tasks = (
            Tasks(identity.user_of_request, settings.tasks) if settings.tasks is not None else None
        )

    @property
    def key(self) -> DeploymentKey:
        """The deployment key: the one given, else ``DeploymentKey.load()`` on first use."""
        if self._key is None:
            self._key = DeploymentKey.load(env=KEY_VARIABLE)
        return self._key

    @property
    def store(self) -> Store:
        if self._store is None:
            spec = self._store_spec
            url = spec if isinstance(spec, str) else default_store_url()
            self._store = open_store(url)
            # Which store, said once: instances that silently kept a store each of their own
            # would lose each other's flows (never the password: without_password).
            logger.info("flows and secrets are kept in %s", without_password(url))
        return self._store

    @property
    def store_opened(self) -> bool:
        return self._store is not None

    @property
    def server_id(self) -> str:
        """This server's identity in the store and the vault: the one given, else
        :func:`default_server_id`, fixed the first time it is read (the flows and the vault
        read it when they are made)."""
        if self._server_id is None:
            self._server_id = default_server_id(self._server_name())
        return self._server_id

    @property
    def flows(self) -> Flows:
        if self._flows is None:
            self._flows = Flows(
                self.store,
                server=self.server_id,
                max_open=self._max_open_flows,
                default_ttl=self._flow_ttl,
            )
        return self._flows

    @property
    def vault(self) -> Vault:
        if self._vault is None:
            # Newest first: after a rotation the previous keys still open what they sealed.
            self._vault = Vault(
                self.store, keys=self.key.derive_all("vault"), server=self.server_id
            )
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

    def services_for(self, request: ServerRequestContext[Any, Any]) -> Services:
        """The parts a URL-mode question of ``request`` uses, bound to its user (checked first:
        a request with no user opens no store and reads no key)."""
        user = self.user_of(request)
        return Services(
            user, self.flows, self.vault, self.completions, self.providers, self.public_url
        )

    def flow_url(self, flow_id: str) -> str:
        return _flow_url(self.public_url, flow_id)

    @contextlib.asynccontextmanager
    async def running(self, group: anyio.abc.TaskGroup) -> AsyncIterator[None]:
        """The parts' background work while the server runs, in ``group``: the flow sweeper,
        the feed of flows other instances finished (an engine with a feed: Redis,
        PostgreSQL), completion notices and tasks."""
        self._warn_of_a_defaulted_id()
        if self.tasks is not None and not self.tasks.shared and isinstance(self.store, TaskFeed):
            # A store the instances share (Redis, PostgreSQL: what broadcasts changes): the
            # tasks live there too, sealed with a key every instance derives alike, so any
            # instance serves tasks/* (docs/tasks-design.md §4). Memory and SQLite keep them
            # in this process, as before.
            self.tasks.use_store(
                StoredTasks(self.store, self.key.derive_all("tasks")), server=self.server_id
            )
        group.start_soon(self.flows.run_sweeper)
        group.start_soon(self.flows.run_feed)
        tasks = self.tasks.running(group) if self.tasks is not None else contextlib.nullcontext()
        async with self.completions.running(group), tasks:
            yield

    def _warn_of_a_defaulted_id(self) -> None:
        """At start-up, on a store that servers share (Redis, PostgreSQL: what has a feed):
        with no ``server_id`` given, two servers of one name started by one launcher would
        share the default id there, and so each other's secrets; instances of one server run
        from different paths would not share their flows. Said once, not refused: one server
        run from one path is right as it is."""
        if self._server_id_given or not isinstance(self.store, FinishFeed):
            return
        logger.warning(
            "Elicitation(server_id=...) is not set: on the shared store %s this server's flows "
            "and secrets are bound to the default id %s (its name and its program's path). "
            "Another server with the same name started by the same launcher would share it, "
            "and so its secrets; an instance run from another path would not see these flows. "
            "Set server_id to a name of this server's own (docs/deploy.md).",
            self.store.url,
            self.server_id,
        )


def _flow_url(public_url: str | None, flow_id: str) -> str:
    if public_url is None:
        raise RuntimeError(
            "the hosted pages are not being served: run the server with "
            "Elicitation.run(...), or mount pages_app() and pass public_url"
        )
    return public_url + flow_path(flow_id)


def default_server_id(name: str | None) -> str:
    """``["<the server's name>", "<the real path of the program's main module>"]`` as JSON.

    Why these two. Servers run by one OS user share the default key file and the default
    store, so the id is what keeps one server's flows and secrets from another: it must
    differ between two servers, and stay the same when one restarts (a new id would make
    every secret it stored unreadable, and strand its open flows).

    - The name (``MCPServer("weather")``, ``FastMCP("weather")``) tells apart servers of one
      program, and servers started by one launcher (``uvx``, ``mcp run``, ``python -m``):
      their main module is the launcher's.
    - The path tells apart two programs whose servers have the same name ("assistant",
      say), and servers whose name is not known yet (one built with ``server_options()``
      and never installed: ``install()`` and ``run()`` tell the name).
    - Not the process id, the host name or a random value: they change across restarts, or
      between the instances of one deployment, which must share flows and secrets.

    A deployment whose instances run the program from different paths, or that wants the
    id to survive a move or a rename, passes ``Elicitation(server_id=...)``."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    program = os.path.realpath(path) if isinstance(path, str) and path else "<interactive>"
    return json.dumps([name or "", program], separators=(",", ":"), ensure_ascii=False)


def default_store_url() -> str:
    """``sqlite:///`` in the user's state directory (beside the key file)."""
    return f"sqlite:///{state_directory() / 'flows.db'}"
