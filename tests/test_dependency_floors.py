"""Our dependency floors are at least what the SDK itself requires: a floor below the SDK's
promises an install that cannot happen (the resolver would refuse it, or pick an older SDK)."""

from __future__ import annotations

import tomllib
from importlib.metadata import requires
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"


def floor(specifier: SpecifierSet) -> Version | None:
    found = [Version(s.version) for s in specifier if s.operator in (">=", "==", "~=")]
    return max(found) if found else None


def ours() -> dict[str, Requirement]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return {r.name.lower(): r for r in (Requirement(text) for text in project["dependencies"])}


def test_no_floor_is_below_the_sdks() -> None:
    mine = ours()
    low = []
    for text in requires("mcp") or []:
        theirs = Requirement(text)
        if theirs.marker is not None and not theirs.marker.evaluate({"extra": ""}):
            continue  # an extra of theirs, or another platform or Python
        name = theirs.name.lower()
        if name not in mine:
            continue
        needed, given = floor(theirs.specifier), floor(mine[name].specifier)
        if needed is not None and (given is None or given < needed):
            low.append(f"{name}: ours {mine[name].specifier or 'none'}, mcp needs {needed}")
    assert low == []


def test_the_floor_reader_sees_a_low_floor() -> None:
    assert floor(SpecifierSet(">=2.11,<3")) == Version("2.11")
    assert floor(SpecifierSet(">=2.11,<3")) < floor(SpecifierSet(">=2.12.0"))  # type: ignore[operator]
    assert floor(SpecifierSet("<3")) is None
