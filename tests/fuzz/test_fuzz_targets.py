"""The fuzz targets (fuzz/, ``make fuzz``) stay runnable: each one's contract holds on every
seed of its corpus, and a broken contract is reported, not swallowed."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

# Imported before the targets, so that their instrument_imports() finds these loaded already
# and instruments nothing in this process.
import mcp_elicit.forms
import mcp_elicit.forms.values
import mcp_elicit.protocol
import mcp_elicit.server.pages.body
import mcp_elicit.urls  # noqa: F401

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
TARGETS = ("schema_check", "form_validate", "url_check", "protocol_parse", "pages_read_form")


@pytest.fixture(scope="module")
def targets() -> Iterator[dict[str, ModuleType]]:
    sys.path.insert(0, str(FUZZ))
    try:
        yield {name: importlib.import_module(name) for name in TARGETS}
    finally:
        sys.path.remove(str(FUZZ))


def test_every_target_has_seeds_and_is_run_by_the_driver(targets: dict[str, ModuleType]) -> None:
    for name in TARGETS:
        assert len(list((FUZZ / "corpus" / name).iterdir())) >= 3, name
    assert importlib.import_module("run").TARGETS == TARGETS


@pytest.mark.parametrize("name", TARGETS)
def test_the_contract_holds_on_every_seed(targets: dict[str, ModuleType], name: str) -> None:
    for seed in sorted((FUZZ / "corpus" / name).iterdir()):
        targets[name].check(seed.read_bytes())


def test_a_broken_contract_is_a_finding(
    targets: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = sys.modules["_harness"]
    monkeypatch.setattr(targets["url_check"], "check_url", lambda url, policy=None: "not a verdict")
    with pytest.raises(harness.ContractViolation, match="check_url returned str"):
        targets["url_check"].check(b"https://example.com/")
