"""The vault: secrets a person entered on a hosted page, sealed before they reach a store.

A sealed value is ``version ‖ nonce ‖ AES-256-GCM(value)``. The authenticated data binds
the version, the user and the secret's name, so a row copied to another user or renamed in
the database (by an attacker with write access to the store, or a bad migration) no longer
opens: it reads as absent, never as someone else's secret.

Key rotation: pass ``keys=[new, old, ...]``; the first seals, every one of them unseals.
Re-``put`` a value to move it onto the new key.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from pydantic import SecretStr

from mcp_elicit.stores.contract import Store
from mcp_elicit.stores.records import SealedSecret

logger = logging.getLogger(__name__)

VERSION = b"\x01"
_NONCE_BYTES = 12  # 96 bits, the size GCM is built for; random per seal
_LABEL = b"mcp-elicit/vault"


class Vault:
    """Per-user named secrets, sealed with a key derived for the vault
    (``DeploymentKey.derive("vault")``)."""

    def __init__(
        self,
        store: Store,
        key: bytes | None = None,
        *,
        keys: Sequence[bytes] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        if (key is None) == (not keys):
            raise ValueError("give a vault either key or keys (newest first)")
        all_keys = [key] if key is not None else list(keys)
        for k in all_keys:
            if len(k) != 32:
                raise ValueError("vault keys are 32 bytes (AES-256)")
        self._store = store
        self._ciphers = [AESGCM(bytes(k)) for k in all_keys]
        self._clock = clock

    async def put(self, user: str, name: str, value: str) -> None:
        """Seal ``value`` and store it as ``user``'s secret ``name``, replacing any other."""
        _check_names(user, name)
        if not isinstance(value, str) or not value:
            # An empty secret is always a mistake upstream (a blank form field); storing it
            # would later look like a configured credential.
            raise ValueError("a vault value must be a non-empty string")
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._ciphers[0].encrypt(nonce, value.encode("utf-8"), _aad(VERSION, user, name))
        await self._store.put_secret(
            SealedSecret(
                user=user, name=name, sealed=VERSION + nonce + sealed, created_at=self._clock()
            )
        )

    async def get(self, user: str, name: str) -> SecretStr | None:
        """The secret, or ``None`` when there is none or what is stored does not open for this
        user and name (logged as a warning, without any value)."""
        _check_names(user, name)
        stored = await self._store.get_secret(user, name)
        if stored is None:
            return None
        value = self._unseal(stored.sealed, user, name)
        if value is None:
            logger.warning(
                "vault: secret %r of user %r does not open (moved, altered, or sealed with a "
                "key this instance lacks); treating it as absent",
                name,
                user,
            )
            return None
        return SecretStr(value)

    async def forget(self, user: str, name: str) -> bool:
        """Delete the secret; ``True`` when there was one."""
        _check_names(user, name)
        return await self._store.delete_secret(user, name)

    def _unseal(self, sealed: bytes, user: str, name: str) -> str | None:
        version, body = sealed[:1], sealed[1:]
        if version != VERSION or len(body) <= _NONCE_BYTES:
            return None
        nonce, ciphertext = body[:_NONCE_BYTES], body[_NONCE_BYTES:]
        # The user and name asked for, not the ones in the row: a moved row must not open.
        aad = _aad(version, user, name)
        for cipher in self._ciphers:
            try:
                plain = cipher.decrypt(nonce, ciphertext, aad)
            except InvalidTag:
                continue
            try:
                return plain.decode("utf-8")
            except UnicodeDecodeError:
                return None
        return None


def _aad(version: bytes, user: str, name: str) -> bytes:
    # Length prefixes make the encoding injective: ("ab", "c") and ("a", "bc") differ.
    parts = [_LABEL, version, user.encode("utf-8"), name.encode("utf-8")]
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def _check_names(user: str, name: str) -> None:
    if not user:
        raise ValueError("a vault secret belongs to a user; user is empty")
    if not name:
        raise ValueError("a vault secret needs a name")
