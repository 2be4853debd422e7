"""Configuring downstream OAuth and sign-in: mistakes are refused at once, with the setting
named, and no secret ever shows in a repr (a log line or a traceback)."""

from __future__ import annotations

import json
import time

import pytest
from pydantic import SecretStr

from mcp_elicit.server import Elicitation
from mcp_elicit.server.oauth import OAuthProvider, OidcIdentity, ProviderToken
from mcp_elicit.server.oauth.downstream import dump_error, dump_token


def test_a_provider_needs_a_plain_name_a_client_id_and_endpoints() -> None:
    with pytest.raises(ValueError, match="lower-case letters"):
        OAuthProvider("Example Files", "id", issuer="https://files.example")
    with pytest.raises(ValueError, match="client_id"):
        OAuthProvider("files", "", issuer="https://files.example")
    with pytest.raises(ValueError, match=r"issuer .* or both its authorization_endpoint"):
        OAuthProvider("files", "id", authorization_endpoint="https://files.example/auth")
    made = OAuthProvider(
        "files",
        "id",
        authorization_endpoint="https://files.example/auth",
        token_endpoint="https://files.example/token",
    )
    assert made.shown_name == "files" and made.vault_name == "oauth:files"


def test_two_providers_may_not_share_a_name() -> None:
    one = OAuthProvider("files", "a", issuer="https://a.example")
    two = OAuthProvider("files", "b", issuer="https://b.example")
    with pytest.raises(ValueError, match="share a name"):
        Elicitation(store="memory://", providers=[one, two])


def test_no_secret_shows_in_a_repr() -> None:
    provider = OAuthProvider("files", "id", "provider-secret", issuer="https://files.example")
    identity = OidcIdentity("https://accounts.example", "pages", "pages-secret")
    token = ProviderToken("files", SecretStr("access-token-value"), expires_at=time.time() + 60)
    for shown in (repr(provider), repr(identity), repr(token), str(token)):
        for secret in ("provider-secret", "pages-secret", "access-token-value"):
            assert secret not in shown
    assert token.authorization() == {"Authorization": "Bearer access-token-value"}
    assert not token.expired


def test_the_vault_keeps_only_what_a_token_needs() -> None:
    kept = dump_token(
        {
            "access_token": "a",
            "refresh_token": "r",
            "id_token": "eyJ.identity.token",
            "expires_in": 60,
            "token_type": "Bearer",
            "scope": "files:read",
            "anything": "else",
        }
    )
    assert "id_token" not in kept and "anything" not in kept and "expires_at" in kept
    # Of a provider's error, only a code OAuth defines is kept: never its free text.
    assert json.loads(dump_error("server_error")) == {"error": "server_error"}
    assert json.loads(dump_error("call +1-555-0100 now")) == {"error": None}


def test_sign_in_always_asks_for_openid_and_needs_a_client_id() -> None:
    identity = OidcIdentity("https://accounts.example", "pages", scopes=("email",))
    assert identity.scopes == ("openid", "email")
    with pytest.raises(ValueError, match="client_id"):
        OidcIdentity("https://accounts.example", "")
