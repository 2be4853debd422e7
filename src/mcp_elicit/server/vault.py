"""The vault: secrets a person entered on a hosted page, sealed before they reach a store.

A sealed value is ``version ‖ nonce ‖ AES-256-GCM(value)``. The authenticated data binds the
version, the server (its ``server_id``), the user and the secret's name, so a row copied to
another user, renamed, or moved to another server sharing the store (by an attacker with
write access to it, or a bad migration) no longer opens: it reads as absent, never as
someone else's secret.

Two kinds of sealed value, with different authenticated data so that neither opens as the
other:

- the vault entry, ``(server, user, name)``: what ``secret(reuse=True)`` finds next time;
  the last value stored for that name wins;
- a flow's own value (:meth:`Vault.seal_for_flow`), also bound to the flow id: kept with the
  flow it was typed for, so that the call waiting on that flow gets exactly that value even
  when other calls' pages store other values under the same name meanwhile.

Version 2 added the server and the kinds; a version 1 value reads as absent (and the SQLite
store drops them when it upgrades): secrets entered before are asked for again.

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

VERSION = b"\x02"
_NONCE_BYTES = 12  # 96 bits, the size GCM is built for; random per seal
_LABEL = b"mcp-elicit/vault"
_ENTRY = b"entry"
_FLOW = b"flow"


class Vault:
    """Per-user named secrets of one server (``server``, its ``server_id``), sealed with a
    key derived for the vault (``DeploymentKey.derive("vault")``)."""

    def __init__(
        self,
        store: Store,
        key: bytes | None = None,
        *,
        keys: Sequence[bytes] = (),
        server: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if (key is None) == (not keys):
            raise ValueError("give a vault either key or keys (newest first)")
        all_keys = [key] if key is not None else list(keys)
        for k in all_keys:
            if len(k) != 32:
                raise ValueError("vault keys are 32 bytes (AES-256)")
        if not isinstance(server, str):
            raise TypeError(f"a vault's server is its server_id, a string, not {server!r}")
        self._store = store
        self._ciphers = [AESGCM(bytes(k)) for k in all_keys]
        self._server = server
        self._clock = clock

    @property
    def server(self) -> str:
        return self._server

    def seal(self, user: str, name: str, value: str) -> SealedSecret:
        """``value`` sealed as ``user``'s vault entry ``name`` on this server, ready for the
        store (``put`` stores one; the hosted page stores one with its flow's completion)."""
        _check_names(user, name)
        aad = _aad(VERSION, _ENTRY, self._server, user, name)
        return SealedSecret(
            user=user,
            name=name,
            sealed=self._seal(value, aad),
            created_at=self._clock(),
            server=self._server,
        )

    def seal_for_flow(self, flow_id: str, user: str, name: str, value: str) -> bytes:
        """``value`` sealed for the flow ``flow_id`` alone (its result, kept with it by
        ``Flows.complete``): only :meth:`of_flow` with the same flow, user and name opens
        it."""
        _check_names(user, name)
        if not flow_id:
            raise ValueError("a flow's value needs the flow's id")
        return self._seal(value, _aad(VERSION, _FLOW, self._server, flow_id, user, name))

    async def put(self, user: str, name: str, value: str) -> None:
        """Seal ``value`` and store it as ``user``'s secret ``name``, replacing any other."""
        await self._store.put_secret(self.seal(user, name, value))

    async def get(self, user: str, name: str) -> SecretStr | None:
        """The secret, or ``None`` when there is none or what is stored does not open for this
        server, user and name (logged as a warning, without any value)."""
        _check_names(user, name)
        stored = await self._store.get_secret(user, name, server=self._server)
        if stored is None:
            return None
        value = self._unseal(stored.sealed, _ENTRY, user, name)
        if value is None:
            logger.warning(
                "vault: secret %r of user %r does not open (moved, altered, or sealed with a "
                "key this instance lacks); treating it as absent",
                name,
                user,
            )
            return None
        return SecretStr(value)

    async def of_flow(self, flow_id: str, user: str, name: str) -> SecretStr | None:
        """What was typed on the page of the flow ``flow_id`` (``user``'s secret ``name``), or
        ``None``: nothing kept with that flow, or it does not open for this flow, user and
        name (logged as a warning, without any value)."""
        _check_names(user, name)
        sealed = await self._store.flow_result(flow_id)
        if sealed is None:
            return None
        value = self._unseal(sealed, _FLOW, flow_id, user, name)
        if value is None:
            logger.warning(
                "vault: the value of flow %s (secret %r) does not open (moved, altered, or "
                "sealed with a key this instance lacks); treating it as absent",
                flow_id,
                name,
            )
            return None
        return SecretStr(value)

    async def forget(self, user: str, name: str) -> bool:
        """Delete the secret; ``True`` when there was one."""
        _check_names(user, name)
        return await self._store.delete_secret(user, name, server=self._server)

    def _seal(self, value: str, aad: bytes) -> bytes:
        if not isinstance(value, str) or not value:
            # An empty secret is always a mistake upstream (a blank form field); storing it
            # would later look like a configured credential.
            raise ValueError("a vault value must be a non-empty string")
        nonce = os.urandom(_NONCE_BYTES)
        return VERSION + nonce + self._ciphers[0].encrypt(nonce, value.encode("utf-8"), aad)

    def _unseal(self, sealed: bytes, kind: bytes, *bound: str) -> str | None:
        version, body = sealed[:1], sealed[1:]
        if version != VERSION or len(body) <= _NONCE_BYTES:
            return None
        nonce, ciphertext = body[:_NONCE_BYTES], body[_NONCE_BYTES:]
        # The server, user and name asked for, not the ones in the row: a moved row must
        # not open.
        aad = _aad(version, kind, self._server, *bound)
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


def _aad(version: bytes, kind: bytes, *bound: str) -> bytes:
    # Length prefixes make the encoding injective: ("ab", "c") and ("a", "bc") differ.
    parts = [_LABEL, version, kind, *(part.encode("utf-8") for part in bound)]
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def _check_names(user: str, name: str) -> None:
    if not user:
        raise ValueError("a vault secret belongs to a user; user is empty")
    if not name:
        raise ValueError("a vault secret needs a name")
