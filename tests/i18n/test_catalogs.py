"""The catalogs: every shown string is in the template, every language translates all of it,
and a new language is one file."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit import i18n
from mcp_elicit.flows import Flows
from mcp_elicit.i18n import catalogs, tool
from mcp_elicit.server.identity import LOCAL_USER, LocalIdentity
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.pages import (
    PAGES_PREFIX,
    SECRET_PURPOSE,
    flow_path,
    hosted_pages,
    page_hosts,
)
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import MemoryStore


@pytest.fixture(scope="module")
def extracted() -> Catalog:
    return tool.extract()


def ids(catalog: Catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def test_the_template_holds_exactly_what_the_source_marks(extracted: Catalog) -> None:
    with tool.TEMPLATE.open("rb") as file:
        committed = read_po(file)
    missing, stale = ids(extracted) - ids(committed), ids(committed) - ids(extracted)
    assert not missing and not stale, (
        f"messages.pot is out of date (run `make catalogs`): new {sorted(missing)[:5]}, "
        f"gone {sorted(stale)[:5]}"
    )


def test_there_is_something_to_translate(extracted: Catalog) -> None:
    # Every surface marks its words: a broken extractor would pass the next test vacuously.
    files = {location[0] for m in extracted if m.id for location in m.locations}
    for part in ("forms/", "urls/", "client/web/static/renderer.js", "server/pages/", "cli/"):
        assert any(part in f for f in files), f"no marked string in {part}"
    assert len(ids(extracted)) > 300


@pytest.mark.parametrize("path", sorted(tool.LOCALES.glob("*.po")), ids=lambda p: p.stem)
def test_every_catalog_translates_every_string(path: Path, extracted: Catalog) -> None:
    with path.open("rb") as file:
        catalog = read_po(file)
    lacking = list(tool.lacking(catalog, extracted))
    assert lacking == [], f"{path.name} lacks {len(lacking)}:\n" + "\n".join(lacking[:40])


def test_a_lacking_translation_is_found(extracted: Catalog) -> None:
    with (tool.LOCALES / "zh_Hans.po").open("rb") as file:
        catalog = read_po(file)
    first = next(m for m in catalog if m.id and isinstance(m.id, str))
    english = str(first.id)
    first.string = ""
    assert f"untranslated: {english!r}" in list(tool.lacking(catalog, extracted))
    first.string = "{not_a_field} 中文" if "{" not in english else "中文"
    assert any(line.startswith("fields differ") for line in tool.lacking(catalog, extracted))
    first.string = "中文" if "{" not in english else english
    first.flags.add("fuzzy")
    assert f"fuzzy: {english!r}" in list(tool.lacking(catalog, extracted))


def test_chinese_is_chinese() -> None:
    with i18n.language("zh-Hans"):
        assert i18n._("required") == "必填"


def test_a_third_language_is_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extracted: Catalog
) -> None:
    french = Catalog(locale="fr", project="mcp-elicit")
    french.add("required", "obligatoire")
    with (tmp_path / "fr.po").open("wb") as file:
        write_po(file, french)
    monkeypatch.setenv("MCP_ELICIT_CATALOGS", str(tmp_path))
    catalogs.forget_catalogs()
    try:
        assert "fr" in i18n.available_languages()
        assert i18n.negotiate("fr-CA,en;q=0.5") == "fr"
        assert i18n.from_environment({"LANG": "fr_FR.UTF-8"}) == "fr"
        with i18n.language("fr"):
            assert i18n._("required") == "obligatoire"
            # What the file does not translate yet shows in English, not as nothing.
            assert i18n._("Review your answers") == "Review your answers"
    finally:
        monkeypatch.delenv("MCP_ELICIT_CATALOGS")
        catalogs.forget_catalogs()
    assert "fr" not in i18n.available_languages()


def test_the_tool_starts_a_new_language_from_the_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool, "LOCALES", tmp_path)
    path = tool.new("fr")
    with path.open("rb") as file:
        started = read_po(file)
    with tool.TEMPLATE.open("rb") as file:
        template = read_po(file)
    assert path.name == "fr.po" and str(started.locale) == "fr"
    assert ids(started) == ids(template)
    assert all(
        not any(m.string if isinstance(m.string, tuple) else (m.string,)) for m in started if m.id
    )
    with pytest.raises(SystemExit, match="exists"):
        tool.new("fr")


@pytest.mark.slow
def test_the_tool_checks_from_the_command_line() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "mcp_elicit.i18n.tool", "check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-2000:]
    wrong = subprocess.run(
        [sys.executable, "-m", "mcp_elicit.i18n.tool", "nonsense"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert wrong.returncode == 2 and "usage" in wrong.stderr


# -- a hostile catalog in MCP_ELICIT_CATALOGS (issue 30, finding 13) ------------------------------

PAGE_LINE = "Enter your {label}"  # the secret page's field label: {label} filled in per flow
DONE_LINE = "Done. {server} has an answer now."


def hostile_french(folder: Path) -> None:
    french = Catalog(locale="fr", project="mcp-elicit")
    french.add("required", "obligatoire")  # a good translation stays
    french.add(PAGE_LINE, "Saisissez {label.__class__.__mro__}")  # reaches into the argument
    french.add(DONE_LINE, "Terminé. {bogus} a une réponse.")  # a field the English lacks
    french.add("Enter your password", "{0}")  # a positional field the English lacks
    with (folder / "fr.po").open("wb") as file:
        write_po(file, french)


@pytest.fixture
def french_from_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    hostile_french(tmp_path)
    monkeypatch.setenv("MCP_ELICIT_CATALOGS", str(tmp_path))
    catalogs.forget_catalogs()
    yield
    monkeypatch.delenv("MCP_ELICIT_CATALOGS")
    catalogs.forget_catalogs()


def test_a_translation_with_other_fields_is_dropped_for_the_english(
    french_from_outside: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_elicit.i18n.catalogs"), i18n.language("fr"):
        assert i18n._("required") == "obligatoire"
        shown = i18n._(PAGE_LINE).format(label="API key")
        done = i18n._(DONE_LINE).format(server="Acme")
        assert i18n._("Enter your password") == "Enter your password"
    assert shown == "Enter your API key" and "<class" not in shown
    assert done == "Done. Acme has an answer now."
    warned = "\n".join(r.getMessage() for r in caplog.records)
    assert "fr.po" in warned and "label.__class__.__mro__" in warned and "{bogus}" in warned


def test_the_field_reader_sees_every_kind_of_field() -> None:
    assert catalogs.format_fields("{a} and {b!r:>4} and %(prog)s and %s") == sorted(
        ["{a}", "{b!r:>4}", "%(prog)s", "%s"]
    )
    assert catalogs.format_fields("{{literal}} {x}") == ["{x}"]
    assert catalogs.format_fields("{x.__class__}") != catalogs.format_fields("{x}")


@pytest.mark.anyio
async def test_the_pages_in_a_hostile_language_still_answer(french_from_outside: None) -> None:
    """Every page in that language answered 500 with an unknown field; the secret page shows
    its English line instead, and nothing of Python's internals."""
    key = DeploymentKey.generate()
    store = MemoryStore()
    flows = Flows(store)
    pages = hosted_pages(
        flows=flows,
        vault=Vault(store, key.derive("vault")),
        identity=LocalIdentity(),
        csrf_key=key.derive("csrf"),
        server_name="Acme",
        allowed_hosts=page_hosts(public_url="http://pages.test", loopback_port=None),
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=pages)])
    flow = await flows.start(
        user=LOCAL_USER,
        purpose=SECRET_PURPOSE,
        details={"name": "weather-api", "label": "API key", "message": "For forecasts."},
    )
    transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx2.AsyncClient(transport=transport, base_url="http://pages.test") as client:
        page = await client.get(flow_path(flow.id), headers={"Accept-Language": "fr"})
    assert page.status_code == 200, page.text
    assert "<class" not in page.text and "Enter your API key" in page.text
