"""Serving a page on the side of a host: the sign-in's loopback redirect, the web renderer's
page, the demo's pages.

The host owns the terminal and its signals; a page it serves must not take them over.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import uvicorn


class SignalFreeServer(uvicorn.Server):
    """uvicorn, minus its signal handling: it takes over SIGINT and SIGTERM while it serves,
    then re-raises them when it stops. Ctrl-C belongs to the host (its prompt, its shutdown),
    not to a page it serves on the side."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield
