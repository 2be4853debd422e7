"""Where a signed-in client keeps its tokens: one file per server, owner-only, encrypted.

The SDK's OAuth client (``mcp.client.auth.OAuthClientProvider``) asks a ``TokenStorage`` for
the tokens and the client registration of one server. :class:`TokenFile` keeps both in
``sign-in/`` in the state directory (``$XDG_STATE_HOME/mcp-elicit/sign-in``):

- one file per server URL, named by a hash of it (the name says nothing of the server);
- written whole and atomically (a new 0600 file, then renamed over the old one), so a crash
  never leaves half a token;
- encrypted with Fernet (AES-128-CBC + HMAC-SHA256, from ``cryptography``) under a key in
  ``sign-in/key``, also 0600. Encryption does not protect the tokens from someone who can
  read the key (the same OS account can): it keeps them out of plain sight in a copied or
  backed-up folder, and the file opens only for the server it was written for (the server
  URL is inside, checked on reading).

A file that cannot be read (another key, damaged, another server's) is treated as none, with
a warning: the person signs in again, which replaces it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from mcp_elicit.client._private import make_private, private_directory
from mcp_elicit.client.server_log import client_state_directory

logger = logging.getLogger(__name__)

_VERSION = 1


def sign_in_directory() -> Path:
    """``sign-in`` in the state directory: where :class:`TokenFile` keeps its files."""
    return client_state_directory() / "sign-in"


class TokenFile:
    """The SDK's ``TokenStorage`` for one server, in a file only this user can read.

    ``directory`` defaults to :func:`sign_in_directory`. Tokens and the client registration
    are kept together: the tokens were issued to that registration."""

    def __init__(self, server_url: str, directory: Path | None = None) -> None:
        self.server_url = server_url
        self.directory = directory if directory is not None else sign_in_directory()
        digest = hashlib.sha256(server_url.encode("utf-8")).hexdigest()[:32]
        self.path = self.directory / f"{digest}.token"

    # -- TokenStorage -----------------------------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        found = self._read().get("tokens")
        return OAuthToken.model_validate(found) if found is not None else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = None
        if tokens.expires_in is not None:
            # Early by a margin: the server's clock, the seconds the response took, and a
            # JWT's whole-second exp would otherwise have an expired token presented (a 401,
            # which the SDK answers with a new sign-in, not a refresh).
            margin = min(60.0, tokens.expires_in / 2)
            expires_at = time.time() + tokens.expires_in - margin
        self._write(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires_at)

    async def expiry(self) -> float | None:
        """When the kept access token expires (seconds since the epoch), if it said. The
        SDK's ``OAuthToken`` holds only ``expires_in``, relative to when it was issued: a
        client started later needs this to refresh an expired token rather than present it."""
        found = self._read().get("expires_at")
        return float(found) if isinstance(found, (int, float)) else None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        found = self._read().get("client")
        return OAuthClientInformationFull.model_validate(found) if found is not None else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write(client=client_info.model_dump(mode="json", exclude_none=True))

    # -- beyond the protocol ----------------------------------------------------------------

    async def discovery(self) -> dict[str, Any] | None:
        """What was discovered about the authorization server when the tokens were issued
        (see :func:`mcp_elicit.client.sign_in.sign_in_auth`)."""
        found = self._read().get("discovery")
        return found if isinstance(found, dict) else None

    async def set_discovery(self, discovery: dict[str, Any]) -> None:
        self._write(discovery=discovery)

    def forget(self) -> bool:
        """Remove this server's tokens and registration; ``True`` when there were any."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    # -- the file ---------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        try:
            descriptor = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return {}
        with os.fdopen(descriptor, "rb") as file:
            make_private(self.path, descriptor=descriptor, why="who could swap in tokens")
            sealed = file.read()
        try:
            data = json.loads(self._key().decrypt(sealed))
        except (InvalidToken, ValueError):
            logger.warning("%s cannot be read (other key, or damaged): sign in again", self.path)
            return {}
        if not isinstance(data, dict) or data.get("server") != self.server_url:
            logger.warning("%s was written for another server: signing in again", self.path)
            return {}
        return data

    def _write(self, **parts: Any) -> None:
        data = self._read() | parts | {"version": _VERSION, "server": self.server_url}
        sealed = self._key().encrypt(json.dumps(data).encode("utf-8"))
        folder = private_directory(self.directory)
        temporary = folder / f".{self.path.name}.{os.getpid()}.new"
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(temporary, flags, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(sealed)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            raise

    def _key(self) -> Fernet:
        folder = private_directory(self.directory)
        path = folder / "key"
        if not path.exists():
            # Written whole under another name, then linked into place: two clients signing
            # in at once agree on one key, and neither ever reads half of one.
            draft = folder / f".key.{os.getpid()}.{os.urandom(4).hex()}"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            with os.fdopen(os.open(draft, flags, 0o600), "wb") as file:
                file.write(Fernet.generate_key())
            try:
                os.link(draft, path)
            except FileExistsError:
                pass  # another client made it first: use theirs
            finally:
                draft.unlink()
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(descriptor, "rb") as file:
            make_private(path, descriptor=descriptor, why="who could read every token")
            return Fernet(file.read().strip())
