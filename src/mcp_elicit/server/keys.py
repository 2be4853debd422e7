"""The deployment key: one secret per deployment, from which every other key is derived.

Every instance of a deployment must hold the same key (a vault entry sealed by one instance
is opened by another; a ``requestState`` sealed here comes back to any instance), so an
operator running more than one instance sets ``MCP_ELICIT_KEY``. A single instance needs no
setup: the key is created on first use in a file only its owner can read.

Each use gets its own key through HKDF with a distinct ``info`` label, so a key leaked from
one use (say, a CSRF token key in a debug dump) reveals nothing about the others.

Who may touch the key file (POSIX), checked each time it is read:

- the file belongs to this process's user and nobody else may read or write it (0600 or
  stricter). Anything else is refused, never repaired: a file someone else owns holds a key
  they chose, and a file that was readable by others may have been read already; only the
  operator can tell, so the error says what is wrong and how to fix it (like ssh with a
  private key);
- the directory it sits in belongs to this process's user (or root) and nobody else may write
  to it (whoever can write it can replace the key file with one of theirs). The library's own
  state directory (:func:`state_directory`) must belong to this user, and if others may
  enter or list it, it is tightened to owner-only with a logged warning rather than refused:
  only its owner loses nothing by that, and it is what ssh-keygen does with ``~/.ssh``. A
  directory the operator chose (``file=``) is never changed, only refused when others may
  write to it.

What we create is owner-only from the first instant: directories 0700, files 0600.

Rotation: a new key seals, the previous ones still open until they are retired. Set the new
key in ``MCP_ELICIT_KEY`` and the ones it replaces in ``MCP_ELICIT_PREVIOUS_KEYS`` (comma
separated, newest first) on every instance; once nothing sealed under an old key is still
needed (a vault entry is moved by storing it again; state, cookies and form tokens live
minutes to hours), drop it from the list. In code: ``DeploymentKey(new, previous=[old])``.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

logger = logging.getLogger(__name__)

MIN_BYTES = 32
KEY_VARIABLE = "MCP_ELICIT_KEY"
PREVIOUS_VARIABLE = "MCP_ELICIT_PREVIOUS_KEYS"
_MAKE_ONE = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


class DeploymentKey:
    """The root secret. Holds raw bytes; only derived keys ever leave it."""

    __slots__ = ("_previous", "_raw")

    def __init__(self, raw: bytes, *, previous: Sequence[bytes | DeploymentKey] = ()) -> None:
        if len(raw) < MIN_BYTES:
            raise ValueError(f"a deployment key needs at least {MIN_BYTES} bytes")
        self._raw = bytes(raw)
        older = [k if isinstance(k, DeploymentKey) else DeploymentKey(k) for k in previous]
        self._previous = tuple(older)

    @classmethod
    def generate(cls) -> DeploymentKey:
        """A fresh random key held only in memory (tests, one-off runs)."""
        return cls(secrets.token_bytes(MIN_BYTES))

    @classmethod
    def load(
        cls,
        *,
        env: str = KEY_VARIABLE,
        file: str | os.PathLike[str] | None = None,
    ) -> DeploymentKey:
        """The key from the environment variable ``env`` if it is set, else from ``file``
        (default: ``$XDG_STATE_HOME/mcp-elicit/key``), created there on first use."""
        text = os.environ.get(env)
        if text is not None:
            # Set but unusable is an error, not a reason to fall back to the file: an
            # instance quietly using its own key could not open what the others sealed.
            raw = decode_key_text(text)
            if raw is None or len(raw) < MIN_BYTES:
                raise ValueError(
                    f"{env} must hold at least {MIN_BYTES} random bytes, hex or base64url "
                    f"encoded; make one with: {_MAKE_ONE}"
                )
            return cls(raw, previous=_previous_keys(PREVIOUS_VARIABLE))
        path = Path(file) if file is not None else default_key_file()
        return cls(_read_or_create(path))

    @property
    def previous(self) -> tuple[DeploymentKey, ...]:
        """The keys this one replaced, newest first: they still open, never seal."""
        return self._previous

    def derive_all(self, purpose: str) -> list[bytes]:
        """:meth:`derive` of this key, then of each previous one: seal with the first, open
        with any."""
        return [self.derive(purpose), *(k.derive(purpose) for k in self._previous)]

    def derive(self, purpose: str) -> bytes:
        """A 32-byte key for one ``purpose`` ("vault", "request-state", "csrf", …)."""
        if not purpose:
            raise ValueError("a derived key needs a purpose")
        hkdf = HKDF(
            algorithm=hashes.SHA256(),
            length=32,
            salt=None,  # the input is already uniformly random; RFC 5869 §3.1
            info=b"mcp-elicit/" + purpose.encode("utf-8"),
        )
        return hkdf.derive(self._raw)

    @property
    def fingerprint(self) -> str:
        """A short public tag to check that two instances hold the same key. It is derived
        one-way, so showing it reveals nothing about the key."""
        return self.derive("fingerprint")[:6].hex()

    def __repr__(self) -> str:
        older = f", previous={[k.fingerprint for k in self._previous]!r}" if self._previous else ""
        return f"DeploymentKey(fingerprint={self.fingerprint!r}{older})"

    def __reduce__(self) -> tuple[object, ...]:
        # Pickling would write the raw key wherever the pickle goes (a cache, a queue).
        raise TypeError("a DeploymentKey is not picklable")


def state_directory() -> Path:
    """``$XDG_STATE_HOME/mcp-elicit``, or ``~/.local/state/mcp-elicit``: the key file's and the
    default store's."""
    state = os.environ.get("XDG_STATE_HOME", "")
    # The XDG spec says a relative path in these variables is invalid and must be ignored.
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "mcp-elicit"


def default_key_file() -> Path:
    """``key`` in the :func:`state_directory`."""
    return state_directory() / "key"


def decode_key_text(text: str) -> bytes | None:
    """Hex, or base64 (URL-safe or standard alphabet, padded or not); ``None`` if neither.

    Hex is tried first: a random base64 string of even length made only of hex digits is
    vanishingly unlikely, while a hex key is always such a string.
    """
    text = text.strip()
    if _HEX.fullmatch(text):
        return bytes.fromhex(text)
    # `openssl rand -base64 32` uses the standard alphabet; accept it too.
    text = text.replace("+", "-").replace("/", "_").rstrip("=")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None


def _read_or_create(path: Path) -> bytes:
    _check_directory(path.parent, ours=path.parent == state_directory())
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    raw = secrets.token_bytes(MIN_BYTES)
    if _create(path, raw):
        return raw
    # Another process created it first: use theirs, so both hold the same key. Where the
    # file system has no hard links the winner may still be writing it; give it a moment.
    for _ in range(20):
        try:
            return _read(path)
        except ValueError:
            time.sleep(0.05)
    return _read(path)


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        # fstat on the open file: no window between the check and the read.
        status = os.fstat(f.fileno())
        mode = status.st_mode
        if os.name == "posix" and status.st_uid != os.geteuid():
            raise PermissionError(
                f"the key file {path} belongs to {_user(status.st_uid)}, not to the user this "
                f"server runs as ({_user(os.geteuid())}): the key file must be this user's "
                f"own, since whoever owns it chose the key and can read every stored "
                f"secret. Remove it to make a new key (secrets stored under the old one "
                f"become unreadable), or give it to this user: chown {os.geteuid()} {path}"
            )
        if os.name == "posix" and mode & 0o077:
            raise PermissionError(
                f"the key file {path} is readable or writable by others "
                f"(permissions {stat.S_IMODE(mode):04o}); anyone who can read it can open "
                f"every stored secret. Fix it with: chmod 600 {path}"
            )
        content = f.read()
    raw = _parse_file(content)
    if raw is None:
        raise ValueError(
            f"the key file {path} does not hold a key of at least {MIN_BYTES} bytes "
            f"(hex, base64url, or raw bytes); delete it to make a new one, or write one "
            f"made with: {_MAKE_ONE}"
        )
    return raw


def _check_directory(directory: Path, *, ours: bool) -> None:
    """The rules for the key file's directory (see the module docstring). ``ours``: the
    library's state directory, which is tightened when loose instead of refused."""
    if os.name != "posix":
        return
    try:
        status = os.stat(directory)
    except FileNotFoundError:
        return  # made owner-only by _create
    me = os.geteuid()
    owners = {me} if ours else {me, 0}
    if status.st_uid not in owners:
        rule = "this user's own" if ours else "this user's own, or root's"
        raise PermissionError(
            f"the key file's directory {directory} belongs to {_user(status.st_uid)}, not to "
            f"the user this server runs as ({_user(me)}): it must be {rule}, since its owner "
            f"can replace the key file. Give it to this user (chown -R {me} {directory}; a "
            f"server run once with sudo leaves it root's), or set MCP_ELICIT_KEY"
        )
    mode = stat.S_IMODE(status.st_mode)
    if not mode & 0o077:
        return
    if ours:
        os.chmod(directory, mode & 0o700)
        logger.warning(
            "the key file's directory %s was open to other users (permissions %04o); it is "
            "now owner-only (%04o), as the directory of a key file must be",
            directory,
            mode,
            mode & 0o700,
        )
    elif mode & 0o022:
        raise PermissionError(
            f"the key file's directory {directory} can be written by other users "
            f"(permissions {mode:04o}), who could replace the key file with one of theirs. "
            f"Keep the key file in a directory only its owner can write to (chmod go-w "
            f"{directory}), or set MCP_ELICIT_KEY"
        )


def _user(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _parse_file(content: bytes) -> bytes | None:
    # We write base64url text, so that the key can be copied into MCP_ELICIT_KEY when a
    # second instance joins; a file of raw random bytes made by hand is accepted too.
    try:
        raw = decode_key_text(content.decode("ascii"))
    except UnicodeDecodeError:
        raw = None
    if raw is not None and len(raw) >= MIN_BYTES:
        return raw
    return content if len(content) >= MIN_BYTES and raw is None else None


def _create(path: Path, raw: bytes) -> bool:
    """Create ``path`` holding ``raw``, owner-only; ``False`` if it already exists.

    The key is written to a private temporary file and then hard-linked into place: the link
    either creates the name with the full content or fails because the name exists, so a
    process that loses the race never reads a half-written key.
    """
    parent = path.parent
    if not parent.exists():
        parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    text = base64.urlsafe_b64encode(raw).rstrip(b"=") + b"\n"
    temporary = parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    _write_new(temporary, text)
    try:
        os.link(temporary, path)
    except FileExistsError:
        return False
    except OSError:
        # A file system without hard links: create the name directly, still exclusive and
        # owner-only from the first instant (a racing reader may see it short, and retry).
        try:
            _write_new(path, text)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return True


def _write_new(path: Path, content: bytes) -> None:
    # O_EXCL with mode 0o600: the file is never, even for an instant, readable by others.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(content)
        f.flush()
        os.fsync(f.fileno())


def _previous_keys(env: str) -> list[bytes]:
    """``env``: keys a rotation replaced, comma separated, newest first (empty: none)."""
    found: list[bytes] = []
    for index, text in enumerate(t.strip() for t in os.environ.get(env, "").split(",")):
        if not text:
            continue
        raw = decode_key_text(text)
        if raw is None or len(raw) < MIN_BYTES:
            raise ValueError(
                f"{env}: key {index + 1} must hold at least {MIN_BYTES} random bytes, hex or "
                "base64url encoded"
            )
        found.append(raw)
    return found
