"""The optional extras (``pip install 'mcp-elicit[fastmcp]'`` and the like): one way to import
a package that only an extra installs, and to say which extra to install when it is missing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def needs_extra(module: str, extra: str, *, shown: str | None = None) -> Iterator[None]:
    """Around the imports from ``module`` (a top-level package that the extra ``extra``
    installs): when it is missing, a ``ModuleNotFoundError`` saying what to install, named
    ``shown`` (default: the module). A missing module of another name (one the package itself
    needs) is raised as it is: installing the extra would not be the fix."""
    try:
        yield
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] != module:
            raise
        raise ModuleNotFoundError(
            f"{shown or module} is not installed: pip install 'mcp-elicit[{extra}]'", name=module
        ) from None
