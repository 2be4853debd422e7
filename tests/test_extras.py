"""``mcp_elicit._extras.needs_extra``: what a missing optional extra says."""

from __future__ import annotations

import pytest

from mcp_elicit._extras import needs_extra


def test_a_missing_package_names_the_extra_to_install() -> None:
    with (
        pytest.raises(ModuleNotFoundError) as raised,
        needs_extra("no_such_framework", "nsf", shown="no-such-framework"),
    ):
        import no_such_framework.client  # type: ignore[import-not-found]  # noqa: F401
    assert str(raised.value) == (
        "no-such-framework is not installed: pip install 'mcp-elicit[nsf]'"
    )
    assert raised.value.name == "no_such_framework"


def test_a_missing_dependency_of_the_package_is_raised_as_it_is() -> None:
    with pytest.raises(ModuleNotFoundError) as raised, needs_extra("json", "json"):
        raise ModuleNotFoundError("No module named 'its_dependency'", name="its_dependency")
    assert raised.value.name == "its_dependency"


def test_an_installed_package_imports() -> None:
    with needs_extra("json", "json"):
        import json
    assert json.dumps([]) == "[]"
