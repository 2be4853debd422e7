"""Short-lived sealed values the browser carries for us: the sign-in session cookie, the
sign-in's own state cookie, and the downstream OAuth ``state``.

Sealed with the SDK's AES-GCM codec (the one ``requestState`` uses: encrypted, not only
signed, so a browser or a provider cannot read what is inside), under a key of its own per
purpose (HKDF from the key the pages are given), with the purpose and an expiry inside: a
value sealed for one purpose never opens as another, and none opens after its time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from mcp.server.request_state import AESGCMRequestStateCodec

_MAX_TOKEN = 4096  # larger than anything we seal; a bigger cookie or parameter was not ours


class Sealer:
    """Seals JSON objects for one ``purpose`` (e.g. ``"browser-session"``)."""

    def __init__(self, key: bytes | Sequence[bytes], purpose: str) -> None:
        # Several keys: a rotation (newest first): the first seals, any opens.
        keys = [key] if isinstance(key, bytes | bytearray) else list(key)
        if not keys or any(len(k) < 32 for k in keys):
            raise ValueError("a sealing key needs at least 32 bytes")
        info = b"mcp-elicit/" + purpose.encode()
        derived = [
            HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(bytes(k))
            for k in keys
        ]
        self.purpose = purpose
        self._codec = AESGCMRequestStateCodec(derived)

    def seal(self, payload: dict[str, Any], *, ttl: float) -> str:
        body = {"p": self.purpose, "exp": time.time() + ttl, "v": payload}
        return self._codec.seal(json.dumps(body, separators=(",", ":")).encode())

    def open(self, token: str | None) -> dict[str, Any] | None:
        """What was sealed, or ``None`` when it was not sealed here, for this purpose, or has
        expired (never an exception: these come from browsers)."""
        if not token or len(token) > _MAX_TOKEN:
            return None
        try:
            body = json.loads(self._codec.unseal(token))
        except Exception:  # tampered, another key, malformed: all the same to a caller
            return None
        if not isinstance(body, dict) or body.get("p") != self.purpose:
            return None
        expires = body.get("exp")
        if not isinstance(expires, int | float) or expires < time.time():
            return None
        value = body.get("v")
        return value if isinstance(value, dict) else None
