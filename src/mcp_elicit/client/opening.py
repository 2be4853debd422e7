"""Opening a link in the person's browser so that only their own account can learn it.

A browser started with a URL has that URL on its command line, and every user of the machine
can read every process's command line (``/proc/PID/cmdline``; ``ps`` shows it). The web
renderer's address holds its token, and a hosted page's link holds the flow it completes:
whoever reads either could answer in the person's place. So the link is never given to the
browser. It goes into a small HTML file that redirects to it, readable only by this user
(0600, in a directory only this user may enter, 0700), and the browser is given
``file://`` that file, whose random name says nothing. (Jupyter opens its token URL the same
way.)

Where: ``$XDG_RUNTIME_DIR/mcp-elicit/links`` when ``XDG_RUNTIME_DIR`` is set (memory only this
user may enter, emptied at logout), else ``links`` in the state directory
(``$XDG_STATE_HOME/mcp-elicit/links``, ``~/.local/state/mcp-elicit/links``). A directory of
ours that others may enter is tightened to 0700; one that belongs to another user is refused
(``PermissionError``). Each file is removed :data:`LINGER` seconds after it was written (the
browser has read it long before), and the ones still there when the process exits go then.

The person still sees the link itself on their own screen (the consent screen, the terminal's
line about the page): that is theirs to read.
"""

from __future__ import annotations

import atexit
import contextlib
import html
import logging
import os
import secrets
import threading
import webbrowser
from pathlib import Path

from mcp_elicit.client._private import private_directory
from mcp_elicit.client.server_log import client_state_directory
from mcp_elicit.i18n import _, current_language

logger = logging.getLogger(__name__)

LINGER = 300.0
"""Seconds a redirect file is kept: a browser that starts cold has long read it by then."""

_made: set[Path] = set()
_lock = threading.Lock()
_cleanup_registered = False


def links_directory() -> Path:
    """Where the redirect files go (see the module docstring); not created here."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    # The XDG spec says a relative path in these variables is invalid and must be ignored.
    if os.path.isabs(runtime) and os.path.isdir(runtime):
        return Path(runtime) / "mcp-elicit" / "links"
    return client_state_directory() / "links"


def open_privately(url: str) -> bool:
    """Open ``url`` in a new tab of the system browser through a redirect file only this user
    can read; ``False`` when no browser could be started. Raises ``OSError`` (the file could
    not be written) rather than give the browser ``url`` itself."""
    page = write_redirect(url)
    return webbrowser.open(page.as_uri(), new=2)


def write_redirect(url: str, *, linger: float | None = LINGER) -> Path:
    """A new file, readable only by this user, whose page sends the browser on to ``url``.
    It is removed after ``linger`` seconds (``None``: when the process exits)."""
    directory = _private_directory()
    page = _redirect_page(url).encode("utf-8")
    path = directory / f"{secrets.token_hex(12)}.html"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags, 0o600)
    try:
        os.write(descriptor, page)
    finally:
        os.close(descriptor)
    _remember(path)
    if linger is not None:
        timer = threading.Timer(linger, remove_redirect, (path,))
        timer.daemon = True
        timer.start()
    return path


def remove_redirect(path: Path) -> None:
    """Remove a redirect file (gone already is fine)."""
    with _lock:
        _made.discard(path)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _remember(path: Path) -> None:
    global _cleanup_registered
    with _lock:
        _made.add(path)
        if not _cleanup_registered:
            atexit.register(_remove_all)
            _cleanup_registered = True


def _remove_all() -> None:
    with _lock:
        paths = list(_made)
    for path in paths:
        remove_redirect(path)


def _private_directory() -> Path:
    """:func:`links_directory`, made or checked owner-only (it and its ``mcp-elicit``)."""
    directory = links_directory()
    private_directory(directory.parent)
    return private_directory(directory)


def _redirect_page(url: str) -> str:
    """The page, its few words in the language in effect (the browser shows it for a moment)."""
    attribute = html.escape(url, quote=True)
    lang = html.escape(current_language(), quote=True)
    title = html.escape(_("Opening a link (mcp-elicit)"))
    link = f'<a href="{attribute}" rel="noreferrer">{attribute}</a>'
    opening = html.escape(_("Opening {link}")).format(link=link)
    return (
        "<!doctype html>\n"
        f'<html lang="{lang}"><head><meta charset="utf-8">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f'<meta http-equiv="refresh" content="0;url={attribute}">\n'
        f"<title>{title}</title></head>\n"
        f"<body><p>{opening}</p>"
        "</body></html>\n"
    )
