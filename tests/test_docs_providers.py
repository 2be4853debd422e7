"""docs/providers.md says what the code does: the command and make variables of ``make oidc``
are the Makefile's (with its defaults), the redirect URIs are the routes the server serves,
the development provider's defaults are the same in the script, and each provider's snippet
builds with the real constructors. (``tests/test_oidc_dev_provider.py`` runs the command.)
"""

from __future__ import annotations

import os
import re

import pytest

from mcp_elicit.server.links import PAGES_PREFIX
from mcp_elicit.server.oauth import OAuthProvider, OidcIdentity, connect, protected_resource, signin
from tests.paths import DOCS, ROOT

PAGE = (DOCS / "providers.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
OPTIONS = (ROOT / "peers" / "oidc" / "options.mjs").read_text(encoding="utf-8")

SIGN_IN = PAGES_PREFIX + signin.CALLBACK_PATH  # /elicit/signin/callback
DOWNSTREAM = PAGES_PREFIX + connect.CALLBACK_PATH + "/"  # /elicit/oauth/callback/<name>


def _makefile_defaults() -> dict[str, str]:
    return dict(re.findall(r"^(OIDC_[A-Z_]+) \?=[ \t]*(.*)$", MAKEFILE, re.MULTILINE))


def _documented_defaults() -> dict[str, str]:
    """The make variables table: name -> default ('' for a default that is not a value)."""
    rows = re.findall(r"^\| `(OIDC_[A-Z_]+)` \| ([^|]*) \|", PAGE, re.MULTILINE)
    return {
        name: cell.strip().strip("`") if cell.strip().startswith("`") else "" for name, cell in rows
    }


def test_the_make_target_and_its_variables_are_the_makefiles() -> None:
    assert re.search(r"^oidc: peers$", MAKEFILE, re.MULTILINE), "the Makefile has no oidc target"
    assert "$ make oidc\n" in PAGE
    documented, defaults = _documented_defaults(), _makefile_defaults()
    assert documented == defaults
    recipe = MAKEFILE.split("\noidc: peers\n", 1)[1].split("\n\n", 1)[0]
    for name in defaults:
        assert f"$({name})" in recipe, f"{name} is documented but the recipe ignores it"


def test_the_redirect_uris_are_the_routes_the_server_serves() -> None:
    assert f"`<public_url>{SIGN_IN}`" in PAGE
    assert f"`<public_url>{DOWNSTREAM}<name>`" in PAGE
    # Every concrete callback on the page is one of the two.
    found = re.findall(r"https?://[^\s`)]+/elicit/[^\s`),]*", PAGE)
    assert found
    for url in found:
        path = re.sub(r"^https?://[^/]+", "", url)
        assert path == SIGN_IN or re.fullmatch(
            re.escape(DOWNSTREAM) + r"(<name>|[a-z0-9._-]+)", path
        ), url


def test_the_dev_providers_defaults_are_the_same_in_the_script_the_makefile_and_the_page() -> None:
    defaults = _makefile_defaults()
    script = {
        "OIDC_PORT": re.search(r"port: (\d+),", OPTIONS),
        "OIDC_SERVER": re.search(r"server: '([^']+)',", OPTIONS),
        "OIDC_CLIENT_ID": re.search(r"clientId: '([^']+)',", OPTIONS),
        "OIDC_CLIENT_SECRET": re.search(r"clientSecret: '([^']+)',", OPTIONS),
    }
    for name, match in script.items():
        assert match is not None and match.group(1) == defaults[name], name
    # The script's default redirect URIs are the server's two callbacks ("dev" downstream).
    assert f"`${{server}}{SIGN_IN}`" in OPTIONS
    assert f"`${{server}}{DOWNSTREAM}${{DEV_DEFAULTS.providerName}}`" in OPTIONS
    assert "providerName: 'dev'" in OPTIONS
    server = defaults["OIDC_SERVER"]
    issuer = f"http://127.0.0.1:{defaults['OIDC_PORT']}"
    for line in (
        f"  issuer            {issuer}",
        f"  client id         {defaults['OIDC_CLIENT_ID']}",
        f"  client secret     {defaults['OIDC_CLIENT_SECRET']}",
        f"  redirect URIs     {server}{SIGN_IN}",
        f"                    {server}{DOWNSTREAM}dev",
        f"  access tokens     JWTs with aud {server}/mcp",
    ):
        assert line in PAGE, line


@pytest.mark.parametrize(
    "block",
    re.findall(r"```py\n(.*?)```", PAGE, re.DOTALL),
)
def test_each_providers_snippet_builds(block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The page says the snippets assume these imports; the secrets come from the environment.
    assert "import os" in PAGE
    assert (
        "from mcp_elicit.server.oauth import OAuthProvider, OidcIdentity, protected_resource"
        in PAGE
    )
    for name in set(re.findall(r'os\.environ\["([A-Z_]+)"\]', block)):
        monkeypatch.setenv(name, f"{name.lower()}-value")
    namespace = {
        "os": os,
        "OAuthProvider": OAuthProvider,
        "OidcIdentity": OidcIdentity,
        "protected_resource": protected_resource,
    }
    exec(compile(block, "providers.md", "exec"), namespace)
    built = [v for v in namespace.values() if isinstance(v, (OAuthProvider, OidcIdentity, dict))]
    assert built


def test_the_page_is_linked_from_identity_and_the_readme() -> None:
    assert "(providers.md)" in (DOCS / "identity.md").read_text(encoding="utf-8")
    assert "(docs/providers.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
