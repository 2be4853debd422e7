"""The catalog of checks and docs/check.md agree: every check is explained under its ID,
with the revisions it runs on, the tools it needs and the sections its spec references
name; no page section is left for a check that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_elicit.check import CHECKS, REVISIONS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "check.md"


def sections() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^### `([a-z0-9-]+)`$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_page_explains_exactly_the_checks_there_are() -> None:
    text = PAGE.read_text(encoding="utf-8")
    headings = re.findall(r"^### `([a-z0-9-]+)`$", text, flags=re.MULTILINE)
    assert len(headings) == len(set(headings)), "a check explained twice"
    assert set(headings) == set(CHECKS)


@pytest.mark.parametrize("check_id", list(CHECKS))
def test_each_section_says_where_when_and_with_what(check_id: str) -> None:
    check = CHECKS[check_id]
    section = " ".join(sections()[check_id].split())  # lines joined
    for revision in check.revisions:
        assert revision in section, f"{check_id}: revision {revision} not said"
    for tools in check.tools.values():
        for tool in tools:
            assert f"`{tool}`" in section, f"{check_id}: tool {tool} not said"
    for ref in check.spec:
        assert ref.section in section, f"{check_id}: spec section {ref.section!r} not said"


def test_checks_name_known_revisions_and_have_spec() -> None:
    for check in CHECKS.values():
        assert check.spec, check.id
        assert set(check.revisions) <= set(REVISIONS), check.id
        assert set(check.tools) <= {"*", *check.revisions}, check.id
