"""Signing in to a server that requires MCP authorization (OAuth 2.1), as a native app.

:class:`ElicitingClient` ``(sign_in=True)`` gives its HTTP connection the SDK's OAuth client
(``mcp.client.auth.OAuthClientProvider``: discovery, dynamic registration, PKCE, the code
exchange, refresh). What this module adds is what the SDK leaves to its caller, done the way
URL mode is done:

- **Consent first.** The sign-in link is checked like any URL-mode link
  (:func:`mcp_elicit.urls.check_url`: a blocked one is refused and never shown) and shown on
  the renderer's consent screen, marked as a sign-in (``UrlPrompt.sign_in``): this is the
  server's own authorization, not a question from a tool, and the screen says so. Nothing
  opens before the person agrees; then the handler's opener opens it (never on a command
  line: :mod:`mcp_elicit.client.opening`). Consent given ahead (``SignIn(ask=False)``) covers
  only a link without warnings; one with warnings is still asked about, or refused when
  nobody can be asked.
- **The redirect comes back to a loopback port** (:mod:`mcp_elicit.client._loopback`),
  which takes only the response carrying this sign-in's ``state``.
- **Tokens are kept per server**, owner-only and encrypted (:class:`TokenFile`), and
  refreshed by the SDK when they expire; a refresh that fails means signing in again.
- **What went wrong is said**: :class:`SignInRequired` when signing in is off or nobody can
  be asked, :class:`SignInRefused` when the person declined, cancelled or denied at the
  provider, or the link was blocked.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl

from mcp_elicit.client._loopback import LoopbackCallback, free_port, port_is_free
from mcp_elicit.client.opening import open_privately as open_in_browser
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.client.prompts import Accept, Cancel, Decision, Notice, UrlPrompt
from mcp_elicit.client.token_file import TokenFile
from mcp_elicit.i18n import _
from mcp_elicit.urls import ReasonCode, UrlVerdict, Verdict, check_url

if TYPE_CHECKING:
    from mcp_elicit.client.handler import ElicitationHandler

logger = logging.getLogger(__name__)

DEFAULT_TIME_LIMIT = 10 * 60.0
"""How long a sign-in may take in the browser before it is given up."""


class SignInRequired(RuntimeError):
    """The server requires sign-in (HTTP 401), and this client may not sign in: signing in is
    off, or there is no person to ask. The message says which, and what to do."""


class SignInRefused(RuntimeError):
    """The sign-in did not happen: the person declined or cancelled, denied at the
    authorization server, the link was blocked, or the time ran out."""


@dataclass(frozen=True)
class SignIn:
    """How :class:`~mcp_elicit.client.ElicitingClient` signs in to a server that requires
    MCP authorization.

    ``ask``: show the consent screen first (the default). ``False`` means the consent was
    given ahead, for scripts (``mcp-elicit call --sign-in yes``): the person is still told
    where the browser goes, through ``announce`` (a line of text), else the renderer's
    notices. Consent given ahead covers only a link whose URL verdict has no warnings: one
    with warnings (a look-alike host, punycode, a bare IP address, http on loopback) is put
    on the consent screen all the same, and once agreed announced with its warnings; with
    nobody to ask (no renderer, ``Policy(person_available=False)``, or a script's answers)
    the sign-in is refused (:class:`SignInRefused`, naming the warnings).
    ``opener``: what opens the link (default: the handler's). ``storage``: a function from
    a server's URL to the SDK ``TokenStorage`` for that server (default: :class:`TokenFile`
    in ``directory``, or in the state directory); one that also has
    ``async expiry() -> float | None`` (as :class:`TokenFile` does) lets a client started
    later refresh an expired token instead of signing in again.
    ``client_name`` is what the authorization server shows on its consent page (the scopes
    asked for are the SDK's choice: the server's challenge, else its metadata).
    ``callback_port``: the loopback port to come back to (default: the one registered
    before when it is free, else any free one)."""

    ask: bool = True
    announce: Callable[[str], None] | None = None
    opener: Callable[[str], object] | None = None
    directory: Path | None = None
    storage: Callable[[str], TokenStorage] | None = None
    client_name: str = "mcp-elicit"
    time_limit: float = DEFAULT_TIME_LIMIT
    callback_port: int | None = field(default=None)

    def __post_init__(self) -> None:
        if self.storage is not None and hasattr(self.storage, "get_tokens"):
            # One storage for every server would hand one server's tokens to another.
            raise TypeError(
                "SignIn(storage=...) takes a function from a server's URL to its "
                "TokenStorage, not a TokenStorage: storage=lambda url: MyStorage(url)"
            )

    def storage_for(self, server_url: str) -> TokenStorage:
        if self.storage is not None:
            return self.storage(server_url)
        return TokenFile(server_url, self.directory)


async def sign_in_auth(
    server_url: str, settings: SignIn, handler: ElicitationHandler
) -> OAuthClientProvider:
    """The ``httpx2`` auth for ``server_url``: the SDK's OAuth client, with our consent,
    opener, loopback redirect and storage."""
    storage = _Kept(settings.storage_for(server_url))
    port = settings.callback_port or await _callback_port(storage)
    flow = _Flow(server_url, settings, handler, port)
    metadata = OAuthClientMetadata(
        client_name=settings.client_name,
        redirect_uris=[AnyUrl(f"http://127.0.0.1:{port}/callback")],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    provider = OAuthClientProvider(
        server_url,
        metadata,
        storage,
        redirect_handler=flow.redirect,
        callback_handler=flow.callback,
    )
    await storage.restore(provider.context)
    return provider


class _Kept:
    """The storage, plus what the SDK's provider learns but does not keep, for a client
    started later. SDK: tokens loaded from storage carry no expiry (``OAuthToken`` has
    ``expires_in`` only), so an expired one would be presented, refused with 401, and
    answered with a whole new sign-in; and the authorization server's metadata is
    discovered only after a 401, so a refresh before one goes to ``/token`` on the MCP
    server's own origin. A storage with ``expiry()`` and ``discovery()`` (as
    :class:`TokenFile`) restores both; the context's fields are public."""

    def __init__(self, storage: TokenStorage) -> None:
        self.storage = storage
        self._context: OAuthContext | None = None

    async def restore(self, context: OAuthContext) -> None:
        self._context = context
        expiry = getattr(self.storage, "expiry", None)
        if expiry is not None:
            context.token_expiry_time = await expiry()
        discovery = getattr(self.storage, "discovery", None)
        found = await discovery() if discovery is not None else None
        if found:
            with contextlib.suppress(ValueError):  # a stale or damaged record: discover again
                if found.get("oauth_metadata"):
                    context.oauth_metadata = OAuthMetadata.model_validate(found["oauth_metadata"])
                if found.get("resource_metadata"):
                    context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                        found["resource_metadata"]
                    )
                context.auth_server_url = found.get("auth_server_url")

    async def get_tokens(self) -> OAuthToken | None:
        return await self.storage.get_tokens()

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await self.storage.set_tokens(tokens)
        context, keep = self._context, getattr(self.storage, "set_discovery", None)
        if context is not None and keep is not None and context.oauth_metadata is not None:
            resource = context.protected_resource_metadata
            await keep(
                {
                    "oauth_metadata": context.oauth_metadata.model_dump(mode="json"),
                    "resource_metadata": resource.model_dump(mode="json") if resource else None,
                    "auth_server_url": context.auth_server_url,
                }
            )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return await self.storage.get_client_info()

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await self.storage.set_client_info(client_info)


async def _callback_port(storage: TokenStorage) -> int:
    """The port registered before when it is free (some authorization servers hold a native
    app to its registered port, though RFC 8252 7.3 says they must not), else a free one."""
    registered = await storage.get_client_info()
    for uri in (registered.redirect_uris or []) if registered is not None else []:
        parts = urlsplit(str(uri))
        if parts.hostname == "127.0.0.1" and parts.port and port_is_free(parts.port):
            return parts.port
    return free_port()


class RefuseSignIn(httpx2.Auth):
    """For a client that does not sign in: a 401 becomes :class:`SignInRequired`, saying
    where the server wants the person to sign in, instead of a bare HTTP error."""

    def __init__(self, server_url: str, why: str) -> None:
        self.server_url = server_url
        self.why = why

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> Any:  # AsyncGenerator[Request, Response]
        response = yield request
        if response.status_code == 401:
            raise SignInRequired(
                _("{server} requires sign-in (HTTP 401); {why}").format(
                    server=self.server_url, why=self.why
                )
            )


class _ExpectedOutcomes(logging.Filter):
    """SDK: its OAuth flow logs every exception that leaves it, with a traceback, before
    raising it. A declined or refused sign-in is an outcome the caller hears as
    :class:`SignInRefused` or :class:`SignInRequired`, not an error to log twice."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, (SignInRefused, SignInRequired))


logging.getLogger("mcp.client.auth.oauth2").addFilter(_ExpectedOutcomes())


class _Flow:
    """One server's sign-in steps, as the SDK calls them: ``redirect`` (consent, then open),
    then ``callback`` (wait for the browser to come back)."""

    def __init__(
        self, server_url: str, settings: SignIn, handler: ElicitationHandler, port: int
    ) -> None:
        self.server_url = server_url
        self.server = urlsplit(server_url).netloc or server_url
        self.settings = settings
        self.handler = handler
        self.port = port
        self._stack: contextlib.AsyncExitStack | None = None
        self._listener: LoopbackCallback | None = None
        self._prompt: UrlPrompt | None = None
        self._event: dict[str, Any] = {}

    async def redirect(self, url: str) -> None:
        handler = self.handler
        verdict = check_url(url, handler.policy.url_policy_for(local=False))
        event: dict[str, Any] = {
            "server": self.server,
            "kind": "sign-in",
            "url": url,
            "url_verdict": verdict.verdict.value,
        }
        if verdict.reasons:
            event["url_reasons"] = list(verdict.codes)
        self._event = event
        if verdict.verdict is Verdict.BLOCK:
            reasons = "; ".join(r.message for r in verdict.reasons)
            await self._tell(
                _("Blocked its sign-in link: {reasons}").format(reasons=reasons), "error"
            )
            self._finish("blocked")
            raise SignInRefused(
                _("the sign-in link of {server} was blocked: {reasons}").format(
                    server=self.server, reasons=reasons
                )
            )
        prompt = UrlPrompt(
            self.server,
            _("{server} requires you to sign in before it can be used.").format(server=self.server),
            url,
            verdict,
            sign_in=True,
        )
        state = parse_qs(urlsplit(url).query).get("state", [""])[0]
        stack = contextlib.AsyncExitStack()
        try:
            listener = LoopbackCallback(self.port, state, server=self.server)
            try:
                await stack.enter_async_context(listener)
            except OSError as error:
                raise SignInRefused(
                    _("cannot receive the sign-in on 127.0.0.1:{port} ({error}); try again").format(
                        port=self.port, error=error
                    )
                ) from None
            if not self.settings.ask and covered_ahead(verdict):
                answer = await self._open_ahead(prompt)
            else:
                # Consent given ahead covers only a link without warnings: a look-alike
                # (xn--ggle-55da.com: google.com with Cyrillic o's) is put before the
                # person, warnings and all.
                if not self.settings.ask:
                    self._someone_to_ask(verdict)
                answer = await self._consent(prompt)
                if isinstance(answer, Accept):
                    if not self.settings.ask:
                        self._announce(prompt)
                    answer = await handler.open_link(prompt, event, opener=self.settings.opener)
            if not isinstance(answer, Accept):
                outcome = "cancel" if isinstance(answer, Cancel) else "decline"
                self._finish(outcome)
                refused = (
                    _("not signed in to {server}: you cancelled the sign-in")
                    if outcome == "cancel"
                    else _("not signed in to {server}: you declined the sign-in")
                )
                raise SignInRefused(refused.format(server=self.server))
        except BaseException:
            await stack.aclose()
            raise
        self._stack, self._listener, self._prompt = stack, listener, prompt

    async def _open_ahead(self, prompt: UrlPrompt) -> Decision:
        """Consent was given ahead (a script) and the link has no warnings: say where the
        browser goes, and open it."""
        line = self._announce(prompt)
        if self.settings.announce is None:
            await self._tell(line, "info")
        opener = self.settings.opener or self.handler.opener or open_in_browser
        try:
            opened = opener(prompt.url)
        except Exception as error:
            raise SignInRefused(
                _("the browser could not be started to sign in: {error}").format(error=error)
            ) from None
        if opened is False:
            raise SignInRefused(
                _("no browser opened the sign-in link; open it yourself: {url}").format(
                    url=prompt.url
                )
            )
        return Accept()

    def _announce(self, prompt: UrlPrompt) -> str:
        """The line that says where the browser goes, with the link's warnings when it has
        any; given to ``announce`` when there is one."""
        url = clean(prompt.url, newlines=False)
        if prompt.verdict.reasons:
            line = _(
                "signing in to {server}: opening {url}, which you agreed to despite its "
                "warnings: {warnings}"
            ).format(server=self.server, url=url, warnings=_warnings(prompt.verdict))
        else:
            line = _("signing in to {server} (consent given ahead): opening {url}").format(
                server=self.server, url=url
            )
        if self.settings.announce is not None:
            self.settings.announce(line)
        return line

    def _someone_to_ask(self, verdict: UrlVerdict) -> None:
        """Consent given ahead does not cover a link with warnings; without a person to ask
        about it (no renderer, no person there, or a script's answers, which never consent to
        a sign-in), the sign-in is refused, saying why."""
        renderer = self.handler.renderer
        if (
            renderer is not None
            and self.handler.policy.person_available
            and getattr(renderer, "consents_to_sign_in", True)
        ):
            return
        self._finish("no-person", why="url-warnings")
        raise SignInRefused(
            _(
                "not signed in to {server}: its sign-in link has warnings ({warnings}); "
                "consent given ahead covers only a link without any, and there is nobody "
                "here to ask: sign in where you can be asked (mcp-elicit: --sign-in ask, at "
                "a terminal)"
            ).format(server=self.server, warnings=_warnings(verdict))
        )

    async def _consent(self, prompt: UrlPrompt) -> Decision:
        renderer = self.handler.renderer
        if renderer is None:
            self._finish("no-person")
            raise SignInRequired(
                _(
                    "{server} requires sign-in, and there is nobody to ask: "
                    "consent ahead (mcp-elicit: --sign-in yes), or give a token "
                    "(--header 'Authorization: Bearer ...')"
                ).format(server=self.server)
            )
        return await self.handler.ask_person(renderer.ask_url(prompt), prompt=prompt)

    async def callback(self) -> AuthorizationCodeResult:
        listener, prompt, stack = self._listener, self._prompt, self._stack
        assert listener is not None and prompt is not None and stack is not None
        try:
            with anyio.move_on_after(self.settings.time_limit):
                await self._wait(listener, prompt)
        finally:
            self._stack = self._listener = self._prompt = None
            await stack.aclose()
        response = listener.response
        if response is None:
            self._finish("timeout")
            raise SignInRefused(
                _(
                    "not signed in to {server}: the browser did not come back within {seconds} s"
                ).format(server=self.server, seconds=f"{self.settings.time_limit:g}")
            )
        if response.error is not None or response.code is None:
            error = response.error or "no code"
            self._finish("decline" if error == "access_denied" else "error", error=error)
            # The provider's error code as it sent it (``access_denied``); none is said in words.
            # Its words are a peer's: cleaned before a terminal shows them.
            shown = clean(response.error, newlines=False) if response.error else _("no code")
            if response.error_description:
                refused = _("not signed in to {server}: {error}: {description}").format(
                    server=self.server,
                    error=shown,
                    description=clean(response.error_description, newlines=False),
                )
            else:
                refused = _("not signed in to {server}: {error}").format(
                    server=self.server, error=shown
                )
            raise SignInRefused(refused)
        self._finish("accept")
        return AuthorizationCodeResult(code=response.code, state=response.state, iss=response.iss)

    async def _wait(self, listener: LoopbackCallback, prompt: UrlPrompt) -> None:
        """Until the browser comes back. The person may cancel meanwhile (the renderer's
        waiting screen); saying "done" early only tells them it still waits."""
        renderer = self.handler.renderer
        if renderer is None or not self.settings.ask:
            await listener.arrived.wait()
            return
        answer = await self.handler.ask_person(
            renderer.wait_for_completion(prompt, listener.arrived), prompt=prompt
        )
        if isinstance(answer, Cancel) and not listener.arrived.is_set():
            self._finish("cancel")
            raise SignInRefused(
                _("not signed in to {server}: you cancelled the sign-in").format(server=self.server)
            )
        if not listener.arrived.is_set():
            await self._tell(
                _(
                    "Still waiting for your browser to come back from the sign-in "
                    "(to 127.0.0.1:{port})"
                ).format(port=self.port),
                "info",
            )
            await listener.arrived.wait()

    async def _tell(self, text: str, level: str) -> None:
        if self.handler.renderer is not None:
            await self.handler.renderer.notify(Notice(self.server, text, level))

    def _finish(self, outcome: str, **more: Any) -> None:
        self.handler.record(self._event | more | {"outcome": outcome})


_THIS_MACHINE = frozenset(
    {ReasonCode.LOCAL_DEVELOPMENT, ReasonCode.NON_DEFAULT_PORT, ReasonCode.IP_ADDRESS_HOST}
)
"""The warnings a sign-in link to this machine carries when the policy allows loopback for
local development (``UrlPolicy(allow_http_loopback=True)``, ``--allow-http-loopback``)."""


def covered_ahead(verdict: UrlVerdict) -> bool:
    """Whether consent given ahead (``SignIn(ask=False)``) covers a sign-in link: one without
    warnings, or one to this machine that the policy allows for local development, whose
    warnings (loopback, a port, a bare address) say nothing about who runs it. Any other
    warning (a look-alike host, punycode, mixed scripts, a private network) is for the person
    to read: consent given before the link was seen cannot cover it."""
    codes = set(verdict.codes)
    return not codes or (ReasonCode.LOCAL_DEVELOPMENT in codes and codes <= _THIS_MACHINE)


def _warnings(verdict: UrlVerdict) -> str:
    """A verdict's reasons in one line, cleaned (they quote the link's own characters)."""
    return "; ".join(clean(reason.message, newlines=False) for reason in verdict.reasons)
