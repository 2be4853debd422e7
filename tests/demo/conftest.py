"""The demo as a person runs it, in tmux: the ``demo`` fixture (see ``tests.demo.support.Demo``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.demo.support import Demo
from tests.peers import missing


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    if shutil.which("tmux") is None:
        missing("tmux")
    running = Demo(tmp_path)
    yield running
    for pane in running.panes:
        pane.close()
