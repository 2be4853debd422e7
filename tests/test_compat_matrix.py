"""docs/compatibility.md's matrix is current: regenerated here (every check against every
column), it must be the page's, word for word. When behaviour changes on purpose, run
``make compat`` and read the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compat_matrix import PAGE, current_matrix, matrix

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.node]


async def test_the_page_shows_what_the_checks_find_now(tmp_path: Path) -> None:
    generated = await matrix(tmp_path)
    on_page = current_matrix(PAGE.read_text(encoding="utf-8"))
    assert on_page == generated, "docs/compatibility.md is not current: run `make compat`"
