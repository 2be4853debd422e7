from __future__ import annotations

import os
import secrets
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests import markers, warm_python

# `HYPOTHESIS_PROFILE=thorough make pytest` digs deeper than the everyday run.
settings.register_profile(
    "default", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

DATA = Path(__file__).parent / "data"
_WARM = pytest.StashKey["warm_python.Warm"]()


# The longest tests, started first: under pytest-xdist each worker takes tests in collection
# order, so a test of several minutes collected late (test_compat_matrix.py sorts after
# most folders) ends the run minutes after every other worker has finished. Measured in a
# parallel run (make pytest): each of these takes one to several minutes.
LONGEST_FIRST = (
    "tests/test_compat_matrix.py",  # every check against every column
    "tests/client/test_http.py",  # 1,000 elicitations pending at once
    "tests/gateway/test_many.py",  # a thousand pending calls through the gateway
    "tests/check/",  # mcp-elicit check, a process per check
)


def pytest_configure(config: pytest.Config) -> None:
    """The processes the tests start as ``sys.executable ...`` are forked from a warm Python
    (tests/warm_python.py says why and how), in every pytest process that runs tests: not in
    pytest-xdist's controller, which runs none. ``MCP_ELICIT_COLD_PYTHON=1``: real ones."""
    # The library follows the locale (as the command line does): the suite runs in English
    # whatever the machine's locale; a test that wants another language sets it.
    os.environ["LANG"] = "C.UTF-8"
    for name in ("LC_ALL", "LC_MESSAGES"):
        os.environ.pop(name, None)
    runs_none = config.getoption("numprocesses", None) and not hasattr(config, "workerinput")
    if runs_none or os.environ.get(warm_python.COLD_VARIABLE) == "1":
        return
    warm = config.stash[_WARM] = warm_python.Warm.start()
    sys.executable = warm.launcher


def pytest_unconfigure(config: pytest.Config) -> None:
    warm = config.stash.get(_WARM, None)
    if warm is not None:
        sys.executable = warm.real
        warm.stop()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        found = (i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix))
        return next(found, len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: the order within each part stays as collected


@pytest.fixture(scope="session", autouse=True)
def _state_of_this_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Where mcp-elicit keeps its state when a test does not say (``XDG_STATE_HOME``: the key
    file, the stdio servers' logs, redirect files, sign-in tokens): a folder of this pytest
    process, not the real ``~/.local/state``. The xdist workers of one run, and other runs on
    the same machine, would otherwise append to the same server logs and read each other's
    lines, and a run would leave files in the home folder. A test that cares sets its own."""
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))
    yield
    patch.undo()


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def anyio_backend() -> str:
    # The SDK and our client run on asyncio; one backend keeps the suite's time down.
    return "asyncio"


@pytest.fixture
def sentinel() -> str:
    """A secret to search for afterwards: it must appear nowhere it should not."""
    return f"sk-SENTINEL-{uuid.uuid4().hex}"


@pytest.fixture
def key() -> str:
    """A deployment key (``MCP_ELICIT_KEY``) shared by every server process of one test."""
    return secrets.token_urlsafe(32)


@pytest.fixture(autouse=True)
def _marked_honestly(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Record the test's markers for :func:`tests.markers.require`, and refuse a subprocess
    to a test that is not marked as starting one (it would slow ``make test-fast``)."""
    names = frozenset(m.name for m in request.node.iter_markers())
    markers.current = names
    if not names.intersection(markers.HEAVY):
        real_init = subprocess.Popen.__init__

        def guarded(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
            markers.require("slow", "node", "tmux", "browser", "services")
            real_init(self, *args, **kwargs)

        monkeypatch.setattr(subprocess.Popen, "__init__", guarded)
    try:
        yield
    finally:
        markers.current = frozenset()


@pytest.fixture(autouse=True)
def _no_pseudo_locale_left() -> Iterator[None]:
    """A test that installs the pseudo-locale (tests/i18n_support.py) has it to itself: it is
    taken away after, so that the next test sees only the languages that have catalogs."""
    yield
    from tests import i18n_support

    i18n_support.uninstall()
